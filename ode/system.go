package ode

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
)

// System is the right-hand side of y' = f(t, y) for a state in ℝⁿ.
type System interface {
	// Dim returns n, the length of the state.
	Dim() int
	// Deriv sets dst = f(t, y). dst and y have length Dim and do not
	// share memory; Deriv must not modify y.
	Deriv(dst []float64, t float64, y []float64)
}

// ParamSystem is a System with parameters p, f(t, y) = f(t, y; p), that
// can multiply its Jacobians by a vector from the left. It is what the
// gradients of Solution need.
type ParamSystem interface {
	System
	// NumParams returns the number of parameters, possibly 0.
	NumParams() int
	// VJP sets dy = vᵀ·∂f/∂y and dp = vᵀ·∂f/∂p at (t, y), the
	// vector-Jacobian products. dy, y and v have length Dim, dp has length
	// NumParams. VJP must not modify y or v.
	VJP(dy, dp []float64, t float64, y, v []float64)
}

// Func adapts a function to the System interface.
type Func struct {
	// N is the dimension of the state.
	N int
	// F sets dst = f(t, y).
	F func(dst []float64, t float64, y []float64)
}

// Dim returns f.N.
func (f Func) Dim() int { return f.N }

// Deriv calls f.F.
func (f Func) Deriv(dst []float64, t float64, y []float64) { f.F(dst, t, y) }

// Batch stacks N copies of a system into one: the state is the
// concatenation of N states of System, each evolving on its own. Solving a
// Batch solves N initial value problems at once; with Dormand–Prince they
// share the step sizes, which the hardest member sets, so each member is
// solved at least as accurately as alone.
//
// If System is a ParamSystem, so is the Batch: the members share the
// parameters, and the parameter gradient is the sum over the members.
// A Batch keeps scratch space and must not be used concurrently.
type Batch struct {
	System System
	N      int

	dp []float64
}

// Dim returns N times the dimension of System.
func (b *Batch) Dim() int { return b.N * b.System.Dim() }

// Deriv applies System to each member.
func (b *Batch) Deriv(dst []float64, t float64, y []float64) {
	d := b.System.Dim()
	for i := range b.N {
		b.System.Deriv(dst[i*d:(i+1)*d], t, y[i*d:(i+1)*d])
	}
}

// NumParams returns the number of parameters of System, or 0 if it is not
// a ParamSystem.
func (b *Batch) NumParams() int {
	if ps, ok := b.System.(ParamSystem); ok {
		return ps.NumParams()
	}
	return 0
}

// VJP applies the VJP of System to each member and sums the parameter
// parts. It panics if System is not a ParamSystem.
func (b *Batch) VJP(dy, dp []float64, t float64, y, v []float64) {
	ps, ok := b.System.(ParamSystem)
	if !ok {
		panic(fmt.Errorf("%w: ode: Batch of %T, which is not a ParamSystem", ad.ErrValue, b.System))
	}
	d, np := ps.Dim(), ps.NumParams()
	if cap(b.dp) < np {
		b.dp = make([]float64, np)
	}
	scratch := b.dp[:np]
	clear(dp)
	for i := range b.N {
		ps.VJP(dy[i*d:(i+1)*d], scratch, t, y[i*d:(i+1)*d], v[i*d:(i+1)*d])
		for j, g := range scratch {
			dp[j] += g
		}
	}
}
