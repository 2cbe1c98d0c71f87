package ad

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Layer is the contract every family of machines implements to be one
// layer of a model: a map from the spaces of its inputs to those of its
// outputs whose parameters live in a Params, never in the layer.
//
// A layer value is its configuration (sizes, activation, settings): it
// holds no parameter and no graph, so that one value can be initialised
// and applied any number of times, in float32 or float64, under names
// of the caller's choosing.
type Layer[T Float] interface {
	// Init checks the layer against the shapes of its inputs, one per
	// input and each of one sample (no batch dimension), registers its
	// parameters through s with initial values drawn from s.Rand, and
	// returns the shapes of its outputs, again of one sample. A layer
	// whose settings or inputs do not fit returns an error that says
	// what and why.
	Init(s *Scope[T], in [][]int) ([][]int, error)
	// Apply adds the layer to s.Graph for a batch: x holds one node per
	// input, each with the batch as its leading dimension, and Apply
	// returns one node per output, likewise. It reads its parameters
	// with s.Param, under the names Init registered. A numerical failure
	// of a later Forward or Backward (a solver that does not converge)
	// is reported through s.Graph.Fail.
	Apply(s *Scope[T], x []*Node[T]) ([]*Node[T], error)
}

// Scope is where a layer meets a model: the graph it is applied to, the
// parameter set that holds its parameters, its name, which prefixes
// every parameter's name ("conv" gives "conv.weight"), the random source
// of its initial values, and the penalties the model adds to its loss.
type Scope[T Float] struct {
	// Graph is the graph Apply adds to; nil during Init.
	Graph *Graph[T]
	// Params holds the parameters. It must not be nil.
	Params *Params[T]
	// Name is the layer's name.
	Name string
	// Rand draws initial values during Init; nil means a generator
	// seeded with DefaultSeed, so that a model built twice is the same.
	Rand *rand.Rand
	// penalties collects the terms of Penalize, shared by the scopes of
	// one model.
	penalties *[]*Node[T]
}

// DefaultSeed seeds the random source of a Scope whose Rand is nil.
const DefaultSeed = 1

// NewScope returns the scope of the top layer of a model: its
// parameters go to ps under names that start with name (name alone if
// it is empty), drawn from rnd (nil for the default), onto g (nil for
// Init).
func NewScope[T Float](g *Graph[T], ps *Params[T], name string, rnd *rand.Rand) *Scope[T] {
	if ps == nil {
		panic(fmt.Errorf("%w: a scope without a parameter set", ErrNil))
	}
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(DefaultSeed, 0))
	}
	return &Scope[T]{Graph: g, Params: ps, Name: name, Rand: rnd, penalties: new([]*Node[T])}
}

// Sub returns the scope of a part of this layer called name: its
// parameters are named after both ("front" and "conv" give
// "front.conv.weight"). It shares the graph, parameters, random source
// and penalties.
func (s *Scope[T]) Sub(name string) *Scope[T] {
	c := *s
	c.Name = s.join(name)
	return &c
}

func (s *Scope[T]) join(name string) string {
	if s.Name == "" {
		return name
	}
	return s.Name + "." + name
}

// NewParam registers a zero parameter of the given shape under the
// scope's name and suffix and returns its tensor, for Init to fill with
// initial values. It panics if the name is taken, and, before it
// allocates, with an error wrapping ErrBudget if the set would hold more
// than its Limit.
func (s *Scope[T]) NewParam(suffix string, shape ...int) *Tensor[T] {
	s.mustParams()
	if limit := s.Params.Limit; limit > 0 && s.Params.Len()+size(shape, limit) > limit {
		panic(fmt.Errorf("%w: parameter %s of shape %v takes the set beyond %d values", ErrBudget, s.join(suffix), shape, limit))
	}
	return s.Params.Add(s.join(suffix), NewTensor[T](shape...))
}

// size returns the number of elements of shape, or limit+1 if it is
// negative or above limit.
func size(shape []int, limit int) int {
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > limit/d) {
			return limit + 1
		}
		n *= d
	}
	return n
}

// Param returns the node of s.Graph that reads the parameter registered
// under the scope's name and suffix. It panics if there is none: Init
// registers what Apply reads.
func (s *Scope[T]) Param(suffix string) *Node[T] {
	s.mustParams()
	if s.Graph == nil {
		panic(fmt.Errorf("%w: Param(%q) of scope %q without a graph (during Init?)", ErrNil, suffix, s.Name))
	}
	return s.Params.Node(s.Graph, s.join(suffix))
}

// mustParams panics if the scope has no parameter set: a layer's
// parameters never live outside one.
func (s *Scope[T]) mustParams() {
	if s.Params == nil {
		panic(fmt.Errorf("%w: scope %q has no parameter set", ErrNil, s.Name))
	}
}

// Value returns the tensor of the parameter registered under the
// scope's name and suffix, or nil.
func (s *Scope[T]) Value(suffix string) *Tensor[T] {
	s.mustParams()
	return s.Params.Value(s.join(suffix))
}

// Penalize adds term, a scalar node of s.Graph, to the penalties of the
// model's loss: a kernel machine's cost times its norm, say.
func (s *Scope[T]) Penalize(term *Node[T]) {
	if term.Value.Len() != 1 {
		panic(fmt.Errorf("%w: penalty of shape %v from layer %q, want a scalar", ErrShape, term.Value.Shape, s.Name))
	}
	if s.penalties == nil {
		s.penalties = new([]*Node[T])
	}
	*s.penalties = append(*s.penalties, term)
}

// Penalties returns the terms that the layers applied in this scope and
// its sub-scopes passed to Penalize, in order.
func (s *Scope[T]) Penalties() []*Node[T] {
	if s.penalties == nil {
		return nil
	}
	return slices.Clone(*s.penalties)
}

// InitLayer initialises l in s for inputs of the given shapes and checks
// what it returns: one shape per output, each with dimensions of at
// least 1. Errors name the layer.
func InitLayer[T Float](l Layer[T], s *Scope[T], in [][]int) ([][]int, error) {
	out, err := l.Init(s, in)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", s.Name, err)
	}
	for i, shape := range out {
		if len(shape) == 0 || slices.Min(shape) < 1 {
			return nil, fmt.Errorf("layer %s: output %d has shape %v, want dimensions of at least 1", s.Name, i, shape)
		}
	}
	return out, nil
}

// ApplyLayer applies l in s to x and checks that it returns want
// outputs of the batch size of x. Errors name the layer.
func ApplyLayer[T Float](l Layer[T], s *Scope[T], x []*Node[T], want int) ([]*Node[T], error) {
	y, err := l.Apply(s, x)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", s.Name, err)
	}
	if len(y) != want {
		return nil, fmt.Errorf("layer %s: %d outputs, want %d", s.Name, len(y), want)
	}
	n := -1
	if len(x) > 0 {
		n = x[0].Value.Shape[0]
	}
	for i, v := range y {
		if v == nil || len(v.Value.Shape) < 1 || (n >= 0 && v.Value.Shape[0] != n) {
			return nil, fmt.Errorf("layer %s: output %d is not a batch of %d samples", s.Name, i, n)
		}
	}
	return y, nil
}
