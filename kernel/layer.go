package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// Layer is a finite-depth kernel machine as a layer of the engine, for a
// model trained by minibatches. The representer theorem anchors a
// machine at every training point, which a minibatch cannot see; a
// layer is anchored instead at a fixed number of learned points, trained
// with the rest of the model.
type Layer struct {
	Arch Architecture
	// A is the augmenter (sum(Dims) x inputs), C the coefficients
	// ((sum(Dims) - Dims[0]) x anchors) and Points the anchors' inputs
	// (anchors x inputs, a row per anchor, like Machine.Anchors).
	A, C, Points *ad.Tensor[float64]
}

// NewLayer returns a layer of the given architecture for inputs of the
// given size, with anchors learned points. A and C start Glorot-uniform
// and the points standard normal, which suits standardised inputs;
// setting Points to data points (say the first minibatch's) is a better
// start.
func NewLayer(arch Architecture, inputs, anchors int, rnd *rand.Rand) (*Layer, error) {
	if err := arch.check(); err != nil {
		return nil, err
	}
	if inputs < 1 || anchors < 1 {
		return nil, fmt.Errorf("kernel: layer of %d inputs and %d anchors, want at least 1 of each", inputs, anchors)
	}
	size := arch.size()
	l := &Layer{Arch: arch, A: ad.NewTensor[float64](size, inputs),
		C: ad.NewTensor[float64](size-arch.Dims[0], anchors), Points: ad.NewTensor[float64](anchors, inputs)}
	for _, t := range []*ad.Tensor[float64]{l.A, l.C} {
		r := math.Sqrt(6 / float64(t.Rows()+t.Cols()))
		for i := range t.Data {
			t.Data[i] = r * (2*rnd.Float64() - 1)
		}
	}
	for i := range l.Points.Data {
		l.Points.Data[i] = rnd.NormFloat64()
	}
	return l, nil
}

// Apply adds the layer to g for the batch x (N x inputs, a row per
// sample) and registers its parameters in ps as name+".a", name+".c"
// and name+".anchors". It returns the output block (N x Outputs()) and
// the regulariser |A|^2 + |f|^2_H of the paper's loss, whose multiple a
// model adds to its loss.
func (l *Layer) Apply(g *ad.Graph[float64], ps *ad.Params[float64], name string, x *ad.Node[float64]) (out, reg *ad.Node[float64]) {
	if len(x.Value.Shape) != 2 || x.Value.Cols() != l.A.Cols() {
		panic(fmt.Sprintf("kernel: a layer of %d inputs given a batch of shape %v, want [samples, %d]", l.A.Cols(), x.Value.Shape, l.A.Cols()))
	}
	a := ps.Use(g, name+".a", l.A)
	c := ps.Use(g, name+".c", l.C)
	points := ps.Use(g, name+".anchors", l.Points)
	// The machine works on points as columns. The anchors' states are
	// computed with the batch's, as the first columns: they depend only
	// on each other.
	m := l.Points.Rows()
	anchors := allRows(m)
	net := l.Arch.build(g, a, c, g.Transpose(g.ConcatRows(points, x)), anchors)
	batch := make([]int, x.Value.Rows())
	for j := range batch {
		batch[j] = m + j
	}
	return g.Transpose(g.SelectCols(net.out, batch)), g.Add(g.Dot(a, a), net.norm)
}

// Machine returns the layer's current machine, which Predict and the
// model files of package kernel use. It shares no memory with the layer.
func (l *Layer) Machine() *Machine {
	return &Machine{
		Architecture: Architecture{Dims: append([]int(nil), l.Arch.Dims...), Kernel: l.Arch.Kernel, Bandwidth: l.Arch.sigma()},
		A:            denseCopy(l.A),
		C:            denseCopy(l.C),
		Anchors:      denseCopy(l.Points),
	}
}

func denseCopy(t *ad.Tensor[float64]) *mat.Dense {
	return mat.NewDense(t.Rows(), t.Cols(), append([]float64(nil), t.Data...))
}
