package machines

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Machine is an endofunction f of the space M = ℝᶜ, applied to a batch.
// The rows of a batch are samples and its c columns are the coordinates of M.
type Machine interface {
	// Apply sets dst = f(h) row by row. dst has the shape of h and is
	// overwritten completely; it must not share memory with h, and Apply
	// must not modify h.
	Apply(dst, h *mat.Dense)
}

// Func adapts an ordinary function to the Machine interface.
type Func func(dst, h *mat.Dense)

// Apply calls f(dst, h).
func (f Func) Apply(dst, h *mat.Dense) { f(dst, h) }

// Solver is a Machine that knows a cheaper way to its own stable state than
// the generic iteration, for example a square-zero machine (one step) or a
// sum of independent machines (layer by layer). StableState uses the method
// when the machine has it.
type Solver interface {
	Machine
	// StableState sets dst to the solution h of h = g + f(h), with the
	// conventions of the package-level StableState.
	StableState(dst, g *mat.Dense, s Settings) (Result, error)
}

// Defaults used for the zero fields of Settings.
const (
	DefaultTol     = 1e-12
	DefaultMaxIter = 1000
)

// Settings controls the fixed-point iteration. The zero value selects the
// defaults.
type Settings struct {
	// Tol is the convergence tolerance: the iteration stops at the first
	// update h_{n+1} - h_n whose largest entry in absolute value is at most
	// Tol·max(1, |h_{n+1}|_max). Scaling by the iterate keeps the test
	// meaningful for large activations; the floor at 1 keeps it meaningful
	// near zero. Zero means DefaultTol.
	Tol float64
	// MaxIter bounds the number of evaluations of the machine.
	// Zero means DefaultMaxIter.
	MaxIter int
}

// Bounds returns the effective tolerance and iteration bound, the defaults
// standing for zero fields. It panics on settings no
// iteration could honour. Packages whose own fixed-point iterations take a
// Settings (volterra's grid points) read their bounds through it.
func (s Settings) Bounds() (tol float64, maxIter int) {
	tol, maxIter = DefaultTol, DefaultMaxIter
	if !(s.Tol >= 0) || math.IsInf(s.Tol, 0) {
		panic(fmt.Errorf("%w: machines: invalid tolerance %v", ad.ErrValue, s.Tol))
	}
	if s.MaxIter < 0 {
		panic(fmt.Errorf("%w: machines: negative MaxIter %d", ad.ErrValue, s.MaxIter))
	}
	if s.Tol > 0 {
		tol = s.Tol
	}
	if s.MaxIter > 0 {
		maxIter = s.MaxIter
	}
	return tol, maxIter
}

// Result describes how a stable state was reached.
type Result struct {
	// Depth is the depth of Definition 2 measured on the given initial
	// condition: the smallest n with h_{n+1} = h_n, equality being judged
	// with Settings.Tol. It is exact for finite-depth machines whose
	// iterates settle bit for bit (the zero machine has depth 0, a
	// square-zero machine depth 1); for a contraction it is the number of
	// steps the iteration needed. For a Sum it is the sum over layers of
	// the largest depth in each layer, which bounds the depth of the sum
	// from above and equals it for a chain.
	Depth int
	// Iterations is the number of machine evaluations spent.
	Iterations int
	// Residual is the largest entry, in absolute value, of the last update
	// h_{n+1} - h_n. It is zero when the last step is known to be exact, as
	// for square-zero machines.
	Residual float64
}

// ConvergenceError reports a fixed-point iteration that did not settle.
type ConvergenceError struct {
	// Iterations is the number of machine evaluations performed.
	Iterations int
	// Residual is the largest entry, in absolute value, of the last update.
	// It is infinite or NaN when the iteration diverged.
	Residual float64
}

func (e *ConvergenceError) Error() string {
	if math.IsInf(e.Residual, 0) || math.IsNaN(e.Residual) {
		return fmt.Sprintf("machines: stable state diverged after %d iterations (last residual %g)", e.Iterations, e.Residual)
	}
	return fmt.Sprintf("machines: stable state did not converge in %d iterations (last residual %g)", e.Iterations, e.Residual)
}

// StableState sets dst to the stable state of f with initial condition g,
// the solution h of h = g + f(h) (Definition 1). If f is a Solver its own
// method is used, otherwise StableState is Iterate.
//
// If dst is empty it is resized to the shape of g; otherwise the shapes must
// match. dst must not be g. On error the contents of dst are unspecified.
func StableState(dst *mat.Dense, f Machine, g *mat.Dense, s Settings) (Result, error) {
	if sf, ok := f.(Solver); ok {
		return sf.StableState(dst, g, s)
	}
	return Iterate(dst, f, g, s)
}

// Iterate sets dst to the stable state of f with initial condition g by the
// sequence h_0 = g, h_{n+1} = g + f(h_n) of the paper, ignoring any Solver
// method of f. It converges for nilpotent linear machines and contractions,
// among others. A non-finite update, or MaxIter evaluations without
// convergence, give a *ConvergenceError.
//
// The conventions for dst and g are those of StableState; on error dst
// holds the last iterate.
func Iterate(dst *mat.Dense, f Machine, g *mat.Dense, s Settings) (Result, error) {
	r, c := shape(dst, g)
	tol, maxIter := s.Bounds()

	// One buffer for f(h_n) serves every iteration; dst holds h_n.
	var fh mat.Dense
	fh.ReuseAs(r, c)
	dst.Copy(g)
	var res float64
	for n := 1; n <= maxIter; n++ {
		f.Apply(&fh, dst)
		var size float64
		res, size = update(dst.RawMatrix(), g.RawMatrix(), fh.RawMatrix())
		if !isFinite(res) {
			return Result{Iterations: n, Residual: res}, &ConvergenceError{Iterations: n, Residual: res}
		}
		if res <= tol*max(1, size) {
			return Result{Depth: n - 1, Iterations: n, Residual: res}, nil
		}
	}
	return Result{Iterations: maxIter, Residual: res}, &ConvergenceError{Iterations: maxIter, Residual: res}
}

// update performs h = g + fh in place and returns the largest absolute
// change and the largest absolute entry of the new h. NaN propagates
// through the built-in max, so a NaN anywhere is reported.
func update(h, g, fh blas64.General) (res, size float64) {
	for i := range h.Rows {
		hr := h.Data[i*h.Stride : i*h.Stride+h.Cols]
		gr := g.Data[i*g.Stride : i*g.Stride+h.Cols]
		fr := fh.Data[i*fh.Stride : i*fh.Stride+h.Cols]
		for j, old := range hr {
			v := gr[j] + fr[j]
			res = max(res, math.Abs(v-old))
			size = max(size, math.Abs(v))
			hr[j] = v
		}
	}
	return res, size
}

// SquareZero declares that the embedded machine does not depend on itself
// (Definition 3 with f' = f), as for a layer reading coordinates it never
// writes. Its stable state is then g + f(g), computed in one evaluation
// without checking the declaration.
type SquareZero struct {
	Machine
}

// StableState sets dst = g + f(g). The reported depth is 1, or 0 when f(g)
// vanishes within the tolerance.
func (sz SquareZero) StableState(dst, g *mat.Dense, s Settings) (Result, error) {
	return oneStep(dst, sz.Machine, g, s)
}

// oneStep sets dst = g + f(g), the stable state of a square-zero machine.
func oneStep(dst *mat.Dense, f Machine, g *mat.Dense, s Settings) (Result, error) {
	shape(dst, g)
	tol, _ := s.Bounds()
	f.Apply(dst, g)
	d, gm := dst.RawMatrix(), g.RawMatrix()
	var step, size float64
	for i := range d.Rows {
		dr := d.Data[i*d.Stride : i*d.Stride+d.Cols]
		gr := gm.Data[i*gm.Stride : i*gm.Stride+d.Cols]
		for j, fv := range dr {
			v := gr[j] + fv
			step = max(step, math.Abs(fv))
			size = max(size, math.Abs(v))
			dr[j] = v
		}
	}
	if !isFinite(size) {
		return Result{Iterations: 1, Residual: size}, &ConvergenceError{Iterations: 1, Residual: size}
	}
	depth := 1
	if step <= tol*max(1, size) {
		depth = 0
	}
	return Result{Depth: depth, Iterations: 1}, nil
}

// shape checks that dst can receive a result shaped like src, resizing it if
// it is empty, and returns that shape.
func shape(dst, src *mat.Dense) (r, c int) {
	if dst == src {
		panic(fmt.Errorf("%w: machines: dst must not be the input matrix", ad.ErrShape))
	}
	if src.IsEmpty() {
		panic(fmt.Errorf("%w: machines: empty input matrix", ad.ErrShape))
	}
	r, c = src.Dims()
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
		return r, c
	}
	if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(fmt.Errorf("%w: machines: dst is %d×%d for an input of %d×%d", ad.ErrShape, dr, dc, r, c))
	}
	return r, c
}

// resize makes the scratch matrix m r×c, keeping its storage when it is
// large enough. m must not be a view of another matrix.
func resize(m *mat.Dense, r, c int) {
	if !m.IsEmpty() {
		if mr, mc := m.Dims(); mr == r && mc == c {
			return
		}
		m.Reset()
	}
	m.ReuseAs(r, c)
}

func isFinite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
