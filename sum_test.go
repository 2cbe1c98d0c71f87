package machines

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// spec names the blocks a tanhBlock reads and writes.
type spec struct{ in, out []int }

func build(rnd *rand.Rand, space []Span, specs []spec) []Machine {
	var terms []Machine
	for _, s := range specs {
		terms = append(terms, tanhBlock(rnd, space, s.in, s.out))
	}
	return terms
}

// stable returns the stable state of f with initial condition g by plain
// iteration, failing the test on error.
func stable(t *testing.T, f Machine, g *mat.Dense) *mat.Dense {
	t.Helper()
	var h mat.Dense
	if _, err := Iterate(&h, f, g, Settings{}); err != nil {
		t.Fatal(err)
	}
	return &h
}

// TestComposition checks S_{f+f'} = S_{f'} ∘ S_f (Theorem 2) when f does
// not depend on f' but f' depends on f.
func TestComposition(t *testing.T) {
	space := blocks(2, 3, 2, 3)
	for _, test := range []struct {
		name  string
		f, fp spec
	}{
		{name: "square-zero chain", f: spec{[]int{0}, []int{1}}, fp: spec{[]int{1}, []int{2}}},
		{name: "shortcut", f: spec{[]int{0}, []int{1, 2}}, fp: spec{[]int{0, 1}, []int{3}}},
		{name: "contractions", f: spec{[]int{0, 1}, []int{1}}, fp: spec{[]int{1, 2}, []int{2, 3}}},
		{name: "contraction after square-zero", f: spec{[]int{0}, []int{1}}, fp: spec{[]int{1, 3}, []int{3}}},
		{name: "square-zero after contraction", f: spec{[]int{0, 1}, []int{0, 1}}, fp: spec{[]int{0}, []int{2}}},
	} {
		t.Run(test.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			terms := build(rnd, space, []spec{test.f, test.fp})
			f, fp := terms[0], terms[1]
			deps := Dependencies(terms, dim(space))
			if !deps.HasEdge(0, 1) || deps.HasEdge(1, 0) {
				t.Fatalf("test needs f' to depend on f and not conversely")
			}
			g := randDense(rnd, 4, dim(space), 1)

			sum := &Sum{Terms: terms}
			whole := stable(t, sum, g)
			sameMatrix(t, "S_f' ∘ S_f", stable(t, fp, stable(t, f, g)), whole, 1e-10)
			var layered mat.Dense
			if _, err := sum.StableState(&layered, g, Settings{}); err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "layered", &layered, whole, 1e-10)

			// The dependency is real: the other order, and the formula
			// for mutually independent machines, are both wrong here.
			if d := maxDiff(stable(t, f, stable(t, fp, g)), whole); d < 1e-3 {
				t.Errorf("S_f ∘ S_f' is within %g of S_{f+f'}", d)
			}
			var additive mat.Dense
			additive.Add(stable(t, f, g), stable(t, fp, g))
			additive.Sub(&additive, g)
			if d := maxDiff(&additive, whole); d < 1e-3 {
				t.Errorf("S_f + S_f' - id is within %g of S_{f+f'}", d)
			}
		})
	}
}

// TestIndependent checks S_{f+f'} = S_f + S_{f'} - id (Theorem 2) when
// neither machine depends on the other.
func TestIndependent(t *testing.T) {
	space := blocks(2, 3, 2, 3)
	for _, test := range []struct {
		name  string
		f, fp spec
	}{
		{name: "square-zero", f: spec{[]int{0}, []int{1}}, fp: spec{[]int{2}, []int{3}}},
		{name: "shared input", f: spec{[]int{0}, []int{1}}, fp: spec{[]int{0}, []int{2, 3}}},
		{name: "contractions", f: spec{[]int{0, 1}, []int{1}}, fp: spec{[]int{2, 3}, []int{3}}},
		{name: "contraction and square-zero", f: spec{[]int{0, 1}, []int{0, 1}}, fp: spec{[]int{2}, []int{3}}},
	} {
		t.Run(test.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			terms := build(rnd, space, []spec{test.f, test.fp})
			f, fp := terms[0], terms[1]
			if deps := Dependencies(terms, dim(space)); deps.HasEdge(0, 1) || deps.HasEdge(1, 0) {
				t.Fatalf("test needs independent machines")
			}
			g := randDense(rnd, 4, dim(space), 1)

			sum := &Sum{Terms: terms}
			whole := stable(t, sum, g)
			var additive mat.Dense
			additive.Add(stable(t, f, g), stable(t, fp, g))
			additive.Sub(&additive, g)
			sameMatrix(t, "S_f + S_f' - id", &additive, whole, 1e-10)
			sameMatrix(t, "S_f' ∘ S_f", stable(t, fp, stable(t, f, g)), whole, 1e-10)
			sameMatrix(t, "S_f ∘ S_f'", stable(t, f, stable(t, fp, g)), whole, 1e-10)
			var layered mat.Dense
			if _, err := sum.StableState(&layered, g, Settings{}); err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "layered", &layered, whole, 1e-10)
		})
	}
}

// TestSumLayered checks the layered solve of Corollary 1 against the plain
// iteration of the whole sum.
func TestSumLayered(t *testing.T) {
	space := blocks(2, 3, 2, 3, 2, 2)
	for _, test := range []struct {
		name   string
		specs  []spec
		height int
		depth  int // checked when positive: all terms square-zero
	}{
		{
			name: "feedforward with shortcuts",
			specs: []spec{
				{[]int{0}, []int{1}}, {[]int{1}, []int{2}}, {[]int{0, 1}, []int{3}},
				{[]int{2, 3}, []int{4}}, {[]int{4}, []int{5}},
			},
			height: 4, depth: 4,
		},
		{
			name: "recurrent blocks",
			specs: []spec{
				{[]int{0}, []int{1}}, {[]int{1, 2}, []int{2}}, {[]int{0, 2}, []int{3}},
				{[]int{3, 4}, []int{4}}, {[]int{2, 4}, []int{5}},
			},
			height: 5,
		},
		{
			name: "wide layers writing shared blocks",
			specs: []spec{
				{[]int{0}, []int{1}}, {[]int{0}, []int{1}}, {[]int{0}, []int{2}}, {[]int{0}, []int{3}},
				{[]int{1, 2, 3}, []int{4}}, {[]int{1}, []int{5}}, {[]int{4}, []int{5}},
			},
			height: 3, depth: 3,
		},
		{
			name:   "one contraction on everything",
			specs:  []spec{{[]int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 4, 5}}},
			height: 1,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			terms := build(rnd, space, test.specs)
			g := randDense(rnd, 5, dim(space), 1)
			deps := Dependencies(terms, dim(space))
			layers, err := deps.Layers()
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != test.height {
				t.Errorf("%d layers, want %d", len(layers), test.height)
			}

			sum := &Sum{Terms: terms}
			var plain, layered mat.Dense
			pres, err := Iterate(&plain, sum, g, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			lres, err := sum.StableState(&layered, g, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "layered", &layered, &plain, 1e-10)
			if e := fixedPointError(sum, g, &layered); e > 1e-10 {
				t.Errorf("|h - g - f(h)| = %g", e)
			}
			if test.depth > 0 && (pres.Depth != test.depth || lres.Depth != test.depth) {
				t.Errorf("depth %d by iteration, %d by layers, want %d", pres.Depth, lres.Depth, test.depth)
			}

			// The same graph, declared, gives the same state; so does a
			// second solve, which reuses the scratch memory.
			declared := &Sum{Terms: terms, Deps: deps}
			var again mat.Dense
			if _, err := declared.StableState(&again, g, Settings{}); err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "declared", &again, &layered, 0)
			if _, err := declared.StableState(&again, g, Settings{}); err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "second solve", &again, &layered, 0)
		})
	}
}

// TestSumDeclared checks that Deps is what decides the order of opaque
// terms, whose footprint cannot be seen.
func TestSumDeclared(t *testing.T) {
	// f copies coordinate 0 to 1, f' doubles coordinate 1 into 2.
	f := SquareZero{Func(func(dst, h *mat.Dense) {
		dst.Zero()
		dst.Slice(0, 1, 1, 2).(*mat.Dense).Copy(h.Slice(0, 1, 0, 1))
	})}
	fp := SquareZero{Func(func(dst, h *mat.Dense) {
		dst.Zero()
		dst.Slice(0, 1, 2, 3).(*mat.Dense).Scale(2, h.Slice(0, 1, 1, 2))
	})}
	g := mat.NewDense(1, 3, []float64{1, 10, 100})
	for _, test := range []struct {
		name  string
		deps  *Graph
		want  []float64
		cycle []int
	}{
		{name: "derived", cycle: []int{0, 1}},
		{name: "f' depends on f", deps: graphOf(2, []edge{{0, 1}}), want: []float64{1, 11, 122}},
		// Declaring the reverse is wrong, and the result shows it: f'
		// reads coordinate 1 before f has written it.
		{name: "reversed", deps: graphOf(2, []edge{{1, 0}}), want: []float64{1, 11, 120}},
		{name: "declared cycle", deps: graphOf(2, []edge{{0, 1}, {1, 0}}), cycle: []int{0, 1}},
	} {
		t.Run(test.name, func(t *testing.T) {
			sum := &Sum{Terms: []Machine{f, fp}, Deps: test.deps}
			var h mat.Dense
			res, err := sum.StableState(&h, g, Settings{})
			if test.cycle != nil {
				var ce *CycleError
				if !errors.As(err, &ce) || len(ce.Cycle) != len(test.cycle) || ce.Cycle[0] != test.cycle[0] || ce.Cycle[1] != test.cycle[1] {
					t.Fatalf("error %v, want the cycle %v", err, test.cycle)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sameMatrix(t, "stable state", &h, mat.NewDense(1, 3, test.want), 0)
			if res.Depth != 2 || res.Iterations != 2 {
				t.Errorf("depth %d in %d iterations, want two one-step layers", res.Depth, res.Iterations)
			}
		})
	}
}

func TestSumError(t *testing.T) {
	space := blocks(2, 2, 2)
	rnd := rand.New(rand.NewPCG(1, 1))
	doubling := &Block{In: []Span{space[2]}, Out: []Span{space[2]}, F: func(dst, src *mat.Dense) { dst.Scale(2, src) }}
	sum := &Sum{Terms: []Machine{tanhBlock(rnd, space, []int{0}, []int{1}), doubling}}
	g := randDense(rnd, 3, dim(space), 1)
	var h mat.Dense
	_, err := sum.StableState(&h, g, Settings{MaxIter: 20})
	var ce *ConvergenceError
	if !errors.As(err, &ce) || ce.Iterations != 20 {
		t.Fatalf("error %v, want a *ConvergenceError after 20 iterations", err)
	}
	if !strings.HasPrefix(err.Error(), "term 1: ") {
		t.Errorf("message %q does not name term 1", err)
	}
}
