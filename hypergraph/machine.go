package hypergraph

import (
	"errors"
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Space is the space M_v of a vertex: real arrays of the given shape,
// such as [D] for a vector or [C, H, W] for an image with C channels.
// A batch of n samples has the batch as its leading dimension, as
// everywhere in the library: an n×D matrix (a row per sample) for a
// vector, [n, C, H, W] for an image.
type Space struct {
	Shape []int
	// Activation is applied to the vertex's state whenever a hyperedge
	// reads it, and to an output that Apply returns (see Machine).
	Activation ad.Activation
}

// batched returns the shape of the tensor holding n samples of shape s:
// the samples first, as everywhere in the library.
func batched(s []int, n int) []int {
	return append([]int{n}, s...)
}

// batchOf returns the number of samples in a tensor for a vertex of shape
// s, or -1 if the tensor's rank is wrong.
func batchOf(s, tensor []int) int {
	if len(tensor) != len(s)+1 {
		return -1
	}
	return tensor[0]
}

// Config describes a nonlinear hypergraph representation for New.
type Config[T ad.Float] struct {
	Hypergraph *Hypergraph
	// Spaces holds the space of each vertex and Layers the map of each
	// hyperedge, indexed like the vertices and edges of Hypergraph: any
	// layer of any family, a machine of this package among them.
	Spaces []Space
	Layers []ad.Layer[T]
	// Inputs and Outputs are the vertices that Apply receives and
	// returns. Nil Inputs means the vertices that no edge writes; nil
	// Outputs the other vertices that no edge reads.
	Inputs, Outputs []int
	// Shared, if not nil, names for each hyperedge the scope of its
	// parameters, its own name where it is empty: two hyperedges under
	// one name, whose layers must then be alike, share their parameters.
	Shared []string
}

// Machine is a hypergraph machine: the machine f = Σ_E p_E on the direct
// sum M of the spaces of the vertices of an acyclic hypergraph, where
// each p_E, a layer, reads its sources and writes its targets. Its stable
// state with initial condition g is computed hyperedge by hyperedge, in
// the layers of the line graph (Corollary 1), onto an ad.Graph, so that
// gradients flow through it.
//
// A Machine is an architecture: like every layer it holds no parameter.
// It is itself an ad.Layer, whose parameters are those of its
// hyperedges, each under the edge's name ("front.conv.weight" for the
// weight of edge conv of a machine called front), so that a machine can
// be the map of a hyperedge of a larger one.
//
// # Activations
//
// Following Figure 2 of the paper, vertices carry activations and
// hyperedges are the maps between them. The state h_v of a vertex is
// the sum of its input g_v and of the contributions of the hyperedges
// that write it,
//
//	h_v = g_v + Σ_{E : v ∈ t(E)} p_E(σ(h_{s(E)}))_v,
//
// and a hyperedge reads σ_u(h_u) from each source u, σ_u being the
// activation of u. The activation is thus part of every map that reads
// the vertex, p_E ∘ (σ_{u_1} ⊕ … ⊕ σ_{u_k}), which is still a map from the
// sources to the targets: the representation keeps the form h = g + f(h)
// of the paper, with the pre-activations as the state. An identity
// shortcut from a vertex passes on its activated value.
type Machine[T ad.Float] struct {
	h               Hypergraph
	spaces          []Space
	layers          []ad.Layer[T]
	scopes          []string // the scope of each edge's parameters
	inputs, outputs []int
	order           [][]int // the layers of the line graph

	spec *Spec // the spec the machine was built from, or nil
}

// New returns the hypergraph machine that c describes. A cyclic
// hypergraph gives a *CycleError. New panics, with an error that wraps
// ad.ErrShape or ad.ErrNil, if the configuration is inconsistent:
// lengths that do not match the hypergraph, a vertex out of range, a
// shape with a dimension below 1, an unknown activation or a nil layer.
func New[T ad.Float](c Config[T]) (*Machine[T], error) {
	if c.Hypergraph == nil {
		panic(fmt.Errorf("%w: hypergraph: nil Hypergraph in Config", ad.ErrNil))
	}
	h := c.Hypergraph
	h.check()
	switch {
	case len(c.Spaces) != len(h.Vertices):
		panic(fmt.Errorf("%w: hypergraph: %d spaces for %d vertices", ad.ErrShape, len(c.Spaces), len(h.Vertices)))
	case len(c.Layers) != len(h.Edges):
		panic(fmt.Errorf("%w: hypergraph: %d layers for %d edges", ad.ErrShape, len(c.Layers), len(h.Edges)))
	case c.Shared != nil && len(c.Shared) != len(h.Edges):
		panic(fmt.Errorf("%w: hypergraph: %d shared names for %d edges", ad.ErrShape, len(c.Shared), len(h.Edges)))
	}
	m := &Machine[T]{
		h:      Hypergraph{Vertices: slices.Clone(h.Vertices), Edges: make([]Edge, len(h.Edges))},
		spaces: make([]Space, len(c.Spaces)),
		layers: slices.Clone(c.Layers),
		scopes: make([]string, len(h.Edges)),
	}
	for e, E := range h.Edges {
		m.h.Edges[e] = Edge{Name: E.Name, Sources: slices.Clone(E.Sources), Targets: slices.Clone(E.Targets)}
		if c.Layers[e] == nil {
			panic(fmt.Errorf("%w: hypergraph: edge %s: nil layer", ad.ErrNil, E.Name))
		}
		m.scopes[e] = E.Name
		if c.Shared != nil && c.Shared[e] != "" {
			m.scopes[e] = c.Shared[e]
		}
	}
	for v, s := range c.Spaces {
		if len(s.Shape) == 0 || slices.Min(s.Shape) < 1 {
			panic(fmt.Errorf("%w: hypergraph: vertex %s: invalid shape %v", ad.ErrShape, h.Vertices[v], s.Shape))
		}
		if err := s.Activation.Check(); err != nil {
			panic(fmt.Errorf("%w: hypergraph: vertex %s: %v", ad.ErrName, h.Vertices[v], err))
		}
		m.spaces[v] = Space{Shape: slices.Clone(s.Shape), Activation: s.Activation}
	}
	var err error
	if m.order, err = m.h.Layers(); err != nil {
		return nil, err
	}
	m.inputs, m.outputs = c.Inputs, c.Outputs
	if m.inputs == nil {
		m.inputs = m.h.unwritten()
	}
	if m.outputs == nil {
		m.outputs = m.h.unread(m.inputs)
	}
	m.inputs, m.outputs = slices.Clone(m.inputs), slices.Clone(m.outputs)
	for _, list := range [][]int{m.inputs, m.outputs} {
		for i, v := range list {
			if v < 0 || v >= len(h.Vertices) || slices.Contains(list[:i], v) {
				panic(fmt.Errorf("%w: hypergraph: invalid input or output list %v for %d vertices", ad.ErrShape, list, len(h.Vertices)))
			}
		}
	}
	return m, nil
}

// unwritten returns the vertices that no edge targets.
func (h *Hypergraph) unwritten() []int {
	written := make([]bool, len(h.Vertices))
	for _, E := range h.Edges {
		for _, v := range E.Targets {
			written[v] = true
		}
	}
	list := []int{}
	for v, w := range written {
		if !w {
			list = append(list, v)
		}
	}
	return list
}

// unread returns the vertices that no edge reads, except those in skip.
func (h *Hypergraph) unread(skip []int) []int {
	read := make([]bool, len(h.Vertices))
	for _, E := range h.Edges {
		for _, v := range E.Sources {
			read[v] = true
		}
	}
	list := []int{}
	for v, r := range read {
		if !r && !slices.Contains(skip, v) {
			list = append(list, v)
		}
	}
	return list
}

// unreached returns the vertices of list that no path leads to from
// the vertices of from: those that are not in from and that no edge with
// a source reached writes.
func (h *Hypergraph) unreached(from, list []int) []int {
	reached := make([]bool, len(h.Vertices))
	for _, v := range from {
		reached[v] = true
	}
	for grew := true; grew; {
		grew = false
		for _, E := range h.Edges {
			if !slices.ContainsFunc(E.Sources, func(v int) bool { return reached[v] }) {
				continue
			}
			for _, v := range E.Targets {
				if !reached[v] {
					reached[v], grew = true, true
				}
			}
		}
	}
	var out []int
	for _, v := range list {
		if !reached[v] {
			out = append(out, v)
		}
	}
	return out
}

// Hypergraph returns the machine's hypergraph, which must not be modified.
func (m *Machine[T]) Hypergraph() *Hypergraph { return &m.h }

// Space returns the space of vertex v.
func (m *Machine[T]) Space(v int) Space {
	s := m.spaces[v]
	return Space{Shape: slices.Clone(s.Shape), Activation: s.Activation}
}

// Layer returns the layer of hyperedge e and the scope, relative to the
// machine's, under which its parameters live: the edge's name, or the
// shared name of Config.Shared.
func (m *Machine[T]) Layer(e int) (ad.Layer[T], string) { return m.layers[e], m.scopes[e] }

// Layers returns the hyperedges in the order the stable state evaluates
// them: the minimal-height layering of the line graph.
func (m *Machine[T]) Layers() [][]int {
	out := make([][]int, len(m.order))
	for i, l := range m.order {
		out[i] = slices.Clone(l)
	}
	return out
}

// Inputs returns the vertices that Apply receives, in order.
func (m *Machine[T]) Inputs() []int { return slices.Clone(m.inputs) }

// Outputs returns the vertices that Apply returns, in order.
func (m *Machine[T]) Outputs() []int { return slices.Clone(m.outputs) }

// Init implements ad.Layer: in holds the shapes of the input vertices,
// which must be their spaces'. It initialises every hyperedge's layer
// on the shapes of its sources, in s.Sub of its scope, and checks that
// it returns those of its targets; it returns the shapes of the output
// vertices.
func (m *Machine[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	if len(in) != len(m.inputs) {
		return nil, fmt.Errorf("hypergraph: %d inputs for a machine with %d input vertices", len(in), len(m.inputs))
	}
	for i, v := range m.inputs {
		if !slices.Equal(in[i], m.spaces[v].Shape) {
			return nil, fmt.Errorf("hypergraph: input vertex %s has shape %v, given %v", m.h.Vertices[v], m.spaces[v].Shape, in[i])
		}
	}
	// Every shape is known from the spaces, so the edges are initialised
	// in their own order, which fixes the draws of their initial values.
	done := map[string]bool{}
	for e := range m.h.Edges {
		if err := m.initEdge(s, e, done); err != nil {
			return nil, err
		}
	}
	out := make([][]int, len(m.outputs))
	for i, v := range m.outputs {
		out[i] = slices.Clone(m.spaces[v].Shape)
	}
	return out, nil
}

// initEdge initialises the layer of edge e, or, when an earlier edge of
// the same scope did, checks it on a scratch set of parameters.
func (m *Machine[T]) initEdge(s *ad.Scope[T], e int, done map[string]bool) error {
	E := m.h.Edges[e]
	src := make([][]int, len(E.Sources))
	for i, v := range E.Sources {
		src[i] = m.spaces[v].Shape
	}
	sub := s.Sub(m.scopes[e])
	if done[m.scopes[e]] {
		sub = ad.NewScope(nil, new(ad.Params[T]), sub.Name, sub.Rand)
	}
	done[m.scopes[e]] = true
	out, err := ad.InitLayer(m.layers[e], sub, src)
	if err != nil {
		return fmt.Errorf("hypergraph: edge %s: %w", E.Name, err)
	}
	if len(out) != len(E.Targets) {
		return fmt.Errorf("hypergraph: edge %s: its layer has %d outputs for %d targets", E.Name, len(out), len(E.Targets))
	}
	for i, v := range E.Targets {
		if !slices.Equal(out[i], m.spaces[v].Shape) {
			return fmt.Errorf("hypergraph: edge %s: its layer gives shape %v for target %s of shape %v", E.Name, out[i], m.h.Vertices[v], m.spaces[v].Shape)
		}
	}
	return nil
}

// Apply implements ad.Layer: x holds one node per input vertex, in the
// order of Inputs and with the batched shapes of their spaces, and Apply
// returns one node per output vertex, in the order of Outputs. What an
// output returns is what it would pass along an edge: its state with its
// activation applied. Vertices that are not inputs start from zero.
// Applying a machine twice in one scope shares its parameters, as a
// siamese network does.
func (m *Machine[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	if len(x) != len(m.inputs) {
		return nil, fmt.Errorf("hypergraph: %d inputs for a machine with %d input vertices", len(x), len(m.inputs))
	}
	init := make([]*ad.Node[T], len(m.spaces))
	for i, v := range m.inputs {
		if x[i] == nil {
			return nil, fmt.Errorf("hypergraph: nil input for vertex %s", m.h.Vertices[v])
		}
		init[v] = x[i]
	}
	p, err := m.run(s, init)
	if err != nil {
		return nil, err
	}
	out := make([]*ad.Node[T], len(m.outputs))
	for i, v := range m.outputs {
		out[i] = p.emit(v)
	}
	return out, nil
}

// StableState adds to s.Graph the stable state of the machine with
// initial condition init, which holds one node per vertex: g_v in the
// batched shape of the vertex's space, or nil for zero. At least one
// node must be given, to fix the batch size. It returns the state h_v
// of every vertex. The hyperedges are evaluated layer by layer, so that
// each reads vertices whose state is final.
func (m *Machine[T]) StableState(s *ad.Scope[T], init []*ad.Node[T]) ([]*ad.Node[T], error) {
	p, err := m.run(s, init)
	if err != nil {
		return nil, err
	}
	states := make([]*ad.Node[T], len(m.spaces))
	for v := range states {
		states[v] = p.state(v)
	}
	return states, nil
}

// sourceless is a layer that can write its targets without sources, for
// a batch of n samples.
type sourceless[T ad.Float] interface {
	applyEmpty(s *ad.Scope[T], n int) ([]*ad.Node[T], error)
}

// pass is one construction of the stable state on a graph.
type pass[T ad.Float] struct {
	m       *Machine[T]
	g       *ad.Graph[T]
	n       int
	init    []*ad.Node[T]
	contrib [][]*ad.Node[T] // contributions of the edges to each vertex
	states  []*ad.Node[T]   // final states, once read
	emitted []*ad.Node[T]   // activated states, once read
}

// batchSize returns the batch size of the initial condition, checking
// that every given node has its vertex's batched shape.
func (m *Machine[T]) batchSize(init []*ad.Node[T]) (int, error) {
	if len(init) != len(m.spaces) {
		return 0, fmt.Errorf("hypergraph: initial condition with %d nodes for %d vertices", len(init), len(m.spaces))
	}
	n := -1
	for v, x := range init {
		if x == nil {
			continue
		}
		b := batchOf(m.spaces[v].Shape, x.Value.Shape)
		if n < 0 {
			n = b
		}
		if b < 1 || b != n || !slices.Equal(x.Value.Shape, batched(m.spaces[v].Shape, n)) {
			return 0, fmt.Errorf("hypergraph: vertex %s: input of shape %v, want %v for a batch of %d",
				m.h.Vertices[v], x.Value.Shape, batched(m.spaces[v].Shape, max(n, 1)), max(n, 1))
		}
	}
	if n < 0 {
		return 0, errors.New("hypergraph: no input to take the batch size from")
	}
	return n, nil
}

// run evaluates every hyperedge, layer by layer.
func (m *Machine[T]) run(s *ad.Scope[T], init []*ad.Node[T]) (*pass[T], error) {
	n, err := m.batchSize(init)
	if err != nil {
		return nil, err
	}
	p := &pass[T]{
		m: m, g: s.Graph, n: n, init: init,
		contrib: make([][]*ad.Node[T], len(m.spaces)),
		states:  make([]*ad.Node[T], len(m.spaces)),
		emitted: make([]*ad.Node[T], len(m.spaces)),
	}
	for _, layer := range m.order {
		for _, e := range layer {
			if err := p.edge(s, e); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// edge applies the layer of edge e to its sources' activated states and
// adds what it returns to its targets' contributions.
func (p *pass[T]) edge(s *ad.Scope[T], e int) error {
	m := p.m
	E := m.h.Edges[e]
	x := make([]*ad.Node[T], len(E.Sources))
	for i, v := range E.Sources {
		x[i] = p.emit(v)
	}
	var y []*ad.Node[T]
	var err error
	if len(x) == 0 {
		// An edge without sources cannot take the batch size from them;
		// only this package's layers, which are told it, can be one.
		l, ok := m.layers[e].(sourceless[T])
		if !ok {
			return fmt.Errorf("hypergraph: edge %s has no sources, which a layer of type %T cannot take", E.Name, m.layers[e])
		}
		y, err = l.applyEmpty(s.Sub(m.scopes[e]), p.n)
	} else {
		y, err = ad.ApplyLayer(m.layers[e], s.Sub(m.scopes[e]), x, len(E.Targets))
	}
	if err != nil {
		return fmt.Errorf("hypergraph: edge %s: %w", E.Name, err)
	}
	for i, v := range E.Targets {
		if want := batched(m.spaces[v].Shape, p.n); i >= len(y) || y[i] == nil || !slices.Equal(y[i].Value.Shape, want) {
			return fmt.Errorf("hypergraph: edge %s: its layer gives no value of shape %v for target %s", E.Name, want, m.h.Vertices[v])
		}
		if p.states[v] != nil {
			panic(fmt.Errorf("%w: hypergraph: internal error: edge %s writes vertex %s after it was read", ad.ErrState, E.Name, m.h.Vertices[v]))
		}
		p.contrib[v] = append(p.contrib[v], y[i])
	}
	return nil
}

// state returns the state of vertex v: its input plus the contributions
// written to it, or zero.
func (p *pass[T]) state(v int) *ad.Node[T] {
	if s := p.states[v]; s != nil {
		return s
	}
	terms := p.contrib[v]
	if x := p.init[v]; x != nil {
		terms = append([]*ad.Node[T]{x}, terms...)
	}
	var s *ad.Node[T]
	if len(terms) == 0 {
		s = p.g.Input(ad.NewTensor[T](batched(p.m.spaces[v].Shape, p.n)...))
	} else {
		s = terms[0]
		for _, t := range terms[1:] {
			s = p.g.Add(s, t)
		}
	}
	p.states[v] = s
	return s
}

// emit returns the value vertex v passes along an edge: its activated
// state.
func (p *pass[T]) emit(v int) *ad.Node[T] {
	if y := p.emitted[v]; y != nil {
		return y
	}
	y := ad.Activate(p.g, p.m.spaces[v].Activation, p.state(v))
	p.emitted[v] = y
	return y
}
