package ode

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
)

// GraphSystem is a ParamSystem whose right-hand side f(t, y; θ) is written
// with the operations of package ad, which derives its vector-Jacobian
// products: a neural ODE needs no hand-written VJP.
//
// The graph is recorded once, by NewGraphSystem. Deriv replays its
// forward pass and VJP its forward and backward passes, into buffers the
// graph owns, so that neither allocates. The parameters are the caller's
// slice θ, which the graph reads at every call: changing θ in place, as
// an optimiser does, changes the system. A GraphSystem must not be used
// concurrently.
type GraphSystem struct {
	g            ad.Graph[float64]
	t, y, theta  *ad.Node[float64]
	f            *ad.Node[float64]
	n, numParams int
}

// NewGraphSystem records the right-hand side f of a system of dimension
// n with parameters theta. build receives the graph and three nodes: t,
// a 1×1 input; y, the 1×n state (one sample, a row, as every batch of
// the library); and theta, a len(theta)×1 parameter node that reads
// theta itself. It returns the node of f(t, y; θ), whose n elements are
// the derivative in row-major order. Matrix parameters are blocks of
// theta, for example g.Reshape(g.RowBlock(theta, 0, 6), 3, 2) for a 3×2
// matrix stored row by row in theta[0:6]; a layer W y + b is then
// g.AddRow(g.MatMul(y, w, false, true), g.Reshape(b, 1, rows)).
//
// build is called once, at y = 0, t = 0 and the current theta; the
// values it sees are not used afterwards. NewGraphSystem panics if n < 1
// or if the node returned does not have n elements.
func NewGraphSystem(n int, theta []float64, build func(g *ad.Graph[float64], t, y, theta *ad.Node[float64]) *ad.Node[float64]) *GraphSystem {
	if n < 1 {
		panic(fmt.Errorf("%w: ode: graph system of dimension %d, want at least 1", ad.ErrShape, n))
	}
	s := &GraphSystem{n: n, numParams: len(theta)}
	s.t = s.g.Input(ad.NewTensor[float64](1, 1))
	s.y = s.g.Param(ad.NewTensor[float64](1, n), nil)
	s.theta = s.g.Param(ad.View(theta, len(theta), 1), nil)
	s.f = build(&s.g, s.t, s.y, s.theta)
	if s.f.Value.Len() != n {
		panic(fmt.Errorf("%w: ode: the right-hand side has shape %v, want %d elements", ad.ErrShape, s.f.Value.Shape, n))
	}
	return s
}

// Dim returns the dimension of the state.
func (s *GraphSystem) Dim() int { return s.n }

// NumParams returns len(θ).
func (s *GraphSystem) NumParams() int { return s.numParams }

// Deriv replays the forward pass at (t, y) and sets dst = f(t, y; θ).
func (s *GraphSystem) Deriv(dst []float64, t float64, y []float64) {
	s.forward(t, y)
	copy(dst, s.f.Value.Data)
}

// VJP replays the forward pass at (t, y) and the backward pass seeded
// with v, and sets dy = vᵀ·∂f/∂y and dp = vᵀ·∂f/∂θ.
func (s *GraphSystem) VJP(dy, dp []float64, t float64, y, v []float64) {
	s.forward(t, y)
	s.g.VJP(s.f, v)
	copy(dy, s.y.Grad.Data)
	copy(dp, s.theta.Grad.Data)
}

func (s *GraphSystem) forward(t float64, y []float64) {
	if len(y) != s.n {
		panic(fmt.Errorf("%w: ode: state of length %d for a graph system of dimension %d", ad.ErrShape, len(y), s.n))
	}
	s.t.Value.Data[0] = t
	copy(s.y.Value.Data, y)
	s.g.Forward()
}
