package hypergraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// SpecKind and SpecVersion are the "kind" and "version" of spec files in
// the module's envelope ("format": "machines"). A spec file of a later
// version is refused rather than half understood. SpecFormat is the
// "format" of the spec files written before the envelope (version 1),
// which are read too.
const (
	SpecKind    = "hypergraph-spec"
	SpecVersion = 2
	SpecFormat  = "machines-hypergraph"
)

// specFormat reads spec files of every version up to SpecVersion.
var specFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: SpecKind, What: "a hypergraph spec",
	Oldest: 1, Newest: SpecVersion, Legacy: SpecFormat, LegacyNewest: 1}

// Spec is an architecture written as data: a hypergraph whose vertices
// have spaces and activations and whose hyperedges have map kinds. It is
// the content of a spec file (see the package documentation for the
// format and the kinds).
type Spec struct {
	Format  string `json:"format"`
	Kind    string `json:"kind,omitempty"`
	Version int    `json:"version"`
	// Inputs and Outputs name the vertices a machine built from the spec
	// receives and returns; empty lists mean the defaults of Config.
	Inputs   []string     `json:"inputs,omitempty"`
	Outputs  []string     `json:"outputs,omitempty"`
	Vertices []VertexSpec `json:"vertices"`
	Edges    []EdgeSpec   `json:"edges"`
}

// VertexSpec is a vertex of a spec: its name, the shape of its space and
// its activation (none means the identity).
type VertexSpec struct {
	Name       string        `json:"name"`
	Shape      []int         `json:"shape"`
	Activation ad.Activation `json:"activation,omitempty"`
}

// EdgeSpec is a hyperedge of a spec: its name, the kind of its map and the
// names of its sources and targets.
type EdgeSpec struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Sources []string `json:"sources"`
	Targets []string `json:"targets"`
	// Config holds the settings of a layer of another family, in the
	// specs of package model; this package's kinds have none.
	Config json.RawMessage `json:"config,omitempty"`
}

// MaxParams bounds the number of parameters of a machine built from a
// spec, and the size of each vertex's space, so that a mistyped shape,
// or a file of a few bytes, gives an error instead of exhausting memory.
// 2^24 parameters take 128 MiB in float64: room for a ResNet-18 and
// hundreds of times package sculpt's generous architecture.
const MaxParams = 1 << 24

// compiled is a checked spec, with names resolved to indices.
type compiled struct {
	h               Hypergraph
	spaces          []Space
	inputs, outputs []int
}

// Validate checks a spec: names present, unique and known, shapes with
// positive dimensions, known activations and kinds, no cycle (the
// error is then the *CycleError itself), at least one input vertex and
// shapes that fit every hyperedge's kind. The
// Format and Version fields are checked by ReadSpec, not here.
func (s *Spec) Validate() error {
	_, err := s.compile()
	return err
}

func (s *Spec) compile() (*compiled, error) {
	c, err := s.structure(true)
	if err != nil {
		return nil, err
	}
	total := 0
	for i, e := range s.Edges {
		E := c.h.Edges[i]
		n, err := checkKind(e.Kind, c.ports(E.Sources), c.ports(E.Targets))
		if err != nil {
			return nil, fmt.Errorf("hypergraph: edge %s (%s): %v", e.Name, e.Kind, err)
		}
		if total += n; total > MaxParams {
			return nil, fmt.Errorf("hypergraph: edge %s (%s): with it the spec has %v", e.Name, e.Kind, tooManyParams(float64(total)))
		}
	}
	return c, nil
}

// ports returns the names and shapes of the vertices in list.
func (c *compiled) ports(list []int) []port {
	out := make([]port, len(list))
	for i, v := range list {
		out[i] = port{c.h.Vertices[v], c.spaces[v].Shape}
	}
	return out
}

// shapes returns the shapes of the vertices in list.
func (c *compiled) shapes(list []int) [][]int {
	out := make([][]int, len(list))
	for i, v := range list {
		out[i] = c.spaces[v].Shape
	}
	return out
}

// structure checks everything about a spec but the shapes its kinds
// give; ownKinds refuses the kinds this package does not know.
func (s *Spec) structure(ownKinds bool) (*compiled, error) {
	c := &compiled{}
	index, err := c.addVertices(s.Vertices)
	if err != nil {
		return nil, err
	}
	if err := c.addEdges(s.Edges, index, ownKinds); err != nil {
		return nil, err
	}
	if err := c.setInputsOutputs(s, index); err != nil {
		return nil, err
	}
	if err := c.h.Acyclic(); err != nil {
		return nil, err
	}
	if len(c.inputs) == 0 {
		return nil, errors.New("hypergraph: no input vertex: the spec lists no inputs and every vertex is written by an edge, so a machine would have no input to take the batch size from")
	}
	return c, nil
}

// connected refuses outputs that no path of edges reaches from the
// inputs: in a spec file, a mistake, as their values would not depend
// on the data. A machine built otherwise may have them, as sculpting
// that prunes every edge leaves one.
func (c *compiled) connected() error {
	far := c.h.unreached(c.inputs, c.outputs)
	if len(far) == 0 {
		return nil
	}
	names := make([]string, len(far))
	for i, v := range far {
		names[i] = strconv.Quote(c.h.Vertices[v])
	}
	return fmt.Errorf("hypergraph: outputs %s are not reached from the inputs by any path of edges: they would not depend on the data", strings.Join(names, ", "))
}

// addVertices checks the vertices of a spec and adds them to c; it
// returns the index of each vertex by name.
func (c *compiled) addVertices(vertices []VertexSpec) (map[string]int, error) {
	index := map[string]int{}
	for i, v := range vertices {
		switch _, dup := index[v.Name]; {
		case v.Name == "":
			return nil, fmt.Errorf("hypergraph: vertex %d has no name", i)
		case dup:
			return nil, fmt.Errorf("hypergraph: vertex name %q used twice", v.Name)
		case len(v.Shape) == 0:
			return nil, fmt.Errorf("hypergraph: vertex %s has no shape", v.Name)
		case slices.Min(v.Shape) < 1:
			return nil, fmt.Errorf("hypergraph: vertex %s: shape %v, want dimensions of at least 1", v.Name, v.Shape)
		case v.Activation.Check() != nil:
			return nil, fmt.Errorf("hypergraph: vertex %s: %v", v.Name, v.Activation.Check())
		case boundedSize(v.Shape) < 0:
			return nil, fmt.Errorf("hypergraph: vertex %s: shape %v has %.3g elements, more than the %d (MaxParams) a vertex may have; use a smaller shape",
				v.Name, v.Shape, elements(v.Shape), MaxParams)
		}
		index[v.Name] = i
		c.h.Vertices = append(c.h.Vertices, v.Name)
		c.spaces = append(c.spaces, Space{Shape: slices.Clone(v.Shape), Activation: v.Activation})
	}
	return index, nil
}

// addEdges checks the edges of a spec, whose vertices have the given
// indices, and adds them to c; ownKinds refuses the kinds this package
// does not know.
func (c *compiled) addEdges(edges []EdgeSpec, index map[string]int, ownKinds bool) error {
	edgeNames := map[string]bool{}
	for i, e := range edges {
		switch {
		case e.Name == "":
			return fmt.Errorf("hypergraph: edge %d has no name", i)
		case edgeNames[e.Name]:
			return fmt.Errorf("hypergraph: edge name %q used twice", e.Name)
		}
		edgeNames[e.Name] = true
		if _, err := specLayer[float64](e.Kind, nil); ownKinds && (err != nil || len(e.Config) > 0) {
			return fmt.Errorf("hypergraph: edge %s: unknown kind %q (known kinds: %s)", e.Name, e.Kind, kindNames())
		}
		src, err := resolveEdgeVertices(index, e.Name, "source", e.Sources)
		if err != nil {
			return err
		}
		tgt, err := resolveEdgeVertices(index, e.Name, "target", e.Targets)
		if err != nil {
			return err
		}
		c.h.Edges = append(c.h.Edges, Edge{Name: e.Name, Sources: src, Targets: tgt})
	}
	return nil
}

// resolveEdgeVertices returns the indices of the vertices named as an
// edge's sources or targets (its role), each known and listed once.
func resolveEdgeVertices(index map[string]int, edge, role string, names []string) ([]int, error) {
	list := []int{}
	for _, name := range names {
		v, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("hypergraph: edge %s: unknown %s vertex %q", edge, role, name)
		}
		if slices.Contains(list, v) {
			return nil, fmt.Errorf("hypergraph: edge %s: %s vertex %q listed twice", edge, role, name)
		}
		list = append(list, v)
	}
	return list, nil
}

// setInputsOutputs resolves the spec's inputs and outputs, or where it
// lists none, takes the vertices no edge writes and those no edge reads.
func (c *compiled) setInputsOutputs(s *Spec, index map[string]int) error {
	for _, io := range []struct {
		field string
		names []string
		dst   *[]int
	}{{"inputs", s.Inputs, &c.inputs}, {"outputs", s.Outputs, &c.outputs}} {
		for _, name := range io.names {
			v, ok := index[name]
			if !ok {
				return fmt.Errorf("hypergraph: %s: unknown vertex %q", io.field, name)
			}
			if slices.Contains(*io.dst, v) {
				return fmt.Errorf("hypergraph: %s: vertex %q listed twice", io.field, name)
			}
			*io.dst = append(*io.dst, v)
		}
	}
	if len(s.Inputs) == 0 {
		c.inputs = c.h.unwritten()
	}
	if len(s.Outputs) == 0 {
		c.outputs = c.h.unread(c.inputs)
	}
	return nil
}

// planner is what the spec's kinds tell before they allocate: the
// shapes of their outputs and their number of parameters.
type planner interface {
	plan(in [][]int, names []string) ([][]int, int, error)
}

// checkKind checks that kind can map the sources src to the targets tgt
// and returns its number of parameters.
func checkKind(kind string, src, tgt []port) (int, error) {
	l, err := specLayer[float64](kind, shapesOf(tgt))
	if err != nil {
		return 0, err
	}
	if e, ok := l.(Each[float64]); ok && len(src) != len(tgt) {
		return 0, fmt.Errorf("kind %s maps each source to the target in the same position, but there are %d sources and %d targets", e.Kind, len(src), len(tgt))
	}
	names := make([]string, len(src))
	for i, p := range src {
		names[i] = "source " + p.name
	}
	out, n, err := l.(planner).plan(shapesOf(src), names)
	if err != nil {
		return 0, err
	}
	for i, shape := range out {
		if slices.Equal(shape, tgt[i].shape) {
			continue
		}
		if _, ok := l.(Each[float64]); ok {
			return 0, fmt.Errorf("source %s of shape %v gives shape %v, but target %s has shape %v", src[i].name, src[i].shape, shape, tgt[i].name, tgt[i].shape)
		}
		return 0, fmt.Errorf("target %s has shape %v, but the sources give %v", tgt[i].name, tgt[i].shape, shape)
	}
	return n, nil
}

// port is a source or target of an edge: its vertex's name and shape.
type port struct {
	name  string
	shape []int
}

func shapesOf(ps []port) [][]int {
	out := make([][]int, len(ps))
	for i, p := range ps {
		out[i] = p.shape
	}
	return out
}

// SpecLayer returns the layer of a kind of this package's spec files
// whose targets have the given shapes, or an error naming the kinds.
func SpecLayer[T ad.Float](kind string, tgt [][]int) (ad.Layer[T], error) {
	return specLayer[T](kind, tgt)
}

func specLayer[T ad.Float](kind string, tgt [][]int) (ad.Layer[T], error) {
	firsts := make([]int, len(tgt))
	for i, s := range tgt {
		if len(s) > 0 {
			firsts[i] = s[0]
		}
	}
	switch kind {
	case "linear", "dense":
		return Linear[T]{Out: firsts, Bias: kind == "dense"}, nil
	case "conv3x3":
		return Conv[T]{Out: firsts}, nil
	}
	if _, ok := eachKinds[kind]; ok {
		return Each[T]{Kind: kind}, nil
	}
	return nil, fmt.Errorf("unknown kind %q (known kinds: %s)", kind, kindNames())
}

// kindNames returns the kinds of spec files, sorted.
func kindNames() string {
	return strings.Join(slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(eachKinds)), "linear", "dense", "conv3x3"))), ", ")
}

// boundedSize returns the number of elements of an array of the given
// shape, whose dimensions are at least 1, or -1 if it exceeds MaxParams.
func boundedSize(shape []int) int {
	n := 1
	for _, d := range shape {
		if d > MaxParams || n*d > MaxParams {
			return -1
		}
		n *= d
	}
	return n
}

// tooManyParams says that n parameters, what they take in float32, are
// more than MaxParams, and what to do.
func tooManyParams(n float64) error {
	return fmt.Errorf("%.3g parameters, %s in float32, more than the %d (MaxParams) a spec may have; use smaller shapes",
		n, budget.Bytes(4*n), MaxParams)
}

// elements returns the number of elements of an array of the given shape,
// as a float64, which does not overflow where an int could.
func elements(shape []int) float64 {
	n := 1.0
	for _, d := range shape {
		n *= float64(d)
	}
	return n
}

// FromSpec returns the machine that a spec describes; its parameters
// come from Init, as every layer's. The spec is checked as by Validate.
func FromSpec[T ad.Float](s *Spec) (*Machine[T], error) {
	c, err := s.compile()
	if err != nil {
		return nil, err
	}
	return assemble(c, s, func(e EdgeSpec, tgt [][]int) (ad.Layer[T], error) { return specLayer[T](e.Kind, tgt) })
}

// Build returns the machine of a spec whose edges may be layers of any
// family, as package model's specs are: layer returns the layer of an
// edge whose targets have the shapes tgt. The spec's structure is
// checked as Validate checks it; whether each layer gives its targets'
// shapes, Init checks.
func Build[T ad.Float](s *Spec, layer func(e EdgeSpec, tgt [][]int) (ad.Layer[T], error)) (*Machine[T], error) {
	c, err := s.structure(false)
	if err != nil {
		return nil, err
	}
	return assemble(c, s, layer)
}

// assemble builds the machine of the spec s that c compiled, its layers
// from layer.
func assemble[T ad.Float](c *compiled, s *Spec, layer func(e EdgeSpec, tgt [][]int) (ad.Layer[T], error)) (*Machine[T], error) {
	layers := make([]ad.Layer[T], len(s.Edges))
	for i, e := range s.Edges {
		var err error
		if layers[i], err = layer(e, c.shapes(c.h.Edges[i].Targets)); err != nil {
			return nil, fmt.Errorf("hypergraph: edge %s (%s): %w", e.Name, e.Kind, err)
		}
	}
	m, err := New(Config[T]{Hypergraph: &c.h, Spaces: c.spaces, Layers: layers, Inputs: c.inputs, Outputs: c.outputs})
	if err != nil {
		return nil, err
	}
	m.spec = s.clone()
	m.spec.setHeader()
	return m, nil
}

// SpecRand returns the random source that FromSpec's machines drew
// their initial weights from before the layer contract, so that a
// caller who wants those weights for a seed can pass it to the scope of
// Init.
func SpecRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6879706572)) }

// Spec returns a copy of the spec the machine was built from, or nil for
// a machine built by New.
func (m *Machine[T]) Spec() *Spec {
	if m.spec == nil {
		return nil
	}
	return m.spec.clone()
}

func (s *Spec) clone() *Spec {
	c := *s
	c.Inputs, c.Outputs = slices.Clone(s.Inputs), slices.Clone(s.Outputs)
	c.Vertices = make([]VertexSpec, len(s.Vertices))
	for i, v := range s.Vertices {
		v.Shape = slices.Clone(v.Shape)
		c.Vertices[i] = v
	}
	c.Edges = make([]EdgeSpec, len(s.Edges))
	for i, e := range s.Edges {
		e.Sources, e.Targets, e.Config = slices.Clone(e.Sources), slices.Clone(e.Targets), slices.Clone(e.Config)
		c.Edges[i] = e
	}
	return &c
}

// ReadSpec reads and checks a spec file's content. A file of another
// format, of a later version, with fields this version does not know or
// with outputs that no path of edges reaches from the inputs is
// refused.
func ReadSpec(r io.Reader) (*Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("hypergraph: %w", err)
	}
	return parseSpec(data)
}

// LoadSpec reads and checks the spec file at path, as ReadSpec does;
// errors name the file.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hypergraph: %w", err)
	}
	s, err := parseSpec(data)
	if err != nil {
		return nil, inFile(path, err)
	}
	return s, nil
}

// setHeader sets the header of the spec files this package writes.
func (s *Spec) setHeader() {
	s.Format, s.Kind, s.Version = jsonfile.Envelope, SpecKind, SpecVersion
}

func parseSpec(data []byte) (*Spec, error) {
	var s Spec
	if err := specFormat.Decode(data, &s); err != nil {
		return nil, fmt.Errorf("hypergraph: %w", err)
	}
	if err := exactKeys(data); err != nil {
		return nil, err
	}
	if s.Edges == nil {
		s.Edges = []EdgeSpec{} // as a spec without edges is written
	}
	c, err := s.compile()
	if err != nil {
		return nil, err
	}
	if err := c.connected(); err != nil {
		return nil, err
	}
	return &s, nil
}

// exactKeys refuses the keys of a spec file that are not the exact
// names of its fields: encoding/json matches names without regard to
// case, so that "formAt" or "vertiCes" would read as "format" and
// "vertices". The file has decoded, so its JSON is valid.
func exactKeys(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("hypergraph: %w", err)
	}
	if err := knownKeys(top, reflect.TypeFor[Spec](), "the spec"); err != nil {
		return err
	}
	for _, list := range []struct {
		field string
		typ   reflect.Type
	}{{"vertices", reflect.TypeFor[VertexSpec]()}, {"edges", reflect.TypeFor[EdgeSpec]()}} {
		var objects []map[string]json.RawMessage
		if json.Unmarshal(top[list.field], &objects) != nil {
			continue // null, or absent
		}
		for i, obj := range objects {
			if err := knownKeys(obj, list.typ, fmt.Sprintf("%s %d", list.field, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// knownKeys refuses a key of obj that is not the JSON name of a field of
// the struct type typ; where names the object for the message.
func knownKeys(obj map[string]json.RawMessage, typ reflect.Type, where string) error {
	var names []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	keys := slices.Sorted(maps.Keys(obj))
	for _, key := range keys {
		if slices.Contains(names, key) {
			continue
		}
		if i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, key) }); i >= 0 {
			return fmt.Errorf("hypergraph: %s: field %q, not %q: field names are case-sensitive", where, names[i], key)
		}
		return fmt.Errorf("hypergraph: %s: unknown field %q; the fields are %s", where, key, strings.Join(names, ", "))
	}
	return nil
}

// SaveSpec checks s and writes it to path as a spec file, replacing the
// file atomically.
func SaveSpec(path string, s *Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	c := s.clone()
	c.setHeader()
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		if err := writeSpec(w, c, ""); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	})
}

// fileError is an error of this package about a file; it names the file
// after the package prefix.
type fileError struct {
	path string
	err  error
}

func inFile(path string, err error) error { return &fileError{path, err} }

func (e *fileError) Error() string {
	return "hypergraph: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "hypergraph: ")
}

func (e *fileError) Unwrap() error { return e.err }
