package volterra

import (
	"errors"
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/ode"
)

// fastSystem is the ODE of Theorem 5 of the paper, in z = (z₁, …, zₘ):
//
//	z' = Φ(t, u(t)),  u(t) = ψ(t) + C(t)·z,  z(T0) = 0,
//
// for each member of a batch, C(t) being shared. Its parameters are those
// of the kernel followed by those of ψ.
type fastSystem struct {
	k     Separable
	pk    ParamSeparable
	add   PhiVJPAdder // pk, if it adds
	psi   Forcing
	ppsi  ParamForcing
	prod  Product
	batch int
	n, nz int // per member
	np    int // kernel parameters
	nq    int // free term parameters

	c, u, dv, w, wb, dp []float64
	evals               int
}

func newFastSystem(eq *SeparableEquation) *fastSystem {
	if eq.Kernel == nil {
		panic(fmt.Errorf("%w: volterra: nil Kernel", ad.ErrNil))
	}
	k := eq.Kernel
	checkSeparable(k)
	f := &fastSystem{k: k, psi: eq.Psi, prod: k.Product(), batch: batchSize(eq.Batch), n: k.Dim(), nz: k.Terms() * k.TermDim()}
	checkPsi(eq.Psi, f.batch*f.n)
	if pk, ok := k.(ParamSeparable); ok {
		f.pk, f.np = pk, pk.NumParams()
		f.add, _ = pk.(PhiVJPAdder)
	}
	if pp, ok := eq.Psi.(ParamForcing); ok {
		f.ppsi, f.nq = pp, pp.NumParams()
	}
	f.c = make([]float64, coefLen(k))
	f.u = make([]float64, f.batch*f.n)
	f.dv = make([]float64, f.batch*f.n)
	f.w = make([]float64, len(f.c))
	f.wb = make([]float64, len(f.c))
	f.dp = make([]float64, max(f.np, f.nq))
	return f
}

func (f *fastSystem) Dim() int { return f.batch * f.nz }

// state sets f.c = C(t) and f.u = ψ(t) + C(t)·z, member by member.
func (f *fastSystem) state(t float64, z []float64) {
	f.k.Coef(f.c, t)
	f.psi.Eval(f.u, t)
	for b := range f.batch {
		mix(f.u[b*f.n:(b+1)*f.n], f.prod, f.c, z[b*f.nz:(b+1)*f.nz])
	}
}

func (f *fastSystem) Deriv(dst []float64, t float64, z []float64) {
	f.state(t, z)
	for b := range f.batch {
		f.k.Phi(dst[b*f.nz:(b+1)*f.nz], t, f.u[b*f.n:(b+1)*f.n])
	}
	f.evals += f.batch
}

func (f *fastSystem) NumParams() int { return f.np + f.nq }

// VJP differentiates z ↦ Φ(t, ψ(t) + C(t)·z) with respect to z, the
// kernel parameters (through Φ and C) and those of ψ.
func (f *fastSystem) VJP(dz, dp []float64, t float64, z, w []float64) {
	if f.pk == nil {
		panic(fmt.Errorf("%w: volterra: gradient through %T, which is not a ParamSeparable", ad.ErrValue, f.k))
	}
	f.state(t, z)
	clear(dp)
	for b := range f.batch {
		dv, u, wb := f.dv[b*f.n:(b+1)*f.n], f.u[b*f.n:(b+1)*f.n], w[b*f.nz:(b+1)*f.nz]
		if f.add != nil {
			f.add.AddPhiVJP(dv, dp[:f.np], t, u, wb)
		} else {
			f.pk.PhiVJP(dv, f.dp[:f.np], t, u, wb)
			for i, g := range f.dp[:f.np] {
				dp[i] += g
			}
		}
		mixT(dz[b*f.nz:(b+1)*f.nz], f.prod, f.c, dv)
	}
	f.addInput(dp, t, z, f.dv)
}

// addInput adds to dp the gradient of ⟨dv, ψ(t) + C(t)·z⟩ with respect to
// the parameters of C and of ψ, for the whole batch.
func (f *fastSystem) addInput(dp []float64, t float64, z, dv []float64) {
	if f.np > 0 {
		clear(f.w)
		for b := range f.batch {
			outer(f.wb, f.prod, dv[b*f.n:(b+1)*f.n], z[b*f.nz:(b+1)*f.nz])
			for i, v := range f.wb {
				f.w[i] += v
			}
		}
		f.pk.CoefVJP(f.dp[:f.np], t, f.w)
		for i, g := range f.dp[:f.np] {
			dp[i] += g
		}
	}
	if f.nq > 0 {
		f.ppsi.VJP(f.dp[:f.nq], t, dv)
		for i, g := range f.dp[:f.nq] {
			dp[f.np+i] += g
		}
	}
}

// SolveSeparable solves eq on the uniform grid of steps intervals through
// the ODE of Theorem 5 of the paper: z' = Φ(t, u(t)), z(T0) = 0, with
// u(t) = ψ(t) + C(t)·z(t). By default it takes one RK4 step per grid
// interval, so that the cost is 4·steps evaluations of Φ, C and ψ, and the
// error is fourth order; Settings.ODE selects adaptive Dormand–Prince.
// The steps are recorded for the gradient unless Settings.Grad is
// ode.Adjoint, which needs no record.
//
// SolveSeparable panics unless T0 < T, steps >= 1, Psi and Kernel are set
// with consistent dimensions and the settings are valid. A non-finite
// value gives a *NonFiniteError; the other failures of the ODE solver are
// returned wrapped.
func SolveSeparable(eq *SeparableEquation, steps int, s Settings) (*Solution, error) {
	ts := grid(eq.T0, eq.T, steps)
	f := newFastSystem(eq)
	n, nz := f.batch*f.n, f.batch*f.nz
	s.bounds()
	sol := &Solution{T: ts, n: n, sep: eq, settings: s}
	z0 := make([]float64, nz)
	var err error
	if s.ODE == nil {
		// The adjoint needs no record of the steps.
		rk := ode.Settings{DropSteps: s.Grad == ode.Adjoint}
		sol.z, err = ode.RK4(f, z0, ts, rk)
	} else {
		dp := *s.ODE
		dp.DropSteps = dp.DropSteps || s.Grad == ode.Adjoint
		sol.z, err = ode.DormandPrince(f, z0, ts, dp)
	}
	sol.Evals = f.evals
	if err != nil {
		var nf *ode.NonFiniteError
		if errors.As(err, &nf) {
			return nil, &NonFiniteError{T: nf.T}
		}
		return nil, fmt.Errorf("volterra: %w", err)
	}
	sol.U = make([]float64, len(ts)*n)
	for i, t := range ts {
		u := sol.U[i*n : (i+1)*n]
		f.state(t, sol.z.Y[i*nz:(i+1)*nz])
		copy(u, f.u)
		if !numeric.AllFinite(u) {
			return nil, &NonFiniteError{T: t}
		}
	}
	return sol, nil
}
