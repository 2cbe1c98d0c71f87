package finite

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Params are the graph nodes of a machine's parameters.
type Params[T Float] struct {
	W, Scale *ad.Node[T]
}

// Bind adds the machine's weight, and its scaling if it has one, to g as
// parameters. Their gradients are written to wGrad and scaleGrad, which
// may be nil to allocate them.
func (m *Machine[T]) Bind(g *ad.Graph[T], wGrad, scaleGrad *ad.Tensor[T]) Params[T] {
	p := Params[T]{W: g.Param(m.W, wGrad)}
	if m.Scale != nil {
		p.Scale = g.Param(m.Scale, scaleGrad)
	}
	return p
}

// Use registers the machine's weight in ps as name+".weight", and its
// scaling if it has one as name+".scale", unless they are registered
// already, and returns their nodes in g: the parameters of a model built
// from several layers, without offsets into one vector.
func (m *Machine[T]) Use(g *ad.Graph[T], ps *ad.Params[T], name string) Params[T] {
	p := Params[T]{W: ps.Use(g, name+".weight", m.W)}
	if m.Scale != nil {
		p.Scale = ps.Use(g, name+".scale", m.Scale)
	}
	return p
}

// Apply adds the machine to g as one operation and returns its stable
// state z, a D x N node. y0 and z0 (nil for zero) are matrices of at most
// D rows and N columns, extended with zero rows; for signals, shape is
// the spatial shape of one signal (none for a dense machine) and the
// columns run over positions and, fastest, samples. The operation's
// forward pass is the machine's forward solve; its backward pass is one
// solve over the reversed filtration followed by one weight-gradient
// product, and it gives gradients to y0, z0, the weight and the scaling.
//
// Apply panics if the shapes do not fit the machine.
func (m *Machine[T]) Apply(g *ad.Graph[T], p Params[T], y0, z0 *ad.Node[T], shape ...int) *ad.Node[T] {
	s, err := m.NewSolver(shape...)
	if err != nil {
		panic(err.Error())
	}
	if p.W == nil || !slices.Equal(p.W.Value.Shape, m.WeightShape()) {
		var got []int
		if p.W != nil {
			got = p.W.Value.Shape
		}
		panic(fmt.Sprintf("%v: %s machine with dims %v given a weight of shape %v, want %v", ErrShape, m.kind, m.dims, got, m.WeightShape()))
	}
	if p.Scale != nil {
		if err := s.CheckScale(p.Scale.Value.Shape); err != nil {
			panic(err.Error())
		}
	}
	if err := s.CheckInput(y0.Value.Shape); err != nil {
		panic(err.Error() + " (y0)")
	}
	l := &layer[T]{s: s, hasZ0: z0 != nil, hasScale: p.Scale != nil}
	inputs := []*ad.Node[T]{y0, p.W}
	if z0 != nil {
		inputs = append(inputs, z0)
	}
	if p.Scale != nil {
		inputs = append(inputs, p.Scale)
	}
	return g.Apply(l, []int{m.Size(), y0.Value.Shape[1]}, inputs...)
}

// layer is the graph operation of a machine.
type layer[T Float] struct {
	s               *Solver[T]
	hasZ0, hasScale bool
}

func (l *layer[T]) nodes(out *ad.Node[T]) (y0, w, z0, scale *ad.Node[T]) {
	in := out.Inputs()
	y0, w, i := in[0], in[1], 2
	if l.hasZ0 {
		z0, i = in[i], i+1
	}
	if l.hasScale {
		scale = in[i]
	}
	return y0, w, z0, scale
}

func (l *layer[T]) Forward(out *ad.Node[T]) {
	y0, w, z0, scale := l.nodes(out)
	var z0v *ad.Tensor[T]
	if z0 != nil {
		z0v = z0.Value
	}
	var sc []T
	if scale != nil {
		sc = scale.Value.Data
	}
	l.s.forward(w.Value.Data, sc, y0.Value, z0v)
	copy(out.Value.Data, l.s.z)
}

func (l *layer[T]) Backward(out *ad.Node[T]) {
	y0, w, z0, scale := l.nodes(out)
	var gw, gs []T
	if w.Grad != nil {
		gw = w.Grad.Data
	}
	if scale != nil && scale.Grad != nil {
		gs = scale.Grad.Data
	}
	l.s.backward(nil, out.Grad, gw, gs)
	if y0.Grad != nil {
		for i, x := range l.s.v[:len(y0.Grad.Data)] {
			y0.Grad.Data[i] += x
		}
	}
	if z0 != nil && z0.Grad != nil {
		for i, x := range l.s.u[:len(z0.Grad.Data)] {
			z0.Grad.Data[i] += x
		}
	}
}
