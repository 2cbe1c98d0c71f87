package hypergraph

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
)

// tanhLayer is a nonlinear map from vectors to vectors: target t
// receives tanh(Σ_s W[t][s] x_s + b[t]), with parameters "w.t.s" and
// "b.t" drawn standard normal.
type tanhLayer struct{ tgt []int }

func randTensor(rnd *rand.Rand, scale float64, shape ...int) *ad.Tensor[float64] {
	t := ad.NewTensor[float64](shape...)
	for i := range t.Data {
		t.Data[i] = scale * rnd.NormFloat64()
	}
	return t
}

func (l tanhLayer) Init(s *ad.Scope[float64], in [][]int) ([][]int, error) {
	var out [][]int
	for t, dt := range l.tgt {
		for j, src := range in {
			w := s.NewParam(fmt.Sprintf("w.%d.%d", t, j), dt, src[0])
			copy(w.Data, randTensor(s.Rand, 1, dt, src[0]).Data)
		}
		b := s.NewParam(fmt.Sprintf("b.%d", t), 1, dt)
		copy(b.Data, randTensor(s.Rand, 1, 1, dt).Data)
		out = append(out, []int{dt})
	}
	return out, nil
}

func (l tanhLayer) Apply(s *ad.Scope[float64], x []*ad.Node[float64]) ([]*ad.Node[float64], error) {
	g := s.Graph
	var y []*ad.Node[float64]
	for t, dt := range l.tgt {
		acc := g.Input(ad.NewTensor[float64](x[0].Value.Shape[0], dt))
		for j := range x {
			acc = g.Add(acc, g.MatMul(x[j], s.Param(fmt.Sprintf("w.%d.%d", t, j)), false, true))
		}
		y = append(y, g.Tanh(g.AddRow(acc, s.Param(fmt.Sprintf("b.%d", t)))))
	}
	return y, nil
}

// eval computes the map of the layer called name, whose parameters ps
// holds, with gonum, independently of Apply.
func (l tanhLayer) eval(ps *ad.Params[float64], name string, x ...*mat.Dense) []*mat.Dense {
	var y []*mat.Dense
	n, _ := x[0].Dims()
	for t, r := range l.tgt {
		acc := mat.NewDense(n, r, nil)
		for j := range x {
			w := ps.Value(fmt.Sprintf("%s.w.%d.%d", name, t, j))
			var p mat.Dense
			p.Mul(x[j], dense(w).T())
			acc.Add(acc, &p)
		}
		b := ps.Value(fmt.Sprintf("%s.b.%d", name, t))
		acc.Apply(func(_, j int, v float64) float64 { return math.Tanh(v + b.Data[j]) }, acc)
		y = append(y, acc)
	}
	return y
}

// initParams initialises m for its input spaces in a new parameter set.
func initParams[T ad.Float](t *testing.T, m *Machine[T], rnd *rand.Rand) *ad.Params[T] {
	t.Helper()
	var ps ad.Params[T]
	var in [][]int
	for _, v := range m.Inputs() {
		in = append(in, m.Space(v).Shape)
	}
	if _, err := m.Init(ad.NewScope(nil, &ps, "", rnd), in); err != nil {
		t.Fatal(err)
	}
	return &ps
}

func dense(t *ad.Tensor[float64]) *mat.Dense { return mat.NewDense(t.Shape[0], t.Shape[1], t.Data) }

func add(a, b *mat.Dense) *mat.Dense {
	var c mat.Dense
	c.Add(a, b)
	return &c
}

// figure1Machine returns the hypergraph machine of Figure 1 with maps
// l1..l5 of the form tanh(W x + b) and the dimensions dims, and its
// parameters, drawn from rnd.
func figure1Machine(t *testing.T, rnd *rand.Rand, dims []int) (*Machine[float64], []tanhLayer, *ad.Params[float64]) {
	h := figure1()
	spaces := make([]Space, len(dims))
	for v, d := range dims {
		spaces[v] = Space{Shape: []int{d}}
	}
	var tanhs []tanhLayer
	var layers []ad.Layer[float64]
	for _, E := range h.Edges {
		var tgt []int
		for _, v := range E.Targets {
			tgt = append(tgt, dims[v])
		}
		tanhs = append(tanhs, tanhLayer{tgt})
		layers = append(layers, tanhs[len(tanhs)-1])
	}
	m, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Layers: layers})
	if err != nil {
		t.Fatal(err)
	}
	return m, tanhs, initParams(t, m, rnd)
}

// TestFigure1 checks the stable state of the machine of Figure 1 against
// the closed form in the figure's caption:
//
//	(x1, x2, l1(x1, x2) + x3, l2(l1(x1, x2) + x3) + x4, …,
//	 l5(l4(l2(l1(x1, x2) + x3) + x4) + x5) + x8).
func TestFigure1(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2} // v1 … v8
	m, l, ps := figure1Machine(t, rnd, dims)
	if got, want := m.Layers(), [][]int{{0, 2}, {1}, {3}, {4}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("layers %v, want %v", got, want)
	}
	if got, want := m.Inputs(), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("default inputs %v, want %v", got, want)
	}
	if got, want := m.Outputs(), []int{5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("default outputs %v, want %v", got, want)
	}

	const n = 5
	x := make([]*mat.Dense, len(dims))
	var g ad.Graph[float64]
	init := make([]*ad.Node[float64], len(dims))
	for v, d := range dims {
		init[v] = g.Input(randTensor(rnd, 1, n, d))
		x[v] = dense(init[v].Value)
	}
	states, err := m.StableState(ad.NewScope(&g, ps, "", nil), init)
	if err != nil {
		t.Fatal(err)
	}

	// The caption's closed form, with E4's targets in the order v6, v5, v7.
	name := func(e int) string { return m.h.Edges[e].Name }
	h3 := add(l[0].eval(ps, name(0), x[0], x[1])[0], x[2])
	h4 := add(l[1].eval(ps, name(1), h3)[0], x[3])
	l4 := l[3].eval(ps, name(3), h4)
	h5 := add(l4[1], x[4])
	want := []*mat.Dense{
		x[0],
		x[1],
		h3,
		h4,
		h5,
		add(add(l[2].eval(ps, name(2), x[0])[0], l4[0]), x[5]),
		add(l4[2], x[6]),
		add(l[4].eval(ps, name(4), h5)[0], x[7]),
	}
	for v, s := range states {
		if !mat.EqualApprox(dense(s.Value), want[v], 1e-14) {
			t.Errorf("state of v%d =\n%v\nwant\n%v", v+1, mat.Formatted(dense(s.Value)), mat.Formatted(want[v]))
		}
	}
}

// flat returns the machine f = Σ_E p_E of m as an endofunction of the
// direct sum M of its spaces, for package machines: a row per sample, the
// coordinates of the vertices side by side. It evaluates every hyperedge
// on every call, in no particular order, and knows nothing of layers.
func flat(m *Machine[float64], ps *ad.Params[float64]) (f machines.Machine, offsets []int) {
	offsets = []int{0}
	for _, s := range m.spaces {
		offsets = append(offsets, offsets[len(offsets)-1]+size(s.Shape))
	}
	f = machines.Func(func(dst, h *mat.Dense) {
		dst.Zero()
		var g ad.Graph[float64]
		s := ad.NewScope(&g, ps.WithGrads(nil), "", nil)
		for e, E := range m.h.Edges {
			x := make([]*ad.Node[float64], len(E.Sources))
			for i, v := range E.Sources {
				x[i] = ad.Activate(&g, m.spaces[v].Activation, g.Input(toTensor(h, m.spaces[v].Shape, offsets[v])))
			}
			y, err := m.layers[e].Apply(s.Sub(m.scopes[e]), x)
			if err != nil {
				panic(err)
			}
			for i, y := range y {
				v := E.Targets[i]
				addFromTensor(dst, y.Value, m.spaces[v].Shape, offsets[v])
			}
		}
	})
	return f, offsets
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// toTensor returns the batched value of a vertex of the given shape whose
// coordinates start at column off of h.
func toTensor(h *mat.Dense, shape []int, off int) *ad.Tensor[float64] {
	n, _ := h.Dims()
	k := size(shape)
	t := ad.NewTensor[float64](batched(shape, n)...)
	for j := range n {
		for i := range k {
			t.Data[j*k+i] = h.At(j, off+i)
		}
	}
	return t
}

// addFromTensor adds the batched value t of a vertex into the columns of
// dst that start at off.
func addFromTensor(dst *mat.Dense, t *ad.Tensor[float64], shape []int, off int) {
	n, _ := dst.Dims()
	k := size(shape)
	for j := range n {
		for i := range k {
			dst.Set(j, off+i, dst.At(j, off+i)+t.Data[j*k+i])
		}
	}
}

// checkAgainstIterate checks the theorem the layered forward pass relies
// on: the stable state computed layer by layer equals the limit of the
// plain iteration h_{k+1} = g + f(h_k) of package machines on the direct
// sum M, for the initial condition init (a value per vertex, nil for
// zero). For a hypergraph machine the iteration settles exactly, after
// as many steps as there are layers.
func checkAgainstIterate(t *testing.T, m *Machine[float64], ps *ad.Params[float64], init []*ad.Tensor[float64]) {
	t.Helper()
	f, off := flat(m, ps)
	n := -1
	for v, x := range init {
		if x != nil {
			n = batchOf(m.spaces[v].Shape, x.Shape)
		}
	}
	g0 := mat.NewDense(n, off[len(off)-1], nil)
	var g ad.Graph[float64]
	nodes := make([]*ad.Node[float64], len(init))
	for v, x := range init {
		if x != nil {
			addFromTensor(g0, x, m.spaces[v].Shape, off[v])
			nodes[v] = g.Input(x)
		}
	}
	var want mat.Dense
	res, err := machines.Iterate(&want, f, g0, machines.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth != len(m.order) {
		t.Errorf("plain iteration settled at depth %d, want the number of layers %d", res.Depth, len(m.order))
	}
	got := mat.NewDense(n, off[len(off)-1], nil)
	states, err := m.StableState(ad.NewScope(&g, ps, "", nil), nodes)
	if err != nil {
		t.Fatal(err)
	}
	for v, s := range states {
		addFromTensor(got, s.Value, m.spaces[v].Shape, off[v])
	}
	if !mat.EqualApprox(got, &want, 1e-12) {
		t.Errorf("layered stable state differs from machines.Iterate:\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(&want))
	}
}

func TestFigure1Iterate(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 2))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2}
	m, _, ps := figure1Machine(t, rnd, dims)
	init := make([]*ad.Tensor[float64], len(dims))
	for v, d := range dims {
		init[v] = randTensor(rnd, 1, 4, d)
	}
	checkAgainstIterate(t, m, ps, init)
	// With only the inputs v1 and v2 given, as Apply does.
	checkAgainstIterate(t, m, ps, []*ad.Tensor[float64]{init[0], init[1], nil, nil, nil, nil, nil, nil})
}

// checkGradient compares the gradient of a random linear functional of
// every vertex state, with respect to the parameters and to the initial
// condition, against finite differences.
func checkGradient(t *testing.T, m *Machine[float64], ps *ad.Params[float64], init []*ad.Tensor[float64], rnd *rand.Rand, tol float64) {
	t.Helper()
	var g ad.Graph[float64]
	var check []*ad.Node[float64]
	for _, name := range ps.Names() {
		check = append(check, ps.Node(&g, name))
	}
	nodes := make([]*ad.Node[float64], len(init))
	for v, x := range init {
		if x != nil {
			nodes[v] = g.Param(x, nil)
			check = append(check, nodes[v])
		}
	}
	states, err := m.StableState(ad.NewScope(&g, ps, "", nil), nodes)
	if err != nil {
		t.Fatal(err)
	}
	var loss *ad.Node[float64]
	for _, s := range states {
		term := g.Dot(s, g.Input(randTensor(rnd, 1, s.Value.Shape...)))
		if loss == nil {
			loss = term
		} else {
			loss = g.Add(loss, term)
		}
	}
	if e := ad.CheckGradient(&g, loss, check, 1e-6); e.Rel > tol {
		t.Errorf("gradient error %+v", e)
	}
}

func TestFigure1Gradient(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2}
	m, _, ps := figure1Machine(t, rnd, dims)
	init := make([]*ad.Tensor[float64], len(dims))
	for v, d := range dims {
		init[v] = randTensor(rnd, 1, 3, d)
	}
	checkGradient(t, m, ps, init, rnd, 1e-7)
}

// TestSharedParams checks that two edges under one shared name use one
// set of parameters, whose gradient sums both uses.
func TestSharedParams(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	h := build([]string{"a", "b", "c"}, []testEdge{
		{"E1", []string{"a"}, []string{"b"}},
		{"E2", []string{"b"}, []string{"c"}},
	})
	l := tanhLayer{[]int{3}}
	m, err := New(Config[float64]{Hypergraph: h, Spaces: []Space{{Shape: []int{3}}, {Shape: []int{3}}, {Shape: []int{3}}},
		Layers: []ad.Layer[float64]{l, l}, Shared: []string{"L", "L"}})
	if err != nil {
		t.Fatal(err)
	}
	ps := initParams(t, m, rnd)
	if got, want := ps.Len(), 3*3+3; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	checkGradient(t, m, ps, []*ad.Tensor[float64]{randTensor(rnd, 1, 2, 3), nil, nil}, rnd, 1e-7)
}

func TestMachinePanics(t *testing.T) {
	h := build([]string{"a", "b"}, []testEdge{{"E", []string{"a"}, []string{"b"}}})
	vec := func(d int) Space { return Space{Shape: []int{d}} }
	good := func() Config[float64] {
		return Config[float64]{Hypergraph: h, Spaces: []Space{vec(2), vec(3)}, Layers: []ad.Layer[float64]{tanhLayer{[]int{3}}}}
	}
	for _, test := range []struct {
		name, want string
		f          func()
	}{
		{"spaces", "1 spaces for 2 vertices", func() { c := good(); c.Spaces = c.Spaces[:1]; New(c) }},
		{"layers", "0 layers for 1 edges", func() { c := good(); c.Layers = nil; New(c) }},
		{"nil layer", "edge E: nil layer", func() { c := good(); c.Layers[0] = nil; New(c) }},
		{"shape", "vertex b: invalid shape [0]", func() { c := good(); c.Spaces[1] = vec(0); New(c) }},
		{"activation", `vertex a: unknown activation "softplus"`, func() { c := good(); c.Spaces[0].Activation = "softplus"; New(c) }},
		{"inputs", "invalid input or output list [2]", func() { c := good(); c.Inputs = []int{2}; New(c) }},
	} {
		t.Run(test.name, func(t *testing.T) { testutil.CheckPanic(t, test.f, test.want) })
	}
}

// TestMachineErrors checks the errors of Init and Apply: inputs that do
// not fit the machine, and a layer whose output does not fit its target.
func TestMachineErrors(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	h := build([]string{"a", "b"}, []testEdge{{"E", []string{"a"}, []string{"b"}}})
	spaces := []Space{{Shape: []int{2}}, {Shape: []int{3}}}
	gm, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Layers: []ad.Layer[float64]{tanhLayer{[]int{3}}}})
	if err != nil {
		t.Fatal(err)
	}
	wm, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Layers: []ad.Layer[float64]{tanhLayer{[]int{4}}}})
	if err != nil {
		t.Fatal(err)
	}
	ps := initParams(t, gm, rnd)
	var g ad.Graph[float64]
	in := func(shape ...int) []*ad.Node[float64] {
		return []*ad.Node[float64]{g.Input(ad.NewTensor[float64](shape...))}
	}
	apply := func(x []*ad.Node[float64]) error {
		_, err := gm.Apply(ad.NewScope(&g, ps, "", nil), x)
		return err
	}
	for _, test := range []struct {
		name, want string
		err        error
	}{
		{"layer output", "edge E: its layer gives shape [4] for target b of shape [3]", func() error {
			_, err := wm.Init(ad.NewScope(nil, new(ad.Params[float64]), "", rnd), [][]int{{2}})
			return err
		}()},
		{"init shapes", "input vertex a has shape [2], given [5]", func() error {
			_, err := gm.Init(ad.NewScope(nil, new(ad.Params[float64]), "", rnd), [][]int{{5}})
			return err
		}()},
		{"input count", "0 inputs for a machine with 1 input vertices", apply(nil)},
		{"input shape", "vertex a: input of shape [1 3], want [1 2]", apply(in(1, 3))},
		{"input rank", "vertex a: input of shape [2]", apply(in(2))},
	} {
		if test.err == nil || !strings.Contains(test.err.Error(), test.want) {
			t.Errorf("%s: error %v, want one containing %q", test.name, test.err, test.want)
		}
	}
}

func equalWithin(a, b, tol float64) bool { return scalar.EqualWithinAbsOrRel(a, b, tol, tol) }
