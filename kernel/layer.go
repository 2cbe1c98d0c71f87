package kernel

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// Layer is a finite-depth kernel machine as a layer of a model trained
// by minibatches: it implements ad.Layer, in float32 and float64. The
// representer theorem anchors a machine at every training point, which
// a minibatch cannot see; a layer is anchored instead at a fixed number
// of learned points, trained with the rest of the model.
//
// Its input is a batch of vectors (N x inputs; a Flatten before it
// takes images) and its output the machine's last block (N x
// Outputs()). Its parameters are "weight", the augmenter A (sum(Dims) x
// inputs), "coef", the coefficients C ((sum(Dims) - Dims[0]) x Anchors),
// and "anchors", the anchors' inputs (Anchors x inputs, a row per
// anchor, like Machine.Anchors). A and C start Glorot-uniform and the
// anchors standard normal, which suits standardised inputs. With Cost
// above 0 the layer adds Cost (|A|^2 + |f|^2_H), the regulariser of the
// paper's loss, to the model's penalties.
type Layer[T ad.Float] struct {
	Architecture
	// Anchors is the number of anchor points, at least 1.
	Anchors int
	// Cost weighs the layer's regulariser in the model's loss.
	Cost float64
}

// Init implements ad.Layer.
func (l Layer[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	switch {
	case len(in) != 1 || len(in[0]) != 1:
		return nil, fmt.Errorf("kernel: layer given inputs of shapes %v, want one vector (a Flatten before it takes images)", in)
	case l.Anchors < 1:
		return nil, fmt.Errorf("kernel: layer of %d anchors, want at least 1", l.Anchors)
	case !(l.Cost >= 0) || math.IsInf(l.Cost, 0):
		return nil, fmt.Errorf("kernel: layer cost %v, want a finite value >= 0", l.Cost)
	}
	inputs, size := in[0][0], l.Size()
	a := s.NewParam("weight", size, inputs)
	c := s.NewParam("coef", size-l.Dims[0], l.Anchors)
	for _, t := range []*ad.Tensor[T]{a, c} {
		ad.GlorotUniform(t.Data, t.Cols(), t.Rows(), s.Rand)
	}
	points := s.NewParam("anchors", l.Anchors, inputs)
	for i := range points.Data {
		points.Data[i] = T(s.Rand.NormFloat64())
	}
	return [][]int{{l.Outputs()}}, nil
}

// Apply implements ad.Layer.
func (l Layer[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	g := s.Graph
	a, c, points := s.Param("weight"), s.Param("coef"), s.Param("anchors")
	if len(x[0].Value.Shape) != 2 || x[0].Value.Cols() != a.Value.Cols() {
		return nil, fmt.Errorf("%w: kernel: a layer of %d inputs given a batch of shape %v", ad.ErrShape, a.Value.Cols(), x[0].Value.Shape)
	}
	// The machine works on points as columns. The anchors' states are
	// computed with the batch's, as the first columns: they depend only
	// on each other.
	m := points.Value.Rows()
	net := build(l.Architecture, g, a, c, g.Transpose(g.ConcatRows(points, x[0])), numeric.Indices(m), false)
	batch := make([]int, x[0].Value.Rows())
	for j := range batch {
		batch[j] = m + j
	}
	if l.Cost > 0 {
		s.Penalize(g.Scale(g.Add(g.Dot(a, a), net.norm), T(l.Cost)))
	}
	return []*ad.Node[T]{g.Transpose(g.SelectCols(net.out, batch))}, nil
}

// Machine returns the machine of the layer called name whose parameters
// ps holds, sharing no memory with them: the machine that Predict and
// the model files of this package use.
func (l Layer[T]) Machine(ps *ad.Params[T], name string) (*Machine, error) {
	a, c, points := ps.Value(name+".weight"), ps.Value(name+".coef"), ps.Value(name+".anchors")
	if a == nil || c == nil || points == nil {
		return nil, fmt.Errorf("kernel: layer %s: its parameters are not in the set", name)
	}
	return &Machine{
		Architecture: Architecture{Dims: append([]int(nil), l.Dims...), Kernel: l.Kernel, Bandwidth: l.Sigma()},
		A:            denseCopy(a),
		C:            denseCopy(c),
		Anchors:      denseCopy(points),
	}, nil
}

func denseCopy[T ad.Float](t *ad.Tensor[T]) *mat.Dense {
	data := make([]float64, t.Len())
	for i, v := range t.Data {
		data[i] = float64(v)
	}
	return mat.NewDense(t.Rows(), t.Cols(), data)
}
