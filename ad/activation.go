package ad

import (
	"fmt"
	"math"
)

// Activation names a pointwise function: what a hypergraph vertex
// applies to its state before an edge reads it, what a finite machine
// applies to its pre-activations. The zero value is the identity.
type Activation string

// The activations of the library.
const (
	Identity Activation = "identity"
	ReLU     Activation = "relu"
	// ReLU6 is min(max(x, 0), 6), the activation of the image nodes of
	// the paper's Figure 2.
	ReLU6   Activation = "relu6"
	Tanh    Activation = "tanh"
	Sigmoid Activation = "sigmoid"
)

// Check returns an error if a is not an activation of the library.
func (a Activation) Check() error {
	switch a {
	case "", Identity, ReLU, ReLU6, Tanh, Sigmoid:
		return nil
	}
	return fmt.Errorf("unknown activation %q (known: identity, relu, relu6, sigmoid, tanh)", string(a))
}

// String returns the activation's name, "identity" for the zero value.
func (a Activation) String() string {
	if a == "" {
		return string(Identity)
	}
	return string(a)
}

// Func returns the activation as a scalar function f and its derivative
// df, which receives both the argument x and the value y = f(x), for
// code that applies it outside a graph (the solves of package finite).
// It panics if a is unknown.
func (a Activation) Func() (f func(x float64) float64, df func(x, y float64) float64) {
	switch a {
	case "", Identity:
		return func(x float64) float64 { return x }, func(float64, float64) float64 { return 1 }
	case ReLU:
		return func(x float64) float64 { return max(x, 0) }, func(x, _ float64) float64 { return step(x > 0) }
	case ReLU6:
		return func(x float64) float64 { return min(max(x, 0), 6) }, func(x, _ float64) float64 { return step(x > 0 && x < 6) }
	case Tanh:
		return math.Tanh, dTanh
	case Sigmoid:
		return sigmoid, dSigmoid
	}
	panic(fmt.Errorf("%w: %v", ErrName, a.Check()))
}

func step(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Activate adds a(x) to g; the identity adds nothing and returns x. It
// panics if a is unknown.
func Activate[T Float](g *Graph[T], a Activation, x *Node[T]) *Node[T] {
	switch a {
	case "", Identity:
		return x
	case ReLU:
		return g.ReLU(x)
	case ReLU6:
		return g.ReLU6(x)
	case Tanh:
		return g.Tanh(x)
	case Sigmoid:
		return g.Sigmoid(x)
	}
	panic(fmt.Errorf("%w: %v", ErrName, a.Check()))
}
