package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// Problem is the data a machine is fitted to.
type Problem struct {
	// X holds the inputs, one row per sample.
	X mat.Matrix
	// Y holds regression targets, one row per sample and one column per
	// output. Nil for a classification problem.
	Y mat.Matrix
	// Labels holds the class of each sample, from 0 to Outputs()-1, for a
	// classification problem.
	Labels []int
	// Cost weighs the regulariser |A|^2 + RKHS norm against the data
	// loss; it must not be negative.
	Cost float64
	// Anchors lists the rows of X that serve as anchor points, in
	// increasing order; nil means every row, as the representer theorem
	// prescribes.
	Anchors []int
	// AnchorPoints, if not nil, holds the anchor points' inputs, one per
	// row, in place of Anchors: points that need not be rows of X and
	// whose outputs do not enter the loss. Each part of a fit split by
	// rows among cores holds all the anchors this way.
	AnchorPoints mat.Matrix
}

// Objective is the training loss of a kernel machine on a fixed problem
// as a function of the flat parameter vector [A row-major, C row-major].
// It reuses all its buffers between evaluations.
type Objective struct {
	arch    Architecture
	inputs  int
	anchors int

	g      ad.Graph[float64]
	params []float64 // values of A and C, viewed by the graph
	grad   []float64 // their gradients, likewise
	a, c   *ad.Node[float64]
	loss   *ad.Node[float64]
	data   *ad.Node[float64] // the data term of the loss
}

// NewObjective returns the loss of p for machines of the given
// architecture. It returns an error for data the machine cannot be fitted
// to; the parameters start at zero (see Init).
func NewObjective(arch Architecture, p Problem) (*Objective, error) {
	if err := arch.Check(); err != nil {
		return nil, err
	}
	n, d, err := checkInputs(p)
	if err != nil {
		return nil, err
	}
	anchors, m, extra, err := problemAnchors(p, n, d)
	if err != nil {
		return nil, err
	}
	o := &Objective{arch: arch, inputs: d, anchors: m}
	size := arch.Size()
	na := size * d
	o.params = make([]float64, arch.NumParams(d, m))
	o.grad = make([]float64, len(o.params))
	o.a = o.g.Param(ad.View(o.params[:na], size, d), ad.View(o.grad[:na], size, d))
	o.c = o.g.Param(ad.View(o.params[na:], size-arch.Dims[0], m), ad.View(o.grad[na:], size-arch.Dims[0], m))
	cols := extra + n
	x := o.g.Input(ad.NewTensor[float64](d, cols))
	for i := range cols {
		for j := range d {
			if i < extra {
				x.Value.Data[j*cols+i] = p.AnchorPoints.At(i, j)
			} else {
				x.Value.Data[j*cols+i] = p.X.At(i-extra, j)
			}
		}
	}
	net := build(arch, &o.g, o.a, o.c, x, anchors, false)
	if extra > 0 {
		// The loss is on the rows of X alone.
		rows := make([]int, n)
		for i := range rows {
			rows[i] = extra + i
		}
		net.out = o.g.SelectCols(net.out, rows)
	}
	if o.data, err = dataTerm(&o.g, net.out, p, n, arch.Outputs()); err != nil {
		return nil, err
	}
	o.loss = o.data
	if p.Cost > 0 {
		reg := o.g.Add(o.g.Dot(o.a, o.a), net.norm)
		o.loss = o.g.Add(o.data, o.g.Scale(reg, p.Cost))
	}
	return o, nil
}

// checkInputs checks p's inputs and cost, and returns the inputs' rows
// and columns.
func checkInputs(p Problem) (n, d int, err error) {
	if p.X == nil {
		return 0, 0, errors.New("kernel: no input data")
	}
	n, d = p.X.Dims()
	if n == 0 || d == 0 {
		return 0, 0, fmt.Errorf("kernel: input data is %dx%d, want at least one row and one column", n, d)
	}
	if err := numeric.CheckFinite("kernel: input", p.X); err != nil {
		return 0, 0, err
	}
	if math.IsNaN(p.Cost) || p.Cost < 0 {
		return 0, 0, fmt.Errorf("kernel: cost %v, want >= 0", p.Cost)
	}
	return n, d, nil
}

// problemAnchors returns the anchors of p (nil for every row), their
// number m, and the number of anchor points placed before the rows of X.
func problemAnchors(p Problem, n, d int) (anchors []int, m, extra int, err error) {
	switch {
	case p.AnchorPoints != nil:
		if p.Anchors != nil {
			return nil, 0, 0, errors.New("kernel: a problem has anchor rows or anchor points, not both")
		}
		var ad int
		if extra, ad = p.AnchorPoints.Dims(); extra == 0 || ad != d {
			return nil, 0, 0, fmt.Errorf("kernel: anchor points are %dx%d, want at least one row of %d inputs", extra, ad, d)
		}
		if err := numeric.CheckFinite("kernel: anchor point", p.AnchorPoints); err != nil {
			return nil, 0, 0, err
		}
		return numeric.Indices(extra), extra, extra, nil
	case p.Anchors != nil:
		if len(p.Anchors) == 0 {
			return nil, 0, 0, errors.New("kernel: empty anchor set")
		}
		for i, j := range p.Anchors {
			if j < 0 || j >= n || (i > 0 && j <= p.Anchors[i-1]) {
				return nil, 0, 0, fmt.Errorf("kernel: anchors must be increasing rows of the %d inputs; entry %d is %d", n, i, j)
			}
		}
		return slices.Clone(p.Anchors), len(p.Anchors), 0, nil
	}
	return nil, n, 0, nil
}

// dataTerm returns the data term of the loss of the outputs out
// (outputs x n) against p's targets or labels.
func dataTerm(g *ad.Graph[float64], out *ad.Node[float64], p Problem, n, outputs int) (*ad.Node[float64], error) {
	switch {
	case p.Y != nil && p.Labels != nil:
		return nil, errors.New("kernel: a problem has either regression targets or class labels, not both")
	case p.Y != nil:
		ny, k := p.Y.Dims()
		if ny != n || k != outputs {
			return nil, fmt.Errorf("kernel: targets are %dx%d, want %dx%d (samples x last block of dims)", ny, k, n, outputs)
		}
		if err := numeric.CheckFinite("kernel: target", p.Y); err != nil {
			return nil, err
		}
		return g.MSE(out, g.Input(ad.FromMatrix(p.Y.T()))), nil
	case p.Labels != nil:
		if len(p.Labels) != n {
			return nil, fmt.Errorf("kernel: %d labels for %d samples", len(p.Labels), n)
		}
		for i, l := range p.Labels {
			if l < 0 || l >= outputs {
				return nil, fmt.Errorf("kernel: label %d of row %d is outside the %d classes of the last block of dims", l, i, outputs)
			}
		}
		return g.SoftmaxCrossEntropy(g.Transpose(out), slices.Clone(p.Labels)), nil
	}
	return nil, errors.New("kernel: a problem needs regression targets or class labels")
}

// Len returns the number of parameters.
func (o *Objective) Len() int { return len(o.params) }

// Init writes Glorot-uniform initial parameters, drawn from rnd, to dst
// (allocated if nil) and returns it.
func (o *Objective) Init(dst []float64, rnd *rand.Rand) []float64 {
	return o.arch.InitParams(dst, o.inputs, o.anchors, rnd)
}

// InitParams writes Glorot-uniform parameters of a machine of a's
// architecture on the given numbers of inputs and anchors, drawn from rnd,
// to dst (allocated if nil) and returns it. The augmenter comes first,
// then the coefficients, as NumParams counts them.
func (a Architecture) InitParams(dst []float64, inputs, anchors int, rnd *rand.Rand) []float64 {
	if dst == nil {
		dst = make([]float64, a.NumParams(inputs, anchors))
	}
	size := a.Size()
	na := size * inputs
	glorot(dst[:na], size, inputs, rnd)
	glorot(dst[na:], size-a.Dims[0], anchors, rnd)
	return dst
}

// glorot fills x, a rows x cols matrix, with Glorot-uniform values drawn
// from rnd.
func glorot(x []float64, rows, cols int, rnd *rand.Rand) {
	r := math.Sqrt(6 / float64(rows+cols))
	for i := range x {
		x[i] = r * (2*rnd.Float64() - 1)
	}
}

// Func returns the loss at params and writes its gradient to grad; it
// has the signature optim.Minimize wants.
func (o *Objective) Func(params, grad []float64) float64 {
	o.eval(params)
	o.g.Backward(o.loss)
	copy(grad, o.grad)
	return o.loss.Scalar()
}

// Loss returns the loss at params and its data term alone (the mean
// squared error or cross-entropy, without the regulariser).
func (o *Objective) Loss(params []float64) (loss, data float64) {
	o.eval(params)
	return o.loss.Scalar(), o.data.Scalar()
}

func (o *Objective) eval(params []float64) {
	if len(params) != len(o.params) {
		panic(fmt.Errorf("%w: kernel: %d parameters, want %d", ad.ErrShape, len(params), len(o.params)))
	}
	copy(o.params, params)
	o.g.Forward()
}

// Machine returns the machine with the given parameters and anchors.
func (o *Objective) Machine(params []float64, anchors *mat.Dense) *Machine {
	na := len(o.a.Value.Data)
	return &Machine{
		Architecture: Architecture{Dims: slices.Clone(o.arch.Dims), Kernel: o.arch.Kernel, Bandwidth: o.arch.Sigma()},
		A:            mat.NewDense(o.a.Value.Rows(), o.a.Value.Cols(), slices.Clone(params[:na])),
		C:            mat.NewDense(o.c.Value.Rows(), o.c.Value.Cols(), slices.Clone(params[na:])),
		Anchors:      anchors,
	}
}
