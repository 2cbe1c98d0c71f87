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
	s, err := LoadSpec("testdata/resnet.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromSpec[float64](s)
	if err != nil {
		t.Fatal(err)
	}
	x, labels := classes[float64](rnd, 4, 3, 64)

	var ps ad.Params[float64]
	var g ad.Graph[float64]
	w := ad.NewTensor[float64](4, 4)
	for i := range w.Data {
		w.Data[i] = 0.5 * rnd.NormFloat64()
	}
	wn := ps.Use(&g, "in", w)
	scope := ad.NewScope(&g, &ps, "resnet", rnd)
	if _, err := m.Init(scope, [][]int{{4}}); err != nil {
		t.Fatal(err)
	}
	out, err := m.Apply(scope, []*ad.Node[float64]{g.Tanh(g.MatMul(g.Input(x), wn, false, true))})
	if err != nil {
		t.Fatal(err)
	}
	loss := g.SoftmaxCrossEntropy(out[0], labels)
	var check []*ad.Node[float64]
	for _, name := range ps.Names() {
		check = append(check, ps.Node(&g, name))
	}
	if e := ad.CheckGradient(&g, loss, check, 1e-6); e.Rel > 1e-6 {
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

// TestMachineAsLayer uses a machine as the layer of a hyperedge of a
// larger machine: y = resnet(tanh(a)) + L x with a = W x + b.
func TestMachineAsLayer(t *testing.T) {
	rnd := rand.New(rand.NewPCG(10, 10))
	s, err := LoadSpec("testdata/resnet.json")
	if err != nil {
		t.Fatal(err)
	}
	inner, err := FromSpec[float64](s)
	if err != nil {
		t.Fatal(err)
	}
	outerSpec, err := FromSpec[float64](&Spec{
		Vertices: []VertexSpec{{Name: "x", Shape: []int{4}}, {Name: "a", Shape: []int{4}, Activation: ad.Tanh}, {Name: "y", Shape: []int{3}}},
		Edges: []EdgeSpec{
			{Name: "in", Kind: "dense", Sources: []string{"x"}, Targets: []string{"a"}},
			{Name: "skip", Kind: "linear", Sources: []string{"x"}, Targets: []string{"y"}},
		},
	})
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
	outer, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Layers: []ad.Layer[float64]{outerSpec.layers[0], outerSpec.layers[1], inner}})
	if err != nil {
		t.Fatal(err)
	}
	ps := initParams(t, outer, rnd)
	innerCount := initParams(t, inner, rnd).Len()
	if got, want := ps.Len(), 4*4+4+3*4+innerCount; got != want {
		t.Fatalf("%d parameters, want %d", got, want)
	}
	if got, want := outer.Layers(), [][]int{{0, 1}, {2}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("layers %v, want %v", got, want)
	}

	// The same function composed by hand from the two machines, reading
	// the same parameters.
	x, _ := classes[float64](rnd, 4, 3, 5)
	var g ad.Graph[float64]
	xn := g.Input(x)
	states, err := outerSpec.StableState(ad.NewScope(&g, ps, "", nil), []*ad.Node[float64]{xn, nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := g.Add(states[2], must(inner.Apply(ad.NewScope(&g, ps, "resnet", nil), []*ad.Node[float64]{g.Tanh(states[1])}))[0])
	got := apply(t, &g, outer, ps, xn)[0]
	if !slices.Equal(got.Value.Data, want.Value.Data) {
		t.Errorf("nested machine gives\n%v\nwant\n%v", got.Value.Data, want.Value.Data)
	}

	init := []*ad.Tensor[float64]{x, nil, nil}
	checkAgainstIterate(t, outer, ps, init)
	checkGradient(t, outer, ps, init, rnd, 1e-6)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSharedWeights applies one machine twice in one scope, as a siamese
// network does: both uses read one set of parameters, whose gradient
// sums both.
func TestSharedWeights(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 11))
	m, ps := loadMachine[float64](t, "testdata/perceptron.json", 6)
	a, _ := classes[float64](rnd, 4, 3, 3)
	b, _ := classes[float64](rnd, 4, 3, 3)
	var g ad.Graph[float64]
	ya := apply(t, &g, m, ps, g.Input(a))[0]
	yb := apply(t, &g, m, ps, g.Input(b))[0]
	d := g.Sub(ya, yb)
	loss := g.Dot(d, d)
	var check []*ad.Node[float64]
	for _, name := range ps.Names() {
		check = append(check, ps.Node(&g, name))
	}
	if e := ad.CheckGradient(&g, loss, check, 1e-6); e.Rel > 1e-6 {
		t.Errorf("gradient error %+v", e)
	}
}
