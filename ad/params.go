package ad

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// Params is the named set of a model's trainable parameters, and their
// one owner. Layers register their tensors into it under names such as
// "conv.weight" (see Scope) and read them through graph nodes it hands
// out; the set lists and counts the parameters, hands their values and
// gradients to an optimiser as two flat vectors, and saves and loads
// them, so that a model made of several layers needs no offsets into a
// parameter vector.
//
// The first call of Values or Grads packs the set: every registered
// tensor's data moves into one contiguous vector (and the gradients
// into another). The tensors keep their identity, so that whoever holds
// a *Tensor, and the nodes of graphs built before or after, read the
// same numbers; a slice of a tensor's Data taken before packing is stale
// after it. Registering a new parameter once the set is packed panics.
// The zero value is an empty set ready to use.
type Params[T Float] struct {
	// Limit, if positive, bounds the number of values Scope.NewParam lets
	// the set hold: a loader sets it from its file's size, so that a small
	// file cannot make the layers it describes allocate much memory.
	Limit int

	entries []paramEntry[T]
	index   map[string]int
	values  []T // the packed values, nil until packed
	grads   []T
}

type paramEntry[T Float] struct {
	name        string
	value, grad *Tensor[T]
}

// Add registers value under name and returns value. It panics if the
// name is taken or empty, or if the set is already packed.
func (p *Params[T]) Add(name string, value *Tensor[T]) *Tensor[T] {
	switch {
	case name == "":
		panic(fmt.Errorf("%w: ad: a parameter needs a name", ErrName))
	case p.values != nil:
		panic(fmt.Errorf("%w: ad: parameter %q registered after the parameters were packed into one vector", ErrState, name))
	case value == nil:
		panic(fmt.Errorf("%w: ad: parameter %q registered without a tensor", ErrNil, name))
	}
	if _, ok := p.index[name]; ok {
		panic(fmt.Errorf("%w: ad: parameter %q registered twice", ErrName, name))
	}
	if p.index == nil {
		p.index = make(map[string]int)
	}
	p.index[name] = len(p.entries)
	p.entries = append(p.entries, paramEntry[T]{name: name, value: value, grad: NewTensor[T](value.Shape...)})
	return value
}

// Node returns a parameter node of g that reads the parameter called
// name and writes its gradient to the set's gradient of it. It panics if
// there is no such parameter. Several graphs may read one parameter;
// each Backward overwrites the gradient.
func (p *Params[T]) Node(g *Graph[T], name string) *Node[T] {
	e := p.entry(name)
	if e.grad == nil {
		return g.Input(e.value) // a set of WithGrads(nil)
	}
	return g.Param(e.value, e.grad)
}

// Use registers value under name, unless a parameter of that name
// exists already, and returns the node of g that reads the parameter:
// the one call a layer needs. It panics if the existing parameter of
// that name is another tensor.
func (p *Params[T]) Use(g *Graph[T], name string, value *Tensor[T]) *Node[T] {
	if i, ok := p.index[name]; ok {
		if p.entries[i].value != value {
			panic(fmt.Errorf("%w: ad: parameter %q is registered with another tensor", ErrName, name))
		}
	} else {
		p.Add(name, value)
	}
	return p.Node(g, name)
}

func (p *Params[T]) entry(name string) paramEntry[T] {
	i, ok := p.index[name]
	if !ok {
		panic(fmt.Errorf("%w: ad: no parameter %q", ErrName, name))
	}
	return p.entries[i]
}

// Value returns the tensor of the parameter called name, or nil.
func (p *Params[T]) Value(name string) *Tensor[T] {
	if i, ok := p.index[name]; ok {
		return p.entries[i].value
	}
	return nil
}

// Grad returns the gradient of the parameter called name, or nil.
func (p *Params[T]) Grad(name string) *Tensor[T] {
	if i, ok := p.index[name]; ok {
		return p.entries[i].grad
	}
	return nil
}

// Names returns the parameters' names in the order they were
// registered, which is the order of Values.
func (p *Params[T]) Names() []string {
	names := make([]string, len(p.entries))
	for i, e := range p.entries {
		names[i] = e.name
	}
	return names
}

// Len returns the number of scalar parameters.
func (p *Params[T]) Len() int {
	n := 0
	for _, e := range p.entries {
		n += e.value.Len()
	}
	return n
}

// Values returns every parameter's values as one vector, in the order of
// Names, each tensor in row-major order. Writing to it writes to the
// parameters: it is what an optimiser updates.
func (p *Params[T]) Values() []T {
	p.pack()
	return p.values
}

// Grads returns every parameter's gradient as one vector laid out like
// Values.
func (p *Params[T]) Grads() []T {
	p.pack()
	return p.grads
}

// WithGrads returns a set that shares p's parameters but whose nodes
// write their gradients to grads, laid out like Grads: for one of
// several workers that compute the gradients of parts of a minibatch
// at once, to be summed into p's. With nil grads its nodes are
// constants, for graphs that only evaluate. It packs p, and it panics
// if grads has another length. The set it returns registers nothing.
func (p *Params[T]) WithGrads(grads []T) *Params[T] {
	p.pack()
	if grads == nil {
		q := &Params[T]{entries: slices.Clone(p.entries), index: p.index, values: p.values}
		for i := range q.entries {
			q.entries[i].grad = nil
		}
		return q
	}
	if len(grads) != len(p.values) {
		panic(fmt.Errorf("%w: ad: WithGrads of %d gradients for %d parameters", ErrShape, len(grads), len(p.values)))
	}
	q := &Params[T]{entries: make([]paramEntry[T], len(p.entries)), index: p.index, values: p.values, grads: grads}
	off := 0
	for i, e := range p.entries {
		k := e.value.Len()
		q.entries[i] = paramEntry[T]{name: e.name, value: e.value, grad: View(grads[off:off+k:off+k], e.value.Shape...)}
		off += k
	}
	return q
}

// pack moves the tensors' data into the contiguous vectors.
func (p *Params[T]) pack() {
	if p.values != nil {
		return
	}
	n := p.Len()
	p.values, p.grads = make([]T, n), make([]T, n)
	off := 0
	for _, e := range p.entries {
		k := e.value.Len()
		copy(p.values[off:off+k], e.value.Data)
		copy(p.grads[off:off+k], e.grad.Data)
		e.value.Data = p.values[off : off+k : off+k]
		e.grad.Data = p.grads[off : off+k : off+k]
		off += k
	}
}

// ParamsKind and ParamsVersion are the "kind" and "version" of the files
// of Params.Encode in the module's envelope ("format": "machines").
// ParamsFormat is the "format" of the parameter files written before the
// envelope (version 1), which Decode reads too.
const (
	ParamsKind    = "params"
	ParamsVersion = 2
	ParamsFormat  = "machines-params"
)

var paramsFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: ParamsKind, What: "a parameter file",
	Oldest: 1, Newest: ParamsVersion, Legacy: ParamsFormat, LegacyNewest: 1}

type paramsFile struct {
	jsonfile.Header
	Params []paramsJSON `json:"params"`
}

type paramsJSON struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Encode writes the parameters as a JSON object: "format" ("machines"),
// "kind" (ParamsKind), "version" and "params", the list MarshalJSON
// writes.
func (p *Params[T]) Encode(w io.Writer) error {
	return json.NewEncoder(w).Encode(paramsFile{Header: paramsFormat.Header(), Params: p.list()})
}

// MarshalJSON writes the parameters as a JSON list of {"name", "shape",
// "data"}, with the data in row-major order, in the order of Names.
// float32 values are written exactly, as the float64 of the same value.
func (p *Params[T]) MarshalJSON() ([]byte, error) { return json.Marshal(p.list()) }

// UnmarshalJSON reads a list that MarshalJSON wrote into the set, as
// Decode does.
func (p *Params[T]) UnmarshalJSON(data []byte) error {
	var list []paramsJSON
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("ad: parameters: %w", err)
	}
	if err := p.set(list); err != nil {
		return fmt.Errorf("ad: %w", err)
	}
	return nil
}

func (p *Params[T]) list() []paramsJSON {
	list := make([]paramsJSON, len(p.entries))
	for i, e := range p.entries {
		data := make([]float64, e.value.Len())
		for j, v := range e.value.Data {
			data[j] = float64(v)
		}
		list[i] = paramsJSON{Name: e.name, Shape: e.value.Shape, Data: data}
	}
	return list
}

// Save writes the parameters to path as Encode does, atomically: a
// temporary file renamed into place, so that an interrupted save leaves
// the previous file whole.
func (p *Params[T]) Save(path string) error {
	return atomicfile.WriteFile(path, p.Encode)
}

// Decode reads parameters that Encode wrote into the set, which must
// hold parameters of the same names and shapes, in any order. Nothing is
// changed unless every parameter reads correctly; the error names the
// parameter and what is wrong with it.
func (p *Params[T]) Decode(r io.Reader) error {
	if err := p.decode(r); err != nil {
		return fmt.Errorf("ad: %w", err)
	}
	return nil
}

func (p *Params[T]) decode(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading parameters: %w", err)
	}
	var f paramsFile
	if err := paramsFormat.Decode(data, &f); err != nil {
		return err
	}
	return p.set(f.Params)
}

// set checks that list holds the set's parameters, each once and of its
// shape and with finite values, and copies them in; on error it changes
// nothing.
func (p *Params[T]) set(list []paramsJSON) error {
	if len(list) != len(p.entries) {
		return fmt.Errorf("the file holds %d parameters, the model %d", len(list), len(p.entries))
	}
	seen := make(map[string]bool, len(list))
	for _, fp := range list {
		i, ok := p.index[fp.Name]
		switch {
		case !ok:
			return fmt.Errorf("the file holds parameter %q, which the model does not have", fp.Name)
		case seen[fp.Name]:
			return fmt.Errorf("parameter %q appears twice in the file", fp.Name)
		case !slices.Equal(fp.Shape, p.entries[i].value.Shape):
			return fmt.Errorf("parameter %q has shape %v in the file, %v in the model", fp.Name, fp.Shape, p.entries[i].value.Shape)
		case len(fp.Data) != p.entries[i].value.Len():
			return fmt.Errorf("parameter %q has %d values in the file, want %d for shape %v", fp.Name, len(fp.Data), p.entries[i].value.Len(), fp.Shape)
		}
		seen[fp.Name] = true
		for j, v := range fp.Data {
			// float32 parameters also refuse values beyond their range.
			if x := float64(T(v)); math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("parameter %q, value %d is %v, not a finite %s", fp.Name, j, v, precision[T]())
			}
		}
	}
	for _, fp := range list {
		dst := p.entries[p.index[fp.Name]].value.Data
		for j, v := range fp.Data {
			dst[j] = T(v)
		}
	}
	return nil
}

// maxBytesPerParam bounds the size of a parameter file that Load reads
// before it allocates: a float64 in JSON takes at most 24 bytes and a
// comma; the rest is room for names, shapes and white space.
const maxBytesPerParam = 32

// Load reads parameters from the file at path, as Decode does. A file
// far larger than the model's parameters could fill is refused unread.
func (p *Params[T]) Load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("ad: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("ad: %w", err)
	}
	if limit := int64(maxBytesPerParam*p.Len() + 1<<20); fi.Size() > limit {
		return fmt.Errorf("ad: %s: %d bytes, more than the %d a file of the model's %d parameters can take", path, fi.Size(), limit, p.Len())
	}
	if err := p.decode(f); err != nil {
		return fmt.Errorf("ad: %s: %w", path, err)
	}
	return nil
}

func precision[T Float]() string {
	if single[T]() {
		return "float32"
	}
	return "float64"
}
