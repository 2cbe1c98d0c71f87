package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// Activation is the nonlinearity of a perceptron's hidden layers.
type Activation int

const (
	ReLU Activation = iota
	Sigmoid
	Tanh
)

func (a Activation) String() string {
	switch a {
	case ReLU:
		return "relu"
	case Sigmoid:
		return "sigmoid"
	case Tanh:
		return "tanh"
	}
	return fmt.Sprintf("Activation(%d)", int(a))
}

// Perceptron is a fitted multilayer perceptron for regression: affine
// layers with an activation between them and none after the last.
type Perceptron struct {
	Activation Activation
	// W[l] is the weight of layer l, outputs x inputs; B[l] its bias.
	W []*mat.Dense
	B [][]float64
	// Input and Output, if not nil, standardise the inputs and map the
	// outputs back to the targets' units, as in kernel.Machine.
	Input, Output *scale.Scaler
}

// PerceptronParams returns the number of weights and biases of a
// perceptron with the given layer widths.
func PerceptronParams(inputs, outputs int, hidden []int) int {
	n, in := 0, inputs
	for _, h := range append(hidden[:len(hidden):len(hidden)], outputs) {
		n += (in + 1) * h
		in = h
	}
	return n
}

// HiddenForParams returns the width w of `layers` equal hidden layers
// whose perceptron has the parameter count closest to target: the way the
// paper matches a perceptron to a kernel machine.
func HiddenForParams(inputs, outputs, layers, target int) []int {
	best, bestDiff := 1, math.MaxInt
	for w := 1; w <= target; w++ {
		hidden := make([]int, layers)
		for i := range hidden {
			hidden[i] = w
		}
		d := PerceptronParams(inputs, outputs, hidden) - target
		if d < 0 {
			d = -d
		}
		if d < bestDiff {
			best, bestDiff = w, d
		}
		if PerceptronParams(inputs, outputs, hidden) > target {
			break
		}
	}
	hidden := make([]int, layers)
	for i := range hidden {
		hidden[i] = best
	}
	return hidden
}

// NumParams returns the number of weights and biases.
func (p *Perceptron) NumParams() int {
	n := 0
	for l, w := range p.W {
		r, c := w.Dims()
		n += r*c + len(p.B[l])
	}
	return n
}

// PerceptronSettings configures FitPerceptron. The zero value fits a
// perceptron without hidden layers by L-BFGS, with no weight decay.
type PerceptronSettings struct {
	Hidden     []int
	Activation Activation
	// WeightDecay adds WeightDecay * |W|^2 (biases excluded, unless
	// DecayBiases) to the mean squared error (or, in
	// FitSoftmaxPerceptron, the cross-entropy).
	WeightDecay float64
	DecayBiases bool
	// TorchInit draws every weight and bias of a layer uniformly from
	// ±1/sqrt(inputs), PyTorch's default for nn.Linear, instead of
	// Glorot-uniform weights and zero biases.
	TorchInit bool
	// Standardize fits on inputs and targets scaled to mean 0 and
	// standard deviation 1 (inputs only in FitSoftmaxPerceptron).
	Standardize bool
	Seed        uint64
	// Adam, if not nil, trains by full-batch Adam steps (MaxIter of
	// them, default 1000) instead of Method.
	Adam    *optim.Adam
	Method  optim.Method
	MaxIter int
	// Iteration, if not nil, is called after every iteration with the
	// perceptron as it is then.
	Iteration func(iter int, loss float64, p *Perceptron) error
}

// FitPerceptron fits a perceptron to the rows of x and y by full-batch
// minimisation of the mean squared error plus weight decay.
func FitPerceptron(x, y mat.Matrix, s PerceptronSettings) (*Perceptron, optim.Result, error) {
	o, err := NewPerceptronObjective(x, y, s)
	if err != nil {
		return nil, optim.Result{}, err
	}
	return o.fit()
}

// PerceptronObjective is the training loss of a regression perceptron
// on fixed data, the mean squared error plus weight decay, as a function
// of its flat parameter vector (each layer's weights row-major, then its
// biases), for optimisers other than FitPerceptron's.
type PerceptronObjective struct {
	s              PerceptronSettings
	in, out        *scale.Scaler
	g              ad.Graph[float64]
	flat, grad     []float64
	init           []float64
	weights        []*ad.Node[float64]
	biases         []*ad.Node[float64]
	loss, dataLoss *ad.Node[float64]
}

// NewPerceptronObjective returns the loss that FitPerceptron minimises
// for the rows of x and y with settings s, or an error for data that do
// not make a data set.
func NewPerceptronObjective(x, y mat.Matrix, s PerceptronSettings) (*PerceptronObjective, error) {
	n, d := x.Dims()
	ny, k := y.Dims()
	if n == 0 || d == 0 || ny != n || k == 0 {
		return nil, fmt.Errorf("baseline: inputs %dx%d and targets %dx%d do not make a data set", n, d, ny, k)
	}
	if s.WeightDecay < 0 {
		return nil, fmt.Errorf("baseline: weight decay %v, want >= 0", s.WeightDecay)
	}
	var in, out *scale.Scaler
	if s.Standardize {
		in, out = scale.FitScaler(x), scale.FitScaler(y)
		x, y = in.Transform(x), out.Transform(y)
	}
	return newObjective(x, k, s, in, out, func(g *ad.Graph[float64], pred *ad.Node[float64]) *ad.Node[float64] {
		return g.MSE(pred, g.Input(ad.FromMatrix(y)))
	}), nil
}

// newObjective records the loss of a perceptron with k outputs on the
// rows of x, already scaled by in: data(outputs) plus weight decay, the
// parameters at their initial draw; in and out are kept for the
// perceptrons it returns.
func newObjective(x mat.Matrix, k int, s PerceptronSettings, in, out *scale.Scaler, data func(g *ad.Graph[float64], pred *ad.Node[float64]) *ad.Node[float64]) *PerceptronObjective {
	_, d := x.Dims()
	sizes := append(append([]int{d}, s.Hidden...), k)
	o := &PerceptronObjective{s: s, in: in, out: out}
	o.flat = make([]float64, PerceptronParams(d, k, s.Hidden))
	o.grad = make([]float64, len(o.flat))
	rnd := rand.New(rand.NewPCG(s.Seed, 0x6d6c70))
	g := &o.g
	off := 0
	for l := 1; l < len(sizes); l++ {
		r, c := sizes[l], sizes[l-1]
		w := ad.View(o.flat[off:off+r*c], r, c)
		limit := math.Sqrt(6 / float64(r+c))
		if s.TorchInit {
			limit = 1 / math.Sqrt(float64(c))
		}
		for i := range w.Data {
			w.Data[i] = limit * (2*rnd.Float64() - 1)
		}
		o.weights = append(o.weights, g.Param(w, ad.View(o.grad[off:off+r*c], r, c)))
		off += r * c
		b := ad.View(o.flat[off:off+r], 1, r)
		if s.TorchInit {
			for i := range b.Data {
				b.Data[i] = limit * (2*rnd.Float64() - 1)
			}
		}
		o.biases = append(o.biases, g.Param(b, ad.View(o.grad[off:off+r], 1, r)))
		off += r
	}
	o.init = append([]float64(nil), o.flat...)
	pred := forward(g, s.Activation, o.weights, o.biases, g.Input(ad.FromMatrix(x)))
	o.dataLoss = data(g, pred)
	o.loss = o.dataLoss
	if s.WeightDecay > 0 {
		decayed := o.weights
		if s.DecayBiases {
			decayed = append(slices.Clone(decayed), o.biases...)
		}
		var norm *ad.Node[float64]
		for _, w := range decayed {
			if nw := g.Dot(w, w); norm == nil {
				norm = nw
			} else {
				norm = g.Add(norm, nw)
			}
		}
		o.loss = g.Add(o.loss, g.Scale(norm, s.WeightDecay))
	}
	return o
}

// Init returns a copy of the initial parameters the settings' seed draws.
func (o *PerceptronObjective) Init() []float64 { return slices.Clone(o.init) }

// Func returns the loss at params and writes its gradient to grad; it
// has the signature optim.Minimize wants.
func (o *PerceptronObjective) Func(params, grad []float64) float64 {
	copy(o.flat, params)
	o.g.Forward()
	o.g.Backward(o.loss)
	copy(grad, o.grad)
	return o.loss.Scalar()
}

// Loss returns the loss at params and its data term alone, without the
// weight decay.
func (o *PerceptronObjective) Loss(params []float64) (loss, data float64) {
	copy(o.flat, params)
	o.g.Forward()
	return o.loss.Scalar(), o.dataLoss.Scalar()
}

// Perceptron returns the perceptron with the given parameters.
func (o *PerceptronObjective) Perceptron(params []float64) *Perceptron {
	copy(o.flat, params)
	p := &Perceptron{Activation: o.s.Activation, Input: o.in, Output: o.out}
	for l, w := range o.weights {
		p.W = append(p.W, mat.DenseCopyOf(mat.NewDense(w.Value.Rows(), w.Value.Cols(), w.Value.Data)))
		p.B = append(p.B, append([]float64(nil), o.biases[l].Value.Data...))
	}
	return p
}

// fit minimises the objective from its initial parameters as the
// settings say: by Adam steps or by optim.Minimize.
func (o *PerceptronObjective) fit() (*Perceptron, optim.Result, error) {
	s := o.s
	var r optim.Result
	var err error
	if s.Adam != nil {
		r, err = descend(o.Func, o.Init(), s.Adam, s.MaxIter, s.Iteration, o.Perceptron)
	} else {
		settings := optim.Settings{Method: s.Method, MaxIter: s.MaxIter}
		if s.Iteration != nil {
			settings.Iteration = func(iter int, l float64, params []float64) error {
				return s.Iteration(iter, l, o.Perceptron(params))
			}
		}
		r, err = optim.Minimize(o.Func, o.Init(), settings)
	}
	if err != nil {
		return nil, r, fmt.Errorf("baseline: %w", err)
	}
	return o.Perceptron(r.X), r, nil
}

// descend minimises f from x0 by steps of the given stepper.
func descend(f optim.Func, x0 []float64, step optim.Stepper, steps int, iteration func(int, float64, *Perceptron) error, perceptron func([]float64) *Perceptron) (optim.Result, error) {
	if steps == 0 {
		steps = 1000
	}
	x := append([]float64(nil), x0...)
	grad := make([]float64, len(x))
	var loss float64
	for it := 1; it <= steps; it++ {
		loss = f(x, grad)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return optim.Result{X: x, Loss: loss, Iterations: it}, &optim.DivergedError{Iteration: it, Loss: loss}
		}
		step.Step(x, grad)
		if iteration != nil {
			if err := iteration(it, loss, perceptron(x)); err != nil {
				return optim.Result{X: x, Loss: loss, Iterations: it}, err
			}
		}
	}
	loss = f(x, grad)
	return optim.Result{X: x, Loss: loss, Iterations: steps, Evaluations: steps + 1, Status: "step limit"}, nil
}

// forward records the perceptron on the rows of x.
func forward(g *ad.Graph[float64], act Activation, weights, biases []*ad.Node[float64], x *ad.Node[float64]) *ad.Node[float64] {
	h := x
	for l, w := range weights {
		h = g.AddRow(g.MatMul(h, w, false, true), biases[l])
		if l == len(weights)-1 {
			break
		}
		switch act {
		case ReLU:
			h = g.ReLU(h)
		case Sigmoid:
			h = g.Sigmoid(h)
		case Tanh:
			h = g.Tanh(h)
		default:
			panic(fmt.Errorf("%w: baseline: unknown activation %v", ad.ErrName, act))
		}
	}
	return h
}

// Predict writes the perceptron's outputs for the rows of x to dst
// (allocated if nil) and returns it.
func (p *Perceptron) Predict(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	n, _ := x.Dims()
	if p.Input != nil {
		x = p.Input.Transform(x)
	}
	var g ad.Graph[float64]
	var weights, biases []*ad.Node[float64]
	for l, w := range p.W {
		weights = append(weights, g.Input(ad.FromMatrix(w)))
		biases = append(biases, g.Input(ad.Matrix(1, len(p.B[l]), p.B[l])))
	}
	out := forward(&g, p.Activation, weights, biases, g.Input(ad.FromMatrix(x)))
	k := out.Value.Cols()
	if dst == nil {
		dst = mat.NewDense(n, k, nil)
	}
	dst.Copy(mat.NewDense(n, k, out.Value.Data))
	if p.Output != nil {
		p.Output.Invert(dst)
	}
	return dst
}
