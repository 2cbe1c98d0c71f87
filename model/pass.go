package model

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// pass is the model's graph for batches of one size: the batch contract
// is that a graph only ever computes on batches of the size it was built
// for, so a model keeps one per size it meets (in training, the full
// minibatch, a shorter last one and the validation's).
type pass[T ad.Float] struct {
	g         ad.Graph[T]
	n         int
	inputs    []*ad.Tensor[T] // one per input, n samples each
	outputs   []*ad.Node[T]
	penalties []*ad.Node[T]
}

// newPass builds the model's graph for batches of n samples.
func (m *Model[T]) newPass(n int) (*pass[T], error) {
	mc, err := m.Machine()
	if err != nil {
		return nil, err
	}
	p := &pass[T]{n: n}
	x := make([]*ad.Node[T], len(m.inputs))
	for i, v := range m.inputs {
		t := ad.NewTensor[T](append([]int{n}, m.spaces[v].Shape...)...)
		p.inputs = append(p.inputs, t)
		x[i] = p.g.Input(t)
	}
	s := ad.NewScope(&p.g, &m.params, "", nil)
	if p.outputs, err = mc.Apply(s, x); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	p.penalties = s.Penalties()
	return p, nil
}

// load copies the samples rows of the data x, one tensor per input with
// the samples first, into the pass's inputs.
func (p *pass[T]) load(x []*ad.Tensor[T], rows []int) {
	for i, t := range x {
		size := t.Len() / t.Shape[0]
		dst := p.inputs[i].Data
		for j, r := range rows {
			copy(dst[j*size:(j+1)*size], t.Data[r*size:(r+1)*size])
		}
	}
}

// checkData checks that x holds one tensor per input of the model, each
// of the input's sample shape with the same number of samples, and
// returns that number.
func (m *Model[T]) checkData(x []*ad.Tensor[T]) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	if len(x) != len(m.inputs) {
		return 0, fmt.Errorf("model: %d input tensors for a model of %d inputs", len(x), len(m.inputs))
	}
	n := -1
	for i, t := range x {
		v := m.inputs[i]
		if t == nil || len(t.Shape) < 1 || !slices.Equal(t.Shape[1:], m.spaces[v].Shape) || t.Shape[0] < 1 || (n >= 0 && t.Shape[0] != n) {
			var shape []int
			if t != nil {
				shape = t.Shape
			}
			return 0, fmt.Errorf("model: input %s given a tensor of shape %v, want [samples, %v] with the samples of the other inputs",
				m.h.Vertices[v], shape, m.spaces[v].Shape)
		}
		n = t.Shape[0]
	}
	return n, nil
}

// PredictBatch is the number of samples Predict computes at once.
const PredictBatch = 256

// Predict returns the model's outputs for the samples of x, one tensor
// per input with the samples first; the outputs are new tensors, one per
// output, likewise. It computes in batches of PredictBatch samples.
func (m *Model[T]) Predict(x ...*ad.Tensor[T]) ([]*ad.Tensor[T], error) {
	n, err := m.checkData(x)
	if err != nil {
		return nil, err
	}
	var out []*ad.Tensor[T]
	for lo := 0; lo < n; lo += PredictBatch {
		rows := seq(lo, min(lo+PredictBatch, n))
		p, err := m.cached(len(rows))
		if err != nil {
			return nil, err
		}
		p.load(x, rows)
		p.g.Forward()
		if err := p.g.Err(); err != nil {
			return nil, fmt.Errorf("model: samples %d to %d: %w", lo, lo+len(rows)-1, err)
		}
		if out == nil {
			for _, y := range p.outputs {
				out = append(out, ad.NewTensor[T](append([]int{n}, y.Value.Shape[1:]...)...))
			}
		}
		for i, y := range p.outputs {
			size := y.Value.Len() / len(rows)
			copy(out[i].Data[lo*size:], y.Value.Data)
		}
	}
	return out, nil
}

// cached returns Predict's graph for batches of n.
func (m *Model[T]) cached(n int) (*pass[T], error) {
	if _, err := m.Machine(); err != nil {
		return nil, err
	}
	if p, ok := m.predict[n]; ok {
		return p, nil
	}
	p, err := m.newPass(n)
	if err != nil {
		return nil, err
	}
	if m.predict == nil {
		m.predict = map[int]*pass[T]{}
	}
	m.predict[n] = p
	return p, nil
}

func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}
