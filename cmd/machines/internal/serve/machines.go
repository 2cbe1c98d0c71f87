package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/model"
)

// ModelKinds are the kinds of the model files of package model: the
// composed models of every family ("format": "machines", "kind":
// "model"), sculpted and spec-built hypergraph machines among them, and
// the saved hypergraph machines of earlier versions. A model is computed
// in the element type of its file, float32 or float64 (FP32 or FP64
// tensors). Its inputs and outputs are the model's, named after their
// spaces, each of shape [-1, the space's shape...], as in the model's
// ONNX export. An output whose classes the file names (model.Meta) adds
// "label", BYTES [-1], the class of its largest column (SPACE_label if
// several do), its metadata's "parameters" holding the "classes"; an
// image input's metadata holds how pixels become its values
// ("pixel_scale", "channels").
func ModelKinds() []Kind {
	return []Kind{
		{Format: jsonfile.Envelope, Kind: model.FileKind, Load: loadModel},
		{Format: model.LegacyFormat, Load: loadModel},
	}
}

// FiniteKinds are the kinds of saved finite machines, in the module's
// envelope and in the format of earlier versions, computed in float32.
// Their input is "y0", the input block, of shape [-1, d0] for a dense
// machine and [-1, d0, -1] or [-1, d0, -1, -1] for signals of any
// length (at least the kernel's) or height and width; their output is
// "z", the stable state of all D channels, of the same shape with D
// channels, as in the machine's ONNX export.
func FiniteKinds() []Kind {
	return []Kind{
		{Format: jsonfile.Envelope, Kind: finite.FileKind, Load: loadFinite},
		{Format: finite.Format, Load: loadFinite},
	}
}

// composedModel serves a model of package model.
type composedModel[T ad.Float] struct {
	meta Metadata
	// labels are the outputs that answer a class by name, after the
	// model's own outputs.
	labels []labelOutput
	// models keeps a copy of the model per goroutine at work, decoded
	// from the file's bytes: a model keeps the graphs of the batch sizes
	// it meets, and so is not safe for concurrent use.
	models sync.Pool
}

func loadModel(path string, data []byte) (Model, error) {
	var head struct {
		Element string `json:"element"`
	}
	// The legacy files have no element type; they were float32.
	_ = json.Unmarshal(data, &head)
	if head.Element == "float64" {
		return newComposedModel[float64](path, data, FP64)
	}
	return newComposedModel[float32](path, data, FP32)
}

func newComposedModel[T ad.Float](path string, data []byte, datatype string) (Model, error) {
	m, err := model.Decode[T](bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	specs := func(names []string, shapes [][]int) []TensorSpec {
		var out []TensorSpec
		for i, name := range names {
			out = append(out, TensorSpec{Name: name, Datatype: datatype, Shape: append([]int{-1}, shapes[i]...)})
		}
		return out
	}
	cm := &composedModel[T]{meta: Metadata{Platform: "machines_model",
		Inputs: specs(m.Inputs()), Outputs: specs(m.Outputs())}}
	cm.describe(m.Meta)
	cm.models.New = func() any {
		m, err := model.Decode[T](bytes.NewReader(data))
		if err != nil {
			// The same bytes decoded when the model was loaded.
			panic(fmt.Errorf("%w: serve: %s decoded once, not again: %v", ad.ErrState, path, err))
		}
		return m
	}
	cm.models.Put(m)
	return cm, nil
}

func (cm *composedModel[T]) Metadata() Metadata { return cm.meta }

// labelOutput is an output of the classes of a model's output by name.
type labelOutput struct {
	output  int // of the model's outputs
	classes []string
}

// describe adds to the metadata what the model's meta says: the inputs'
// pixels, and an output of the class names of each output of classes.
func (cm *composedModel[T]) describe(md model.Meta) {
	for i, in := range cm.meta.Inputs {
		if p, ok := md.Pixels[in.Name]; ok {
			cm.meta.Inputs[i].Parameters = map[string]any{"pixel_scale": p.Scale, "channels": p.Channels}
		}
	}
	n := len(cm.meta.Outputs)
	for k, out := range cm.meta.Outputs[:n] {
		classes, ok := md.Classes[out.Name]
		if !ok {
			continue
		}
		name := "label"
		if len(md.Classes) > 1 || slices.ContainsFunc(cm.meta.Outputs, func(s TensorSpec) bool { return s.Name == name }) {
			name = out.Name + "_label"
		}
		cm.labels = append(cm.labels, labelOutput{output: k, classes: classes})
		cm.meta.Outputs = append(cm.meta.Outputs, TensorSpec{Name: name, Datatype: BYTES, Shape: []int{-1},
			Parameters: map[string]any{"classes": classes}})
	}
}

// Prepare lays each sample's inputs end to end in its row.
func (cm *composedModel[T]) Prepare(rows *Rows, in []Tensor) error {
	width := 0
	for _, t := range in {
		width += t.rowLen()
	}
	n := in[0].Shape[0]
	rows.Reset(n, width)
	for i := range n {
		row := rows.Row(i)
		for _, t := range in {
			w := t.rowLen()
			if err := copyFinite(row[:w], t.Numbers[i*w:(i+1)*w], t.Name, i*w); err != nil {
				return err
			}
			row = row[w:]
		}
	}
	return nil
}

// Memory counts the request's rows, twice (one copy in a batch), and the
// tensors of its samples padded to a batch size, input and output, in
// the model's element type and as float64, with the output's JSON. The
// graphs the model computes on, of at most model.PredictBatch samples,
// are the model's own, kept from request to request like its
// parameters, and not counted.
func (cm *composedModel[T]) Memory(in []Tensor) int64 {
	n := int64(in[0].Shape[0])
	padded := int64(paddedBatch(int(n)))
	var inputs, outputs int64
	for _, spec := range cm.meta.Inputs {
		inputs += int64(shapeSize(spec.Shape[1:]))
	}
	for _, spec := range cm.meta.Outputs {
		outputs += int64(shapeSize(spec.Shape[1:]))
	}
	size := int64(4)
	if cm.meta.Inputs[0].Datatype == FP64 {
		size = 8
	}
	return n*inputs*8*2 + padded*(inputs+outputs)*(size+8) + n*outputs*jsonNumber
}

// Infer computes the rows padded to a batch size of paddedBatch with
// copies of the first row, so that a model meets few batch sizes and
// keeps few graphs.
func (cm *composedModel[T]) Infer(rows *Rows) ([]Tensor, error) {
	m := cm.models.Get().(*model.Model[T])
	defer cm.models.Put(m)
	n, size := rows.N, paddedBatch(rows.N)
	x := make([]*ad.Tensor[T], len(cm.meta.Inputs))
	at := 0
	for k, spec := range cm.meta.Inputs {
		t := ad.NewTensor[T](append([]int{size}, spec.Shape[1:]...)...)
		w := t.Len() / size
		for i := range size {
			src := rows.Row(0)
			if i < n {
				src = rows.Row(i)
			}
			for j, v := range src[at : at+w] {
				t.Data[i*w+j] = T(v)
			}
		}
		at += w
		x[k] = t
	}
	y, err := m.Predict(x...)
	if err != nil {
		return nil, err
	}
	out := make([]Tensor, len(cm.meta.Outputs))
	for k := range y {
		spec := cm.meta.Outputs[k]
		w := y[k].Len() / size
		numbers := make([]float64, n*w)
		for i, v := range y[k].Data[:n*w] {
			numbers[i] = float64(v)
		}
		out[k] = Tensor{Name: spec.Name, Datatype: spec.Datatype, Shape: append([]int{n}, y[k].Shape[1:]...), Numbers: numbers}
	}
	for j, l := range cm.labels {
		texts := make([]string, n)
		w := len(l.classes)
		for i := range texts {
			row := out[l.output].Numbers[i*w : (i+1)*w]
			texts[i] = l.classes[argmax(row)]
		}
		spec := cm.meta.Outputs[len(y)+j]
		out[len(y)+j] = Tensor{Name: spec.Name, Datatype: BYTES, Shape: []int{n}, Texts: texts}
	}
	return out, nil
}

// argmax returns the index of the largest value, the first of equal
// ones; NaN is never the largest.
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] || math.IsNaN(v[best]) {
			best = i
		}
	}
	return best
}

// paddedBatch returns the number of samples a batch of n is computed as:
// the least power of two of at least n up to model.PredictBatch, beyond
// it the least multiple of model.PredictBatch.
func paddedBatch(n int) int {
	if n > model.PredictBatch {
		return (n + model.PredictBatch - 1) / model.PredictBatch * model.PredictBatch
	}
	size := 1
	for size < n {
		size *= 2
	}
	return size
}

// finiteModel serves a finite machine.
type finiteModel struct {
	m    *finite.Machine[float32]
	meta Metadata
}

func loadFinite(path string, data []byte) (Model, error) {
	m, err := finite.Decode[float32](bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path) // as finite.Load says it
	}
	signal := len(m.Pad()) // 0 dense, 1 or 2 for signals
	shape := func(channels int) []int {
		s := []int{-1, channels}
		for range signal {
			s = append(s, -1)
		}
		return s
	}
	return &finiteModel{m: m, meta: Metadata{Platform: "machines_finite",
		Inputs:  []TensorSpec{{Name: "y0", Datatype: FP32, Shape: shape(m.Dims()[0])}},
		Outputs: []TensorSpec{{Name: "z", Datatype: FP32, Shape: shape(m.Size())}}}}, nil
}

func (fm *finiteModel) Metadata() Metadata { return fm.meta }

// Prepare checks the signals' shape against the machine's kernel and
// copies the samples, each a row of the input's shape.
func (fm *finiteModel) Prepare(rows *Rows, in []Tensor) error {
	t := in[0]
	if _, err := fm.m.NewSolver(t.Shape[2:]...); err != nil {
		return fmt.Errorf("input %q: shape %v: %w", t.Name, t.Shape, err)
	}
	rows.Reset(t.Shape[0], t.Shape[1:]...)
	return copyFinite(rows.Data, t.Numbers, t.Name, 0)
}

// Memory counts, for the request's samples of P positions each: the
// rows, twice (one copy in a batch), and the machine's input; the
// solver's states (five of D channels, and for a convolutional or
// recurrent machine two unfolded over the K taps of its kernel); the
// output as float64 with its JSON; and the plan of the solves, built
// twice (Prepare checks the shape), whose steps a recurrent machine
// has per time block.
func (fm *finiteModel) Memory(in []Tensor) int64 {
	t := in[0]
	c, d := int64(t.Shape[1]), int64(fm.m.Size())
	cells := int64(t.Shape[0]) * int64(shapeSize(t.Shape[2:])) // samples times positions
	bytes := cells * (c*(8*2+4) + d*(5*4+8+jsonNumber))
	taps := int64(1)
	for _, p := range fm.m.Pad() {
		taps *= 2*int64(p) + 1
	}
	if fm.m.Kind() == finite.Recur {
		taps = int64(fm.m.Pad()[0]) + 1
	}
	if fm.m.Kind() != finite.Dense {
		bytes += cells * d * taps * 2 * 4
	}
	steps := int64(3 * len(fm.m.Dims()))
	if fm.m.Kind() == finite.Recur {
		length := int64(t.Shape[2])
		blocks := (length + int64(fm.m.TimeBlock()) - 1) / int64(fm.m.TimeBlock())
		steps += 2 * blocks * int64(len(fm.m.Dims()))
	}
	return bytes + 2*steps*planStep*(taps+1)
}

// planStep is the bytes of a step of a solve's plan per segment of the
// state it reads, with the room of slices grown by appending.
const planStep = 2 * 64

// Infer solves the machine for the batch at once: the solver's states
// hold the channels in rows and, in columns, the positions and, fastest,
// the samples.
func (fm *finiteModel) Infer(rows *Rows) ([]Tensor, error) {
	s, err := fm.m.NewSolver(rows.Shape[1:]...)
	if err != nil {
		return nil, err
	}
	n, c, p, d := rows.N, rows.Shape[0], s.Positions(), fm.m.Size()
	y0 := ad.NewTensor[float32](c, p*n)
	for i := range n {
		for ch := range c {
			for q, v := range rows.Data[(i*c+ch)*p : (i*c+ch+1)*p] {
				y0.Data[ch*p*n+q*n+i] = float32(v)
			}
		}
	}
	_, z := s.Forward(y0, nil)
	numbers := make([]float64, n*d*p)
	for i := range n {
		for ch := range d {
			for q := range p {
				numbers[(i*d+ch)*p+q] = float64(z.Data[ch*p*n+q*n+i])
			}
		}
	}
	shape := append([]int{n, d}, rows.Shape[1:]...)
	return []Tensor{{Name: fm.meta.Outputs[0].Name, Datatype: FP32, Shape: shape, Numbers: numbers}}, nil
}

// copyFinite copies the numbers src of input name to dst, refusing the
// missing ones; the first is element first of the input.
func copyFinite(dst, src []float64, name string, first int) error {
	for j, v := range src {
		if math.IsNaN(v) {
			return fmt.Errorf("input %q: element %d is null; this model takes numbers only", name, first+j)
		}
		dst[j] = v
	}
	return nil
}

// shapeSize returns the number of values of a tensor of the given shape.
func shapeSize(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
