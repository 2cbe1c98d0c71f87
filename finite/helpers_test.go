package finite

import "github.com/parametric-machines/machines/ad"

// params are a machine's weight and scaling as parameter nodes.
type params[T Float] struct{ W, Scale *ad.Node[T] }

// bind adds m's weight, and its scaling if it has one, to g as
// parameters, with gradients of their own.
func bind[T Float](g *ad.Graph[T], m *Machine[T]) params[T] {
	p := params[T]{W: g.Param(m.W, nil)}
	if m.Scale != nil {
		p.Scale = g.Param(m.Scale, nil)
	}
	return p
}

// applyBound applies m, its weight and scaling bound to g, to y0 and z0.
func applyBound[T Float](g *ad.Graph[T], m *Machine[T], y0, z0 *ad.Node[T]) *ad.Node[T] {
	p := bind(g, m)
	return m.apply(g, p.W, p.Scale, y0, z0)
}
