package kernel

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// The defaults of a Settings' zero value, which are those of the command
// `machines fit`. The package documentation says how they were chosen.
var (
	// DefaultHidden lists the blocks of the machine space before the
	// output block when Settings.Dims is nil.
	DefaultHidden = []int{3, 3, 3}
	// DefaultCosts is the grid of costs searched when Settings.Costs is
	// nil.
	DefaultCosts = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10}
	// DefaultBandwidths is the grid of bandwidths searched when
	// Settings.Bandwidths is nil.
	DefaultBandwidths = []float64{0.5, 1, 2}
)

const (
	// DefaultFolds is the number of cross-validation folds when
	// Settings.Folds is 0.
	DefaultFolds = 5
	// DefaultMaxIter is the iteration limit of the final fit when
	// Settings.MaxIter is 0.
	DefaultMaxIter = 1000
	// DefaultLossTol is the final fit's stopping rule when
	// Settings.LossTol is 0: stop once the loss has improved by less than
	// this fraction over 10 iterations.
	DefaultLossTol = 1e-3
	// SelectionRows caps the rows that cross-validation runs on: larger
	// training sets choose their settings on a seeded subsample of this
	// many rows, then fit the final machine on all of them.
	SelectionRows = 400
	// selectionMaxIter and selectionLossTol stop the fits of the
	// selection early: they rank settings, which needs a good model
	// rather than the exact minimum.
	selectionMaxIter = 100
	selectionLossTol = 1e-3
	// A selection on fewer than repeatRows/2 rows repeats the k-fold
	// cross-validation repeatRows/rows times, at most maxRepeats.
	repeatRows = 300
	maxRepeats = 3
)

// Settings configures a fit. The zero value is the model of `machines
// fit`: dims DefaultHidden then the output block, an additive kernel,
// standardised inputs and targets, AutoAnchors anchors at most, and the
// cost and bandwidth chosen by DefaultFolds-fold cross-validation over
// DefaultCosts x DefaultBandwidths.
type Settings struct {
	// Dims is the filtration (see Architecture); nil means DefaultHidden
	// followed by the output block: one per regression target column or
	// one per class.
	Dims []int
	// Kernel combines the per-block Gaussians.
	Kernel Combine
	// Costs and Bandwidths are the candidates for the cost (which weighs
	// the regulariser |A|^2 + RKHS norm and must not be negative) and
	// the Gaussians' bandwidth (positive). Nil means DefaultCosts and
	// DefaultBandwidths; a single value fixes the setting. When either
	// has more than one value, every pair is scored by cross-validation
	// and the best is refitted on all the rows.
	Costs, Bandwidths []float64
	// Folds is the number of cross-validation folds, stratified by class
	// for a classifier; 0 means DefaultFolds.
	Folds int
	// Workers is the number of fits run in parallel during the
	// selection; 0 means runtime.GOMAXPROCS(0). The result does not
	// depend on it.
	Workers int
	// Anchors is the number of Nystrom anchor points, chosen among the
	// training rows by k-means++ seeding; 0 means every row up to
	// AutoAnchors rows and AutoAnchors anchors above.
	Anchors int
	// Raw fits on the inputs and targets as given. By default every input
	// column, and every regression target, is scaled to mean 0 and
	// standard deviation 1 first, and the machine undoes it when it
	// predicts.
	Raw bool
	// Seed seeds the initial parameters, the anchors, the folds and the
	// selection's subsample.
	Seed uint64
	// Method, MaxIter, GradTol and LossTol configure the optimiser of
	// the final fit, as in optim.Settings; MaxIter 0 means DefaultMaxIter
	// and LossTol 0 DefaultLossTol. A negative LossTol stops only when the
	// loss stalls, for fits that want the exact minimum.
	Method  optim.Method
	MaxIter int
	GradTol float64
	LossTol float64
	// Progress, if not nil, receives the selection's progress and its
	// score for every candidate, then the final fit's iteration and
	// loss about once a second.
	Progress io.Writer
	// Iteration, if not nil, is called after every iteration of the
	// final fit with the machine as it is then; an error stops the fit.
	Iteration func(iter int, loss float64, m *Machine) error
}

// Result describes a fit.
type Result struct {
	Loss        float64 // final loss, regulariser included
	DataLoss    float64 // final mean squared error or cross-entropy
	Iterations  int
	Evaluations int
	Seconds     float64 // the whole fit, selection included
	Status      string  // why the optimiser stopped, in gonum's words
	// Converged is false when the final fit stopped at its iteration
	// limit.
	Converged bool
	// Dims, Cost and Bandwidth are the settings of the machine, chosen or
	// fixed; Anchors is its number of anchor points.
	Dims            []int
	Cost, Bandwidth float64
	Anchors         int
	// Selection is the cross-validation that chose the cost and
	// bandwidth; nil when both were fixed.
	Selection *Selection
}

// FitRegression fits a machine to the rows of x and y (one column per
// output; the last block of Settings.Dims, if given, must match) by
// minimising the mean squared error plus the regulariser.
func FitRegression(x, y mat.Matrix, s Settings) (*Machine, Result, error) {
	if y == nil {
		return nil, Result{}, errors.New("kernel: no targets")
	}
	_, k := y.Dims()
	return fit(x, y, nil, k, s)
}

// FitClassifier fits a machine to the rows of x and their labels, from 0
// to classes-1, by minimising the softmax cross-entropy plus the
// regulariser. The last block of Settings.Dims, if given, must have one
// entry per class. The fitted machine predicts class scores (logits).
func FitClassifier(x mat.Matrix, labels []int, classes int, s Settings) (*Machine, Result, error) {
	if classes < 2 {
		return nil, Result{}, fmt.Errorf("kernel: %d classes, want at least 2", classes)
	}
	if labels == nil {
		labels = []int{}
	}
	return fit(x, nil, labels, classes, s)
}

// Seed streams keep the uses of one seed apart.
const (
	anchorStream = 0x616e63686f72
	initStream   = 0x6b65726e656c
)

func fit(x, y mat.Matrix, labels []int, outputs int, s Settings) (*Machine, Result, error) {
	start := time.Now()
	arch, costs, bandwidths, err := s.resolve(outputs)
	if err != nil {
		return nil, Result{}, err
	}
	if x == nil {
		return nil, Result{}, errors.New("kernel: no input data")
	}
	n, _ := x.Dims()
	if s.Anchors > n {
		return nil, Result{}, fmt.Errorf("kernel: %d anchors for %d training points", s.Anchors, n)
	}
	// Check the data before the selection spends time on it; NewObjective
	// checks the rest.
	if err := checkFinite("input", x); err != nil {
		return nil, Result{}, err
	}
	if y != nil {
		if err := checkFinite("target", y); err != nil {
			return nil, Result{}, err
		}
	}
	var in, out *dataset.Scaler
	if !s.Raw {
		in = dataset.FitScaler(x)
		x = in.Transform(x)
		if y != nil {
			out = dataset.FitScaler(y)
			y = out.Transform(y)
		}
	}
	res := Result{Dims: arch.Dims, Cost: costs[0], Bandwidth: bandwidths[0]}
	if len(costs) > 1 || len(bandwidths) > 1 {
		sel, err := selectSettings(problemData{x, y, labels}, arch, costs, bandwidths, s)
		if err != nil {
			return nil, res, err
		}
		res.Selection = sel
		best := sel.Candidates[sel.Best]
		res.Cost, res.Bandwidth = best.Cost, best.Bandwidth
		if s.Progress != nil {
			fmt.Fprintf(s.Progress, "kernel: chose cost %g, bandwidth %g; fitting on all %d rows\n", res.Cost, res.Bandwidth, n)
		}
	}
	arch.Bandwidth = res.Bandwidth
	anchorRows := seedAnchors(x, allRows(n), anchorCount(n, s.Anchors), rand.New(rand.NewPCG(s.Seed, anchorStream)))
	p := Problem{X: x, Y: y, Labels: labels, Cost: res.Cost}
	if len(anchorRows) < n {
		p.Anchors = anchorRows
	}
	o, err := NewObjective(arch, p)
	if err != nil {
		return nil, res, err
	}
	anchors := pickRows(x, anchorRows)
	res.Anchors = len(anchorRows)
	withScaling := func(m *Machine) *Machine {
		m.Input, m.Output = in, out
		return m
	}
	last := time.Now()
	settings := optim.Settings{Method: s.Method, MaxIter: s.MaxIter, GradTol: s.GradTol, LossTol: s.LossTol,
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
	if settings.MaxIter == 0 {
		settings.MaxIter = DefaultMaxIter
	}
	switch {
	case settings.LossTol == 0:
		settings.LossTol = DefaultLossTol
	case settings.LossTol < 0:
		settings.LossTol = 0
	}
	r, err := optim.Minimize(o.Func, o.Init(nil, rand.New(rand.NewPCG(s.Seed, initStream))), settings)
	res.Loss, res.Iterations, res.Evaluations = r.Loss, r.Iterations, r.Evaluations
	res.Converged, res.Status = r.Converged, r.Status
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		return nil, res, fmt.Errorf("kernel: %w", err)
	}
	_, res.DataLoss = o.Loss(r.X)
	return withScaling(o.machine(r.X, anchors)), res, nil
}

// resolve returns the architecture and the candidate costs and bandwidths
// that s means for a machine with the given number of outputs.
func (s Settings) resolve(outputs int) (Architecture, []float64, []float64, error) {
	arch := Architecture{Dims: s.Dims, Kernel: s.Kernel}
	if arch.Dims == nil {
		arch.Dims = append(append([]int(nil), DefaultHidden...), outputs)
	}
	if err := arch.check(); err != nil {
		return arch, nil, nil, err
	}
	costs, bandwidths := s.Costs, s.Bandwidths
	if costs == nil {
		costs = DefaultCosts
	}
	if bandwidths == nil {
		bandwidths = DefaultBandwidths
	}
	switch {
	case len(costs) == 0:
		return arch, nil, nil, errors.New("kernel: empty list of costs")
	case len(bandwidths) == 0:
		return arch, nil, nil, errors.New("kernel: empty list of bandwidths")
	case s.Folds < 0 || s.Folds == 1:
		return arch, nil, nil, fmt.Errorf("kernel: %d cross-validation folds, want at least 2", s.Folds)
	case s.Anchors < 0:
		return arch, nil, nil, fmt.Errorf("kernel: %d anchors, want >= 0", s.Anchors)
	case s.MaxIter < 0:
		return arch, nil, nil, fmt.Errorf("kernel: maximum of %d iterations, want >= 0", s.MaxIter)
	}
	for _, c := range costs {
		if !(c >= 0) || math.IsInf(c, 0) {
			return arch, nil, nil, fmt.Errorf("kernel: cost %v, want a finite value >= 0", c)
		}
	}
	for _, b := range bandwidths {
		if !(b > 0) || math.IsInf(b, 0) {
			return arch, nil, nil, fmt.Errorf("kernel: bandwidth %v, want a finite value > 0", b)
		}
	}
	return arch, costs, bandwidths, nil
}

func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

// pickRows returns the listed rows of x as a new matrix.
func pickRows(x mat.Matrix, rows []int) *mat.Dense {
	_, c := x.Dims()
	d := mat.NewDense(len(rows), c, nil)
	for i, r := range rows {
		for j := range c {
			d.Set(i, j, x.At(r, j))
		}
	}
	return d
}
