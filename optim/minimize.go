package optim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/optimize"
)

// Func returns a loss at x and writes its gradient to grad.
type Func func(x, grad []float64) float64

// Method is a full-batch minimisation method.
type Method int

const (
	LBFGS Method = iota // limited-memory BFGS, the default
	CG                  // nonlinear conjugate gradients
)

func (m Method) String() string {
	switch m {
	case LBFGS:
		return "L-BFGS"
	case CG:
		return "CG"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Defaults used for the zero fields of Settings.
const (
	DefaultMaxIter = 1000
	DefaultGradTol = 1e-8
	DefaultMemory  = 15
)

// Settings configures Minimize. The zero value runs L-BFGS for at most
// DefaultMaxIter iterations until the gradient norm falls below
// DefaultGradTol or the loss stops improving. A negative or NaN field is
// a programmer error: Minimize panics with ad.ErrValue.
type Settings struct {
	// Method is the minimisation method; the zero value is LBFGS.
	Method Method
	// MaxIter bounds the number of major iterations; 0 means
	// DefaultMaxIter.
	MaxIter int
	// GradTol stops when the gradient's infinity norm falls below it;
	// 0 means DefaultGradTol.
	GradTol float64
	// LossTol stops when the loss has improved by less than LossTol
	// times its size over the last 10 iterations, a looser rule for fits
	// that need a good model rather than an exact minimum; 0 means the
	// loss must stall (improve by less than 1e-10) for 100 iterations.
	LossTol float64
	// Memory is the number of past steps whose curvature L-BFGS keeps;
	// 0 means DefaultMemory. More steps cost a little more per iteration and may
	// need fewer iterations where the curvature varies much between
	// directions.
	Memory int
	// Exact runs all MaxIter iterations unless the gradient vanishes,
	// never stopping early because the loss stalls: benchmarks want a
	// fixed amount of work.
	Exact bool
	// Iteration, if not nil, is called after every major iteration with
	// its number (from 1), the loss and the parameters there. An error
	// stops the fit and is returned.
	Iteration func(iter int, loss float64, x []float64) error
}

// Result is the outcome of Minimize.
type Result struct {
	X           []float64
	Loss        float64
	Iterations  int
	Evaluations int
	// Converged is false when the iteration limit stopped the fit.
	Converged bool
	// Status says why the fit stopped, in gonum's words.
	Status string
}

// DivergedError reports a fit whose loss stopped being a finite number.
type DivergedError struct {
	Iteration int // the major iteration at which it happened (0: at the start)
	Loss      float64
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("optim: fit diverged: loss is %v at iteration %d", e.Loss, e.Iteration)
}

// Minimize minimises f from x0, which it does not modify.
func Minimize(f Func, x0 []float64, s Settings) (Result, error) {
	settings, method := s.gonum()
	c := &cache{f: f, grad: make([]float64, len(x0))}
	if loss := c.eval(x0); math.IsNaN(loss) || math.IsInf(loss, 0) {
		return Result{X: slices.Clone(x0), Loss: loss}, &DivergedError{Loss: loss}
	}
	rec := &recorder{iteration: s.Iteration}
	settings.Recorder = rec
	p := optimize.Problem{
		Func: func(x []float64) float64 {
			loss := c.eval(x)
			if math.IsNaN(loss) {
				// A NaN compares false with everything and would stall
				// the line search; +Inf makes it backtrack instead.
				return math.Inf(1)
			}
			return loss
		},
		Grad: c.gradient,
	}
	r, err := optimize.Minimize(p, x0, settings, method)
	if r == nil {
		return Result{}, err
	}
	res := Result{X: r.X, Loss: r.F, Iterations: r.MajorIterations, Evaluations: c.evals,
		Converged: r.Status != optimize.IterationLimit, Status: r.Status.String()}
	if math.IsNaN(r.F) || math.IsInf(r.F, 0) {
		return res, &DivergedError{Iteration: rec.iter, Loss: r.F}
	}
	var stop *stopError
	if errors.As(err, &stop) {
		return res, stop.err
	}
	// gonum does not record the iteration that meets a stopping
	// criterion; report it so that the caller sees every iteration.
	if rec.iter < r.MajorIterations && s.Iteration != nil {
		if err := s.Iteration(r.MajorIterations, r.F, r.X); err != nil {
			return res, err
		}
	}
	// A line search that can make no more progress has found the minimum
	// as well as floating point allows; that is a result, not a failure.
	return res, nil
}

// gonum returns gonum's settings and method for s, the defaults standing
// for zero fields. It panics on settings no fit could honour.
func (s Settings) gonum() (*optimize.Settings, optimize.Method) {
	switch {
	case s.MaxIter < 0:
		panic(fmt.Errorf("%w: optim: MaxIter %d, want at least 0", ad.ErrValue, s.MaxIter))
	case !(s.GradTol >= 0) || math.IsInf(s.GradTol, 0):
		panic(fmt.Errorf("%w: optim: GradTol %v, want a finite value >= 0", ad.ErrValue, s.GradTol))
	case !(s.LossTol >= 0) || math.IsInf(s.LossTol, 0):
		panic(fmt.Errorf("%w: optim: LossTol %v, want a finite value >= 0", ad.ErrValue, s.LossTol))
	case s.Memory < 0:
		panic(fmt.Errorf("%w: optim: Memory %d, want at least 0", ad.ErrValue, s.Memory))
	}
	settings := &optimize.Settings{
		GradientThreshold: cmp.Or(s.GradTol, DefaultGradTol),
		MajorIterations:   cmp.Or(s.MaxIter, DefaultMaxIter),
	}
	switch {
	case s.Exact:
		settings.Converger = optimize.NeverTerminate{}
	case s.LossTol > 0:
		settings.Converger = &optimize.FunctionConverge{Relative: s.LossTol, Iterations: 10}
	}
	switch s.Method {
	case LBFGS:
		return settings, &optimize.LBFGS{Store: cmp.Or(s.Memory, DefaultMemory)}
	case CG:
		return settings, &optimize.CG{}
	}
	panic(fmt.Errorf("%w: optim: unknown method %v", ad.ErrName, s.Method))
}

// cache evaluates the loss and gradient together, as the engine computes
// them, and hands the gradient out when the optimiser asks for it at the
// same point.
type cache struct {
	f     Func
	x     []float64
	grad  []float64
	loss  float64
	evals int
}

func (c *cache) eval(x []float64) float64 {
	if c.x != nil && slices.Equal(x, c.x) {
		return c.loss
	}
	c.loss = c.f(x, c.grad)
	c.x = append(c.x[:0], x...)
	c.evals++
	return c.loss
}

func (c *cache) gradient(grad, x []float64) {
	c.eval(x)
	copy(grad, c.grad)
}

// stopError carries an error returned by the caller's Iteration function
// through gonum's optimiser.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }

type recorder struct {
	iteration func(int, float64, []float64) error
	iter      int
}

func (r *recorder) Init() error { return nil }

func (r *recorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op != optimize.MajorIteration {
		return nil
	}
	r.iter++
	if math.IsNaN(loc.F) || math.IsInf(loc.F, 0) {
		return &DivergedError{Iteration: r.iter, Loss: loc.F}
	}
	if r.iteration != nil {
		if err := r.iteration(r.iter, loc.F, loc.X); err != nil {
			return &stopError{err}
		}
	}
	return nil
}
