package hypergraph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
)

// TestLayerInModel uses a spec-built residual network as one layer of a
// model built directly with the engine, logits = resnet(tanh(x W')),
// whose parameters one ad.Params holds.
func TestLayerInModel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	m := loadMachine[float64](t, "testdata/resnet.json", 3)
	x, labels := classes[float64](rnd, 4, 3, 64)

	var ps ad.Params[float64]
	var g ad.Graph[float64]
	w := ad.NewTensor[float64](4, 4)
	for i := range w.Data {
		w.Data[i] = 0.5 * rnd.NormFloat64()
	}
	wn := ps.Use(&g, "in", w)
	mp := m.Use(&g, &ps, "resnet")
	logits := m.Build(&g, mp, []*ad.Node[float64]{g.Tanh(g.MatMul(g.Input(x), wn, false, true))})[0]
	loss := g.SoftmaxCrossEntropy(logits, labels)

	if e := ad.CheckGradient(&g, loss, append([]*ad.Node[float64]{wn}, mp...), 1e-6); e.Rel > 1e-6 {
		t.Errorf("gradient error %+v", e)
	}

	opt := &optim.Adam{LR: 0.01}
	var first float64
	for k := range 100 {
		g.Forward()
		if k == 0 {
			first = loss.Scalar()
		}
		g.Backward(loss)
		opt.Step(ps.Values(), ps.Grads())
	}
	g.Forward()
	if last := loss.Scalar(); !(last < 0.5*first) {
		t.Errorf("cross-entropy from %.4g to %.4g in 100 Adam steps", first, last)
	}
}

// TestMachineAsMap uses a machine as the map of a hyperedge of a larger
// machine: y = resnet(tanh(a)) + L x with a = W x + b.
func TestMachineAsMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(10, 10))
	inner := loadMachine[float64](t, "testdata/resnet.json", 4)
	outerSpec, err := FromSpec[float64](&Spec{
		Vertices: []VertexSpec{{Name: "x", Shape: []int{4}}, {Name: "a", Shape: []int{4}, Activation: Tanh}, {Name: "y", Shape: []int{3}}},
		Edges: []EdgeSpec{
			{Name: "in", Kind: "dense", Sources: []string{"x"}, Targets: []string{"a"}},
			{Name: "skip", Kind: "linear", Sources: []string{"x"}, Targets: []string{"y"}},
		},
	}, 5)
	if err != nil {
		t.Fatal(err)
	}
	h := &Hypergraph{
		Vertices: []string{"x", "a", "y"},
		Edges: []Edge{
			{Name: "in", Sources: []int{0}, Targets: []int{1}},
			{Name: "skip", Sources: []int{0}, Targets: []int{2}},
			{Name: "resnet", Sources: []int{1}, Targets: []int{2}},
		},
	}
	spaces := []Space{outerSpec.Space(0), outerSpec.Space(1), outerSpec.Space(2)}
	outer, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Maps: []Map[float64]{outerSpec.maps[0], outerSpec.maps[1], inner.Map()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(outer.Params()), len(outerSpec.Params())+len(inner.Params()); got != want {
		t.Fatalf("%d parameters, want %d", got, want)
	}
	if got, want := outer.Layers(), [][]int{{0, 1}, {2}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("layers %v, want %v", got, want)
	}

	// The same function composed by hand from the two machines.
	x, _ := classes[float64](rnd, 4, 3, 5)
	var g ad.Graph[float64]
	xn := g.Input(x)
	states := outerSpec.StableState(&g, nil, []*ad.Node[float64]{xn, nil, nil})
	want := g.Add(states[2], inner.Build(&g, nil, []*ad.Node[float64]{g.Tanh(states[1])})[0])
	got := outer.Build(&g, nil, []*ad.Node[float64]{xn})[0]
	if !slices.Equal(got.Value.Data, want.Value.Data) {
		t.Errorf("nested machine gives\n%v\nwant\n%v", got.Value.Data, want.Value.Data)
	}

	init := []*ad.Tensor[float64]{x, nil, nil}
	checkAgainstIterate(t, outer, init)
	checkGradient(t, outer, init, rnd, 1e-6)
}

// TestSharedWeights applies one machine to two inputs with the same
// parameter nodes, as a siamese network does; the gradient sums both.
func TestSharedWeights(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 11))
	m := loadMachine[float64](t, "testdata/perceptron.json", 6)
	a, _ := classes[float64](rnd, 4, 3, 3)
	b, _ := classes[float64](rnd, 4, 3, 3)
	var g ad.Graph[float64]
	p := m.ParamNodes(&g)
	ya := m.Build(&g, p, []*ad.Node[float64]{g.Input(a)})[0]
	yb := m.Build(&g, p, []*ad.Node[float64]{g.Input(b)})[0]
	d := g.Sub(ya, yb)
	loss := g.Dot(d, d)
	if e := ad.CheckGradient(&g, loss, p, 1e-6); e.Rel > 1e-6 {
		t.Errorf("gradient error %+v", e)
	}
}
