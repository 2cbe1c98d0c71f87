package volterra

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/ode"
)

// Kernel is the integrand φ(t, s, v) of a Volterra equation, for states v
// in ℝⁿ. It is evaluated only for s ≤ t.
type Kernel interface {
	// Dim returns n.
	Dim() int
	// Eval sets dst = φ(t, s, u). dst and u have length Dim and do not
	// share memory; Eval must not modify u.
	Eval(dst []float64, t, s float64, u []float64)
}

// ParamKernel is a Kernel with parameters p that can multiply its
// Jacobians by a vector from the left, as gradients need.
type ParamKernel interface {
	Kernel
	// NumParams returns the number of parameters, possibly 0.
	NumParams() int
	// VJP sets du = wᵀ·∂φ/∂u and dp = wᵀ·∂φ/∂p at (t, s, u). du, u and w
	// have length Dim, dp has length NumParams.
	VJP(du, dp []float64, t, s float64, u, w []float64)
}

// KernelFunc adapts a function to the Kernel interface.
type KernelFunc struct {
	// N is the dimension of the state.
	N int
	// F sets dst = φ(t, s, u).
	F func(dst []float64, t, s float64, u []float64)
}

// Dim returns k.N.
func (k KernelFunc) Dim() int { return k.N }

// Eval calls k.F.
func (k KernelFunc) Eval(dst []float64, t, s float64, u []float64) { k.F(dst, t, s, u) }

// Forcing is the free term ψ(t) of a Volterra equation, the initial
// condition of the machine in the paper's terms.
type Forcing interface {
	// Eval sets dst, of the dimension of the equation, to ψ(t).
	Eval(dst []float64, t float64)
}

// ParamForcing is a Forcing with parameters q, as gradients with respect
// to the free term need.
type ParamForcing interface {
	Forcing
	// NumParams returns the number of parameters, possibly 0.
	NumParams() int
	// VJP sets dq = wᵀ·∂ψ(t)/∂q.
	VJP(dq []float64, t float64, w []float64)
}

// ForcingFunc adapts a function to the Forcing interface; it has no
// parameters.
type ForcingFunc func(dst []float64, t float64)

// Eval calls f.
func (f ForcingFunc) Eval(dst []float64, t float64) { f(dst, t) }

// Const is the constant free term ψ(t) = c. Its parameters are c itself,
// so that the gradient with respect to them is the gradient with respect
// to the initial state of the equivalent ODE when the kernel does not
// depend on t.
type Const []float64

// Eval sets dst = c.
func (c Const) Eval(dst []float64, _ float64) { copy(dst, c) }

// NumParams returns len(c).
func (c Const) NumParams() int { return len(c) }

// VJP sets dq = w.
func (c Const) VJP(dq []float64, _ float64, w []float64) { copy(dq, w) }

// Product is the bilinear map B of a Separable kernel, which combines a
// term φⱼ(s, v) ∈ U = ℝᵈ with its coefficient cⱼ(t) into ℝⁿ.
type Product int

const (
	// MatVec is B(a, c) = c·a for a matrix c ∈ ℝⁿˣᵈ and a ∈ ℝᵈ. Every
	// bilinear map has this form; with d = 1 it is a scalar times a
	// vector, the case of the infinite-depth kernel machine
	// u(t) = ψ(t) + ∫ Σⱼ k(u(s), xⱼ(s))·cⱼ(t) ds.
	MatVec Product = iota
	// Elementwise is B(a, c) = a ⊙ c for a, c ∈ ℝⁿ (so d = n), as in a
	// neural ODE, where c ≡ 1.
	Elementwise
)

func (p Product) String() string {
	switch p {
	case MatVec:
		return "matvec"
	case Elementwise:
		return "elementwise"
	}
	return fmt.Sprintf("Product(%d)", int(p))
}

// Separable is a kernel of the form of Theorem 5 of the paper,
//
//	φ(t, s, v) = Σⱼ B(φⱼ(s, v), cⱼ(t)),  j = 1, …, m,
//
// with φⱼ(s, v) ∈ ℝᵈ. Its Volterra equation reduces to an ODE in
// z = (z₁, …, zₘ) ∈ ℝᵐᵈ, which SolveSeparable integrates.
//
// The coefficients are gathered in a matrix C(t) with n rows, stored row
// by row, such that Σⱼ B(zⱼ, cⱼ(t)) = C(t)·z for MatVec: C(t) is n×md,
// column block j being the n×d matrix cⱼ(t). For Elementwise C(t) is n×m,
// column j being the vector cⱼ(t), and the sum is Σⱼ C[r, j]·zⱼ[r] in row r.
type Separable interface {
	// Dim returns n, the dimension of the state.
	Dim() int
	// Terms returns m, the number of terms.
	Terms() int
	// TermDim returns d, the dimension of each φⱼ (n for Elementwise).
	TermDim() int
	// Product returns the bilinear map B.
	Product() Product
	// Phi sets dst, of length m·d, to (φ₁(s, v), …, φₘ(s, v)).
	Phi(dst []float64, s float64, v []float64)
	// Coef sets dst to C(t) in the layout above: n·m·d entries for
	// MatVec, n·m for Elementwise.
	Coef(dst []float64, t float64)
}

// ParamSeparable is a Separable kernel with parameters p, shared by the
// terms and the coefficients, that can multiply its Jacobians by a vector
// from the left.
type ParamSeparable interface {
	Separable
	// NumParams returns the number of parameters, possibly 0.
	NumParams() int
	// PhiVJP sets dv = wᵀ·∂Φ/∂v and dp = wᵀ·∂Φ/∂p at (s, v), where
	// Φ = (φ₁, …, φₘ) and w has length m·d.
	PhiVJP(dv, dp []float64, s float64, v, w []float64)
	// CoefVJP sets dp = Σ w[i]·∂C(t)[i]/∂p, where w has the layout of
	// Coef's output.
	CoefVJP(dp []float64, t float64, w []float64)
}

// PhiVJPAdder is a ParamSeparable that can add the parameter gradient of
// its terms to dp rather than set it. SolveSeparable's gradient then
// accumulates a batch's members into one dp, which a kernel whose terms
// depend on few of its parameters at any (s, v), such as one that reads
// states interpolated on a grid, touches only there; PhiVJP alone makes
// it clear and sum every parameter for every member at every stage.
type PhiVJPAdder interface {
	ParamSeparable
	// AddPhiVJP sets dv = wᵀ·∂Φ/∂v, as PhiVJP does, and adds
	// wᵀ·∂Φ/∂p to dp.
	AddPhiVJP(dv, dp []float64, s float64, v, w []float64)
}

// coefLen returns the length of C(t).
func coefLen(k Separable) int {
	if k.Product() == Elementwise {
		return k.Dim() * k.Terms()
	}
	return k.Dim() * k.Terms() * k.TermDim()
}

// checkSeparable panics unless the dimensions of k are consistent.
func checkSeparable(k Separable) {
	n, m, d := k.Dim(), k.Terms(), k.TermDim()
	if n < 1 || m < 1 || d < 1 {
		panic(fmt.Errorf("%w: volterra: separable kernel with Dim %d, Terms %d, TermDim %d; want all at least 1", ad.ErrValue, n, m, d))
	}
	switch k.Product() {
	case MatVec:
	case Elementwise:
		if d != n {
			panic(fmt.Errorf("%w: volterra: elementwise product with TermDim %d, want Dim %d", ad.ErrValue, d, n))
		}
	default:
		panic(fmt.Errorf("%w: volterra: unknown product %v", ad.ErrName, k.Product()))
	}
}

// mix adds C·z to u, for C = C(t) in the layout of the product p.
func mix(u []float64, p Product, c, z []float64) {
	n := len(u)
	if p == Elementwise {
		m := len(c) / n
		for r := range u {
			row := c[r*m : (r+1)*m]
			var acc float64
			for j, cj := range row {
				acc += cj * z[j*n+r]
			}
			u[r] += acc
		}
		return
	}
	cols := len(z)
	for r := range u {
		row := c[r*cols : (r+1)*cols]
		var acc float64
		for j, cj := range row {
			acc += cj * z[j]
		}
		u[r] += acc
	}
}

// mixT sets dz = Cᵀ·dv, the transpose of mix.
func mixT(dz []float64, p Product, c, dv []float64) {
	n := len(dv)
	if p == Elementwise {
		m := len(c) / n
		for r, v := range dv {
			row := c[r*m : (r+1)*m]
			for j, cj := range row {
				dz[j*n+r] = cj * v
			}
		}
		return
	}
	clear(dz)
	cols := len(dz)
	for r, v := range dv {
		if v == 0 {
			continue
		}
		row := c[r*cols : (r+1)*cols]
		for j, cj := range row {
			dz[j] += cj * v
		}
	}
}

// outer sets w to the gradient of ⟨dv, C·z⟩ with respect to C, in the
// layout of C.
func outer(w []float64, p Product, dv, z []float64) {
	n := len(dv)
	if p == Elementwise {
		m := len(w) / n
		for r, v := range dv {
			for j := range m {
				w[r*m+j] = v * z[j*n+r]
			}
		}
		return
	}
	cols := len(z)
	for r, v := range dv {
		row := w[r*cols : (r+1)*cols]
		for j, zj := range z {
			row[j] = v * zj
		}
	}
}

// SeparableKernel presents a Separable kernel as a general one,
// φ(t, s, v) = C(t)·Φ(s, v), for Solve. It is a ParamKernel, whose VJP
// panics unless Separable is a ParamSeparable. It keeps scratch space and
// C(t) for the last t, which Solve and Solution.Gradient forget at their
// start; when calling it directly, call Reset after changing the
// parameters of Separable. It must not be used concurrently.
type SeparableKernel struct {
	Separable Separable

	ok                bool
	t                 float64
	c, phi, a, w, dpc []float64
}

// Dim returns the dimension of the state.
func (k *SeparableKernel) Dim() int { return k.Separable.Dim() }

// Reset forgets the cached coefficients.
func (k *SeparableKernel) Reset() { k.ok = false }

// coef returns C(t), computing it unless t is the last time seen.
func (k *SeparableKernel) coef(t float64) []float64 {
	if !k.ok || t != k.t {
		s := k.Separable
		if k.c == nil {
			checkSeparable(s)
			k.c = make([]float64, coefLen(s))
			k.phi = make([]float64, s.Terms()*s.TermDim())
			k.a = make([]float64, len(k.phi))
			k.w = make([]float64, len(k.c))
		}
		s.Coef(k.c, t)
		k.t, k.ok = t, true
	}
	return k.c
}

// Eval sets dst = C(t)·Φ(s, u).
func (k *SeparableKernel) Eval(dst []float64, t, s float64, u []float64) {
	c := k.coef(t)
	k.Separable.Phi(k.phi, s, u)
	clear(dst)
	mix(dst, k.Separable.Product(), c, k.phi)
}

// NumParams returns the number of parameters of Separable, or 0 if it is
// not a ParamSeparable.
func (k *SeparableKernel) NumParams() int {
	if ps, ok := k.Separable.(ParamSeparable); ok {
		return ps.NumParams()
	}
	return 0
}

// VJP sets du = wᵀ·∂φ/∂u and dp = wᵀ·∂φ/∂p through the terms and the
// coefficients.
func (k *SeparableKernel) VJP(du, dp []float64, t, s float64, u, w []float64) {
	ps, ok := k.Separable.(ParamSeparable)
	if !ok {
		panic(fmt.Errorf("%w: volterra: gradient through %T, which is not a ParamSeparable", ad.ErrValue, k.Separable))
	}
	c := k.coef(t)
	prod := ps.Product()
	mixT(k.a, prod, c, w)
	ps.PhiVJP(du, dp, s, u, k.a)
	if np := len(dp); np > 0 {
		if len(k.dpc) < np {
			k.dpc = make([]float64, np)
		}
		ps.Phi(k.phi, s, u)
		outer(k.w, prod, w, k.phi)
		ps.CoefVJP(k.dpc[:np], t, k.w)
		for i, g := range k.dpc[:np] {
			dp[i] += g
		}
	}
}

// NeuralODE is the kernel φ(t, s, v) = f(s, v) of the neural ODE
// u' = f(t, u): one term with Elementwise product and c₁ ≡ 1. With the free
// term Const(u₀), the Volterra equation u = u₀ + ∫ f(s, u(s)) ds is the
// initial value problem u(t₀) = u₀, and SolveSeparable integrates
// z' = f(t, u₀ + z), z = u - u₀. If F is an ode.ParamSystem its
// parameters are those of the kernel.
type NeuralODE struct {
	F ode.System
}

// Dim returns the dimension of F.
func (k NeuralODE) Dim() int { return k.F.Dim() }

// Terms returns 1.
func (k NeuralODE) Terms() int { return 1 }

// TermDim returns the dimension of F.
func (k NeuralODE) TermDim() int { return k.F.Dim() }

// Product returns Elementwise.
func (k NeuralODE) Product() Product { return Elementwise }

// Phi sets dst = f(s, v).
func (k NeuralODE) Phi(dst []float64, s float64, v []float64) { k.F.Deriv(dst, s, v) }

// Coef sets dst to ones.
func (k NeuralODE) Coef(dst []float64, _ float64) {
	for i := range dst {
		dst[i] = 1
	}
}

// NumParams returns the number of parameters of F, or 0 if it is not an
// ode.ParamSystem.
func (k NeuralODE) NumParams() int {
	if ps, ok := k.F.(ode.ParamSystem); ok {
		return ps.NumParams()
	}
	return 0
}

// PhiVJP calls the VJP of F. It panics if F is not an ode.ParamSystem.
func (k NeuralODE) PhiVJP(dv, dp []float64, s float64, v, w []float64) {
	ps, ok := k.F.(ode.ParamSystem)
	if !ok {
		panic(fmt.Errorf("%w: volterra: gradient through %T, which is not an ode.ParamSystem", ad.ErrValue, k.F))
	}
	ps.VJP(dv, dp, s, v, w)
}

// CoefVJP sets dp to zero: the coefficient is constant.
func (k NeuralODE) CoefVJP(dp []float64, _ float64, _ []float64) { clear(dp) }
