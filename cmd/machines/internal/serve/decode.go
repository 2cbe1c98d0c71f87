package serve

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// requestError is an error of the client's: the server answers it with
// its status and, as the protocol's JSON error, its message.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

// badRequest returns a requestError of status 400.
func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// inferRequest is a decoded inference request.
type inferRequest struct {
	id    []byte // nil if the request has none
	hasID bool
	// inputs holds one tensor per input of the model, in its order.
	inputs []Tensor
	// outputs lists the requested outputs by their index in the model's
	// outputs, in the order requested; nil means all of them.
	outputs []int
}

// Limits of the decoder: a tensor has at most maxRank dimensions, each
// at most maxDim.
const (
	maxRank = 8
	maxDim  = 1 << 40
)

// decodeInfer decodes the inference request in data for a model of
// metadata md, JSON nested at most depth levels. Its errors are
// *requestError values that say what is wrong and where. Sizes are
// checked before anything is allocated: the elements of each tensor's
// data are counted, and checked against its shape and against md, before
// they are stored; numbers go to the arena.
func decodeInfer(data []byte, md *Metadata, depth int, arena *[]float64) (*inferRequest, error) {
	d := &inferDecoder{s: scanner{data: data, max: depth}, md: md, arena: arena,
		req: &inferRequest{inputs: make([]Tensor, len(md.Inputs))}}
	var seen uint32
	err := d.s.object(func(key []byte) error {
		if err := field(key, requestFields, &seen, object{"the request", -1}); err != nil {
			return err
		}
		switch string(key) {
		case "id":
			id, err := d.s.str()
			d.req.id, d.req.hasID = id, true
			return err
		case "parameters":
			return d.parameters()
		case "inputs":
			return d.s.array(d.input)
		}
		return d.s.array(func(int) error { return d.output() })
	})
	if err != nil {
		return nil, err
	}
	if d.s.next(); d.s.pos < len(d.s.data) { // next returns 0 for a NUL byte too
		return nil, d.s.syntaxError("data after the request object")
	}
	for i, t := range d.req.inputs {
		if t.Shape == nil {
			return nil, badRequest("no input %q: the model takes %s", md.Inputs[i].Name, describeSpecs(md.Inputs))
		}
	}
	return d.req, nil
}

// inferDecoder holds the state of decodeInfer.
type inferDecoder struct {
	s     scanner
	md    *Metadata
	arena *[]float64
	req   *inferRequest
	rows  int    // samples of the inputs so far, 0 before the first
	first string // name of the first input read
}

// The fields of the protocol's objects: the request, an input tensor
// and a requested output.
var (
	requestFields = []string{"id", "parameters", "inputs", "outputs"}
	inputFields   = []string{"name", "shape", "datatype", "parameters", "data"}
	outputFields  = []string{"name", "parameters"}
)

// field checks that key is one of the known fields of an object and not
// given twice, marking it in seen; what says which object, for messages.
func field(key []byte, known []string, seen *uint32, what object) error {
	for i, name := range known {
		if name != string(key) {
			continue
		}
		if *seen&(1<<i) != 0 {
			return badRequest("field %q given twice in %s", key, what)
		}
		*seen |= 1 << i
		return nil
	}
	return badRequest("unknown field %q in %s; the protocol's are %s", key, what, strings.Join(known, ", "))
}

// object names an object of the request for messages: "the request",
// "input 2".
type object struct {
	kind  string
	index int // -1 for none
}

func (o object) String() string {
	if o.index < 0 {
		return o.kind
	}
	return fmt.Sprintf("%s %d", o.kind, o.index)
}

// parameters reads a parameters object, which the server ignores: an
// object of any values.
func (d *inferDecoder) parameters() error {
	if d.s.next() != '{' {
		return d.s.syntaxError("want an object of parameters")
	}
	return d.s.skip()
}

// rawInput is an input tensor as read, before it is checked.
type rawInput struct {
	name, datatype []byte
	shape          []int
	hasShape       bool
	data           dataScan
	hasData        bool
}

// dataScan is what the first pass over a tensor's data found: where it
// is, how deep its arrays nest, how long they are at each level and
// what elements it holds.
type dataScan struct {
	start, end                   int
	levels                       int // nesting of arrays, 1 for a flat list
	numbers, nulls, texts, other int
	// lens holds the length of the arrays at each level, the outermost
	// first, -1 before one is seen; leaf is the level of the elements,
	// -1 before one is seen. ragged is set by arrays of one level that
	// differ in length, or elements at two levels.
	lens   [maxRank]int
	leaf   int
	ragged bool
}

func (ds *dataScan) count() int { return ds.numbers + ds.nulls + ds.texts + ds.other }

// follows reports whether nested data follow shape: the arrays of each
// level but the innermost as long as its dimension, the innermost as
// long as the product of the rest. Flat data follow any shape of their
// size.
func (ds *dataScan) follows(shape []int) bool {
	if ds.levels == 1 {
		return true
	}
	last := ds.levels - 1
	for l, n := range shape[:last] {
		if ds.lens[l] != n {
			return false
		}
	}
	size := 1
	for _, n := range shape[last:] {
		size *= n
	}
	return ds.lens[last] == size
}

// input reads input tensor i of the request.
func (d *inferDecoder) input(i int) error {
	var in rawInput
	var seen uint32
	where := object{"input", i}
	err := d.s.object(func(key []byte) error {
		if err := field(key, inputFields, &seen, where); err != nil {
			return err
		}
		var err error
		switch string(key) {
		case "name":
			in.name, err = d.s.str()
		case "datatype":
			in.datatype, err = d.s.str()
		case "shape":
			in.hasShape = true
			err = d.s.array(func(int) error {
				if len(in.shape) == maxRank {
					return badRequest("%s: a shape of more than %d dimensions", where, maxRank)
				}
				n, err := d.s.integer(maxDim)
				in.shape = append(in.shape, n)
				return err
			})
		case "parameters":
			err = d.parameters()
		default: // "data"
			in.hasData = true
			err = d.scanData(&in.data)
		}
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case in.name == nil:
		return badRequest("%s has no \"name\"", where)
	case in.datatype == nil:
		return badRequest("input %q has no \"datatype\"", in.name)
	case !in.hasShape:
		return badRequest("input %q has no \"shape\"", in.name)
	case !in.hasData:
		return badRequest("input %q has no \"data\"", in.name)
	}
	return d.store(&in)
}

// scanData reads a tensor's data, counting its elements by kind and
// noting the lengths of its arrays at each level.
func (d *inferDecoder) scanData(ds *dataScan) error {
	s := &d.s
	if s.next() != '[' {
		return s.syntaxError("want the tensor's data as an array")
	}
	ds.start = s.pos
	ds.leaf = -1
	for l := range ds.lens {
		ds.lens[l] = -1
	}
	var array func(level int) error
	elem := func(level int) error {
		switch s.next() {
		case '[':
			return array(level + 1)
		case '{':
			return s.syntaxError("an object in a tensor's data")
		}
		switch {
		case ds.leaf < 0:
			ds.leaf = level
		case ds.leaf != level:
			ds.ragged = true
		}
		switch s.next() {
		case '"':
			ds.texts++
			_, err := s.str()
			return err
		case 'n':
			ds.nulls++
			return s.literal("null")
		case 't', 'f':
			ds.other++
			return s.skip()
		}
		ds.numbers++
		_, err := s.number()
		return err
	}
	array = func(level int) error {
		ds.levels = max(ds.levels, level+1)
		n := 0
		if err := s.array(func(int) error { n++; return elem(level) }); err != nil {
			return err
		}
		if level < maxRank {
			switch {
			case ds.lens[level] < 0:
				ds.lens[level] = n
			case ds.lens[level] != n:
				ds.ragged = true
			}
		}
		return nil
	}
	if err := array(0); err != nil {
		return err
	}
	ds.end = s.pos
	return nil
}

// store checks the input in against the model's metadata and stores its
// elements.
func (d *inferDecoder) store(in *rawInput) error {
	md := d.md
	k := slices.IndexFunc(md.Inputs, func(s TensorSpec) bool { return s.Name == string(in.name) })
	if k < 0 {
		return badRequest("input %q: the model has no such input; it takes %s", in.name, describeSpecs(md.Inputs))
	}
	spec := md.Inputs[k]
	t := &d.req.inputs[k]
	if t.Shape != nil {
		return badRequest("input %q given twice", in.name)
	}
	if string(in.datatype) != spec.Datatype {
		return badRequest("input %q: datatype %q, the model takes %s", in.name, in.datatype, spec.Datatype)
	}
	if err := checkShape(spec, in.shape); err != nil {
		return err
	}
	size := 1
	for _, n := range in.shape {
		if size > math.MaxInt/n {
			return badRequest("input %q: shape %v holds more elements than this server counts", in.name, in.shape)
		}
		size *= n
	}
	ds := &in.data
	switch {
	case ds.count() != size:
		return badRequest("input %q: shape %v holds %d elements, its data %d", in.name, in.shape, size, ds.count())
	case ds.levels > len(in.shape):
		return badRequest("input %q: data nested %d deep for a shape of %d dimensions", in.name, ds.levels, len(in.shape))
	case ds.ragged || !ds.follows(in.shape):
		return badRequest("input %q: nested data must follow the shape %v: give each level's arrays the length of its dimension, or the data flat", in.name, in.shape)
	case spec.Datatype == BYTES && ds.texts != size:
		return badRequest("input %q: a BYTES tensor's data are strings; this one holds %d other values", in.name, size-ds.texts)
	case spec.Datatype != BYTES && ds.texts+ds.other > 0:
		return badRequest("input %q: an %s tensor's data are numbers (or null for a missing value); this one holds %d other values", in.name, spec.Datatype, ds.texts+ds.other)
	}
	switch {
	case d.rows == 0:
		d.rows, d.first = in.shape[0], spec.Name
	case in.shape[0] != d.rows:
		return badRequest("input %q has %d samples, input %q %d", in.name, in.shape[0], d.first, d.rows)
	}
	*t = Tensor{Name: spec.Name, Datatype: spec.Datatype, Shape: in.shape}
	return d.elements(t, ds)
}

// checkShape checks the shape of a request's tensor against its spec.
func checkShape(spec TensorSpec, shape []int) error {
	if len(shape) != len(spec.Shape) {
		return badRequest("input %q: shape %v, the model takes %s", spec.Name, shape, describeShape(spec.Shape))
	}
	if shape[0] == 0 {
		return badRequest("input %q: shape %v holds no samples", spec.Name, shape)
	}
	for i, n := range shape {
		if n == 0 || (spec.Shape[i] != -1 && n != spec.Shape[i]) {
			return badRequest("input %q: shape %v, the model takes %s", spec.Name, shape, describeShape(spec.Shape))
		}
	}
	return nil
}

// elements reads the elements of t from its data, which scanData has
// checked: strings, numbers in JSON's grammar and nulls.
func (d *inferDecoder) elements(t *Tensor, ds *dataScan) error {
	size := ds.count()
	if t.Datatype == BYTES {
		t.Texts = make([]string, 0, size)
	} else {
		start := len(*d.arena)
		if cap(*d.arena)-start < size {
			*d.arena = make([]float64, 0, max(2*cap(*d.arena), size))
			start = 0
		}
		*d.arena = (*d.arena)[:start+size]
		t.Numbers = (*d.arena)[start : start : start+size]
	}
	s := scanner{data: d.s.data[:ds.end], pos: ds.start, max: math.MaxInt}
	for {
		switch c := s.next(); c {
		case '[', ']', ',':
			s.pos++
			continue
		case 0:
			return nil
		case '"':
			text, _ := s.str()
			t.Texts = append(t.Texts, string(text))
		case 'n':
			s.pos += len("null")
			t.Numbers = append(t.Numbers, math.NaN())
		default:
			text := s.token()
			v, err := strconv.ParseFloat(string(text), 64)
			if err != nil || (t.Datatype == FP32 && math.Abs(v) > math.MaxFloat32) {
				return badRequest("input %q: element %d, %s, is out of the range of %s", t.Name, len(t.Numbers), text, t.Datatype)
			}
			t.Numbers = append(t.Numbers, v)
		}
	}
}

// output reads a requested output.
func (d *inferDecoder) output() error {
	var name []byte
	var seen uint32
	err := d.s.object(func(key []byte) error {
		if err := field(key, outputFields, &seen, object{"a requested output", -1}); err != nil {
			return err
		}
		if string(key) == "parameters" {
			return d.parameters()
		}
		var err error
		name, err = d.s.str()
		return err
	})
	if err != nil {
		return err
	}
	if name == nil {
		return badRequest("a requested output has no \"name\"")
	}
	k := slices.IndexFunc(d.md.Outputs, func(s TensorSpec) bool { return s.Name == string(name) })
	switch {
	case k < 0:
		return badRequest("output %q: the model has no such output; it gives %s", name, describeSpecs(d.md.Outputs))
	case slices.Contains(d.req.outputs, k):
		return badRequest("output %q requested twice", name)
	}
	d.req.outputs = append(d.req.outputs, k)
	return nil
}

// describeSpecs lists tensors for messages: "x (FP64 [-1 1]), ...".
func describeSpecs(specs []TensorSpec) string {
	var b strings.Builder
	for i, s := range specs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q (%s %s)", s.Name, s.Datatype, describeShape(s.Shape))
	}
	return b.String()
}

// describeShape writes a spec's shape as the protocol does, -1 for a
// dimension of any size.
func describeShape(shape []int) string {
	return strings.ReplaceAll(fmt.Sprint(shape), " ", ",")
}
