package onnx

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// Model returns the ONNX model of m, a model of package model: built in
// code, loaded from a file, or a sculpted hypergraph machine, computing in
// m's element type, float32 or float64, with layers of every family (see
// the package documentation for how each is exported).
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
	x := make([]string, len(inputs))
	for i, v := range inputs {
		name := h.Vertices[v]
		b.g.Input = append(b.g.Input, valueInfo(name, "space "+name+": "+shapeDoc(mc.Space(v).Shape), elem, int64s(mc.Space(v).Shape)...))
		x[i] = name
	}
	p := newPass(b, mc, m.Params(), "", x)
	if err := p.run(); err != nil {
		return nil, fmt.Errorf("onnx: model: %w", err)
	}
	for i, y := range p.outputs() {
		v := outputs[i]
		name, s := h.Vertices[v], mc.Space(v)
		b.rename(y, name)
		b.g.Output = append(b.g.Output, valueInfo(name, "space "+name+": its state with activation "+s.Activation.String()+", "+shapeDoc(s.Shape), elem, int64s(s.Shape)...))
	}
	names := func(list []int) string {
		out := make([]string, len(list))
		for i, v := range list {
			out[i] = h.Vertices[v]
		}
		return strings.Join(out, "\n")
	}
	meta := append([][2]string{{"kind", "model"}, {"inputs", names(inputs)}, {"outputs", names(outputs)}}, metaProps(m.Meta)...)
	return b.model("a model of github.com/parametric-machines/machines, its live layers", meta...), nil
}

// metaProps returns the metadata of what the model's inputs and outputs
// mean: "classes.SPACE", the classes of an output, one a line, and
// "pixel_scale.SPACE" and "channels.SPACE" (one a line) of an image
// input, as the model's file holds them.
func metaProps(md model.Meta) [][2]string {
	var props [][2]string
	for _, space := range slices.Sorted(maps.Keys(md.Classes)) {
		props = append(props, [2]string{"classes." + space, strings.Join(md.Classes[space], "\n")})
	}
	for _, space := range slices.Sorted(maps.Keys(md.Pixels)) {
		p := md.Pixels[space]
		props = append(props, [2]string{"pixel_scale." + space, strconv.FormatFloat(p.Scale, 'g', -1, 64)},
			[2]string{"channels." + space, strings.Join(p.Channels, "\n")})
	}
	return props
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
// evaluated, so that the sums round alike. A machine that is a layer of
// another gets a pass of its own on the same builder.
type hgPass[T ad.Float] struct {
	b     *builder
	m     *hypergraph.Machine[T]
	ps    *ad.Params[T]
	elem  onnxpb.TensorProto_DataType
	scope string // the machine's scope: its parameters' names start with it
	// batchOf is a value whose first dimension is the batch: the first
	// input.
	batchOf string
	init    []string   // the value of each input vertex
	contrib [][]string // the contributions written to each vertex
	states  []string
	emitted []string
}

// newPass returns the pass of the machine m, whose parameters ps holds
// under scope, on the values x of its input vertices.
func newPass[T ad.Float](b *builder, m *hypergraph.Machine[T], ps *ad.Params[T], scope string, x []string) *hgPass[T] {
	n := len(m.Hypergraph().Vertices)
	p := &hgPass[T]{b: b, m: m, ps: ps, elem: elemType[T](), scope: scope,
		init:    make([]string, n),
		contrib: make([][]string, n),
		states:  make([]string, n),
		emitted: make([]string, n),
	}
	for i, v := range m.Inputs() {
		p.init[v] = x[i]
	}
	if len(x) > 0 {
		p.batchOf = x[0]
	}
	return p
}

// run adds the live edges, layer by layer; its errors name the edge.
func (p *hgPass[T]) run() error {
	h := p.m.Hypergraph()
	live := liveEdges(p.m)
	for _, layer := range p.m.Layers() {
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
				return fmt.Errorf("layer %s: %w", E.Name, err)
			}
			for i, out := range y {
				p.contrib[E.Targets[i]] = append(p.contrib[E.Targets[i]], out)
			}
		}
	}
	return nil
}

// outputs returns what the machine returns: the emitted values of its
// output vertices.
func (p *hgPass[T]) outputs() []string {
	var y []string
	for _, v := range p.m.Outputs() {
		y = append(y, p.emit(v))
	}
	return y
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
		s = p.b.zeros(p.elem, p.batchOf, p.m.Space(v).Shape)
	} else {
		s = terms[0]
		for _, t := range terms[1:] {
			s = p.b.op("Add", []string{s, t})
		}
	}
	p.states[v] = s
	return s
}

// zeros returns zeros of element type elem and of the batched shape, the
// batch taken from the first dimension of the value like.
func (b *builder) zeros(elem onnxpb.TensorProto_DataType, like string, shape []int) string {
	n := b.op("Slice", []string{b.op("Shape", []string{like}), b.int64s([]int64{1}, []int64{0}), b.int64s([]int64{1}, []int64{1})})
	dims := b.op("Concat", []string{n, b.int64s([]int64{int64(len(shape))}, int64s(shape))}, intAttr("axis", 0))
	return b.op("ConstantOfShape", []string{dims}, tensorAttr("value", realTensor(elem, []int64{1}, []float64{0})))
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
	if p.scope != "" {
		scope = p.scope + "." + scope
	}
	E := p.m.Hypergraph().Edges[e]
	src, tgt := make([][]int, len(E.Sources)), make([][]int, len(E.Targets))
	for i, v := range E.Sources {
		src[i] = p.m.Space(v).Shape
	}
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
	case *hypergraph.Machine[T]:
		sub := newPass(p.b, l, p.ps, scope, x)
		if err := sub.run(); err != nil {
			return nil, err
		}
		return sub.outputs(), nil
	case finite.Layer[T]:
		return finiteLayer(p.b, l, p.ps, scope, x, src)
	case kernel.Layer[T]:
		return kernelLayer(p.b, l, p.ps, scope, x)
	case infinite.Layer[T]:
		return infiniteLayer(p.b, l, p.ps, scope, x)
	case ode.Layer[T]:
		return odeLayer(p.b, l, p.ps, scope, x, src[0][0])
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
			w := p.ps.Value(scope + "." + hypergraph.WeightName(i, j, len(x), len(tgt)))
			var z string
			if conv {
				z = b.conv(p.elem, x[j], w.Shape, float64s(w.Data), []int{1, 1}, shape[1:])
			} else {
				z = b.matMulT(p.elem, x[j], float64s(w.Data), w.Shape[0], w.Shape[1])
			}
			if acc == "" {
				acc = z
			} else {
				acc = b.op("Add", []string{acc, z})
			}
		}
		if acc == "" {
			acc = b.zeros(p.elem, p.batchOf, shape)
		}
		if bias {
			bv := p.ps.Value(scope + "." + hypergraph.BiasName(i, len(tgt)))
			acc = b.op("Add", []string{acc, b.reals(p.elem, []int64{int64(bv.Len())}, float64s(bv.Data))})
		}
		y[i] = acc
	}
	return y
}

// matMulT returns x W', for the batch x, [N, cols], and W of shape
// [rows, cols] in row-major order: the product the library's layers
// compute as MatMul(x, w, false, true).
func (b *builder) matMulT(elem onnxpb.TensorProto_DataType, x string, w []float64, rows, cols int) string {
	wt := make([]float64, rows*cols)
	for r := range rows {
		for c := range cols {
			wt[c*rows+r] = w[r*cols+c]
		}
	}
	w1 := b.reals(elem, []int64{int64(cols), int64(rows)}, wt)
	if cols == 1 {
		// A broadcast Mul, one product per entry: ONNX Runtime folds a
		// division by a single scale before a MatMul (the
		// standardisation of one input) into the MatMul as a float32
		// factor (MatMulScaleFusion), 6e-8 relative in float64.
		return b.op("Mul", []string{x, w1})
	}
	return b.op("MatMul", []string{x, w1})
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
