package experiment

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// task is a regression problem with a training and a test set, one
// sample per row.
type task struct {
	x, y   *mat.Dense
	xt, yt *mat.Dense
}

// curvePoint is the state of a fit after one optimiser iteration.
type curvePoint struct {
	iter        int
	train, test float64
}

// fitted is a trained model, its record for the report and, for
// iterative fits, its learning curve.
type fitted struct {
	Model
	predict predictor
	curve   []curvePoint
}

// mse returns the mean squared difference between a and b.
func mse(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	r, c := d.Dims()
	n := mat.Norm(&d, 2)
	return n * n / float64(r*c)
}

func (t task) score(f *fitted) {
	f.TrainMSE = mse(f.predict(t.x), t.y)
	f.TestMSE = mse(f.predict(t.xt), t.yt)
}

// predictor is a fitted model's prediction function.
type predictor func(x *mat.Dense) *mat.Dense

// crossValidate returns the candidate value with the smallest mean
// squared error over cvFolds folds of the training set (the first on a
// tie), fitting with fit(x, y, value) on each fold's training part. The
// fits run at once on every processor; each fold's error lands in its
// own slot and the sums follow the candidates' order, so the choice does
// not depend on the number of processors.
func (t task) crossValidate(name string, seed uint64, candidates []float64, fit func(x, y *mat.Dense, v float64) (predictor, error), c Config) (float64, error) {
	n, _ := t.x.Dims()
	folds := crossval.KFold(n, cvFolds, seed)
	for _, v := range candidates {
		c.logf("%s: %g: fitting %d folds", name, v, len(folds))
	}
	errs := make([]float64, len(candidates)*len(folds))
	var mu sync.Mutex // orders the progress lines
	done := 0
	err := parallel.Run(len(errs), runtime.GOMAXPROCS(0), func(i int) error {
		v, f := candidates[i/len(folds)], folds[i%len(folds)]
		predict, err := fit(rows(t.x, f.Train), rows(t.y, f.Train), v)
		if err != nil {
			return fmt.Errorf("%s: cross-validation: %w", name, err)
		}
		errs[i] = mse(predict(rows(t.x, f.Test)), rows(t.y, f.Test)) * float64(len(f.Test))
		mu.Lock()
		defer mu.Unlock()
		done++
		c.logf("%s: %d of %d cross-validation fits done", name, done, len(errs))
		return nil
	})
	if err != nil {
		return 0, err
	}
	best, bestErr := candidates[0], math.Inf(1)
	for k, v := range candidates {
		total := 0.0
		for _, e := range errs[k*len(folds) : (k+1)*len(folds)] {
			total += e
		}
		c.logf("%s: %g: cross-validated MSE %.4g", name, v, total/float64(n))
		if total < bestErr {
			best, bestErr = v, total
		}
	}
	return best, nil
}

// cvFolds is the number of cross-validation folds.
const cvFolds = 6

// Candidates for the regularisation of kernel machines (cost) and
// perceptrons (weight decay), chosen by cross-validation. The weight
// decay multiplies the sum of squares of several hundred weights. From
// 1e-4 up, the wide sigmoid perceptron of the sine task collapses to the
// constant function from every start on the full data, while its folds
// do not, so larger decays only mislead the selection.
var (
	costs  = []float64{0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2}
	decays = []float64{0, 1e-7, 1e-6, 1e-5}
)

// restarts is the number of starting points of every final fit, the
// perceptrons' and the kernel machines': the loss of either is not
// convex, and from one start a fit now and then stalls near a constant
// function. The number was chosen on development seeds of the noisy
// sine, not the experiment's (docs/results-paper.md).
const restarts = 5

var cvSelection = fmt.Sprintf("by %d-fold cross-validation on the training set", cvFolds)

// curveSampler decides at which iterations a learning curve is sampled:
// every one of the first ten, then about 10% apart, so that a long fit
// costs a few dozen evaluations of the test error, not thousands.
type curveSampler struct{ next int }

func (s *curveSampler) due(iter int) bool {
	if iter < s.next {
		return false
	}
	s.next = max(iter+1, iter*11/10)
	return true
}

// recorder keeps the models that a fit passes through at the
// iterations its sampler picks; their errors are evaluated after the
// fit, for the start that is kept and no other.
type recorder struct {
	sample curveSampler
	iters  []int
	models []predictor
}

func (r *recorder) record(iter int, predict predictor) {
	if r.sample.due(iter) {
		r.iters = append(r.iters, iter)
		r.models = append(r.models, predict)
	}
}

// startCurves records the models of each of the restarts starts of a
// final fit, so that the report shows the learning curve of the kept
// start's.
type startCurves []*recorder

func newStartCurves() startCurves {
	c := make(startCurves, restarts)
	for k := range c {
		c[k] = &recorder{}
	}
	return c
}

func (c startCurves) record(k, iter int, predict predictor) { c[k].record(iter, predict) }

// curve returns the train and test error of start k's recorded models,
// evaluated on every processor, each into its own slot.
func (t task) curve(c startCurves, k int) []curvePoint {
	r := c[k]
	curve := make([]curvePoint, len(r.iters))
	parallel.Run(len(curve), runtime.GOMAXPROCS(0), func(i int) error {
		predict := r.models[i]
		curve[i] = curvePoint{r.iters[i], mse(predict(t.x), t.y), mse(predict(t.xt), t.yt)}
		return nil
	})
	return curve
}

// The stopping rules of a kernel machine's final fit: the gradient's
// infinity norm, and the fraction of the loss by which it must improve
// over 10 iterations to go on.
const (
	kernelGradTol = 1e-8
	kernelLossTol = 1e-3
)

// kernelMachine returns the settings of an experiment's kernel machine of
// the given dims on rows training points, its cost chosen among costs.
// It states every setting that the tabular learner would otherwise
// default, so that a change of the defaults of `machines fit` cannot move
// the paper's experiments (fitKernel adds the folds and starts). Every
// row is an anchor, as in the paper's machine. The inputs and targets are
// standardised but not mapped or weighed. The machine is unbounded, as
// the paper's machine and the baselines are.
func kernelMachine(c Config, dims []int, costs []float64, rows int) tabular.Settings {
	return tabular.Settings{
		Family: tabular.Deep, Dims: dims, Kernel: kernel.Additive,
		Costs: costs, Bandwidths: []float64{1}, Anchors: rows,
		TargetScale: tabular.LinearScale, InputScale: tabular.LinearInputs, ShallowKernel: tabular.GaussianKernel, Extrapolate: true,
		Seed: c.Seed, Method: optim.LBFGS, MaxIter: c.maxIter(), GradTol: kernelGradTol, LossTol: kernelLossTol,
	}
}

// withProtocol returns s with the selection and the starts that every
// fit of the fair protocols shares: cvFolds folds, the best of restarts
// starts.
func withProtocol(s tabular.Settings) tabular.Settings {
	s.Folds, s.Starts = cvFolds, restarts
	return s
}

// fitKernel fits a kernel machine from restarts initial points. Its cost
// is s.Costs[0] if that is the only one, else the one that the kernel
// package's cross-validation chooses among them.
func (t task) fitKernel(name string, s tabular.Settings, c Config) (*fitted, error) {
	start := time.Now()
	curves := newStartCurves()
	s = withProtocol(s)
	s.Iteration = func(k, iter int, _ float64, m *tabular.Machine) error {
		curves.record(k, iter, func(x *mat.Dense) *mat.Dense { return m.Predict(nil, x) })
		return nil
	}
	s.Progress = c.Progress
	c.logf("%s: fitting a kernel machine, dims %v, costs %v", name, s.Dims, s.Costs)
	m, r, err := tabular.FitRegression(t.x, t.y, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	seconds := time.Since(start).Seconds()
	f := &fitted{curve: t.curve(curves, r.Start)}
	cost := r.Cost
	f.Model = Model{Name: name, Params: m.NumParams(), FitSeconds: seconds, Iterations: r.Iterations,
		Settings: Settings{Optimizer: "L-BFGS (gonum/optimize)", MaxIter: s.MaxIter, Dims: s.Dims,
			Kernel: s.Kernel.String(), Bandwidth: m.Bandwidth, Cost: &cost, Standardize: !s.Raw,
			Selection: fmt.Sprintf("best training loss of %d starts", restarts)}}
	if r.Selection != nil {
		f.Settings.CostCandidates = s.Costs
		f.Settings.Selection = fmt.Sprintf("cost %s; best training loss of %d starts", cvSelection, restarts)
	}
	f.predict = func(x *mat.Dense) *mat.Dense { return m.Predict(nil, x) }
	t.score(f)
	c.logf("%s: %d parameters, cost %g, train MSE %.3g, test MSE %.3g, %d iterations, %.2fs",
		name, f.Params, cost, f.TrainMSE, f.TestMSE, f.Iterations, f.FitSeconds)
	return f, nil
}

// bestStart fits a perceptron from restarts seeds and keeps the one with
// the lowest training loss (the first on a tie): a wide perceptron
// fitted by L-BFGS sometimes settles on a poor stationary point (with
// sigmoids, the constant function), and one bad start should not decide
// its score. The starts run on the given number of workers, each into
// its own slot. If iteration is not nil, iteration(k) is start k's
// Iteration callback.
func bestStart(x, y *mat.Dense, s baseline.PerceptronSettings, workers int, iteration func(k int) func(int, float64, *baseline.Perceptron) error) (*baseline.Perceptron, optim.Result, int, error) {
	fits := make([]*baseline.Perceptron, restarts)
	results := make([]optim.Result, restarts)
	err := parallel.Run(restarts, workers, func(k int) error {
		s := s
		s.Seed += uint64(k)
		if iteration != nil {
			s.Iteration = iteration(k)
		}
		var err error
		fits[k], results[k], err = baseline.FitPerceptron(x, y, s)
		return err
	})
	if err != nil {
		return nil, optim.Result{}, 0, err
	}
	best := 0
	for k := range results {
		if results[k].Loss < results[best].Loss {
			best = k
		}
	}
	return fits[best], results[best], best, nil
}

// fitPerceptron chooses the weight decay by cross-validation on the
// training set, then fits on all of it; every fit is the best of
// restarts starts.
func (t task) fitPerceptron(name string, s baseline.PerceptronSettings, c Config) (*fitted, error) {
	begin := time.Now()
	best, err := t.crossValidate(name+" weight decay", s.Seed, decays, func(x, y *mat.Dense, v float64) (predictor, error) {
		s := s
		s.WeightDecay = v
		p, _, _, err := bestStart(x, y, s, 1, nil)
		if err != nil {
			return nil, err
		}
		return func(x *mat.Dense) *mat.Dense { return p.Predict(nil, x) }, nil
	}, c)
	if err != nil {
		return nil, err
	}
	s.WeightDecay = best
	c.logf("%s: the final fit, the best of %d starts", name, restarts)
	curves := newStartCurves()
	workers := min(runtime.GOMAXPROCS(0), restarts)
	p, r, k, err := bestStart(t.x, t.y, s, workers, func(k int) func(int, float64, *baseline.Perceptron) error {
		return func(iter int, _ float64, p *baseline.Perceptron) error {
			curves.record(k, iter, func(x *mat.Dense) *mat.Dense { return p.Predict(nil, x) })
			return nil
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	seconds := time.Since(begin).Seconds()
	f := &fitted{curve: t.curve(curves, k)}
	f.Model = Model{Name: name, Params: p.NumParams(), FitSeconds: seconds, Iterations: r.Iterations,
		Settings: Settings{Optimizer: "L-BFGS (gonum/optimize), full batch", MaxIter: s.MaxIter, Hidden: s.Hidden,
			Activation: s.Activation.String(), WeightDecay: &best, DecayCandidates: decays,
			Selection:   fmt.Sprintf("weight decay %s; best training loss of %d starts", cvSelection, restarts),
			Standardize: s.Standardize}}
	f.predict = func(x *mat.Dense) *mat.Dense { return p.Predict(nil, x) }
	t.score(f)
	c.logf("%s: %d parameters, weight decay %g, train MSE %.3g, test MSE %.3g, %.2fs",
		name, f.Params, best, f.TrainMSE, f.TestMSE, f.FitSeconds)
	return f, nil
}

// fitRidge fits kernel ridge regression with its bandwidth and penalty
// chosen by leave-one-out cross-validation. The targets are centred so
// that the model, which has no intercept, need not spend its kernel on
// the mean.
func (t task) fitRidge(name string, c Config) (*fitted, error) {
	start := time.Now()
	var mean float64
	n, _ := t.y.Dims()
	for i := range n {
		mean += t.y.At(i, 0) / float64(n)
	}
	centred := mat.DenseCopyOf(t.y)
	centred.Apply(func(_, _ int, v float64) float64 { return v - mean }, centred)
	var m baseline.KernelRidge
	if err := m.Fit(t.x, centred); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &fitted{}
	f.Model = Model{Name: name, Params: m.Params(), FitSeconds: time.Since(start).Seconds(),
		Settings: Settings{Optimizer: "Cholesky solve", Sigma: m.Sigma, Lambda: m.Lambda,
			Selection: "sigma and lambda by leave-one-out cross-validation"}}
	f.predict = func(x *mat.Dense) *mat.Dense {
		p := m.Predict(nil, x)
		p.Apply(func(_, _ int, v float64) float64 { return v + mean }, p)
		return p
	}
	t.score(f)
	c.logf("%s: sigma %.3g, lambda %.3g, train MSE %.3g, test MSE %.3g", name, m.Sigma, m.Lambda, f.TrainMSE, f.TestMSE)
	return f, nil
}

// rows returns the listed rows of a.
func rows(a *mat.Dense, idx []int) *mat.Dense {
	_, c := a.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for i, r := range idx {
		out.SetRow(i, a.RawRowView(r))
	}
	return out
}

// column returns a as a one-column matrix.
func column(a []float64) *mat.Dense { return mat.NewDense(len(a), 1, a) }
