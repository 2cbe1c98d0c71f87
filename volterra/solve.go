package volterra

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/ode"
)

// Settings controls Solve and SolveSeparable. The zero value selects the
// defaults: machines.Settings' at each grid point, RK4 with one step per
// grid interval, and gradients by backpropagation.
type Settings struct {
	// Settings bounds the fixed-point iteration of Solve (and of its
	// gradient) at each grid point, u = r + (h/2)·φ(t, t, u): a stable
	// state of the paper's kind, with machines.Iterate's tolerance rule
	// and defaults. An iteration whose update grows twice in a row stops
	// early with a *ContractionError.
	machines.Settings
	// ODE selects the integrator of SolveSeparable: nil for RK4 with one
	// step per grid interval, otherwise Dormand–Prince with these
	// settings (its steps end on the grid points).
	ODE *ode.Settings
	// Grad is the gradient method of a SolveSeparable solution, as for
	// ode.Solution.Gradient; the zero value is ode.Backprop. Gradients of
	// Solve are always exact for the discretisation.
	Grad ode.GradMethod
}

// bounds returns the grid points' iteration bounds.
func (s Settings) bounds() (tol float64, maxIter int) {
	return s.Settings.Bounds()
}

// ContractionError reports a fixed-point iteration of Solve that did not
// converge at a grid point: the residual grew twice in a row, or MaxIter
// iterations did not reach the tolerance. For a kernel with Lipschitz
// constant λ the iteration contracts when λh/2 < 1, h the grid spacing.
type ContractionError struct {
	// T is the grid point.
	T float64
	// Iterations is the number of iterations done and Residual the
	// largest entry, in absolute value, of the last update.
	Iterations int
	Residual   float64
	// Gradient reports that the iteration was that of the adjoint in
	// Solution.Gradient.
	Gradient bool
}

func (e *ContractionError) Error() string {
	what := "fixed point"
	if e.Gradient {
		what = "adjoint fixed point"
	}
	return fmt.Sprintf("volterra: %s at t=%g did not converge: residual %g after %d iterations (a finer grid makes it contract)", what, e.T, e.Residual, e.Iterations)
}

// NonFiniteError reports a kernel, free term or solution that became NaN
// or infinite.
type NonFiniteError struct {
	// T is the grid point being solved for when it happened, or for
	// SolveSeparable the start of the step.
	T float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("volterra: solution or kernel became NaN or infinite at t=%g", e.T)
}

// Equation is the Volterra equation of the second kind
//
//	u(t) = ψ(t) + ∫_{T0}^t φ(t, s, u(s)) ds,  t ∈ [T0, T],
//
// with ψ = Psi and φ = Kernel, for u(t) ∈ ℝⁿ, n = Kernel.Dim().
//
// Batch > 1 solves that many equations with the same kernel and
// different free terms at once: the state is the concatenation of Batch
// states of length n, Psi fills all Batch·n entries, and the kernel is
// applied to each block of n. Zero means 1.
type Equation struct {
	T0, T  float64
	Psi    Forcing
	Kernel Kernel
	Batch  int
}

// SeparableEquation is a Volterra equation whose kernel has the separable
// form of Theorem 5 of the paper. Batch is as for Equation; the members of
// a batch share the evaluation of C(t).
type SeparableEquation struct {
	T0, T  float64
	Psi    Forcing
	Kernel Separable
	Batch  int
}

// batchSize returns the effective batch size, panicking if it is negative.
func batchSize(b int) int {
	if b < 0 {
		panic(fmt.Errorf("%w: volterra: negative Batch %d", ad.ErrValue, b))
	}
	return max(b, 1)
}

// blockKernel applies a kernel to each of the blocks of a batch and sums
// the parameter gradients over them.
type blockKernel struct {
	k     Kernel
	batch int
	dp    []float64
}

func (b *blockKernel) Dim() int { return b.batch * b.k.Dim() }

func (b *blockKernel) Eval(dst []float64, t, s float64, u []float64) {
	n := b.k.Dim()
	for i := range b.batch {
		b.k.Eval(dst[i*n:(i+1)*n], t, s, u[i*n:(i+1)*n])
	}
}

func (b *blockKernel) Reset() {
	if r, ok := b.k.(resetter); ok {
		r.Reset()
	}
}

func (b *blockKernel) NumParams() int { return b.k.(ParamKernel).NumParams() }

func (b *blockKernel) VJP(du, dp []float64, t, s float64, u, w []float64) {
	pk := b.k.(ParamKernel)
	n := pk.Dim()
	if len(b.dp) < len(dp) {
		b.dp = make([]float64, len(dp))
	}
	scratch := b.dp[:len(dp)]
	clear(dp)
	for i := range b.batch {
		pk.VJP(du[i*n:(i+1)*n], scratch, t, s, u[i*n:(i+1)*n], w[i*n:(i+1)*n])
		for j, g := range scratch {
			dp[j] += g
		}
	}
}

// Solution is a solution on the uniform grid tᵢ = T0 + i·(T - T0)/steps.
type Solution struct {
	// T holds the grid and U the solution there: row i,
	// U[i*n:(i+1)*n], is u(T[i]).
	T []float64
	U []float64
	// Evals counts the evaluations of the kernel (for SolveSeparable, of
	// the terms Φ) and Iterations the fixed-point iterations of Solve.
	Evals, Iterations int

	n        int
	settings Settings
	eq       *Equation
	kernel   Kernel // the kernel of eq, for the whole batch
	sep      *SeparableEquation
	z        *ode.Solution
}

// Dim returns the dimension of the state.
func (sol *Solution) Dim() int { return sol.n }

// grid returns the uniform grid of steps intervals on [t0, t1], panicking
// on an invalid one.
func grid(t0, t1 float64, steps int) []float64 {
	if math.IsNaN(t0) || math.IsNaN(t1) || math.IsInf(t0, 0) || math.IsInf(t1, 0) || t0 >= t1 {
		panic(fmt.Errorf("%w: volterra: interval [%v, %v], want finite T0 < T", ad.ErrValue, t0, t1))
	}
	if steps < 1 {
		panic(fmt.Errorf("%w: volterra: %d steps, want at least 1", ad.ErrShape, steps))
	}
	ts := make([]float64, steps+1)
	h := (t1 - t0) / float64(steps)
	for i := range ts {
		ts[i] = t0 + float64(i)*h
	}
	ts[steps] = t1
	return ts
}

// checkPsi panics if psi is missing or a Const of the wrong length.
func checkPsi(psi Forcing, n int) {
	if psi == nil {
		panic(fmt.Errorf("%w: volterra: nil Psi", ad.ErrNil))
	}
	if c, ok := psi.(Const); ok && len(c) != n {
		panic(fmt.Errorf("%w: volterra: Const free term of length %d, want the dimension %d (times the batch size)", ad.ErrShape, len(c), n))
	}
}

// resetter is implemented by kernels that cache values between calls.
type resetter interface{ Reset() }

// Solve solves eq on a uniform grid of steps intervals with the
// trapezoidal rule: with h = (T - T0)/steps,
//
//	uᵢ = ψ(tᵢ) + h·[½φ(tᵢ, t₀, u₀) + Σ_{0<k<i} φ(tᵢ, tₖ, uₖ) + ½φ(tᵢ, tᵢ, uᵢ)],
//
// which is second order for smooth solutions. Each uᵢ is the fixed point
// of x ↦ rᵢ + (h/2)·φ(tᵢ, tᵢ, x), iterated from an extrapolation of the
// previous points. This is the discrete form of the decomposition of
// section 3.2 of the paper into machines on the intervals [tᵢ₋₁, tᵢ]: for
// a kernel with Lipschitz constant λ the map contracts when λh/2 < 1,
// that is steps > λ(T - T0)/2 (the paper's steps > λ²(T - T0)² implies
// it when λ(T - T0) >= 1/2). The cost is
// steps²/2 kernel evaluations.
//
// Solve panics unless T0 < T, steps >= 1, Psi and Kernel are set and the
// settings are valid. A fixed point that does not contract gives a
// *ContractionError, a non-finite value a *NonFiniteError, both with the
// grid point.
func Solve(eq *Equation, steps int, s Settings) (*Solution, error) {
	ts := grid(eq.T0, eq.T, steps)
	if eq.Kernel == nil {
		panic(fmt.Errorf("%w: volterra: nil Kernel", ad.ErrNil))
	}
	if n := eq.Kernel.Dim(); n < 1 {
		panic(fmt.Errorf("%w: volterra: kernel dimension %d, want at least 1", ad.ErrShape, n))
	}
	k := eq.Kernel
	if b := batchSize(eq.Batch); b > 1 {
		k = &blockKernel{k: k, batch: b}
	}
	n := k.Dim()
	checkPsi(eq.Psi, n)
	tol, maxIter := s.bounds()
	if r, ok := k.(resetter); ok {
		r.Reset()
	}
	sol := &Solution{T: ts, U: make([]float64, len(ts)*n), n: n, eq: eq, kernel: k, settings: s}
	h := ts[1] - ts[0]
	eq.Psi.Eval(sol.U[:n], ts[0])
	if !numeric.AllFinite(sol.U[:n]) {
		return nil, &NonFiniteError{T: ts[0]}
	}
	r := make([]float64, n)
	phi := make([]float64, n)
	next := make([]float64, n)
	for i := 1; i < len(ts); i++ {
		ti := ts[i]
		sol.known(r, phi, i, h)
		if !numeric.AllFinite(r) {
			return nil, &NonFiniteError{T: ti}
		}
		// Start from the linear extrapolation of the last two points.
		x := sol.U[i*n : (i+1)*n]
		prev := sol.U[(i-1)*n : i*n]
		if i >= 2 {
			for j := range x {
				x[j] = 2*prev[j] - sol.U[(i-2)*n+j]
			}
		} else {
			copy(x, prev)
		}
		it, err := fixedPoint(x, next, ti, tol, maxIter, func(dst, x []float64) {
			k.Eval(dst, ti, ti, x)
			for j := range dst {
				dst[j] = r[j] + 0.5*h*dst[j]
			}
		})
		sol.Evals += it
		sol.Iterations += it
		if err != nil {
			return nil, err
		}
	}
	return sol, nil
}

// known sets r to the part of uᵢ that the earlier grid points give,
// ψ(tᵢ) + h·(½φ(tᵢ, t₀, u₀) + Σ_{0<k<i} φ(tᵢ, tₖ, uₖ)), using phi as
// scratch.
func (sol *Solution) known(r, phi []float64, i int, h float64) {
	n, ts, ti := sol.n, sol.T, sol.T[i]
	sol.kernel.Eval(phi, ti, ts[0], sol.U[:n])
	for j := range r {
		r[j] = 0.5 * phi[j]
	}
	for l := 1; l < i; l++ {
		sol.kernel.Eval(phi, ti, ts[l], sol.U[l*n:(l+1)*n])
		for j, v := range phi {
			r[j] += v
		}
	}
	sol.Evals += i
	sol.eq.Psi.Eval(phi, ti)
	for j := range r {
		r[j] = phi[j] + h*r[j]
	}
}

// fixedPoint iterates x ← g(x) in place until the update is within
// tol·max(1, |x|_max), using next as scratch, and returns the number of
// evaluations of g.
func fixedPoint(x, next []float64, t, tol float64, maxIter int, g func(dst, x []float64)) (int, error) {
	var last, before float64
	for it := 1; it <= maxIter; it++ {
		g(next, x)
		if !numeric.AllFinite(next) {
			return it, &NonFiniteError{T: t}
		}
		var res, size float64
		for j, v := range next {
			res = max(res, math.Abs(v-x[j]))
			size = max(size, math.Abs(v))
		}
		copy(x, next)
		if res <= tol*max(1, size) {
			return it, nil
		}
		if it >= 3 && res > last && last > before {
			return it, &ContractionError{T: t, Iterations: it, Residual: res}
		}
		before, last = last, res
	}
	return maxIter, &ContractionError{T: t, Iterations: maxIter, Residual: last}
}
