package volterra

import (
	"errors"
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/ode"
)

// Gradient computes the gradient of a loss L of the solution on the grid.
// du holds ∂L/∂U, in the layout of U. Gradient sets dpsi = dL/dq for the
// parameters q of the free term, which must be a ParamForcing unless dpsi
// is nil, and dp = dL/dp for those of the kernel, which must be a
// ParamKernel for Solve and a ParamSeparable for SolveSeparable; either
// may be nil when not wanted.
//
// For Solve the gradient is that of the discrete solution, exact to the
// tolerance of a backward fixed-point iteration per grid point that
// contracts whenever the forward one does; the cost is steps²/2 VJPs of
// the kernel and the memory O(steps·n). For SolveSeparable it is computed
// through the ODE of Theorem 5 with Settings.Grad: ode.Backprop is the
// gradient of the computed solution, ode.Adjoint that of the exact one to
// the accuracy of a backward solve; see package ode for their costs.
//
// Gradient panics on mismatched lengths or missing interfaces. It returns
// a *ContractionError (with Gradient set) if a backward iteration does not
// contract and the errors of the ODE solver for the adjoint method.
func (sol *Solution) Gradient(dpsi, dp, du []float64) error {
	if len(du) != len(sol.U) {
		panic(fmt.Errorf("%w: volterra: len(du) = %d, want %d (%d grid points × dimension %d)", ad.ErrShape, len(du), len(sol.U), len(sol.T), sol.n))
	}
	var psi Forcing
	var kernel any
	if sol.eq != nil {
		psi, kernel = sol.eq.Psi, sol.eq.Kernel
	} else {
		psi, kernel = sol.sep.Psi, sol.sep.Kernel
	}
	nq := 0
	if pp, ok := psi.(ParamForcing); ok {
		nq = pp.NumParams()
	} else if dpsi != nil {
		panic(fmt.Errorf("%w: volterra: gradient with respect to the free term %T, which is not a ParamForcing", ad.ErrValue, psi))
	}
	var np int
	if sol.eq != nil {
		pk, ok := kernel.(ParamKernel)
		if !ok {
			panic(fmt.Errorf("%w: volterra: gradient through %T, which is not a ParamKernel", ad.ErrValue, kernel))
		}
		np = pk.NumParams()
	} else {
		pk, ok := kernel.(ParamSeparable)
		if !ok {
			panic(fmt.Errorf("%w: volterra: gradient through %T, which is not a ParamSeparable", ad.ErrValue, kernel))
		}
		np = pk.NumParams()
	}
	if dpsi != nil && len(dpsi) != nq {
		panic(fmt.Errorf("%w: volterra: len(dpsi) = %d, want the %d parameters of the free term", ad.ErrShape, len(dpsi), nq))
	}
	if dp != nil && len(dp) != np {
		panic(fmt.Errorf("%w: volterra: len(dp) = %d, want the %d parameters of the kernel", ad.ErrShape, len(dp), np))
	}
	gq, gp := dpsi, dp
	if gq == nil {
		gq = make([]float64, nq)
	}
	if gp == nil {
		gp = make([]float64, np)
	}
	if sol.eq != nil {
		return sol.generalGradient(gq, gp, du)
	}
	return sol.separableGradient(gq, gp, du)
}

// generalGradient is the adjoint of the trapezoidal scheme of Solve. With
// Gᵢ(u) = uᵢ - ψ(tᵢ) - h·Σₖ wᵢₖ·φ(tᵢ, tₖ, uₖ) = 0, the multipliers solve
//
//	λₖ = ∂L/∂uₖ + h·Σ_{i≥k} wᵢₖ·(∂φ(tᵢ, tₖ, uₖ)/∂u)ᵀλᵢ,
//
// implicit in λₖ through the diagonal term, and dL/dψ(tᵢ) = λᵢ,
// dL/dp = h·Σᵢₖ wᵢₖ·(∂φ(tᵢ, tₖ, uₖ)/∂p)ᵀλᵢ. The λᵢ are computed from the
// last grid point to the first, each pushing its contributions to the
// earlier points, so that the kernel is always called at one t in turn.
func (sol *Solution) generalGradient(gq, gp, du []float64) error {
	eq := sol.eq
	pk := sol.kernel.(ParamKernel)
	ppsi, _ := eq.Psi.(ParamForcing)
	if r, ok := pk.(resetter); ok {
		r.Reset()
	}
	n, ts, U := sol.n, sol.T, sol.U
	h := ts[1] - ts[0]
	tol, maxIter := sol.settings.bounds()
	b := append([]float64(nil), du...)
	lam := make([]float64, n)
	next := make([]float64, n)
	dui := make([]float64, n)
	dpi := make([]float64, len(gp))
	dq := make([]float64, len(gq))
	clear(gp)
	clear(gq)
	for i := len(ts) - 1; i >= 0; i-- {
		ti, ui, bi := ts[i], U[i*n:(i+1)*n], b[i*n:(i+1)*n]
		copy(lam, bi)
		if i > 0 {
			_, err := fixedPoint(lam, next, ti, tol, maxIter, func(dst, x []float64) {
				pk.VJP(dst, dpi, ti, ti, ui, x)
				for j := range dst {
					dst[j] = bi[j] + 0.5*h*dst[j]
				}
			})
			if err != nil {
				var ce *ContractionError
				if errors.As(err, &ce) {
					ce.Gradient = true
				}
				return err
			}
			pk.VJP(dui, dpi, ti, ti, ui, lam)
			for j, g := range dpi {
				gp[j] += 0.5 * h * g
			}
		}
		if ppsi != nil && len(gq) > 0 {
			ppsi.VJP(dq, ti, lam)
			for j, g := range dq {
				gq[j] += g
			}
		}
		for k := range i {
			w := h
			if k == 0 {
				w = 0.5 * h
			}
			pk.VJP(dui, dpi, ti, ts[k], U[k*n:(k+1)*n], lam)
			bk := b[k*n : (k+1)*n]
			for j, g := range dui {
				bk[j] += w * g
			}
			for j, g := range dpi {
				gp[j] += w * g
			}
		}
	}
	return nil
}

// separableGradient maps ∂L/∂U to ∂L/∂z through u = ψ + C·z, takes the
// gradient of the ODE solution and adds the direct dependence of u on the
// parameters of C and ψ at the grid points.
func (sol *Solution) separableGradient(gq, gp, du []float64) error {
	f := newFastSystem(sol.sep)
	n, nz := f.batch*f.n, f.batch*f.nz
	dz := make([]float64, len(sol.z.Y))
	direct := make([]float64, f.np+f.nq)
	for i, t := range sol.T {
		z, dui := sol.z.Y[i*nz:(i+1)*nz], du[i*n:(i+1)*n]
		f.k.Coef(f.c, t)
		for b := range f.batch {
			mixT(dz[i*nz+b*f.nz:i*nz+(b+1)*f.nz], f.prod, f.c, dui[b*f.n:(b+1)*f.n])
		}
		f.addInput(direct, t, z, dui)
	}
	through := make([]float64, f.np+f.nq)
	if err := sol.z.Gradient(nil, through, dz, sol.settings.Grad); err != nil {
		var nf *ode.NonFiniteError
		if errors.As(err, &nf) {
			return &NonFiniteError{T: nf.T}
		}
		return fmt.Errorf("volterra: %w", err)
	}
	for j := range gp {
		gp[j] = direct[j] + through[j]
	}
	for j := range gq {
		gq[j] = direct[f.np+j] + through[f.np+j]
	}
	return nil
}
