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
// state z. Batches hold their samples first, as everywhere in the
// library: y0 and z0 (nil for zero) are N x C matrices for a dense
// machine and N x C x L or N x C x H x W tensors of signals for a
// convolutional or recurrent one, with C at most the machine's D
// channels (the missing channels are zero), and z has the same shape
// with D channels. The operation's forward pass is the machine's forward
// solve; its backward pass is one solve over the reversed filtration
// followed by one weight-gradient product, and it gives gradients to y0,
// z0, the weight and the scaling. Internally the solve works on channels
// x (positions x samples), the layout of Solver; the operation converts
// on the way in and out.
//
// Apply panics if the shapes do not fit the machine; the message gives
// the shape expected.
func (m *Machine[T]) Apply(g *ad.Graph[T], p Params[T], y0, z0 *ad.Node[T]) *ad.Node[T] {
	shape := y0.Value.Shape
	want := "[samples, channels]"
	if m.kind != Dense {
		want = "[samples, channels, positions...]"
	}
	if len(shape) < 2 {
		panic(fmt.Sprintf("%v: %s machine given y0 of shape %v, want %s", ErrShape, m.kind, shape, want))
	}
	s, err := m.NewSolver(shape[2:]...)
	if err != nil {
		panic(fmt.Sprintf("%v (y0 of shape %v, want %s)", err, shape, want))
	}
	for _, in := range []struct {
		name string
		x    *ad.Node[T]
	}{{"y0", y0}, {"z0", z0}} {
		if in.x == nil {
			continue
		}
		sh := in.x.Value.Shape
		if len(sh) != len(shape) || sh[0] != shape[0] || !slices.Equal(sh[2:], shape[2:]) || sh[0] < 1 || sh[1] < 1 || sh[1] > m.Size() {
			panic(fmt.Sprintf("%v: %s machine with %d channels given %s of shape %v (y0 %v), want %s with 1 to %d channels",
				ErrShape, m.kind, m.Size(), in.name, sh, shape, want, m.Size()))
		}
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
	n, c, pos := shape[0], shape[1], s.Positions()
	l := &layer[T]{s: s, hasZ0: z0 != nil, hasScale: p.Scale != nil, samples: n, positions: pos,
		y0: ad.NewTensor[T](c, pos*n), grad: ad.NewTensor[T](m.Size(), pos*n)}
	if z0 != nil {
		l.z0 = ad.NewTensor[T](z0.Value.Shape[1], pos*n)
	}
	inputs := []*ad.Node[T]{y0, p.W}
	if z0 != nil {
		inputs = append(inputs, z0)
	}
	if p.Scale != nil {
		inputs = append(inputs, p.Scale)
	}
	out := append([]int{n, m.Size()}, shape[2:]...)
	return g.Apply(l, out, inputs...)
}

// layer is the graph operation of a machine. y0, z0 and grad hold the
// inputs and the output's gradient in the solver's layout.
type layer[T Float] struct {
	s                  *Solver[T]
	hasZ0, hasScale    bool
	samples, positions int
	y0, z0, grad       *ad.Tensor[T]
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

// toSolver copies src, samples x channels x positions, to dst, channels
// x positions x samples; fromSolver adds the first channels of src, in
// the solver's layout, to dst in the batch layout.
func toSolver[T Float](dst, src []T, samples, positions int) {
	channels := len(src) / (samples * positions)
	for n := range samples {
		for c := range channels {
			row := src[(n*channels+c)*positions : (n*channels+c+1)*positions]
			for p, v := range row {
				dst[(c*positions+p)*samples+n] = v
			}
		}
	}
}

func fromSolver[T Float](dst, src []T, samples, positions int) {
	channels := len(dst) / (samples * positions)
	for n := range samples {
		for c := range channels {
			row := dst[(n*channels+c)*positions : (n*channels+c+1)*positions]
			for p := range row {
				row[p] += src[(c*positions+p)*samples+n]
			}
		}
	}
}

func (l *layer[T]) Forward(out *ad.Node[T]) {
	y0, w, z0, scale := l.nodes(out)
	toSolver(l.y0.Data, y0.Value.Data, l.samples, l.positions)
	var z0v *ad.Tensor[T]
	if z0 != nil {
		toSolver(l.z0.Data, z0.Value.Data, l.samples, l.positions)
		z0v = l.z0
	}
	var sc []T
	if scale != nil {
		sc = scale.Value.Data
	}
	l.s.forward(w.Value.Data, sc, l.y0, z0v)
	clear(out.Value.Data)
	fromSolver(out.Value.Data, l.s.z, l.samples, l.positions)
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
	toSolver(l.grad.Data, out.Grad.Data, l.samples, l.positions)
	l.s.backward(nil, l.grad, gw, gs)
	if y0.Grad != nil {
		fromSolver(y0.Grad.Data, l.s.v, l.samples, l.positions)
	}
	if z0 != nil && z0.Grad != nil {
		fromSolver(z0.Grad.Data, l.s.u, l.samples, l.positions)
	}
}
