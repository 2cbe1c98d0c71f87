package hypergraph

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Activation is the function a vertex applies to its state before a
// hyperedge reads it. The zero value is the identity.
type Activation string

// The activations a vertex may carry.
const (
	Identity Activation = "identity"
	ReLU     Activation = "relu"
	Tanh     Activation = "tanh"
	Sigmoid  Activation = "sigmoid"
	// ReLU6 is min(max(x, 0), 6), the activation of the image nodes of
	// Figure 2.
	ReLU6 Activation = "relu6"
)

// valid reports whether a is an activation this package knows.
func (a Activation) valid() bool {
	switch a {
	case "", Identity, ReLU, Tanh, Sigmoid, ReLU6:
		return true
	}
	return false
}

// activate adds a(x) to g; the identity adds nothing.
func activate[T ad.Float](g *ad.Graph[T], a Activation, x *ad.Node[T]) *ad.Node[T] {
	switch a {
	case "", Identity:
		return x
	case ReLU:
		return g.ReLU(x)
	case Tanh:
		return g.Tanh(x)
	case Sigmoid:
		return g.Sigmoid(x)
	case ReLU6:
		return g.ReLU6(x)
	}
	panic(fmt.Sprintf("hypergraph: unknown activation %q", a))
}

// Space is the space M_v of a vertex: real arrays of the given shape,
// such as [D] for a vector or [C, H, W] for an image with C channels.
// A batch of n samples has the batch as its leading dimension, as
// everywhere in the library: an n×D matrix (a row per sample) for a
// vector, [n, C, H, W] for an image.
type Space struct {
	Shape []int
	// Activation is applied to the vertex's state whenever a hyperedge
	// reads it, and to an output returned by Build (see Machine).
	Activation Activation
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

// Map is the map p_E of a hyperedge E, from the values of its sources to
// contributions to its targets.
type Map[T ad.Float] interface {
	// Params returns the parameters of the map with their initial
	// values. New calls it once and copies the values into the machine,
	// which owns them from then on; a tensor returned by the maps of two
	// hyperedges is one parameter shared between them.
	Params() []*ad.Tensor[T]
	// Build adds the map to g for a batch of n samples. params holds one
	// node per tensor of Params, in order; x holds the values that the
	// sources of E emit (their activations applied), in the order of
	// Sources. Build returns one node per target, in the order of
	// Targets, each with the batched shape of the target's space.
	Build(g *ad.Graph[T], n int, params, x []*ad.Node[T]) []*ad.Node[T]
}

// Config describes a nonlinear hypergraph representation for New.
type Config[T ad.Float] struct {
	Hypergraph *Hypergraph
	// Spaces holds the space of each vertex and Maps the map of each
	// hyperedge, indexed like the vertices and edges of Hypergraph.
	Spaces []Space
	Maps   []Map[T]
	// Inputs and Outputs are the vertices that Build receives and
	// returns. Nil Inputs means the vertices that no edge writes; nil
	// Outputs the other vertices that no edge reads.
	Inputs, Outputs []int
}

// Machine is a hypergraph machine: the machine f = Σ_E p_E on the direct
// sum M of the spaces of the vertices of an acyclic hypergraph, where each
// p_E reads its sources and writes its targets. Its stable state with
// initial condition g is computed hyperedge by hyperedge, in the layers of
// the line graph (Corollary 1), onto an ad.Graph, so that gradients flow
// through it.
//
// # Activations
//
// Following Figure 2 of the paper, vertices carry activations and
// hyperedges are the linear maps (dense, convolution) between them. The
// state h_v of a vertex is the sum of its input g_v and of the
// contributions of the hyperedges that write it,
//
//	h_v = g_v + Σ_{E : v ∈ t(E)} p_E(σ(h_{s(E)}))_v,
//
// and a hyperedge reads σ_u(h_u) from each source u, σ_u being the
// activation of u. The activation is thus part of every map that reads
// the vertex, p_E ∘ (σ_{u_1} ⊕ … ⊕ σ_{u_k}), which is still a map from the
// sources to the targets: the representation keeps the form h = g + f(h)
// of the paper, with the pre-activations as the state. An identity
// shortcut from a vertex passes on its activated value.
//
// A Machine keeps its parameters in one vector and their gradients in
// another, as optimisers want them (see Params and Grad).
type Machine[T ad.Float] struct {
	h               Hypergraph
	spaces          []Space
	maps            []Map[T]
	inputs, outputs []int
	layers          [][]int

	params, grad []T
	// values are the parameter tensors, views of params laid end to end;
	// edgeParams[e] lists the parameters of edge e.
	values     []*ad.Tensor[T]
	edgeParams [][]int

	spec *Spec // the spec the machine was built from, or nil
}

// New returns the hypergraph machine that c describes, with the initial
// parameter values of its maps. A cyclic hypergraph gives a *CycleError.
// New panics if the configuration is inconsistent: lengths that do not
// match the hypergraph, a vertex out of range, a shape with a dimension
// below 1, an unknown activation or a nil map.
func New[T ad.Float](c Config[T]) (*Machine[T], error) {
	if c.Hypergraph == nil {
		panic("hypergraph: nil Hypergraph in Config")
	}
	h := c.Hypergraph
	h.check()
	if len(c.Spaces) != len(h.Vertices) {
		panic(fmt.Sprintf("hypergraph: %d spaces for %d vertices", len(c.Spaces), len(h.Vertices)))
	}
	if len(c.Maps) != len(h.Edges) {
		panic(fmt.Sprintf("hypergraph: %d maps for %d edges", len(c.Maps), len(h.Edges)))
	}
	m := &Machine[T]{
		h:      Hypergraph{Vertices: slices.Clone(h.Vertices), Edges: make([]Edge, len(h.Edges))},
		spaces: make([]Space, len(c.Spaces)),
		maps:   slices.Clone(c.Maps),
	}
	for e, E := range h.Edges {
		m.h.Edges[e] = Edge{Name: E.Name, Sources: slices.Clone(E.Sources), Targets: slices.Clone(E.Targets)}
		if c.Maps[e] == nil {
			panic(fmt.Sprintf("hypergraph: edge %s: nil map", E.Name))
		}
	}
	for v, s := range c.Spaces {
		if len(s.Shape) == 0 || slices.Min(s.Shape) < 1 {
			panic(fmt.Sprintf("hypergraph: vertex %s: invalid shape %v", h.Vertices[v], s.Shape))
		}
		if !s.Activation.valid() {
			panic(fmt.Sprintf("hypergraph: vertex %s: unknown activation %q", h.Vertices[v], s.Activation))
		}
		m.spaces[v] = Space{Shape: slices.Clone(s.Shape), Activation: s.Activation}
	}
	var err error
	if m.layers, err = m.h.Layers(); err != nil {
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
				panic(fmt.Sprintf("hypergraph: invalid input or output list %v for %d vertices", list, len(h.Vertices)))
			}
		}
	}
	m.collectParams()
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

// collectParams copies the parameters of the maps into one vector.
func (m *Machine[T]) collectParams() {
	index := map[*ad.Tensor[T]]int{}
	var init []*ad.Tensor[T]
	m.edgeParams = make([][]int, len(m.maps))
	size := 0
	for e, p := range m.maps {
		m.edgeParams[e] = []int{}
		for _, t := range p.Params() {
			i, ok := index[t]
			if !ok {
				i = len(init)
				index[t] = i
				init = append(init, t)
				size += t.Len()
			}
			m.edgeParams[e] = append(m.edgeParams[e], i)
		}
	}
	m.params, m.grad = make([]T, size), make([]T, size)
	off := 0
	for _, t := range init {
		n := t.Len()
		copy(m.params[off:off+n], t.Data)
		m.values = append(m.values, ad.View(m.params[off:off+n:off+n], t.Shape...))
		off += n
	}
}

// Hypergraph returns the machine's hypergraph, which must not be modified.
func (m *Machine[T]) Hypergraph() *Hypergraph { return &m.h }

// Space returns the space of vertex v.
func (m *Machine[T]) Space(v int) Space {
	s := m.spaces[v]
	return Space{Shape: slices.Clone(s.Shape), Activation: s.Activation}
}

// Layers returns the hyperedges in the order the stable state evaluates
// them: the minimal-height layering of the line graph.
func (m *Machine[T]) Layers() [][]int {
	out := make([][]int, len(m.layers))
	for i, l := range m.layers {
		out[i] = slices.Clone(l)
	}
	return out
}

// Inputs returns the vertices that Build receives, in order.
func (m *Machine[T]) Inputs() []int { return slices.Clone(m.inputs) }

// Outputs returns the vertices that Build returns, in order.
func (m *Machine[T]) Outputs() []int { return slices.Clone(m.outputs) }

// Params returns the vector of all parameters. It is the machine's own
// storage: an optimiser may update it in place between calls to Forward
// on a graph that the machine was built onto. It panics once the
// parameters have moved into an ad.Params (see Use).
func (m *Machine[T]) Params() []T {
	m.checkOwned()
	return m.params
}

// Grad returns the vector of the gradients of the parameters, laid out
// like Params. Backward overwrites it on a graph the machine was built
// onto with the parameter nodes of ParamNodes or with nil params; with
// other parameter nodes the gradients go where those nodes say. It
// panics once the parameters have moved into an ad.Params.
func (m *Machine[T]) Grad() []T {
	m.checkOwned()
	return m.grad
}

// Use registers the machine's parameters in ps, each tensor of hyperedge
// E as name+"."+E+"."+k, k counting the edge's tensors from 0 (a tensor
// that edges share, under the first), and returns their nodes in g, one
// per tensor as ParamNodes returns them. This is how the machine becomes
// one layer of a model whose parameters ps holds: once ps packs them
// into its vector, they live there, and the machine's own Params and
// Grad vectors, which they no longer share, are refused.
func (m *Machine[T]) Use(g *ad.Graph[T], ps *ad.Params[T], name string) []*ad.Node[T] {
	names := make([]string, len(m.values))
	for e, idx := range m.edgeParams {
		for k, i := range idx {
			if names[i] == "" {
				names[i] = fmt.Sprintf("%s.%s.%d", name, m.h.Edges[e].Name, k)
			}
		}
	}
	nodes := make([]*ad.Node[T], len(m.values))
	for i, t := range m.values {
		nodes[i] = ps.Use(g, names[i], t)
	}
	return nodes
}

// checkOwned panics if the parameter tensors no longer view the
// machine's vector, which happens when an ad.Params packs them.
func (m *Machine[T]) checkOwned() {
	for _, t := range m.values {
		if len(t.Data) > 0 { // the first tensor with data starts the vector
			if &t.Data[0] != &m.params[0] {
				panic("hypergraph: the machine's parameters live in an ad.Params (see Use); use its Values and Grads")
			}
			return
		}
	}
}

// EdgeParams returns the parameters of hyperedge e, as views of Params.
func (m *Machine[T]) EdgeParams(e int) []*ad.Tensor[T] {
	out := make([]*ad.Tensor[T], len(m.edgeParams[e]))
	for k, i := range m.edgeParams[e] {
		out[k] = m.values[i]
	}
	return out
}

// ParamNodes adds the machine's parameters to g and returns their nodes,
// one per parameter tensor. Their values are views of Params and their
// gradients views of Grad.
func (m *Machine[T]) ParamNodes(g *ad.Graph[T]) []*ad.Node[T] {
	return m.ParamNodesInto(g, m.grad)
}

// ParamNodesInto is ParamNodes with the gradients written to grad, laid
// out like Params, instead of Grad, so that several graphs of one machine
// (one per worker, say) can run at once. A nil grad adds the parameters
// as constants.
func (m *Machine[T]) ParamNodesInto(g *ad.Graph[T], grad []T) []*ad.Node[T] {
	m.checkOwned()
	if grad != nil && len(grad) != len(m.params) {
		panic(fmt.Sprintf("hypergraph: gradient vector of %d entries for %d parameters", len(grad), len(m.params)))
	}
	nodes := make([]*ad.Node[T], len(m.values))
	off := 0
	for i, t := range m.values {
		if grad == nil {
			nodes[i] = g.Input(t)
		} else {
			nodes[i] = g.Param(t, ad.View(grad[off:off+t.Len()], t.Shape...))
		}
		off += t.Len()
	}
	return nodes
}

// StableState adds to g the stable state of the machine with initial
// condition init, which holds one node per vertex: g_v in the batched
// shape of the vertex's space, or nil for zero. At least one node must be
// given, to fix the batch size. params are the nodes of ParamNodes; nil
// adds new ones. It returns the state h_v of every vertex.
//
// The hyperedges are evaluated layer by layer, so that each reads vertices
// whose state is final; StableState panics if init does not fit the
// machine or if a map returns values of the wrong shape.
func (m *Machine[T]) StableState(g *ad.Graph[T], params, init []*ad.Node[T]) []*ad.Node[T] {
	p := m.run(g, params, init)
	states := make([]*ad.Node[T], len(m.spaces))
	for v := range states {
		states[v] = p.state(v)
	}
	return states
}

// Build adds the machine to g as a layer: x holds one node per input
// vertex, in the order of Inputs and with the batched shapes of their
// spaces, and Build returns one node per output vertex, in the order of
// Outputs. What an output returns is what it would pass along an edge:
// its state with its activation applied. Vertices that are not inputs
// start from zero. params are the nodes of ParamNodes; nil adds new ones,
// and passing the same nodes to two Builds shares the weights.
func (m *Machine[T]) Build(g *ad.Graph[T], params, x []*ad.Node[T]) []*ad.Node[T] {
	if len(x) != len(m.inputs) {
		panic(fmt.Sprintf("hypergraph: %d inputs for a machine with %d input vertices", len(x), len(m.inputs)))
	}
	init := make([]*ad.Node[T], len(m.spaces))
	for i, v := range m.inputs {
		if x[i] == nil {
			panic(fmt.Sprintf("hypergraph: nil input for vertex %s", m.h.Vertices[v]))
		}
		init[v] = x[i]
	}
	p := m.run(g, params, init)
	out := make([]*ad.Node[T], len(m.outputs))
	for i, v := range m.outputs {
		out[i] = p.emit(v)
	}
	return out
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

// run evaluates every hyperedge, layer by layer.
func (m *Machine[T]) run(g *ad.Graph[T], params, init []*ad.Node[T]) *pass[T] {
	if len(init) != len(m.spaces) {
		panic(fmt.Sprintf("hypergraph: initial condition with %d nodes for %d vertices", len(init), len(m.spaces)))
	}
	if params == nil {
		params = m.ParamNodes(g)
	} else if len(params) != len(m.values) {
		panic(fmt.Sprintf("hypergraph: %d parameter nodes for %d parameters", len(params), len(m.values)))
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
			panic(fmt.Sprintf("hypergraph: vertex %s: input of shape %v, want %v for a batch of %d",
				m.h.Vertices[v], x.Value.Shape, batched(m.spaces[v].Shape, max(n, 1)), max(n, 1)))
		}
	}
	if n < 0 {
		panic("hypergraph: no input to take the batch size from")
	}
	p := &pass[T]{
		m: m, g: g, n: n, init: init,
		contrib: make([][]*ad.Node[T], len(m.spaces)),
		states:  make([]*ad.Node[T], len(m.spaces)),
		emitted: make([]*ad.Node[T], len(m.spaces)),
	}
	for _, layer := range m.layers {
		for _, e := range layer {
			E := m.h.Edges[e]
			x := make([]*ad.Node[T], len(E.Sources))
			for i, v := range E.Sources {
				x[i] = p.emit(v)
			}
			for i, y := range m.apply(g, n, e, params, x) {
				v := E.Targets[i]
				if p.states[v] != nil {
					panic(fmt.Sprintf("hypergraph: internal error: edge %s writes vertex %s after it was read", E.Name, m.h.Vertices[v]))
				}
				p.contrib[v] = append(p.contrib[v], y)
			}
		}
	}
	return p
}

// apply adds the map of edge e to g and checks the shapes it returns.
func (m *Machine[T]) apply(g *ad.Graph[T], n, e int, params, x []*ad.Node[T]) []*ad.Node[T] {
	E := m.h.Edges[e]
	ps := make([]*ad.Node[T], len(m.edgeParams[e]))
	for k, i := range m.edgeParams[e] {
		ps[k] = params[i]
	}
	y := m.maps[e].Build(g, n, ps, x)
	if len(y) != len(E.Targets) {
		panic(fmt.Sprintf("hypergraph: edge %s: map returned %d values for %d targets", E.Name, len(y), len(E.Targets)))
	}
	for i, v := range E.Targets {
		if want := batched(m.spaces[v].Shape, n); y[i] == nil || !slices.Equal(y[i].Value.Shape, want) {
			got := "nil"
			if y[i] != nil {
				got = fmt.Sprint(y[i].Value.Shape)
			}
			panic(fmt.Sprintf("hypergraph: edge %s: map returned shape %s for target %s, want %v", E.Name, got, m.h.Vertices[v], want))
		}
	}
	return y
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
	y := activate(p.g, p.m.spaces[v].Activation, p.state(v))
	p.emitted[v] = y
	return y
}

// Map returns the machine as the map of a hyperedge of a larger machine,
// whose sources are this machine's inputs and whose targets are its
// outputs, in order. The larger machine takes a copy of the current
// parameters when it is made with New and trains that copy.
func (m *Machine[T]) Map() Map[T] { return machineMap[T]{m} }

type machineMap[T ad.Float] struct{ m *Machine[T] }

func (mm machineMap[T]) Params() []*ad.Tensor[T] { return mm.m.values }

func (mm machineMap[T]) Build(g *ad.Graph[T], _ int, params, x []*ad.Node[T]) []*ad.Node[T] {
	return mm.m.Build(g, params, x)
}
