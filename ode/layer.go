package ode

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
)

// Field is the right-hand side f(t, y; θ) of a neural ODE layer, written
// with the engine's operations (see NewGraphSystem), for a state of
// dimension n.
type Field interface {
	// NumParams returns the length of θ.
	NumParams(n int) int
	// Init draws θ's initial values from rnd.
	Init(theta []float64, n int, rnd *rand.Rand)
	// Build records f on g as NewGraphSystem's build does: t is 1×1, y
	// the 1×n state and theta the NumParams(n)×1 parameters.
	Build(g *ad.Graph[float64], n int, t, y, theta *ad.Node[float64]) *ad.Node[float64]
}

// MLP is the field of a one-hidden-layer perceptron,
//
//	f(t, y) = W₂ σ(W₁ y + b₁ + c t) + b₂,
//
// with θ laid out as W₁ (Hidden×n, row by row), b₁, c (Hidden each), W₂
// (n×Hidden) and b₂ (n). The weights start Glorot-uniform and the rest at
// zero.
type MLP struct {
	// Hidden is the number of hidden units, at least 1.
	Hidden int
	// Activation is σ; the zero value means tanh.
	Activation ad.Activation
}

func (f MLP) sigma() ad.Activation {
	if f.Activation == "" {
		return ad.Tanh
	}
	return f.Activation
}

// NumParams implements Field.
func (f MLP) NumParams(n int) int { return f.Hidden*n + 2*f.Hidden + n*f.Hidden + n }

// Init implements Field.
func (f MLP) Init(theta []float64, n int, rnd *rand.Rand) {
	clear(theta)
	w1, w2 := theta[:f.Hidden*n], theta[f.Hidden*n+2*f.Hidden:][:n*f.Hidden]
	for _, w := range [][]float64{w1, w2} {
		ad.GlorotUniform(w, n, f.Hidden, rnd)
	}
}

// Build implements Field.
func (f MLP) Build(g *ad.Graph[float64], n int, t, y, theta *ad.Node[float64]) *ad.Node[float64] {
	h, off := f.Hidden, 0
	block := func(rows, cols int) *ad.Node[float64] {
		b := g.RowBlock(theta, off, off+rows*cols)
		off += rows * cols
		return g.Reshape(b, rows, cols)
	}
	w1, b1, c, w2, b2 := block(h, n), block(h, 1), block(h, 1), block(n, h), block(n, 1)
	// The state is a row: W y becomes y W'.
	z := g.Add(g.AddRow(g.MatMul(y, w1, false, true), g.Reshape(b1, 1, h)), g.MatMul(t, c, false, true))
	return g.AddRow(g.MatMul(ad.Activate(g, f.sigma(), z), w2, false, true), g.Reshape(b2, 1, n))
}

// DefaultHidden is the number of hidden units of the MLP field of a
// Layer whose Field is nil.
const DefaultHidden = 16

// Layer is a neural ODE as a layer of a model: it implements ad.Layer, in
// float32 and float64 (the solves are float64 whatever the model's
// type). It maps the state of every sample, a row of its input, to y(T),
// the solution at time T of y' = f(t, y; θ), y(0) = the row; the
// gradients with respect to the inputs and θ come from
// Solution.Gradient. The samples of a batch are solved together as a
// Batch, so with Dormand–Prince they share the step sizes. Its one
// parameter is "theta", θ. A solve that fails (a step size that
// vanishes, a non-finite state) makes the output NaN and is reported
// through the graph's Fail, with the layer's name and the time.
type Layer[T ad.Float] struct {
	// Field is the right-hand side; nil means MLP{Hidden: DefaultHidden}.
	Field Field
	// End is the end time T, greater than 0; 0 means 1.
	End float64
	// Steps is the number of RK4 steps; 0 selects adaptive
	// Dormand–Prince with Settings.
	Steps int
	// Settings are Dormand–Prince's, used when Steps is 0; the zero
	// value is its defaults.
	Settings Settings
	// Grad is the gradient method: Backprop (the zero value) or Adjoint.
	Grad GradMethod
}

func (l Layer[T]) field() Field {
	if l.Field == nil {
		return MLP{Hidden: DefaultHidden}
	}
	return l.Field
}

// WithDefaults returns the layer with the values that its zero fields
// stand for: MLP{Hidden: DefaultHidden} for a nil Field, tanh for an MLP's zero
// Activation, 1 for a zero End.
func (l Layer[T]) WithDefaults() Layer[T] {
	l.Field, l.End = l.field(), l.end()
	if f, ok := l.Field.(MLP); ok {
		f.Activation = f.sigma()
		l.Field = f
	}
	return l
}

func (l Layer[T]) end() float64 {
	if l.End == 0 {
		return 1
	}
	return l.End
}

// Init implements ad.Layer.
func (l Layer[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	switch {
	case len(in) != 1 || len(in[0]) != 1:
		return nil, fmt.Errorf("ode: layer given inputs of shapes %v, want one vector", in)
	case !(l.end() > 0) || math.IsInf(l.End, 0) || l.Steps < 0:
		return nil, fmt.Errorf("ode: layer with end time %v and %d steps, want a finite T > 0 and steps >= 0", l.End, l.Steps)
	}
	if f, ok := l.field().(MLP); ok && f.Hidden < 1 {
		return nil, fmt.Errorf("ode: layer whose MLP field has %d hidden units, want at least 1", f.Hidden)
	}
	n := in[0][0]
	theta := make([]float64, l.field().NumParams(n))
	l.field().Init(theta, n, s.Rand)
	p := s.NewParam("theta", len(theta))
	for i, v := range theta {
		p.Data[i] = T(v)
	}
	return [][]int{{n}}, nil
}

// Apply implements ad.Layer.
func (l Layer[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	y0, theta := x[0], s.Param("theta")
	if len(y0.Value.Shape) != 2 {
		return nil, fmt.Errorf("%w: ode: a layer given a batch of shape %v, want [samples, dim]", ad.ErrShape, y0.Value.Shape)
	}
	n := y0.Value.Cols()
	if want := l.field().NumParams(n); theta.Value.Len() != want {
		return nil, fmt.Errorf("%w: ode: layer %s: theta of %d values, want %d", ad.ErrShape, s.Name, theta.Value.Len(), want)
	}
	op := &layerOp[T]{l: l, theta: make([]float64, theta.Value.Len()), name: s.Name, g: s.Graph}
	op.system = NewGraphSystem(n, op.theta, func(g *ad.Graph[float64], t, y, th *ad.Node[float64]) *ad.Node[float64] {
		return l.field().Build(g, n, t, y, th)
	})
	op.batch = &Batch{System: op.system, N: y0.Value.Rows()}
	return []*ad.Node[T]{s.Graph.Apply(op, y0.Value.Shape, y0, theta)}, nil
}

// Times returns the times of the layer's RK4 grid, or [0, T] for the
// adaptive solver.
func (l Layer[T]) Times() []float64 {
	if l.Steps == 0 {
		return []float64{0, l.end()}
	}
	ts := make([]float64, l.Steps+1)
	for i := range ts {
		ts[i] = l.end() * float64(i) / float64(l.Steps)
	}
	return ts
}

// layerOp solves the batch in float64, on copies of its inputs; system
// reads theta, which Forward fills from the parameter node.
type layerOp[T ad.Float] struct {
	l      Layer[T]
	name   string
	g      *ad.Graph[T]
	theta  []float64
	system *GraphSystem
	batch  *Batch
	sol    *Solution
}

func (o *layerOp[T]) Forward(out *ad.Node[T]) {
	in := out.Inputs()
	y0 := make([]float64, in[0].Value.Len())
	for i, v := range in[0].Value.Data {
		y0[i] = float64(v)
	}
	for i, v := range in[1].Value.Data {
		o.theta[i] = float64(v)
	}
	var err error
	if o.l.Steps > 0 {
		o.sol, err = RK4(o.batch, y0, o.l.Times(), Settings{})
	} else {
		o.sol, err = DormandPrince(o.batch, y0, o.l.Times(), o.l.Settings)
	}
	if err != nil {
		o.sol = nil
		o.g.Fail(fmt.Errorf("layer %s: %w", o.name, err))
		for i := range out.Value.Data {
			out.Value.Data[i] = T(math.NaN())
		}
		return
	}
	for i, v := range o.sol.Y[len(o.sol.Y)-len(y0):] {
		out.Value.Data[i] = T(v)
	}
}

func (o *layerOp[T]) Backward(out *ad.Node[T]) {
	if o.sol == nil {
		return // the forward solve failed and said so
	}
	in := out.Inputs()
	y0, theta := in[0], in[1]
	dY := make([]float64, len(o.sol.Y))
	for i, v := range out.Grad.Data {
		dY[len(dY)-len(out.Grad.Data)+i] = float64(v)
	}
	dy0 := make([]float64, y0.Value.Len())
	dp := make([]float64, len(o.theta))
	if err := o.sol.Gradient(dy0, dp, dY, o.l.Grad); err != nil {
		o.g.Fail(fmt.Errorf("layer %s: gradient: %w", o.name, err))
		return
	}
	for _, p := range []struct {
		grad *ad.Tensor[T]
		d    []float64
	}{{y0.Grad, dy0}, {theta.Grad, dp}} {
		if p.grad != nil {
			for i, v := range p.d {
				p.grad.Data[i] += T(v)
			}
		}
	}
}
