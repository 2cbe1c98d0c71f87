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
)

// tanhMap is a nonlinear map from vectors to vectors: target t receives
// tanh(Σ_s W[t][s] x_s + b[t]).
type tanhMap struct {
	w [][]*ad.Tensor[float64]
	b []*ad.Tensor[float64]
}

func newTanhMap(rnd *rand.Rand, src, tgt []int) *tanhMap {
	m := &tanhMap{}
	for _, dt := range tgt {
		var row []*ad.Tensor[float64]
		for _, ds := range src {
			row = append(row, randTensor(rnd, 1, dt, ds))
		}
		m.w = append(m.w, row)
		m.b = append(m.b, randTensor(rnd, 1, 1, dt))
	}
	return m
}

func randTensor(rnd *rand.Rand, scale float64, shape ...int) *ad.Tensor[float64] {
	t := ad.NewTensor[float64](shape...)
	for i := range t.Data {
		t.Data[i] = scale * rnd.NormFloat64()
	}
	return t
}

func (m *tanhMap) Params() []*ad.Tensor[float64] {
	var ps []*ad.Tensor[float64]
	for t, row := range m.w {
		ps = append(ps, row...)
		ps = append(ps, m.b[t])
	}
	return ps
}

func (m *tanhMap) Build(g *ad.Graph[float64], n int, params, x []*ad.Node[float64]) []*ad.Node[float64] {
	var y []*ad.Node[float64]
	k := 0
	for t := range m.w {
		acc := g.Input(ad.NewTensor[float64](n, m.b[t].Shape[1]))
		for s := range x {
			acc = g.Add(acc, g.MatMul(x[s], params[k], false, true))
			k++
		}
		y = append(y, g.Tanh(g.AddRow(acc, params[k])))
		k++
	}
	return y
}

// eval computes the map with gonum, independently of Build.
func (m *tanhMap) eval(x ...*mat.Dense) []*mat.Dense {
	var y []*mat.Dense
	for t, row := range m.w {
		r, n := m.b[t].Shape[1], 1
		if len(x) > 0 {
			n, _ = x[0].Dims()
		}
		acc := mat.NewDense(n, r, nil)
		for s, w := range row {
			var p mat.Dense
			p.Mul(x[s], mat.NewDense(w.Shape[0], w.Shape[1], w.Data).T())
			acc.Add(acc, &p)
		}
		acc.Apply(func(_, j int, v float64) float64 { return math.Tanh(v + m.b[t].Data[j]) }, acc)
		y = append(y, acc)
	}
	return y
}

func dense(t *ad.Tensor[float64]) *mat.Dense { return mat.NewDense(t.Shape[0], t.Shape[1], t.Data) }

func add(a, b *mat.Dense) *mat.Dense {
	var c mat.Dense
	c.Add(a, b)
	return &c
}

// figure1Machine returns the hypergraph machine of Figure 1 with random
// maps l1..l5 of the form tanh(W x + b) and the dimensions dims.
func figure1Machine(t *testing.T, rnd *rand.Rand, dims []int) (*Machine[float64], []*tanhMap) {
	h := figure1()
	spaces := make([]Space, len(dims))
	for v, d := range dims {
		spaces[v] = Space{Shape: []int{d}}
	}
	var tanhs []*tanhMap
	var maps []Map[float64]
	for _, E := range h.Edges {
		var src, tgt []int
		for _, v := range E.Sources {
			src = append(src, dims[v])
		}
		for _, v := range E.Targets {
			tgt = append(tgt, dims[v])
		}
		l := newTanhMap(rnd, src, tgt)
		tanhs = append(tanhs, l)
		maps = append(maps, l)
	}
	m, err := New(Config[float64]{Hypergraph: h, Spaces: spaces, Maps: maps})
	if err != nil {
		t.Fatal(err)
	}
	return m, tanhs
}

// TestFigure1 checks the stable state of the machine of Figure 1 against
// the closed form in the figure's caption:
//
//	(x1, x2, l1(x1, x2) + x3, l2(l1(x1, x2) + x3) + x4, …,
//	 l5(l4(l2(l1(x1, x2) + x3) + x4) + x5) + x8).
func TestFigure1(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2} // v1 … v8
	m, l := figure1Machine(t, rnd, dims)
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
	states := m.StableState(&g, nil, init)

	// The caption's closed form, with E4's targets in the order v6, v5, v7.
	h3 := add(l[0].eval(x[0], x[1])[0], x[2])
	h4 := add(l[1].eval(h3)[0], x[3])
	l4 := l[3].eval(h4)
	h5 := add(l4[1], x[4])
	want := []*mat.Dense{
		x[0],
		x[1],
		h3,
		h4,
		h5,
		add(add(l[2].eval(x[0])[0], l4[0]), x[5]),
		add(l4[2], x[6]),
		add(l[4].eval(h5)[0], x[7]),
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
func flat(m *Machine[float64]) (f machines.Machine, offsets []int) {
	offsets = []int{0}
	for _, s := range m.spaces {
		offsets = append(offsets, offsets[len(offsets)-1]+size(s.Shape))
	}
	f = machines.Func(func(dst, h *mat.Dense) {
		n, _ := h.Dims()
		dst.Zero()
		var g ad.Graph[float64]
		params := make([]*ad.Node[float64], len(m.values))
		for i, t := range m.values {
			params[i] = g.Input(t)
		}
		for e, E := range m.h.Edges {
			x := make([]*ad.Node[float64], len(E.Sources))
			for i, v := range E.Sources {
				x[i] = activate(&g, m.spaces[v].Activation, g.Input(toTensor(h, m.spaces[v].Shape, offsets[v])))
			}
			for i, y := range m.apply(&g, n, e, params, x) {
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
func checkAgainstIterate(t *testing.T, m *Machine[float64], init []*ad.Tensor[float64]) {
	t.Helper()
	f, off := flat(m)
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
	res, err := machines.Iterate(&want, f, g0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth != len(m.layers) {
		t.Errorf("plain iteration settled at depth %d, want the number of layers %d", res.Depth, len(m.layers))
	}
	got := mat.NewDense(n, off[len(off)-1], nil)
	for v, s := range m.StableState(&g, nil, nodes) {
		addFromTensor(got, s.Value, m.spaces[v].Shape, off[v])
	}
	if !mat.EqualApprox(got, &want, 1e-12) {
		t.Errorf("layered stable state differs from machines.Iterate:\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(&want))
	}
}

func TestFigure1Iterate(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 2))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2}
	m, _ := figure1Machine(t, rnd, dims)
	init := make([]*ad.Tensor[float64], len(dims))
	for v, d := range dims {
		init[v] = randTensor(rnd, 1, 4, d)
	}
	checkAgainstIterate(t, m, init)
	// With only the inputs v1 and v2 given, as Build does.
	checkAgainstIterate(t, m, []*ad.Tensor[float64]{init[0], init[1], nil, nil, nil, nil, nil, nil})
}

// checkGradient compares the gradient of a random linear functional of
// every vertex state, with respect to the parameters and to the initial
// condition, against finite differences.
func checkGradient(t *testing.T, m *Machine[float64], init []*ad.Tensor[float64], rnd *rand.Rand, tol float64) {
	t.Helper()
	var g ad.Graph[float64]
	params := m.ParamNodes(&g)
	nodes := make([]*ad.Node[float64], len(init))
	check := slices.Clone(params)
	for v, x := range init {
		if x != nil {
			nodes[v] = g.Param(x, nil)
			check = append(check, nodes[v])
		}
	}
	var loss *ad.Node[float64]
	for _, s := range m.StableState(&g, params, nodes) {
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
	// The machine's gradient vector is what Backward wrote.
	off := 0
	for _, p := range params {
		if !slices.Equal(m.Grad()[off:off+p.Grad.Len()], p.Grad.Data) {
			t.Fatal("Grad does not hold the gradients of the parameter nodes")
		}
		off += p.Grad.Len()
	}
}

func TestFigure1Gradient(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	dims := []int{2, 3, 4, 3, 2, 3, 2, 2}
	m, _ := figure1Machine(t, rnd, dims)
	init := make([]*ad.Tensor[float64], len(dims))
	for v, d := range dims {
		init[v] = randTensor(rnd, 1, 3, d)
	}
	checkGradient(t, m, init, rnd, 1e-7)
}

// TestSharedParams checks that a tensor returned by two maps is one
// parameter, whose gradient sums both uses.
func TestSharedParams(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	h := build([]string{"a", "b", "c"}, []testEdge{
		{"E1", []string{"a"}, []string{"b"}},
		{"E2", []string{"b"}, []string{"c"}},
	})
	l := newTanhMap(rnd, []int{3}, []int{3})
	m, err := New(Config[float64]{Hypergraph: h, Spaces: []Space{{Shape: []int{3}}, {Shape: []int{3}}, {Shape: []int{3}}}, Maps: []Map[float64]{l, l}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(m.Params()), 3*3+3; got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	checkGradient(t, m, []*ad.Tensor[float64]{randTensor(rnd, 1, 2, 3), nil, nil}, rnd, 1e-7)
}

func TestMachinePanics(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	h := build([]string{"a", "b"}, []testEdge{{"E", []string{"a"}, []string{"b"}}})
	vec := func(d int) Space { return Space{Shape: []int{d}} }
	good := func() Config[float64] {
		return Config[float64]{Hypergraph: h, Spaces: []Space{vec(2), vec(3)}, Maps: []Map[float64]{newTanhMap(rnd, []int{2}, []int{3})}}
	}
	// A map whose output does not fit its target.
	wrong := good()
	wrong.Maps = []Map[float64]{newTanhMap(rnd, []int{2}, []int{4})}
	wm, err := New(wrong)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := New(good())
	if err != nil {
		t.Fatal(err)
	}
	in := func(shape ...int) []*ad.Node[float64] {
		var g ad.Graph[float64]
		return []*ad.Node[float64]{g.Input(ad.NewTensor[float64](shape...))}
	}
	for _, test := range []struct {
		name, want string
		f          func()
	}{
		{"spaces", "1 spaces for 2 vertices", func() { c := good(); c.Spaces = c.Spaces[:1]; New(c) }},
		{"maps", "0 maps for 1 edges", func() { c := good(); c.Maps = nil; New(c) }},
		{"nil map", "edge E: nil map", func() { c := good(); c.Maps[0] = nil; New(c) }},
		{"shape", "vertex b: invalid shape [0]", func() { c := good(); c.Spaces[1] = vec(0); New(c) }},
		{"activation", `vertex a: unknown activation "softplus"`, func() { c := good(); c.Spaces[0].Activation = "softplus"; New(c) }},
		{"inputs", "invalid input or output list [2]", func() { c := good(); c.Inputs = []int{2}; New(c) }},
		{"map output", "edge E: map returned shape [1 4] for target b, want [1 3]", func() { wm.Build(&ad.Graph[float64]{}, nil, in(1, 2)) }},
		{"input count", "0 inputs for a machine with 1 input vertices", func() { gm.Build(&ad.Graph[float64]{}, nil, nil) }},
		{"input shape", "vertex a: input of shape [1 3], want [1 2]", func() { gm.Build(&ad.Graph[float64]{}, nil, in(1, 3)) }},
		{"input rank", "vertex a: input of shape [2]", func() { gm.Build(&ad.Graph[float64]{}, nil, in(2)) }},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("no panic")
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, test.want) {
					t.Errorf("panic %q, want it to contain %q", msg, test.want)
				}
			}()
			test.f()
		})
	}
}

func equalWithin(a, b, tol float64) bool { return scalar.EqualWithinAbsOrRel(a, b, tol, tol) }
