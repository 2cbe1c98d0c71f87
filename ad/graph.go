package ad

import (
	"fmt"
	"math"
)

// Graph records operations so that they can be replayed forward and
// differentiated backward. The zero value is an empty graph ready to use.
type Graph[T Float] struct {
	nodes []*Node[T]
	err   error // the first failure of the last Forward and Backward
	// scratch is memory that the operations' backward passes share, one
	// at a time (scratchTensor).
	scratch []T
}

// scratchTensor returns an m x n tensor on memory that the backward
// passes of g's operations share: its values last only until another
// operation's backward pass runs. A kernel machine of several levels
// has one such matrix of anchors by points rather than one per level,
// which keeps its working set in the processor's cache.
func (g *Graph[T]) scratchTensor(m, n int) *Tensor[T] {
	if len(g.scratch) < m*n {
		g.scratch = make([]T, m*n)
	}
	return View(g.scratch[:m*n], m, n)
}

// Node is a value in a Graph: an input, a parameter, or the result of an
// operation. Value is recomputed in place by Forward; Grad, present when
// the node depends on a parameter, is filled by Backward.
type Node[T Float] struct {
	Value *Tensor[T]
	Grad  *Tensor[T]

	op     op[T]
	inputs []*Node[T]
	// stale says that Grad still holds the previous backward pass's
	// values: it is zeroed, or overwritten, before anything is added.
	stale bool
}

// op is one operation's forward and backward pass. forward recomputes
// out.Value from out.inputs; backward adds the contribution of out.Grad to
// the Grad of every input that has one.
type op[T Float] interface {
	forward(out *Node[T])
	backward(out *Node[T])
}

// gradSetter is an op whose backward pass overwrites or zeroes its
// inputs' stale gradients itself (takeStale, clearStale), so that a
// gradient that is overwritten anyway is not cleared first. Before any
// other op's backward pass the graph zeroes them.
type gradSetter interface{ setsGrads() }

// Op is an operation defined outside this package, with its own forward
// and backward passes: a layer whose backward pass is itself a solve, for
// example, rather than a replay of elementary operations.
type Op[T Float] interface {
	// Forward recomputes out.Value from out.Inputs().
	Forward(out *Node[T])
	// Backward adds the contribution of out.Grad to the Grad of every
	// input whose Grad is not nil.
	Backward(out *Node[T])
}

// external adapts an Op to the package's own operation interface.
type external[T Float] struct{ o Op[T] }

func (e external[T]) forward(out *Node[T])  { e.o.Forward(out) }
func (e external[T]) backward(out *Node[T]) { e.o.Backward(out) }

// Apply adds the result of o on the inputs, a value of the given shape,
// and computes it once. The node has a gradient if any input has one.
func (g *Graph[T]) Apply(o Op[T], shape []int, inputs ...*Node[T]) *Node[T] {
	return g.apply(external[T]{o}, shape, inputs...)
}

// Inputs returns the nodes an operation's result was computed from.
func (n *Node[T]) Inputs() []*Node[T] { return n.inputs }

// Input adds a constant to the graph. Its value may be changed in place
// between calls to Forward; no gradient flows into it.
func (g *Graph[T]) Input(t *Tensor[T]) *Node[T] {
	n := &Node[T]{Value: t}
	g.nodes = append(g.nodes, n)
	return n
}

// Param adds a parameter: a leaf whose gradient Backward computes. The
// gradient is written to grad, which must have t's shape; if grad is nil a
// new tensor is allocated.
func (g *Graph[T]) Param(t, grad *Tensor[T]) *Node[T] {
	if grad == nil {
		grad = NewTensor[T](t.Shape...)
	} else if !grad.sameShape(t) {
		panic(fmt.Errorf("%w: ad: gradient shape %v for a parameter of shape %v", ErrShape, grad.Shape, t.Shape))
	}
	n := &Node[T]{Value: t, Grad: grad}
	g.nodes = append(g.nodes, n)
	return n
}

// apply adds the result of o on inputs, with a value of the given shape,
// and computes it once.
func (g *Graph[T]) apply(o op[T], shape []int, inputs ...*Node[T]) *Node[T] {
	n := &Node[T]{Value: NewTensor[T](shape...), op: o, inputs: inputs}
	for _, in := range inputs {
		if in.Grad != nil {
			n.Grad = NewTensor[T](shape...)
			break
		}
	}
	o.forward(n)
	g.nodes = append(g.nodes, n)
	return n
}

// Forward recomputes every node in the order it was added. It forgets
// the failure of the previous Forward and Backward (see Err).
func (g *Graph[T]) Forward() {
	g.err = nil
	for _, n := range g.nodes {
		if n.op != nil {
			n.op.forward(n)
		}
	}
}

// Backward computes the gradient of the scalar loss with respect to every
// node that depends on a parameter, overwriting the gradients of the
// previous call. loss must be a single-element node of this graph.
func (g *Graph[T]) Backward(loss *Node[T]) {
	if loss.Value.Len() != 1 {
		panic(fmt.Errorf("%w: ad: Backward from a node of shape %v, want a scalar", ErrShape, loss.Value.Shape))
	}
	if loss.Grad == nil {
		return // the loss does not depend on any parameter
	}
	g.propagate(loss, []T{1}, "Backward")
}

// propagate sets out's gradient to seed and runs the backward pass from
// it; every other gradient starts at zero. An operation's gradient is
// zeroed only when nothing overwrites it: just before the first
// contribution to it, or at the end for those that got none. The
// parameters' gradients are zeroed first: several nodes may share one
// (Params.Node), so none is stale at the end.
func (g *Graph[T]) propagate(out *Node[T], seed []T, caller string) {
	last := -1
	for i, n := range g.nodes {
		n.stale = n.Grad != nil && n.op != nil
		if n.Grad != nil && n.op == nil {
			n.Grad.Zero()
		}
		if n == out {
			last = i
		}
	}
	if last < 0 {
		panic(fmt.Errorf("%w: ad: %s from a node of another graph", ErrState, caller))
	}
	if out.Grad != nil {
		out.stale = false
		copy(out.Grad.Data, seed)
		for i := last; i >= 0; i-- {
			n := g.nodes[i]
			if n.op == nil || n.Grad == nil {
				continue
			}
			n.clearStale()
			if _, ok := n.op.(gradSetter); !ok {
				for _, in := range n.inputs {
					in.clearStale()
				}
			}
			n.op.backward(n)
		}
	}
	for _, n := range g.nodes {
		n.clearStale()
	}
}

// takeStale reports whether n's gradient holds the previous backward
// pass's values, which the caller then overwrites, and marks it current.
func (n *Node[T]) takeStale() bool {
	s := n.stale
	n.stale = false
	return s
}

// clearStale zeroes n's gradient if it holds the previous backward
// pass's values.
func (n *Node[T]) clearStale() {
	if n.takeStale() {
		n.Grad.Zero()
	}
}

// Fail records a numerical failure of an operation of g, such as a
// solver that does not converge: operations call it from their forward
// or backward pass, which cannot return an error, and leave NaN in
// their results. The first failure since the last Forward is kept; err
// should say where (the layer, and for a solver the time).
func (g *Graph[T]) Fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// Err returns the first failure recorded by Fail since the last Forward
// began, through the Backward that followed it, or nil. A model checks
// it after Forward and Backward, and returns it as its error.
func (g *Graph[T]) Err() error { return g.err }

// Scalar returns the value of a single-element node.
func (n *Node[T]) Scalar() T {
	if n.Value.Len() != 1 {
		panic(fmt.Errorf("%w: ad: Scalar of a node of shape %v", ErrShape, n.Value.Shape))
	}
	return n.Value.Data[0]
}

// IsFinite reports whether every element of the node's value is finite.
func (n *Node[T]) IsFinite() bool {
	for _, v := range n.Value.Data {
		if x := float64(v); math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
