package machines

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randDense returns an r×c matrix of standard normal entries times scale.
func randDense(rnd *rand.Rand, r, c int, scale float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			m.Set(i, j, scale*rnd.NormFloat64())
		}
	}
	return m
}

// blocks splits the coordinates 0, …, Σwidths-1 into consecutive spans.
func blocks(widths ...int) []Span {
	var s []Span
	lo := 0
	for _, w := range widths {
		s = append(s, Span{lo, lo + w})
		lo += w
	}
	return s
}

func dim(spans []Span) int { return spans[len(spans)-1].Hi }

// tanhBlock returns the Block h ↦ tanh(h_in W) on the given blocks, W random.
// When the block reads what it writes, W is scaled to spectral norm 0.5 so
// that the Block is a contraction; otherwise the entries have variance 4/|In|
// so that the nonlinearity matters.
func tanhBlock(rnd *rand.Rand, space []Span, in, out []int) *Block {
	b := &Block{}
	for _, i := range in {
		b.In = append(b.In, space[i])
	}
	for _, i := range out {
		b.Out = append(b.Out, space[i])
	}
	nIn, nOut := 0, 0
	for _, s := range b.In {
		nIn += s.Len()
	}
	for _, s := range b.Out {
		nOut += s.Len()
	}
	w := randDense(rnd, nIn, nOut, 2/math.Sqrt(float64(nIn)))
	if overlap(b.In, b.Out) {
		w.Scale(0.5/mat.Norm(w, 2), w)
	}
	b.F = func(dst, src *mat.Dense) {
		dst.Mul(src, w)
		tanh(dst, 1)
	}
	return b
}

// tanh sets m to a·tanh(m) elementwise. Unlike mat.Dense.Apply it does not
// allocate, so allocation counts in tests belong to the package.
func tanh(m *mat.Dense, a float64) {
	raw := m.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j, v := range row {
			row[j] = a * math.Tanh(v)
		}
	}
}

// maxDiff returns the largest absolute entry of a - b.
func maxDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return maxAbs(&d)
}

// maxAbs returns the largest absolute entry of m.
func maxAbs(m mat.Matrix) float64 {
	r, c := m.Dims()
	var v float64
	for i := range r {
		for j := range c {
			v = max(v, math.Abs(m.At(i, j)))
		}
	}
	return v
}

// sameMatrix fails the test when got and want differ anywhere beyond tol.
func sameMatrix(t *testing.T, name string, got, want mat.Matrix, tol float64) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Errorf("%s: shape %d×%d, want %d×%d", name, gr, gc, r, c)
		return
	}
	for i := range r {
		for j := range c {
			if g, w := got.At(i, j), want.At(i, j); !scalar.EqualWithinAbsOrRel(g, w, tol, tol) {
				t.Errorf("%s: element [%d,%d] = %v, want %v", name, i, j, g, w)
				return
			}
		}
	}
}

// fixedPointError returns the largest entry of h - g - f(h).
func fixedPointError(f Machine, g, h *mat.Dense) float64 {
	r, c := h.Dims()
	fh := mat.NewDense(r, c, nil)
	f.Apply(fh, h)
	fh.Add(fh, g)
	return maxDiff(h, fh)
}

func TestDepth(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	space := blocks(2, 3, 2, 3, 2)
	g := randDense(rnd, 4, dim(space), 1)
	zero := Func(func(dst, _ *mat.Dense) { dst.Zero() })
	// A strictly upper-triangular linear map: nilpotent, but not
	// square-zero. The unit superdiagonal keeps its 11th power, a single
	// path through all coordinates, well above the tolerance.
	strict := mat.NewDense(dim(space), dim(space), nil)
	for i := range dim(space) {
		for j := i + 1; j < dim(space); j++ {
			strict.Set(i, j, rnd.NormFloat64()/4)
		}
		if i+1 < dim(space) {
			strict.Set(i, i+1, 1)
		}
	}
	triangular := Func(func(dst, h *mat.Dense) { dst.Mul(h, strict) })
	chain := func(k int) *Sum {
		s := &Sum{}
		for i := range k {
			s.Terms = append(s.Terms, tanhBlock(rnd, space, []int{i}, []int{i + 1}))
		}
		return s
	}

	for _, test := range []struct {
		name string
		f    Machine
		// iterated is the depth of Definition 2, found by Iterate; solved
		// is the depth reported by StableState.
		iterated, solved int
	}{
		{name: "zero", f: zero, iterated: 0, solved: 0},
		{name: "zero declared square-zero", f: SquareZero{zero}, iterated: 0, solved: 0},
		{name: "square-zero block", f: tanhBlock(rnd, space, []int{0}, []int{1}), iterated: 1, solved: 1},
		{name: "square-zero block, two blocks each way", f: tanhBlock(rnd, space, []int{0, 2}, []int{1, 3}), iterated: 1, solved: 1},
		{name: "chain of 1", f: chain(1), iterated: 1, solved: 1},
		{name: "chain of 2", f: chain(2), iterated: 2, solved: 2},
		{name: "chain of 3", f: chain(3), iterated: 3, solved: 3},
		{name: "chain of 4", f: chain(4), iterated: 4, solved: 4},
		// Nilpotent of index 12 on 12 coordinates: h_n stops moving after
		// 11 steps, up to rounding, which the tolerance absorbs.
		{name: "strictly triangular", f: triangular, iterated: dim(space) - 1, solved: dim(space) - 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			var h, hs mat.Dense
			res, err := Iterate(&h, test.f, g, Settings{})
			if err != nil {
				t.Fatalf("Iterate: %v", err)
			}
			if res.Depth != test.iterated || res.Iterations != test.iterated+1 {
				t.Errorf("Iterate: depth %d in %d iterations, want %d in %d", res.Depth, res.Iterations, test.iterated, test.iterated+1)
			}
			if e := fixedPointError(test.f, g, &h); e > 1e-12 {
				t.Errorf("Iterate: |h - g - f(h)| = %g", e)
			}
			res, err = StableState(&hs, test.f, g, Settings{})
			if err != nil {
				t.Fatalf("StableState: %v", err)
			}
			if res.Depth != test.solved {
				t.Errorf("StableState: depth %d, want %d", res.Depth, test.solved)
			}
			sameMatrix(t, "StableState", &hs, &h, 1e-12)
		})
	}
}

func TestContraction(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	const c = 6
	w := randDense(rnd, c, c, 1)
	w.Scale(0.9/mat.Norm(w, 2), w)
	contraction := Func(func(dst, h *mat.Dense) {
		dst.Mul(h, w)
		tanh(dst, 0.5)
	})
	g := randDense(rnd, 5, c, 3)
	for _, test := range []struct {
		name string
		s    Settings
	}{
		{name: "defaults"},
		{name: "tight", s: Settings{Tol: 1e-15}},
		{name: "loose", s: Settings{Tol: 1e-6, MaxIter: 100}},
	} {
		t.Run(test.name, func(t *testing.T) {
			var h mat.Dense
			res, err := StableState(&h, contraction, g, test.s)
			if err != nil {
				t.Fatal(err)
			}
			tol, _ := test.s.Bounds()
			// The fixed-point error is f(h_{n-1}) - f(h_n): f has
			// Lipschitz constant 0.45 in the Euclidean norm of a row,
			// hence 0.45·√c between largest entries.
			e := fixedPointError(contraction, g, &h)
			if e > 0.45*math.Sqrt(c)*res.Residual+1e-15 {
				t.Errorf("|h - g - f(h)| = %g after a last update of %g", e, res.Residual)
			}
			if tol <= DefaultTol && e > 1e-10 {
				t.Errorf("|h - g - f(h)| = %g, want at most 1e-10", e)
			}
			if res.Residual > tol*max(1, maxAbs(&h)) {
				t.Errorf("returned with residual %g above tolerance %g", res.Residual, tol)
			}
			if res.Depth < 5 || res.Iterations != res.Depth+1 {
				t.Errorf("depth %d in %d iterations: a contraction needs several steps, one per depth", res.Depth, res.Iterations)
			}
		})
	}
}

func TestConvergenceError(t *testing.T) {
	ones := mat.NewDense(2, 3, []float64{1, 1, 1, 1, 1, 1})
	scale := func(a float64) Machine {
		return Func(func(dst, h *mat.Dense) { dst.Scale(a, h) })
	}
	nan := Func(func(dst, h *mat.Dense) {
		dst.Zero()
		dst.Set(1, 2, math.NaN())
	})
	for _, test := range []struct {
		name       string
		f          Machine
		s          Settings
		iterations int
		residual   float64
		message    string
	}{
		// With g = 1, h_n = 2^{n+1} - 1, so the n-th update is 2^n.
		{name: "doubling", f: scale(2), s: Settings{MaxIter: 50}, iterations: 50, residual: math.Ldexp(1, 50), message: "did not converge in 50 iterations"},
		{name: "doubling, default MaxIter", f: scale(2), iterations: DefaultMaxIter, residual: math.Ldexp(1, DefaultMaxIter), message: "did not converge in 1000 iterations"},
		{name: "overflow", f: scale(1e300), iterations: 2, residual: math.Inf(1), message: "diverged after 2 iterations"},
		{name: "NaN", f: nan, iterations: 1, residual: math.NaN(), message: "diverged after 1 iterations"},
		{name: "NaN declared square-zero", f: SquareZero{nan}, iterations: 1, residual: math.NaN(), message: "diverged after 1 iterations"},
		// Iterate needs a second evaluation to see that a square-zero
		// machine has settled; the first update is f(g) = 1.
		{name: "MaxIter 1, square-zero", f: Func(func(dst, h *mat.Dense) {
			dst.Zero()
			dst.Slice(0, 2, 1, 2).(*mat.Dense).Copy(h.Slice(0, 2, 0, 1))
		}), s: Settings{MaxIter: 1}, iterations: 1, residual: 1, message: "did not converge in 1 iterations"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var h mat.Dense
			res, err := StableState(&h, test.f, ones, test.s)
			var ce *ConvergenceError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want *ConvergenceError", err)
			}
			if ce.Iterations != test.iterations || res.Iterations != test.iterations {
				t.Errorf("iterations %d (result %d), want %d", ce.Iterations, res.Iterations, test.iterations)
			}
			if !scalar.Same(ce.Residual, test.residual) || !scalar.Same(res.Residual, test.residual) {
				t.Errorf("residual %v (result %v), want %v", ce.Residual, res.Residual, test.residual)
			}
			if !strings.Contains(err.Error(), test.message) || !strings.Contains(err.Error(), fmt.Sprintf("residual %g)", test.residual)) {
				t.Errorf("message %q does not say %q and the residual %g", err, test.message, test.residual)
			}
		})
	}
}

// TestNoIterationAllocs checks that iterating longer allocates nothing more.
func TestNoIterationAllocs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	space := blocks(3, 3)
	f := tanhBlock(rnd, space, []int{0, 1}, []int{1}) // a contraction
	g := randDense(rnd, 4, dim(space), 1)
	var h mat.Dense
	allocs := func(s Settings) (float64, int) {
		var res Result
		n := testing.AllocsPerRun(10, func() {
			var err error
			if res, err = Iterate(&h, f, g, s); err != nil {
				t.Fatal(err)
			}
		})
		return n, res.Iterations
	}
	short, n1 := allocs(Settings{Tol: 1e-3})
	long, n2 := allocs(Settings{Tol: 1e-15})
	if n2 <= n1 {
		t.Fatalf("tolerances gave %d and %d iterations; the test needs different counts", n1, n2)
	}
	if long != short {
		t.Errorf("%v allocations for %d iterations, %v for %d", short, n1, long, n2)
	}
}

func TestBlockApply(t *testing.T) {
	// A Block copying its inputs to its outputs shows where columns go.
	b := &Block{
		In:  []Span{{0, 2}, {5, 6}},
		Out: []Span{{6, 7}, {2, 4}},
		F:   func(dst, src *mat.Dense) { dst.Copy(src) },
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	big := randDense(rnd, 5, 10, 1)
	h := big.Slice(1, 4, 1, 9).(*mat.Dense) // a view, to exercise strides
	want := mat.NewDense(3, 8, nil)
	for i := range 3 {
		want.Set(i, 6, h.At(i, 0))
		want.Set(i, 2, h.At(i, 1))
		want.Set(i, 3, h.At(i, 5))
	}
	dst := randDense(rnd, 5, 10, 1).Slice(2, 5, 2, 10).(*mat.Dense)
	b.Apply(dst, h)
	sameMatrix(t, "Apply", dst, want, 0)
	if overlap(b.In, b.Out) {
		t.Fatal("test Block should be square-zero")
	}
	var s mat.Dense
	res, err := b.StableState(&s, h, Settings{})
	if err != nil || res.Depth != 1 || res.Iterations != 1 {
		t.Errorf("StableState: depth %d in %d iterations, error %v; want one step of depth 1", res.Depth, res.Iterations, err)
	}
	want.Add(want, h)
	sameMatrix(t, "StableState", &s, want, 0)
}

func TestPanics(t *testing.T) {
	g := mat.NewDense(3, 4, nil)
	id := Func(func(dst, h *mat.Dense) { dst.Copy(h) })
	valid := func() *Block {
		return &Block{In: []Span{{0, 2}}, Out: []Span{{2, 4}}, F: func(dst, src *mat.Dense) { dst.Copy(src) }}
	}
	for _, test := range []struct {
		name string
		f    func()
		want string
	}{
		{"shape mismatch", func() { Iterate(mat.NewDense(2, 4, nil), id, g, Settings{}) }, "dst is 2×4 for an input of 3×4"},
		{"empty input", func() { Iterate(mat.NewDense(2, 4, nil), id, &mat.Dense{}, Settings{}) }, "empty input matrix"},
		{"dst is g", func() { StableState(g, id, g, Settings{}) }, "dst must not be the input"},
		{"negative MaxIter", func() { Iterate(&mat.Dense{}, id, g, Settings{MaxIter: -1}) }, "negative MaxIter"},
		{"negative Tol", func() { Iterate(&mat.Dense{}, id, g, Settings{Tol: -1e-3}) }, "invalid tolerance"},
		{"NaN Tol", func() { StableState(&mat.Dense{}, SquareZero{id}, g, Settings{Tol: math.NaN()}) }, "invalid tolerance"},
		{"infinite Tol", func() { Iterate(&mat.Dense{}, id, g, Settings{Tol: math.Inf(1)}) }, "invalid tolerance +Inf"},
		{"Sum with bad settings", func() { (&Sum{}).StableState(&mat.Dense{}, g, Settings{MaxIter: -2}) }, "negative MaxIter"},
		{"Block shape mismatch", func() { valid().Apply(mat.NewDense(3, 5, nil), g) }, "dst is 3×5 for an input of 3×4"},
		{"Block span beyond space", func() {
			b := valid()
			b.Out = []Span{{3, 5}}
			b.Apply(&mat.Dense{}, g)
		}, "Out span {3 5} invalid for 4 coordinates"},
		{"Block reversed span", func() {
			b := valid()
			b.In = []Span{{2, 1}}
			b.Apply(&mat.Dense{}, g)
		}, "In span {2 1} invalid"},
		{"Block reads nothing", func() {
			b := valid()
			b.In = []Span{{1, 1}}
			b.Apply(&mat.Dense{}, g)
		}, "In has no coordinates"},
		{"Block writes twice", func() {
			b := valid()
			b.Out = []Span{{2, 4}, {3, 4}}
			b.Apply(&mat.Dense{}, g)
		}, "Out span {3 4} overlaps"},
		{"Sum Deps size", func() {
			s := &Sum{Terms: []Machine{id, id}, Deps: NewGraph(3)}
			s.StableState(&mat.Dense{}, g, Settings{})
		}, "3 vertices for 2 terms"},
		{"Sum Apply aliasing", func() { (&Sum{Terms: []Machine{id}}).Apply(g, g) }, "dst must not be the input"},
		{"negative graph", func() { NewGraph(-1) }, "negative vertex count"},
		{"edge out of range", func() { NewGraph(3).AddEdge(0, 3) }, "vertex 3 out of range [0, 3)"},
		{"HasEdge out of range", func() { NewGraph(3).HasEdge(-1, 0) }, "vertex -1 out of range"},
	} {
		t.Run(test.name, func(t *testing.T) {
			testutil.CheckPanic(t, test.f, test.want)
			if err := testutil.PanicError(test.f); !errors.Is(err, ad.ErrShape) && !errors.Is(err, ad.ErrValue) {
				t.Errorf("panic %v, want an error of ad's kinds ErrShape or ErrValue", err)
			}
		})
	}
}
