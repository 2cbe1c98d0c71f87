package ad

import "fmt"

// VJP computes the vector-Jacobian product vᵀ·∂out/∂x for every node x
// that depends on a parameter, into x.Grad, overwriting the gradients of
// the previous call: Backward seeded with a cotangent v of out's shape
// rather than with 1 on a scalar. It is what differentiating a vector
// function needs, such as the right-hand side of a differential equation
// whose adjoint multiplies the Jacobian by a different v at every step.
// The values are those of the last Forward.
//
// v has one element per element of out, in row-major order. VJP panics
// if the lengths differ or if out is not a node of g.
func (g *Graph[T]) VJP(out *Node[T], v []T) {
	if len(v) != out.Value.Len() {
		panic(fmt.Errorf("%w: ad: VJP with %d cotangent values for a node of shape %v", ErrShape, len(v), out.Value.Shape))
	}
	g.propagate(out, v, "VJP")
}
