package kernel

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/optim"
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
	if err := arch.check(); err != nil {
		return nil, err
	}
	if p.X == nil {
		return nil, errors.New("kernel: no input data")
	}
	n, d := p.X.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("kernel: input data is %dx%d, want at least one row and one column", n, d)
	}
	if err := checkFinite("input", p.X); err != nil {
		return nil, err
	}
	if math.IsNaN(p.Cost) || p.Cost < 0 {
		return nil, fmt.Errorf("kernel: cost %v, want >= 0", p.Cost)
	}
	anchors := p.Anchors
	m := n
	if anchors != nil {
		m = len(anchors)
		if m == 0 {
			return nil, errors.New("kernel: empty anchor set")
		}
		for i, j := range anchors {
			if j < 0 || j >= n || (i > 0 && j <= anchors[i-1]) {
				return nil, fmt.Errorf("kernel: anchors must be increasing rows of the %d inputs; entry %d is %d", n, i, j)
			}
		}
		anchors = slices.Clone(anchors)
	}
	o := &Objective{arch: arch, inputs: d, anchors: m}
	size := arch.size()
	na := size * d
	o.params = make([]float64, arch.Params(d, m))
	o.grad = make([]float64, len(o.params))
	o.a = o.g.Param(ad.View(o.params[:na], size, d), ad.View(o.grad[:na], size, d))
	o.c = o.g.Param(ad.View(o.params[na:], size-arch.Dims[0], m), ad.View(o.grad[na:], size-arch.Dims[0], m))
	x := o.g.Input(ad.NewTensor[float64](d, n))
	for i := range n {
		for j := range d {
			x.Value.Data[j*n+i] = p.X.At(i, j)
		}
	}
	net := arch.build(&o.g, o.a, o.c, x, anchors)
	switch {
	case p.Y != nil && p.Labels != nil:
		return nil, errors.New("kernel: a problem has either regression targets or class labels, not both")
	case p.Y != nil:
		ny, k := p.Y.Dims()
		if ny != n || k != arch.Outputs() {
			return nil, fmt.Errorf("kernel: targets are %dx%d, want %dx%d (samples x last block of dims)", ny, k, n, arch.Outputs())
		}
		if err := checkFinite("target", p.Y); err != nil {
			return nil, err
		}
		o.data = o.g.MSE(net.out, o.g.Input(ad.FromMatrix(p.Y.T())))
	case p.Labels != nil:
		if len(p.Labels) != n {
			return nil, fmt.Errorf("kernel: %d labels for %d samples", len(p.Labels), n)
		}
		for i, l := range p.Labels {
			if l < 0 || l >= arch.Outputs() {
				return nil, fmt.Errorf("kernel: label %d of row %d is outside the %d classes of the last block of dims", l, i, arch.Outputs())
			}
		}
		o.data = o.g.SoftmaxCrossEntropy(net.out, slices.Clone(p.Labels))
	default:
		return nil, errors.New("kernel: a problem needs regression targets or class labels")
	}
	o.loss = o.data
	if p.Cost > 0 {
		reg := o.g.Add(o.g.Dot(o.a, o.a), net.norm)
		o.loss = o.g.Add(o.data, o.g.Scale(reg, p.Cost))
	}
	return o, nil
}

// Len returns the number of parameters.
func (o *Objective) Len() int { return len(o.params) }

// Init writes Glorot-uniform initial parameters, drawn from rnd, to dst
// (allocated if nil) and returns it.
func (o *Objective) Init(dst []float64, rnd *rand.Rand) []float64 {
	if dst == nil {
		dst = make([]float64, o.Len())
	}
	na := len(o.a.Value.Data)
	fill := func(x []float64, rows, cols int) {
		r := math.Sqrt(6 / float64(rows+cols))
		for i := range x {
			x[i] = r * (2*rnd.Float64() - 1)
		}
	}
	fill(dst[:na], o.a.Value.Rows(), o.a.Value.Cols())
	fill(dst[na:], o.c.Value.Rows(), o.c.Value.Cols())
	return dst
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
		panic(fmt.Sprintf("kernel: %d parameters, want %d", len(params), len(o.params)))
	}
	copy(o.params, params)
	o.g.Forward()
}

// machine returns the machine with the given parameters and anchors.
func (o *Objective) machine(params []float64, anchors *mat.Dense) *Machine {
	na := len(o.a.Value.Data)
	return &Machine{
		Architecture: Architecture{Dims: slices.Clone(o.arch.Dims), Kernel: o.arch.Kernel, Bandwidth: o.arch.sigma()},
		A:            mat.NewDense(o.a.Value.Rows(), o.a.Value.Cols(), slices.Clone(params[:na])),
		C:            mat.NewDense(o.c.Value.Rows(), o.c.Value.Cols(), slices.Clone(params[na:])),
		Anchors:      anchors,
	}
}

func checkFinite(what string, a mat.Matrix) error {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("kernel: %s row %d, column %d is %v", what, i, j, v)
			}
		}
	}
	return nil
}

// Settings configures a fit. Zero fields mean: additive kernel, bandwidth
// 1, no regularisation, every training point an anchor, no
// standardisation, seed 0, L-BFGS for at most 1000 iterations.
type Settings struct {
	Architecture
	// Cost weighs the regulariser |A|^2 + RKHS norm; it must not be
	// negative.
	Cost float64
	// Anchors is the number of Nystrom anchor points, drawn at random
	// from the training rows; 0 means all of them.
	Anchors int
	// Standardize scales every input column, and every regression
	// target, to mean 0 and standard deviation 1 before fitting; the
	// machine undoes it when it predicts.
	Standardize bool
	// Seed seeds the initial parameters and the choice of anchors.
	Seed uint64
	// Method, MaxIter and GradTol configure the optimiser, as in
	// optim.Settings.
	Method  optim.Method
	MaxIter int
	GradTol float64
	// Progress, if not nil, receives a line with the iteration and loss
	// about once a second.
	Progress io.Writer
	// Iteration, if not nil, is called after every iteration with the
	// machine as it is then; an error stops the fit.
	Iteration func(iter int, loss float64, m *Machine) error
}

// Result describes a fit.
type Result struct {
	Loss        float64 // final loss, regulariser included
	DataLoss    float64 // final mean squared error or cross-entropy
	Iterations  int
	Evaluations int
	Seconds     float64
	Status      string
}

// FitRegression fits a machine to the rows of x and y (one column per
// output; the last block of Dims must match) by minimising the mean
// squared error plus the regulariser.
func FitRegression(x, y mat.Matrix, s Settings) (*Machine, Result, error) {
	return fit(x, y, nil, s)
}

// FitClassifier fits a machine to the rows of x and their classes,
// 0 to Dims[len(Dims)-1]-1, by minimising the softmax cross-entropy plus
// the regulariser. The fitted machine predicts class scores (logits).
func FitClassifier(x mat.Matrix, labels []int, s Settings) (*Machine, Result, error) {
	if labels == nil {
		labels = []int{}
	}
	return fit(x, nil, labels, s)
}

func fit(x, y mat.Matrix, labels []int, s Settings) (*Machine, Result, error) {
	start := time.Now()
	n, _ := x.Dims()
	if s.Anchors < 0 || s.Anchors > n {
		return nil, Result{}, fmt.Errorf("kernel: %d anchors for %d training points", s.Anchors, n)
	}
	if s.MaxIter < 0 {
		return nil, Result{}, fmt.Errorf("kernel: maximum of %d iterations, want >= 0", s.MaxIter)
	}
	rnd := rand.New(rand.NewPCG(s.Seed, 0x6b65726e656c))
	var in, out *dataset.Scaler
	if s.Standardize {
		in = dataset.FitScaler(x)
		x = in.Transform(x)
		if y != nil {
			out = dataset.FitScaler(y)
			y = out.Transform(y)
		}
	}
	p := Problem{X: x, Y: y, Labels: labels, Cost: s.Cost}
	if s.Anchors > 0 && s.Anchors < n {
		p.Anchors = rnd.Perm(n)[:s.Anchors]
		slices.Sort(p.Anchors)
	}
	o, err := NewObjective(s.Architecture, p)
	if err != nil {
		return nil, Result{}, err
	}
	anchorRows := p.Anchors
	if anchorRows == nil {
		anchorRows = make([]int, n)
		for i := range anchorRows {
			anchorRows[i] = i
		}
	}
	anchors := mat.NewDense(len(anchorRows), o.inputs, nil)
	for i, r := range anchorRows {
		for j := range o.inputs {
			anchors.Set(i, j, x.At(r, j))
		}
	}
	withScaling := func(m *Machine) *Machine {
		m.Input, m.Output = in, out
		return m
	}
	last := time.Now()
	settings := optim.Settings{Method: s.Method, MaxIter: s.MaxIter, GradTol: s.GradTol,
		Iteration: func(iter int, loss float64, params []float64) error {
			if s.Progress != nil && time.Since(last) >= time.Second {
				last = time.Now()
				fmt.Fprintf(s.Progress, "kernel: iteration %d, loss %.6g\n", iter, loss)
			}
			if s.Iteration != nil {
				return s.Iteration(iter, loss, withScaling(o.machine(params, anchors)))
			}
			return nil
		}}
	r, err := optim.Minimize(o.Func, o.Init(nil, rnd), settings)
	res := Result{Loss: r.Loss, Iterations: r.Iterations, Evaluations: r.Evaluations,
		Seconds: time.Since(start).Seconds(), Status: r.Status}
	if err != nil {
		return nil, res, fmt.Errorf("kernel: %w", err)
	}
	_, res.DataLoss = o.Loss(r.X)
	return withScaling(o.machine(r.X, anchors)), res, nil
}
