package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// Version is the version of the model files this package writes: JSON
// objects {"format": "machines", "kind": "model", "version": 2,
// "element": "float32" or "float64", "spec": ..., "params": [...],
// "meta": {...}}, whose spec is a hypergraph spec whose edges may hold
// layers of every family (see the package documentation), whose params
// are those of ad.Params and whose meta, if any, is the model's Meta.
// Version 1 had no meta; its files still load.
const Version = 2

// FileKind is the "kind" of a model file in the module's envelope
// ("format": "machines").
const FileKind = "model"

var modelFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: FileKind, What: "a model file", Oldest: 1, Newest: Version}

// LegacyFormat is the "format" of the saved hypergraph machines of
// earlier versions, which Load still reads: a hypergraph spec and each
// edge's parameter tensors.
const LegacyFormat = "machines-hypergraph-machine"

var legacyFormat = jsonfile.Format{Name: LegacyFormat, What: "a saved hypergraph machine", Oldest: 1, Newest: 1}

type file struct {
	jsonfile.Header
	Element string           `json:"element"`
	Spec    *hypergraph.Spec `json:"spec"`
	Params  json.RawMessage  `json:"params"`
	Meta    *Meta            `json:"meta,omitempty"`
}

// Spec returns the model's architecture as a spec: its spaces as
// vertices and its layers as edges, with the settings of every layer
// that is not one of hypergraph's own kinds as the edge's config.
func (m *Model[T]) Spec() (*hypergraph.Spec, error) {
	mc, err := m.Machine()
	if err != nil {
		return nil, err
	}
	s := &hypergraph.Spec{Format: jsonfile.Envelope, Kind: hypergraph.SpecKind, Version: hypergraph.SpecVersion}
	names := func(list []int) []string {
		out := make([]string, len(list))
		for i, v := range list {
			out[i] = m.h.Vertices[v]
		}
		return out
	}
	s.Inputs, s.Outputs = names(mc.Inputs()), names(mc.Outputs())
	for v, name := range m.h.Vertices {
		s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: name, Shape: m.spaces[v].Shape, Activation: m.spaces[v].Activation})
	}
	for e, E := range m.h.Edges {
		kind, config, err := describe(m.layers[e])
		if err != nil {
			return nil, fmt.Errorf("model: layer %s: %w", E.Name, err)
		}
		es := hypergraph.EdgeSpec{Name: E.Name, Kind: kind, Sources: names(E.Sources), Targets: names(E.Targets)}
		if config != nil {
			if es.Config, err = json.Marshal(config); err != nil {
				return nil, fmt.Errorf("model: layer %s: %w", E.Name, err)
			}
		}
		s.Edges = append(s.Edges, es)
	}
	return s, nil
}

// Encode writes the model, its architecture and its parameters, as a
// model file.
func (m *Model[T]) Encode(w io.Writer) error {
	s, err := m.Spec()
	if err != nil {
		return err
	}
	if err := m.checkMeta(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	params, err := m.params.MarshalJSON()
	if err != nil {
		return err
	}
	f := file{Header: modelFormat.Header(), Element: element[T](), Spec: s, Params: params}
	if len(m.Meta.Classes)+len(m.Meta.Pixels) > 0 {
		f.Meta = &m.Meta
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// Save writes the model to path as Encode does, atomically: a temporary
// file renamed into place, so that an interrupted save leaves the
// previous file whole.
func (m *Model[T]) Save(path string) error {
	if err := atomicfile.WriteFile(path, m.Encode); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}

func element[T ad.Float]() string { return reflect.TypeFor[T]().Name() }

// MaxFileBytes bounds the size of a model file that Load reads.
const MaxFileBytes = 1 << 30

// Load reads the model file at path, of either element type, into a new
// model of element type T, ready to predict, train on or save. It also
// reads the saved hypergraph machines of earlier versions. Errors name
// the file and what in it is wrong.
func Load[T ad.Float](path string) (*Model[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("model: %s: %d bytes, more than the %d a model file may have", path, fi.Size(), int64(MaxFileBytes))
	}
	m, err := Decode[T](io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("model: %s: %w", path, unprefix(err))
	}
	return m, nil
}

// unprefix drops the package's prefix from an error that Load prefixes
// with the file's name.
func unprefix(err error) error {
	var pe *prefixed
	if errors.As(err, &pe) {
		return pe.err
	}
	return err
}

type prefixed struct{ err error }

func (p *prefixed) Error() string { return "model: " + p.err.Error() }
func (p *prefixed) Unwrap() error { return p.err }

// Decode reads a model file, as Load does.
func Decode[T ad.Float](r io.Reader) (*Model[T], error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &prefixed{err}
	}
	m, err := decode[T](data)
	if err != nil {
		return nil, &prefixed{err}
	}
	return m, nil
}

func decode[T ad.Float](data []byte) (*Model[T], error) {
	if legacyFormat.Check(data) == nil {
		return decodeLegacy[T](data)
	}
	var f file
	if err := modelFormat.Decode(data, &f); err != nil {
		return nil, err
	}
	if f.Element != "float32" && f.Element != "float64" {
		return nil, fmt.Errorf("element type %q, want float32 or float64", f.Element)
	}
	if f.Spec == nil {
		return nil, errors.New("no \"spec\"")
	}
	m, err := fromSpec[T](f.Spec, nil, len(data))
	if err != nil {
		return nil, err
	}
	if err := m.params.UnmarshalJSON(f.Params); err != nil {
		return nil, err
	}
	if f.Meta != nil {
		if f.Version < 2 {
			return nil, errors.New("a \"meta\" in a file of version 1, which had none")
		}
		m.Meta = *f.Meta
		if err := m.checkMeta(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// FromSpec returns the model that a spec describes (as Spec writes it),
// its parameters drawn from rnd (nil for the default).
func FromSpec[T ad.Float](s *hypergraph.Spec, rnd *rand.Rand) (*Model[T], error) {
	m, err := fromSpec[T](s, rnd, 0)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// fromSpec returns the model of a spec with freshly initialised
// parameters; a file of size bytes, if positive, bounds how many it may
// have.
func fromSpec[T ad.Float](s *hypergraph.Spec, rnd *rand.Rand, bytes int) (m *Model[T], err error) {
	mc, err := hypergraph.Build(s, layerOf[T])
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	m = New[T](rnd)
	if bytes > 0 {
		m.params.Limit = bytes/2 + 1 // a value takes at least two bytes in a file: a digit and a comma
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, ad.ErrBudget) {
				m, err = nil, fmt.Errorf("the spec's layers have more parameters than the file could hold: %w", e)
				return
			}
			panic(r)
		}
	}()
	shapes := make([][]int, 0, len(mc.Inputs()))
	for _, v := range mc.Inputs() {
		shapes = append(shapes, mc.Space(v).Shape)
	}
	if _, err := mc.Init(ad.NewScope(nil, &m.params, "", m.rnd), shapes); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	m.params.Limit = 0
	m.adopt(mc)
	return m, nil
}

// adopt makes the machine mc, whose parameters m holds, the model's
// architecture.
func (m *Model[T]) adopt(mc *hypergraph.Machine[T]) {
	h := mc.Hypergraph()
	m.h = hypergraph.Hypergraph{Vertices: h.Vertices, Edges: h.Edges}
	m.spaces = make([]hypergraph.Space, len(h.Vertices))
	for v := range h.Vertices {
		m.spaces[v] = mc.Space(v)
	}
	m.layers = make([]ad.Layer[T], len(h.Edges))
	for e := range h.Edges {
		m.layers[e], _ = mc.Layer(e)
	}
	m.inputs, m.outputs, m.machine = mc.Inputs(), mc.Outputs(), mc
}

// LoadParams reads the parameters of the model file at path into m,
// whose architecture must be the file's: the same spaces and layers,
// under the same names, with the same settings. It is how a model built
// in code takes the parameters a training run saved. On error m is
// unchanged.
func (m *Model[T]) LoadParams(path string) error {
	saved, err := Load[T](path)
	if err != nil {
		return err
	}
	mine, err := m.Spec()
	if err != nil {
		return err
	}
	theirs, _ := saved.Spec()
	a, _ := json.Marshal(mine)
	b, _ := json.Marshal(theirs)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("model: %s: the file's architecture is not the model's", path)
	}
	data, _ := saved.params.MarshalJSON()
	return m.params.UnmarshalJSON(data)
}
