package serve

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
)

// HypergraphKind is the kind of saved hypergraph machines (the
// sculpt-model.json of machines sculpt, or a machine built from a spec
// and saved), computed in float32. Their inputs and outputs are the
// machine's input and output vertices, FP32 tensors named after them,
// of shape [-1, C, H, W] for images and [-1, D] for vectors; an output
// is the vertex's activated state, as in the machine's ONNX export.
func HypergraphKind() Kind {
	return Kind{Format: hypergraph.MachineFormat, Load: loadHypergraph}
}

// FiniteKind is the kind of saved finite machines, computed in float32.
// Their input is "y0", the input block, of shape [-1, d0] for a dense
// machine and [-1, d0, -1] or [-1, d0, -1, -1] for signals of any
// length (at least the kernel's) or height and width; their output is
// "z", the stable state of all D channels, of the same shape with D
// channels, as in the machine's ONNX export.
func FiniteKind() Kind {
	return Kind{Format: finite.Format, Load: loadFinite}
}

// hypergraphModel serves a hypergraph machine.
type hypergraphModel struct {
	m    *hypergraph.Machine[float32]
	meta Metadata
}

func loadHypergraph(path string) (Model, error) {
	m, err := hypergraph.Load[float32](path)
	if err != nil {
		return nil, err
	}
	h := m.Hypergraph()
	specs := func(vertices []int) []TensorSpec {
		var out []TensorSpec
		for _, v := range vertices {
			out = append(out, TensorSpec{Name: h.Vertices[v], Datatype: FP32, Shape: append([]int{-1}, m.Space(v).Shape...)})
		}
		return out
	}
	return &hypergraphModel{m: m, meta: Metadata{Platform: "machines_hypergraph",
		Inputs: specs(m.Inputs()), Outputs: specs(m.Outputs())}}, nil
}

func (hm *hypergraphModel) Metadata() Metadata { return hm.meta }

// Prepare lays each sample's inputs end to end in its row.
func (hm *hypergraphModel) Prepare(rows *Rows, in []Tensor) error {
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

func (hm *hypergraphModel) Infer(rows *Rows) ([]Tensor, error) {
	var g ad.Graph[float32]
	x := make([]*ad.Node[float32], len(hm.meta.Inputs))
	at := 0
	for k, spec := range hm.meta.Inputs {
		t := ad.NewTensor[float32](append([]int{rows.N}, spec.Shape[1:]...)...)
		w := t.Len() / rows.N
		for i := range rows.N {
			for j, v := range rows.Row(i)[at : at+w] {
				t.Data[i*w+j] = float32(v)
			}
		}
		at += w
		x[k] = g.Input(t)
	}
	y := hm.m.Build(&g, hm.m.ParamNodesInto(&g, nil), x)
	out := make([]Tensor, len(y))
	for k, spec := range hm.meta.Outputs {
		out[k] = float32Tensor(spec.Name, y[k].Value)
	}
	return out, nil
}

// finiteModel serves a finite machine.
type finiteModel struct {
	m    *finite.Machine[float32]
	meta Metadata
}

func loadFinite(path string) (Model, error) {
	m, err := finite.Load[float32](path)
	if err != nil {
		return nil, err
	}
	signal := len(m.Pad()) // 0 dense, 1 or 2 for signals
	shape := func(channels int) []int {
		s := []int{-1, channels}
		for range signal {
			s = append(s, -1)
		}
		return s
	}
	d := 0
	for _, b := range m.Dims() {
		d += b
	}
	return &finiteModel{m: m, meta: Metadata{Platform: "machines_finite",
		Inputs:  []TensorSpec{{Name: "y0", Datatype: FP32, Shape: shape(m.Dims()[0])}},
		Outputs: []TensorSpec{{Name: "z", Datatype: FP32, Shape: shape(d)}}}}, nil
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

func (fm *finiteModel) Infer(rows *Rows) ([]Tensor, error) {
	y0 := ad.NewTensor[float32](append([]int{rows.N}, rows.Shape...)...)
	for i, v := range rows.Data {
		y0.Data[i] = float32(v)
	}
	var g ad.Graph[float32]
	p := finite.Params[float32]{W: g.Input(fm.m.W)}
	if fm.m.Scale != nil {
		p.Scale = g.Input(fm.m.Scale)
	}
	z := fm.m.Apply(&g, p, g.Input(y0), nil)
	return []Tensor{float32Tensor(fm.meta.Outputs[0].Name, z.Value)}, nil
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

// float32Tensor returns the output of the given name holding t.
func float32Tensor(name string, t *ad.Tensor[float32]) Tensor {
	numbers := make([]float64, t.Len())
	for i, v := range t.Data {
		numbers[i] = float64(v)
	}
	return Tensor{Name: name, Datatype: FP32, Shape: t.Shape, Numbers: numbers}
}
