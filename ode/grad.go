package ode

import (
	"errors"
	"fmt"

	"github.com/parametric-machines/machines/ad"
)

// GradMethod selects how Solution.Gradient differentiates a solve.
type GradMethod int

const (
	// Backprop differentiates the computation that was done: it runs
	// reverse mode through the recorded steps, stage by stage (the
	// discrete adjoint), with the step sizes held fixed. The gradient is
	// that of the numerical solution, exact to rounding. It needs the
	// recorded steps, O(steps·stages·Dim) memory, and costs one VJP per
	// stage: about as much as the forward solve.
	Backprop GradMethod = iota
	// Adjoint solves the adjoint equations a' = -(∂f/∂y)ᵀa,
	// g' = -(∂f/∂p)ᵀa backward in time together with y itself, with the
	// method and settings of the forward solve. Its memory is
	// O(Dim + NumParams) beyond the outputs, independent of the number of
	// steps, and its cost, one f and one VJP per stage, is about twice the
	// forward solve. The gradient is that of the exact solution, to the
	// accuracy of the backward solve, not that of the numerical one;
	// and solving y backward can lose accuracy where the forward flow
	// contracts strongly.
	Adjoint
)

func (m GradMethod) String() string {
	switch m {
	case Backprop:
		return "backprop"
	case Adjoint:
		return "adjoint"
	}
	return fmt.Sprintf("GradMethod(%d)", int(m))
}

// Gradient computes the gradient of a loss L of the outputs with respect
// to the initial state and the parameters of the system, which must be a
// ParamSystem. dY holds ∂L/∂Y, in the layout of Y (one row per output
// time, row 0 for y0). Gradient sets dy0 = dL/dy0, of length Dim, and
// dp = dL/dp, of length NumParams; either may be nil when not wanted.
//
// Gradient panics on mismatched lengths, if the system is not a
// ParamSystem, or for Backprop if the steps were dropped. The Adjoint
// method can fail like a forward solve; it then returns the error of the
// backward solve, with times on the original time axis.
func (sol *Solution) Gradient(dy0, dp, dY []float64, m GradMethod) error {
	ps, ok := sol.sys.(ParamSystem)
	if !ok {
		panic(fmt.Errorf("%w: ode: Gradient needs a ParamSystem, have %T", ad.ErrValue, sol.sys))
	}
	n, np := sol.n, ps.NumParams()
	if len(dY) != len(sol.Y) {
		panic(fmt.Errorf("%w: ode: len(dY) = %d, want %d (%d output times × dimension %d)", ad.ErrShape, len(dY), len(sol.Y), len(sol.T), n))
	}
	if dy0 != nil && len(dy0) != n {
		panic(fmt.Errorf("%w: ode: len(dy0) = %d, want %d", ad.ErrShape, len(dy0), n))
	}
	if dp != nil && len(dp) != np {
		panic(fmt.Errorf("%w: ode: len(dp) = %d, want NumParams = %d", ad.ErrShape, len(dp), np))
	}
	gy, gp := dy0, dp
	if gy == nil {
		gy = make([]float64, n)
	}
	if gp == nil {
		gp = make([]float64, np)
	}
	switch m {
	case Backprop:
		if sol.stepT == nil {
			panic(fmt.Errorf("%w: ode: the Backprop gradient needs the steps, which Settings.DropSteps discarded", ad.ErrValue))
		}
		sol.backprop(gy, gp, dY, ps)
		return nil
	case Adjoint:
		return sol.adjoint(gy, gp, dY, ps)
	}
	panic(fmt.Errorf("%w: ode: unknown gradient method %v", ad.ErrName, m))
}

// backprop runs reverse mode through the recorded steps. For a step
// Yᵢ = y + h·Σ_{j<i} aᵢⱼkⱼ, kᵢ = f(t + cᵢh, Yᵢ), y' = y + h·Σ bᵢkᵢ, the
// adjoint ȳ' of y' gives k̄ᵢ = h·bᵢ·ȳ' + h·Σ_{l>i} aₗᵢ·Ȳₗ, Ȳᵢ = k̄ᵢᵀ∂f/∂y
// and ȳ = ȳ' + Σ Ȳᵢ, taken from the last stage to the first.
func (sol *Solution) backprop(gy, gp, dY []float64, ps ParamSystem) {
	n, tab := sol.n, sol.tab
	s, used := tab.stages(), tab.used()
	a := make([]float64, n)
	ybar := make([]float64, n)
	stage := make([]float64, n)
	dyi := make([]float64, n)
	dpi := make([]float64, len(gp))
	kbar := make([][]float64, used)
	for i := range kbar {
		kbar[i] = make([]float64, n)
	}
	k := make([][]float64, s)
	clear(gp)

	out := len(sol.T) - 1
	for b := len(sol.stepT) - 1; ; b-- {
		if out >= 0 && sol.outAt[out] == b {
			for r := range a {
				a[r] += dY[out*n+r]
			}
			out--
		}
		if b == 0 {
			break
		}
		i0 := b - 1
		t, h := sol.stepT[i0], sol.stepH[i0]
		y := sol.stepY[i0*n : b*n]
		for j := range k {
			k[j] = sol.stepK[(i0*s+j)*n : (i0*s+j+1)*n]
		}
		copy(ybar, a)
		for i := range used {
			for r := range a {
				kbar[i][r] = h * tab.b[i] * a[r]
			}
		}
		for i := used - 1; i >= 0; i-- {
			combine(stage, y, h, tab.a[i], k)
			ps.VJP(dyi, dpi, t+tab.c[i]*h, stage, kbar[i])
			for r, d := range dyi {
				ybar[r] += d
			}
			for j, d := range dpi {
				gp[j] += d
			}
			for j, c := range tab.a[i] {
				if c == 0 {
					continue
				}
				for r, d := range dyi {
					kbar[j][r] += h * c * d
				}
			}
		}
		a, ybar = ybar, a
	}
	copy(gy, a)
}

// adjointSystem is the system of the continuous adjoint in reversed time
// τ = -t, on the state x = (y, a, g):
//
//	dy/dτ = -f(t, y),  da/dτ = (∂f/∂y)ᵀa,  dg/dτ = (∂f/∂p)ᵀa.
type adjointSystem struct {
	ps    ParamSystem
	n, np int
}

func (s adjointSystem) Dim() int { return 2*s.n + s.np }

func (s adjointSystem) Deriv(dst []float64, tau float64, x []float64) {
	n := s.n
	t := -tau
	y, a := x[:n], x[n:2*n]
	s.ps.Deriv(dst[:n], t, y)
	for r := range n {
		dst[r] = -dst[r]
	}
	s.ps.VJP(dst[n:2*n], dst[2*n:], t, y, a)
}

// adjoint integrates the adjoint system from the last output time to the
// first, adding ∂L/∂Y at each output time on the way.
func (sol *Solution) adjoint(gy, gp, dY []float64, ps ParamSystem) error {
	n, np := sol.n, len(gp)
	K := len(sol.T) - 1
	x := make([]float64, 2*n+np)
	copy(x, sol.Y[K*n:(K+1)*n])
	copy(x[n:2*n], dY[K*n:(K+1)*n])
	v := sol.set
	v.drop = true
	sys := adjointSystem{ps: ps, n: n, np: np}
	in := newIntegrator(sys, sol.tab, v, sol.adaptive, -sol.T[K], x)
	for k := K - 1; k >= 0; k-- {
		if err := in.advance(-sol.T[k]); err != nil {
			return flipTime(err)
		}
		for r := range n {
			in.y[n+r] += dY[k*n+r]
		}
		in.fresh = false
	}
	copy(gy, in.y[n:2*n])
	copy(gp, in.y[2*n:])
	return nil
}

// flipTime restores the original time axis in an error of a reversed-time
// solve.
func flipTime(err error) error {
	var (
		se *StepSizeError
		ne *NonFiniteError
		me *MaxStepsError
	)
	switch {
	case errors.As(err, &se):
		se.T = -se.T
	case errors.As(err, &ne):
		ne.T = -ne.T
	case errors.As(err, &me):
		me.T = -me.T
	}
	return fmt.Errorf("ode: adjoint solve: %w", err)
}
