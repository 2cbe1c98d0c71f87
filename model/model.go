package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
)

// Model is a model in the paper's sense: named spaces and the layers
// between them, summed and ordered by their dependency graph, with its
// parameters in one ad.Params. It is built with Input, Add and Into, and
// is then trained (Classifier, Regressor and train.Run), evaluated,
// saved, loaded and exported as one.
//
// The builder's methods keep the first error they meet and do nothing
// after it, so that a model is built without an error check per line;
// Err returns it, and so does every method that computes.
type Model[T ad.Float] struct {
	params ad.Params[T]
	rnd    *rand.Rand

	h               hypergraph.Hypergraph
	spaces          []hypergraph.Space
	layers          []ad.Layer[T]
	inputs, outputs []int
	machine         *hypergraph.Machine[T] // built on first use after the last change
	err             error

	predict map[int]*pass[T] // the graphs of Predict, by batch size

	// Meta says what the inputs and outputs mean, such as the names of
	// a classifier's classes; Save writes it, if it fits the spaces,
	// and Load reads it.
	Meta Meta
}

// New returns an empty model whose layers draw their initial values from
// rnd; nil means a generator seeded with ad.DefaultSeed.
func New[T ad.Float](rnd *rand.Rand) *Model[T] {
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(ad.DefaultSeed, 0))
	}
	return &Model[T]{rnd: rnd}
}

// Err returns the first error of the builder's methods, or nil.
func (m *Model[T]) Err() error { return m.err }

// Params returns the model's parameters.
func (m *Model[T]) Params() *ad.Params[T] { return &m.params }

// NumParams returns the number of scalar parameters.
func (m *Model[T]) NumParams() int { return m.params.Len() }

func (m *Model[T]) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("model: "+format, args...)
	}
}

// Input adds an input space called name, of samples of the given shape
// ([D] for vectors, [C, H, W] for images), and returns its name.
func (m *Model[T]) Input(name string, shape ...int) string {
	if m.err != nil {
		return name
	}
	if len(shape) == 0 || slices.Min(shape) < 1 {
		m.fail("input %s of shape %v, want dimensions of at least 1", name, shape)
		return name
	}
	if m.addSpace(name, shape) {
		m.inputs = append(m.inputs, len(m.spaces)-1)
	}
	return name
}

// addSpace adds the vertex name of the given shape, unless the name is
// taken or empty.
func (m *Model[T]) addSpace(name string, shape []int) bool {
	if name == "" || m.h.Vertex(name) >= 0 {
		m.fail("space name %q is empty or taken", name)
		return false
	}
	m.h.Vertices = append(m.h.Vertices, name)
	m.spaces = append(m.spaces, hypergraph.Space{Shape: slices.Clone(shape)})
	m.machine = nil
	return true
}

// sources resolves the names of spaces and returns their indices and
// shapes.
func (m *Model[T]) sources(layer string, names []string) ([]int, [][]int, bool) {
	idx, shapes := make([]int, len(names)), make([][]int, len(names))
	for i, name := range names {
		if idx[i] = m.h.Vertex(name); idx[i] < 0 {
			m.fail("layer %s reads space %q, which the model does not have", layer, name)
			return nil, nil, false
		}
		shapes[i] = m.spaces[idx[i]].Shape
	}
	if len(names) == 0 {
		m.fail("layer %s reads no space", layer)
		return nil, nil, false
	}
	return idx, shapes, true
}

// Add adds the layer l called name, reading the spaces src, and a space
// of the same name that it writes, whose shape its Init gives; it
// initialises l's parameters under the name ("name.weight", ...) and
// returns the name of the new space. A layer with several outputs writes
// spaces name.0, name.1, ..., and Add returns the first.
func (m *Model[T]) Add(name string, l ad.Layer[T], src ...string) string {
	if m.err != nil {
		return name
	}
	out, ok := m.init(name, l, src)
	if !ok {
		return name
	}
	if len(out) == 0 {
		m.fail("layer %s returns no output, so no space for Add to name", name)
		return name
	}
	var tgt []int
	for i, shape := range out {
		v := name
		if len(out) > 1 {
			v = fmt.Sprintf("%s.%d", name, i)
		}
		if !m.addSpace(v, shape) {
			return name
		}
		tgt = append(tgt, len(m.spaces)-1)
	}
	m.addEdge(name, l, src, tgt)
	if len(out) > 1 {
		return name + ".0"
	}
	return name
}

// Into adds the layer l called name, reading the spaces src and adding
// what it returns to the existing space dst, whose shape it must give:
// a shortcut, or any second map into a space, which the model sums as
// the paper's machines do. It returns dst.
func (m *Model[T]) Into(dst, name string, l ad.Layer[T], src ...string) string {
	if m.err != nil {
		return dst
	}
	v := m.h.Vertex(dst)
	if v < 0 {
		m.fail("layer %s writes space %q, which the model does not have", name, dst)
		return dst
	}
	out, ok := m.init(name, l, src)
	if !ok {
		return dst
	}
	if len(out) != 1 || !slices.Equal(out[0], m.spaces[v].Shape) {
		m.fail("layer %s gives shapes %v, but space %s has shape %v", name, out, dst, m.spaces[v].Shape)
		return dst
	}
	m.addEdge(name, l, src, []int{v})
	return dst
}

// init initialises l under name on the shapes of the spaces src.
func (m *Model[T]) init(name string, l ad.Layer[T], src []string) ([][]int, bool) {
	if name == "" || slices.ContainsFunc(m.h.Edges, func(E hypergraph.Edge) bool { return E.Name == name }) {
		m.fail("layer name %q is empty or taken", name)
		return nil, false
	}
	if l == nil {
		m.fail("layer %s is nil", name)
		return nil, false
	}
	_, shapes, ok := m.sources(name, src)
	if !ok {
		return nil, false
	}
	out, err := ad.InitLayer(l, ad.NewScope(nil, &m.params, name, m.rnd), shapes)
	if err != nil {
		m.fail("%v", err)
		return nil, false
	}
	return out, true
}

func (m *Model[T]) addEdge(name string, l ad.Layer[T], src []string, tgt []int) {
	idx, _, _ := m.sources(name, src)
	m.h.Edges = append(m.h.Edges, hypergraph.Edge{Name: name, Sources: idx, Targets: tgt})
	m.layers = append(m.layers, l)
	m.machine = nil
}

// Output makes the spaces names the model's outputs, in that order. By
// default the outputs are the spaces that no layer reads.
func (m *Model[T]) Output(names ...string) {
	if m.err != nil {
		return
	}
	m.outputs = m.outputs[:0]
	for _, name := range names {
		v := m.h.Vertex(name)
		switch {
		case v < 0:
			m.fail("output %q is not a space of the model", name)
			return
		case slices.Contains(m.outputs, v):
			m.fail("output %q listed twice", name)
			return
		}
		m.outputs = append(m.outputs, v)
	}
	m.machine = nil
}

// Machine returns the model as a hypergraph machine: its spaces are the
// machine's vertices and its layers the maps of the hyperedges. It
// returns the builder's error, if any.
func (m *Model[T]) Machine() (*hypergraph.Machine[T], error) {
	if m.err != nil {
		return nil, m.err
	}
	if m.machine != nil {
		return m.machine, nil
	}
	if len(m.inputs) == 0 || len(m.h.Edges) == 0 {
		return nil, errors.New("model: a model needs an input and a layer")
	}
	var outputs []int
	if len(m.outputs) > 0 {
		outputs = m.outputs
	}
	mc, err := hypergraph.New(hypergraph.Config[T]{Hypergraph: &m.h, Spaces: m.spaces, Layers: m.layers, Inputs: m.inputs, Outputs: outputs})
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m.machine, m.predict = mc, nil
	return mc, nil
}

// Inputs and Outputs return the names and sample shapes of the model's
// input and output spaces, in order.
func (m *Model[T]) Inputs() (names []string, shapes [][]int) { return m.named(m.inputs) }

// Outputs returns the names and sample shapes of the model's outputs.
func (m *Model[T]) Outputs() (names []string, shapes [][]int) {
	mc, err := m.Machine()
	if err != nil {
		return nil, nil
	}
	return m.named(mc.Outputs())
}

func (m *Model[T]) named(list []int) ([]string, [][]int) {
	names, shapes := make([]string, len(list)), make([][]int, len(list))
	for i, v := range list {
		names[i], shapes[i] = m.h.Vertices[v], slices.Clone(m.spaces[v].Shape)
	}
	return names, shapes
}
