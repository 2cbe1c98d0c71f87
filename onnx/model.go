package onnx

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// Model returns the ONNX model of m, a model of package model: built in
// code, loaded from a file, or a sculpted hypergraph machine, computing in
// m's element type, float32 or float64.
//
// The graph has an input per input space and an output per output space,
// named after the space, with a dynamic batch dimension N: [N, D] for a
// vector, [N, C, H, W] for an image. An output is what Model.Predict
// returns. Only the live layers are exported, those on a path to an
// output; the others cannot change the outputs. The errors name the
// layer that cannot be exported and say why.
func Model[T ad.Float](m *model.Model[T]) (*onnxpb.ModelProto, error) {
	mc, err := m.Machine()
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	h := mc.Hypergraph()
	inputs, outputs := mc.Inputs(), mc.Outputs()
	for _, v := range slices.Concat(inputs, outputs) {
		if name := h.Vertices[v]; strings.HasPrefix(name, internalPrefix) {
			return nil, fmt.Errorf("onnx: model: space %q: names starting with %q are the graph's own", name, internalPrefix)
		}
	}
	for _, v := range outputs {
		if slices.Contains(inputs, v) {
			return nil, fmt.Errorf("onnx: model: space %q is both an input and an output, and an ONNX graph cannot name two values alike", h.Vertices[v])
		}
	}

	elem := elemType[T]()
	b := newBuilder("model")
	p := &hgPass[T]{b: b, m: mc, ps: m.Params(), elem: elem,
		init:    make([]string, len(h.Vertices)),
		contrib: make([][]string, len(h.Vertices)),
		states:  make([]string, len(h.Vertices)),
		emitted: make([]string, len(h.Vertices)),
	}
	for _, v := range inputs {
		name := h.Vertices[v]
		b.g.Input = append(b.g.Input, valueInfo(name, "space "+name+": "+shapeDoc(mc.Space(v).Shape), elem, int64s(mc.Space(v).Shape)...))
		p.init[v] = name
	}
	live := liveEdges(mc)
	for _, layer := range mc.Layers() {
		for _, e := range layer {
			if !live[e] {
				continue
			}
			E := h.Edges[e]
			x := make([]string, len(E.Sources))
			for i, v := range E.Sources {
				x[i] = p.emit(v)
			}
			y, err := p.edge(e, x)
			if err != nil {
				return nil, fmt.Errorf("onnx: model: layer %s: %w", E.Name, err)
			}
			for i, out := range y {
				p.contrib[E.Targets[i]] = append(p.contrib[E.Targets[i]], out)
			}
		}
	}
	for _, v := range outputs {
		name, s := h.Vertices[v], mc.Space(v)
		b.rename(p.emit(v), name)
		b.g.Output = append(b.g.Output, valueInfo(name, "space "+name+": its state with activation "+s.Activation.String()+", "+shapeDoc(s.Shape), elem, int64s(s.Shape)...))
	}
	names := func(list []int) string {
		out := make([]string, len(list))
		for i, v := range list {
			out[i] = h.Vertices[v]
		}
		return strings.Join(out, "\n")
	}
	return b.model("a model of github.com/parametric-machines/machines, its live layers",
		[2]string{"kind", "model"}, [2]string{"inputs", names(inputs)}, [2]string{"outputs", names(outputs)}), nil
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
	ps      *ad.Params[T]
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
	y := p.b.activation(p.elem, p.m.Space(v).Activation, p.state(v))
	p.emitted[v] = y
	return y
}

// activation applies the activation a to x, of element type elem.
func (b *builder) activation(elem onnxpb.TensorProto_DataType, a ad.Activation, x string) string {
	switch a {
	case "", ad.Identity:
		return x
	case ad.ReLU:
		return b.op("Relu", []string{x})
	case ad.Tanh:
		return b.op("Tanh", []string{x})
	case ad.Sigmoid:
		return b.op("Sigmoid", []string{x})
	case ad.ReLU6:
		return b.op("Clip", []string{x, b.reals(elem, nil, []float64{0}), b.reals(elem, nil, []float64{6})})
	}
	panic(fmt.Errorf("%w: onnx: internal error: activation %q", ad.ErrName, a))
}

// edge adds the layer of edge e applied to the emitted values x of its
// sources, and returns its contribution to each target.
func (p *hgPass[T]) edge(e int, x []string) ([]string, error) {
	l, scope := p.m.Layer(e)
	E := p.m.Hypergraph().Edges[e]
	tgt := make([][]int, len(E.Targets))
	for i, v := range E.Targets {
		tgt[i] = p.m.Space(v).Shape
	}
	switch l := l.(type) {
	case hypergraph.Linear[T]:
		return p.mix(scope, x, tgt, l.Bias, false), nil
	case hypergraph.Conv[T]:
		return p.mix(scope, x, tgt, false, true), nil
	case hypergraph.Each[T]:
		return p.each(l.Kind, x, tgt), nil
	case hypergraph.Reshape[T]:
		y := make([]string, len(x))
		for i := range x {
			y[i] = p.b.op("Reshape", []string{x[i], p.b.int64s([]int64{int64(len(tgt[i]) + 1)}, append([]int64{-1}, int64s(tgt[i])...))})
		}
		return y, nil
	}
	return nil, fmt.Errorf("a layer of type %T is not exported", l)
}

// mix adds a linear map or a convolution from the sources x to targets
// of the shapes tgt, its weights (and biases) under scope.
func (p *hgPass[T]) mix(scope string, x []string, tgt [][]int, bias, conv bool) []string {
	b := p.b
	y := make([]string, len(tgt))
	for i, shape := range tgt {
		var acc string
		for j := range x {
			w := p.ps.Value(scope + "." + weightName(i, j, len(x), len(tgt)))
			var z string
			if conv {
				z = b.conv(p.elem, x[j], w.Shape, float64s(w.Data), []int{1, 1}, shape[1:])
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
			acc = p.zeros(shape)
		}
		if bias {
			bv := p.ps.Value(scope + "." + biasName(i, len(tgt)))
			acc = b.op("Add", []string{acc, b.reals(p.elem, []int64{int64(bv.Len())}, float64s(bv.Data))})
		}
		y[i] = acc
	}
	return y
}

// weightName and biasName are the names hypergraph's mixing layers give
// their parameters.
func weightName(t, s, inputs, outputs int) string {
	if inputs == 1 && outputs == 1 {
		return "weight"
	}
	return fmt.Sprintf("weight.%d.%d", t, s)
}

func biasName(t, outputs int) string {
	if outputs == 1 {
		return "bias"
	}
	return fmt.Sprintf("bias.%d", t)
}

// each applies the pointwise kind to each source.
func (p *hgPass[T]) each(kind string, x []string, tgt [][]int) []string {
	b := p.b
	y := make([]string, len(x))
	for i := range x {
		switch kind {
		case "maxpool":
			y[i] = b.op("MaxPool", []string{x[i]}, intsAttr("kernel_shape", []int64{2, 2}), intsAttr("strides", []int64{2, 2}))
		case "upsample":
			// Each pixel repeated over a 2x2 block: [N, C, H, 1, W, 1]
			// broadcast to [N, C, H, 2, W, 2], which is [N, C, 2H, 2W] in
			// row-major order. (Resize would do, but ONNX Runtime has no
			// float64 Resize.)
			wide := b.op("Expand", []string{
				b.op("Unsqueeze", []string{x[i], b.int64s([]int64{2}, []int64{3, 5})}),
				b.int64s([]int64{6}, []int64{1, 1, 1, 2, 1, 2})})
			y[i] = b.op("Reshape", []string{wide, b.int64s([]int64{4}, append([]int64{-1}, int64s(tgt[i])...))})
		case "flatten":
			y[i] = b.op("Flatten", []string{x[i]}, intAttr("axis", 1))
		default:
			y[i] = b.activation(p.elem, ad.Activation(kind), x[i])
		}
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
