package onnx

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// Hypergraph returns the ONNX model of m, a hypergraph machine built
// from a spec (hypergraph.FromSpec or hypergraph.Load: spec-built and
// sculpted machines), computing in m's element type, float32 or float64.
//
// The graph has an input per input vertex and an output per output
// vertex, named after the vertex, with a dynamic batch dimension N:
// [N, D] for a vector, [N, C, H, W] for an image. An output is what
// Machine.Build returns, the vertex's state with its activation applied.
// Only the live edges are exported, those on a path to an output; the
// others cannot change the outputs. The errors name the part that cannot
// be exported.
func Hypergraph[T ad.Float](m *hypergraph.Machine[T]) (*onnxpb.ModelProto, error) {
	spec := m.Spec()
	if spec == nil {
		return nil, errors.New("onnx: hypergraph machine: it was not built from a spec, so its maps are Go code that ONNX cannot hold")
	}
	h := m.Hypergraph()
	for e, E := range h.Edges {
		if spec.Edges[e].Name != E.Name {
			panic(fmt.Sprintf("onnx: internal error: edge %d is %s in the machine and %s in its spec", e, E.Name, spec.Edges[e].Name))
		}
	}
	inputs, outputs := m.Inputs(), m.Outputs()
	for _, v := range slices.Concat(inputs, outputs) {
		if name := h.Vertices[v]; strings.HasPrefix(name, internalPrefix) {
			return nil, fmt.Errorf("onnx: hypergraph machine: vertex %q: names starting with %q are the graph's own", name, internalPrefix)
		}
	}
	for _, v := range outputs {
		if slices.Contains(inputs, v) {
			return nil, fmt.Errorf("onnx: hypergraph machine: vertex %q is both an input and an output, and an ONNX graph cannot name two values alike", h.Vertices[v])
		}
	}

	elem := elemType[T]()
	b := newBuilder("hypergraph machine")
	p := &hgPass[T]{b: b, m: m, elem: elem,
		init:    make([]string, len(h.Vertices)),
		contrib: make([][]string, len(h.Vertices)),
		states:  make([]string, len(h.Vertices)),
		emitted: make([]string, len(h.Vertices)),
	}
	for _, v := range inputs {
		name := h.Vertices[v]
		b.g.Input = append(b.g.Input, valueInfo(name, "vertex "+name+": "+shapeDoc(m.Space(v).Shape), elem, int64s(m.Space(v).Shape)...))
		p.init[v] = name
	}
	live := liveEdges(m)
	for _, layer := range m.Layers() {
		for _, e := range layer {
			if !live[e] {
				continue
			}
			E := h.Edges[e]
			x := make([]string, len(E.Sources))
			for i, v := range E.Sources {
				x[i] = p.emit(v)
			}
			for i, y := range p.edge(e, spec.Edges[e].Kind, x) {
				p.contrib[E.Targets[i]] = append(p.contrib[E.Targets[i]], y)
			}
		}
	}
	for _, v := range outputs {
		name, s := h.Vertices[v], m.Space(v)
		b.rename(p.emit(v), name)
		b.g.Output = append(b.g.Output, valueInfo(name, "vertex "+name+": its state with activation "+activationName(s.Activation)+", "+shapeDoc(s.Shape), elem, int64s(s.Shape)...))
	}
	names := func(list []int) string {
		out := make([]string, len(list))
		for i, v := range list {
			out[i] = h.Vertices[v]
		}
		return strings.Join(out, "\n")
	}
	return b.model("a hypergraph machine of github.com/parametric-machines/machines, its live edges",
		[2]string{"kind", "hypergraph-machine"}, [2]string{"inputs", names(inputs)}, [2]string{"outputs", names(outputs)}), nil
}

// liveEdges reports which edges of m lie on a path to an output.
func liveEdges[T ad.Float](m *hypergraph.Machine[T]) []bool {
	h := m.Hypergraph()
	needed := make([]bool, len(h.Vertices))
	for _, v := range m.Outputs() {
		needed[v] = true
	}
	live := make([]bool, len(h.Edges))
	// Every edge that reads a vertex comes in a later layer than every
	// edge that writes it, so in reverse order an edge's readers are
	// decided before it.
	layers := m.Layers()
	for i := len(layers) - 1; i >= 0; i-- {
		for _, e := range layers[i] {
			E := h.Edges[e]
			live[e] = slices.ContainsFunc(E.Targets, func(v int) bool { return needed[v] })
			if live[e] {
				for _, v := range E.Sources {
					needed[v] = true
				}
			}
		}
	}
	return live
}

// hgPass builds the stable state of a hypergraph machine as the library
// does (hypergraph.Machine's run): each vertex's state is its input plus
// the contributions of the edges that write it, in the order they are
// evaluated, so that the sums round alike.
type hgPass[T ad.Float] struct {
	b       *builder
	m       *hypergraph.Machine[T]
	elem    onnxpb.TensorProto_DataType
	init    []string   // the graph input of each input vertex
	contrib [][]string // the contributions written to each vertex
	states  []string
	emitted []string
}

func (p *hgPass[T]) state(v int) string {
	if s := p.states[v]; s != "" {
		return s
	}
	terms := p.contrib[v]
	if p.init[v] != "" {
		terms = append([]string{p.init[v]}, terms...)
	}
	var s string
	if len(terms) == 0 {
		s = p.zeros(p.m.Space(v).Shape)
	} else {
		s = terms[0]
		for _, t := range terms[1:] {
			s = p.b.op("Add", []string{s, t})
		}
	}
	p.states[v] = s
	return s
}

// zeros returns zeros of the batched shape of a vertex that no input or
// edge writes, the batch taken from the first input.
func (p *hgPass[T]) zeros(shape []int) string {
	b := p.b
	first := p.m.Hypergraph().Vertices[p.m.Inputs()[0]]
	n := b.op("Slice", []string{b.op("Shape", []string{first}), b.int64s([]int64{1}, []int64{0}), b.int64s([]int64{1}, []int64{1})})
	dims := b.op("Concat", []string{n, b.int64s([]int64{int64(len(shape))}, int64s(shape))}, intAttr("axis", 0))
	return b.op("ConstantOfShape", []string{dims}, tensorAttr("value", realTensor(p.elem, []int64{1}, []float64{0})))
}

func (p *hgPass[T]) emit(v int) string {
	if y := p.emitted[v]; y != "" {
		return y
	}
	y := p.activate(p.m.Space(v).Activation, p.state(v))
	p.emitted[v] = y
	return y
}

// activate applies the activation or pointwise kind a to x.
func (p *hgPass[T]) activate(a hypergraph.Activation, x string) string {
	switch a {
	case "", hypergraph.Identity:
		return x
	case hypergraph.ReLU:
		return p.b.op("Relu", []string{x})
	case hypergraph.Tanh:
		return p.b.op("Tanh", []string{x})
	case hypergraph.Sigmoid:
		return p.b.op("Sigmoid", []string{x})
	case hypergraph.ReLU6:
		return p.b.op("Clip", []string{x, p.b.reals(p.elem, nil, []float64{0}), p.b.reals(p.elem, nil, []float64{6})})
	}
	panic(fmt.Sprintf("onnx: internal error: activation %q", a))
}

// edge adds the map of edge e, of the given kind, applied to the
// emitted values x of its sources, and returns its contribution to each
// target.
func (p *hgPass[T]) edge(e int, kind string, x []string) []string {
	b := p.b
	E := p.m.Hypergraph().Edges[e]
	params := p.m.EdgeParams(e)
	y := make([]string, len(E.Targets))
	switch kind {
	case "linear", "dense", "conv3x3":
		// The weights of target i and source j are params[i*sources+j],
		// then come the biases of a dense map, one [t, 1] per target.
		for i, v := range E.Targets {
			var acc string
			for j := range E.Sources {
				w := params[i*len(E.Sources)+j]
				var z string
				if kind == "conv3x3" {
					in := p.m.Space(E.Sources[j]).Shape[1:]
					z = b.conv(p.elem, x[j], w.Shape, float64s(w.Data), []int{1, 1}, in)
				} else {
					// x W' with W [t, s], stored transposed.
					t, s := w.Shape[0], w.Shape[1]
					wt := make([]float64, t*s)
					for r := range t {
						for c := range s {
							wt[c*t+r] = float64(w.Data[r*s+c])
						}
					}
					z = b.op("MatMul", []string{x[j], b.reals(p.elem, []int64{int64(s), int64(t)}, wt)})
				}
				if acc == "" {
					acc = z
				} else {
					acc = b.op("Add", []string{acc, z})
				}
			}
			if acc == "" {
				acc = p.zeros(p.m.Space(v).Shape)
			}
			if kind == "dense" {
				bias := params[len(E.Sources)*len(E.Targets)+i]
				acc = b.op("Add", []string{acc, b.reals(p.elem, []int64{int64(bias.Len())}, float64s(bias.Data))})
			}
			y[i] = acc
		}
	case "identity", "relu", "relu6", "tanh", "sigmoid":
		for i := range E.Targets {
			y[i] = p.activate(hypergraph.Activation(kind), x[i])
		}
	case "maxpool":
		for i := range E.Targets {
			y[i] = b.op("MaxPool", []string{x[i]}, intsAttr("kernel_shape", []int64{2, 2}), intsAttr("strides", []int64{2, 2}))
		}
	case "upsample":
		// Each pixel repeated over a 2x2 block: [N, C, H, 1, W, 1]
		// broadcast to [N, C, H, 2, W, 2], which is [N, C, 2H, 2W] in
		// row-major order. (Resize would do, but ONNX Runtime has no
		// float64 Resize.)
		for i, v := range E.Targets {
			shape := p.m.Space(v).Shape
			wide := b.op("Expand", []string{
				b.op("Unsqueeze", []string{x[i], b.int64s([]int64{2}, []int64{3, 5})}),
				b.int64s([]int64{6}, []int64{1, 1, 1, 2, 1, 2})})
			y[i] = b.op("Reshape", []string{wide, b.int64s([]int64{4}, append([]int64{-1}, int64s(shape)...))})
		}
	case "flatten":
		for i := range E.Targets {
			y[i] = b.op("Flatten", []string{x[i]}, intAttr("axis", 1))
		}
	default:
		panic(fmt.Sprintf("onnx: internal error: edge %s of kind %q", E.Name, kind))
	}
	return y
}

// elemType returns ONNX's element type of T.
func elemType[T ad.Float]() onnxpb.TensorProto_DataType {
	if reflect.TypeFor[T]().Bits() == 32 {
		return onnxpb.TensorProto_FLOAT
	}
	return onnxpb.TensorProto_DOUBLE
}

func float64s[T ad.Float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// shapeDoc describes a batch of arrays of the given shape.
func shapeDoc(shape []int) string {
	kind := "vectors"
	if len(shape) == 3 {
		kind = "images"
	}
	return kind + " of shape " + batchShape(shape)
}

// batchShape writes the shape of a batch of arrays of the given shape,
// as [N, 1, 28, 28].
func batchShape(shape []int) string {
	dims := []string{batch}
	for _, d := range shape {
		dims = append(dims, fmt.Sprint(d))
	}
	return "[" + strings.Join(dims, ", ") + "]"
}

func activationName(a hypergraph.Activation) string {
	if a == "" {
		return string(hypergraph.Identity)
	}
	return string(a)
}
