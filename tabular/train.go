package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// The defaults of a Settings' zero value, which are those of the command
// `machines fit`. The package documentation says how they were chosen.
// Each call returns a fresh slice, which the caller may change.

// DefaultHidden lists the blocks of the machine space before the output
// block when Settings.Dims is nil.
func DefaultHidden() []int { return []int{3, 3, 3} }

// DefaultCosts is the grid of costs searched for the deep machine when
// Settings.Costs is nil.
func DefaultCosts() []float64 { return []float64{1e-3, 1e-2, 1e-1} }

// DefaultBandwidths is the grid of bandwidths searched for the deep
// machine when Settings.Bandwidths is nil.
func DefaultBandwidths() []float64 { return []float64{1} }

const (
	// DefaultFolds is the number of cross-validation folds when
	// Settings.Folds is 0 and the rows are not fewer.
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
	selectionMaxIter = 40
	selectionLossTol = 1e-3
	// A selection on fewer than repeatRows/2 rows repeats the k-fold
	// cross-validation repeatRows/rows times, at most maxRepeats.
	repeatRows = 300
	maxRepeats = 3
	// deepMinRows is the number of training rows below which the
	// default fit leaves the deep machine out: on the two panels' tables
	// it never won there (docs/learner-panel.md), and its folds cost
	// most of such a fit's time. The shallow machine is still scored on
	// the folds, as when they compete, so that its choice is the same.
	deepMinRows = 60
)

// wideRowsPerInput is the most training rows per input, as encoded, of
// a wide table, where the default fit races the deep machine
// (deepRowsPerInput) and weighs the shallow machine's linear part down
// (linearFactor). The deep machine won on tables of many inputs for
// their rows; on narrower ones its race, much of a fit's CPU, gained
// nothing on splits that chose no rule; and only on wide tables did the
// linear part outweigh the kernel part (docs/learner-panel.md).
const wideRowsPerInput = 5

// deepRowsPerInput is the most training rows per input, as encoded, at
// which the default fit races the deep machine; on more it leaves the
// deep machine out, as below deepMinRows. Tests of the race raise it.
var deepRowsPerInput = wideRowsPerInput

// racesDeep reports whether the default fit races the deep machine on n
// training rows of d inputs, as encoded (a column's levels or codes
// counted as one: see raceInputs): from deepMinRows rows, on at most
// deepRowsPerInput rows per input.
func racesDeep(n, d int) bool { return n >= deepMinRows && n <= deepRowsPerInput*d }

// raceInputs returns the number of inputs that racesDeep weighs for d
// encoded inputs of which levels are the blocks of levels (see
// levelBlocks): each block counts as one input, as scaleLevels scales it
// as one column. A categorical column of many levels, or a subject's
// number read by its codes, adds as many encoded inputs as it has
// levels, but no more to learn than one column of groups.
func raceInputs(d int, levels []levelBlock) int {
	for _, b := range levels {
		d -= b.width - 1
	}
	return d
}

// deepLeftOut says why racesDeep leaves the deep machine out of a fit of
// n training rows of d inputs, as racesDeep counts them.
func deepLeftOut(n, d int) string {
	if n < deepMinRows {
		return fmt.Sprintf("%d training rows, fewer than %d", n, deepMinRows)
	}
	return fmt.Sprintf("%d training rows for %d inputs as encoded (a column's levels or codes counted as one), more than %d per input", n, d, deepRowsPerInput)
}

// Settings configures a fit. The zero value is the model of `machines
// fit`: dims DefaultHidden then the output block, an additive kernel,
// standardised inputs and targets, ShallowAnchors or DeepAnchors anchors
// at most, and the cost and bandwidth chosen by DefaultFolds-fold
// cross-validation over DefaultCosts x DefaultBandwidths.
type Settings struct {
	// Dims is the filtration (see kernel.Architecture); nil means DefaultHidden
	// followed by the output block: one per regression target column or
	// one per class.
	Dims []int
	// Kernel combines the per-block Gaussians.
	Kernel kernel.Combine
	// Costs and Bandwidths are the candidates for the cost (which weighs
	// the regulariser |A|^2 + RKHS norm and must not be negative) and
	// the Gaussians' bandwidth (positive). Nil means DefaultCosts and
	// DefaultBandwidths; a single value fixes the setting. When either
	// has more than one value, every pair is scored by cross-validation
	// and the best is refitted on all the rows.
	Costs, Bandwidths []float64
	// Folds is the number of cross-validation folds, stratified by class
	// for a classifier; 0 means DefaultFolds, or one fold per row or
	// group when there are fewer (see FoldsFor).
	Folds int
	// Workers is the number of fits run in parallel during the
	// selection; 0 means runtime.GOMAXPROCS(0). The result does not
	// depend on it.
	Workers int
	// Anchors is the number of Nystrom anchor points, chosen among the
	// training rows by k-means++ seeding; 0 means every row up to
	// ShallowAnchors rows and ShallowAnchors anchors above for the
	// shallow machine, DeepAnchors for the deep one.
	Anchors int
	// TargetScale says on which scale a regression's targets are fitted;
	// the zero value AutoScale lets the cross-validation choose between
	// the targets as they are and their logarithm when they look like
	// counts or amounts.
	TargetScale TargetScale
	// InputScale says on which scale the inputs enter the machine; the
	// zero value AutoInputs lets the selection choose.
	InputScale InputScale
	// ShallowKernel is the shallow machine's kernel; the zero value
	// AutoKernel is the Gaussian here, and lets Fit choose.
	ShallowKernel ShallowKernel
	// Raw fits on the inputs and targets as given. By default every input
	// column, and every regression target, is scaled to mean 0 and
	// standard deviation 1 first, and the machine undoes it when it
	// predicts.
	Raw bool
	// Extrapolate lets a regression's predictions leave the range of its
	// training targets. By default the machine's Range keeps them within
	// that range widened by RangeMargin of it on each side, where a
	// linear part or a log target would otherwise carry a new row with
	// an extreme input far beyond anything seen (see RangeMargin). A Raw
	// fit is never bounded.
	Extrapolate bool
	// Seed seeds the initial parameters, the anchors, the folds and the
	// selection's subsample.
	Seed uint64
	// Method, MaxIter, GradTol and LossTol configure the optimiser of
	// the final fit, as in optim.Settings; MaxIter 0 means DefaultMaxIter
	// and LossTol 0 DefaultLossTol. UntilStall stops the final fit only
	// when the loss stalls (optim's rule without a LossTol), for fits that
	// want the exact minimum.
	Method     optim.Method
	MaxIter    int
	GradTol    float64
	LossTol    float64
	UntilStall bool
	// Weights, if not nil, weighs each row's loss (sample weights, one
	// per row, >= 0, not all 0; only their ratios count), in the fit and
	// in the scores of the selection. Only the shallow machine weighs its
	// rows, so weights choose it.
	Weights []float64
	// Groups, if not nil, labels each row's group: the folds of the
	// selection never split a group between training and held-out rows,
	// and the shallow machine is then scored on those folds rather than
	// by leave-one-out.
	Groups []int
	// Times, if not nil, gives each row's time: the folds move forward
	// in time (crossval.Forward), each trained on the rows before the
	// ones it holds out; the shallow machine is scored on them too.
	Times []float64
	// Budget, if not 0, bounds the time of the fit: the deep machine's
	// cross-validation fits that have not started by then are skipped,
	// with the candidates they belong to, and its final fit stops there
	// (Result.Converged false). The shallow machine, whose selection
	// takes a small part of a fit, is always scored, so that a fit over
	// the budget still returns the best machine found.
	Budget time.Duration
	// deadline is begin + Budget, set by the fit.
	deadline time.Time
	// levels are the blocks of the inputs' one-hot levels, which the
	// standardisation scales together (see scaleLevels) and the race of
	// the deep machine counts as one input each (see raceInputs).
	levels []levelBlock
	// columns are the spans of the encoded inputs of each column.
	columns []levelBlock
	// categorical is set when every input column is categorical (see
	// lowerCost).
	categorical bool
	// pass, if not nil, is a shallow machine's pass that the choice of
	// the inputs' codes ran on the fit's rows and targets (see
	// chooseCodes). A fit on the same inputs takes over its data,
	// validations and scores rather than compute them again.
	pass *encodingPass
	// Family says which machines the selection compares. The zero value
	// AutoFamily compares the shallow machine with the deep one, unless
	// Dims, Costs or Bandwidths is given: they describe the deep machine,
	// which is then fitted alone.
	Family Family
	// Starts is the number of initial points of the final fit; the
	// machine with the lowest loss, regulariser included, is kept. A deep
	// machine's loss is not convex, and a fit from one start now and then
	// stalls on a near-constant function. 0 means 1.
	Starts int
	// Progress, if not nil, receives the selection's progress and its
	// score for every candidate, then the final fit's iteration and
	// loss about once a second.
	Progress io.Writer
	// Iteration, if not nil, is called after every iteration of the
	// final fit with the start it belongs to (from 0; the starts run in
	// turn, each counting its iterations from 1) and the machine as it is
	// then; an error stops the fit.
	Iteration func(start, iter int, loss float64, m *Machine) error
}

// Family is a kind of kernel machine that a fit may choose.
type Family int

const (
	// AutoFamily chooses between the shallow and the deep machine by
	// cross-validation; below 60 training rows, or on more than 5 per
	// input, it fits the shallow machine, scored on the folds.
	AutoFamily Family = iota
	// Shallow is the machine of depth one, dims [inputs, outputs], whose
	// first block is the standardised input itself: a linear part plus
	// one level of Gaussians on the anchors. Its loss is then a ridge
	// regression, solved in closed form, and its cost and bandwidth are
	// chosen among shallowCosts and shallowBandwidths by their exact
	// leave-one-out residuals. A classifier fits its one-hot labels by
	// least squares and calibrates the scores with a logit scale.
	Shallow
	// Deep is the machine of Settings.Dims, DefaultHidden by default,
	// fitted by L-BFGS, its cost and bandwidth chosen by k-fold
	// cross-validation.
	Deep
)

func (f Family) String() string {
	switch f {
	case AutoFamily:
		return "auto"
	case Shallow:
		return "shallow"
	case Deep:
		return "deep"
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// ParseFamily parses the names that String returns.
func ParseFamily(s string) (Family, error) {
	for _, f := range []Family{AutoFamily, Shallow, Deep} {
		if s == f.String() {
			return f, nil
		}
	}
	return 0, fmt.Errorf("tabular: unknown family %q (want auto, shallow or deep)", s)
}

// family checks the rows' weights, groups and times against the n rows
// and resolves AutoFamily: settings of the deep machine mean it alone,
// and weights the shallow machine alone, the only one whose loss weighs
// its rows.
func (s Settings) family(n int) (Family, error) {
	deepSettings := s.Dims != nil || s.Costs != nil || s.Bandwidths != nil
	switch {
	case s.Weights != nil && len(s.Weights) != n:
		return 0, fmt.Errorf("tabular: %d weights for %d rows", len(s.Weights), n)
	case s.Groups != nil && len(s.Groups) != n:
		return 0, fmt.Errorf("tabular: %d groups for %d rows", len(s.Groups), n)
	case s.Times != nil && len(s.Times) != n:
		return 0, fmt.Errorf("tabular: %d times for %d rows", len(s.Times), n)
	case s.Groups != nil && s.Times != nil:
		return 0, errors.New("tabular: folds by groups and by time at once")
	}
	var sum float64
	for i, w := range s.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return 0, fmt.Errorf("tabular: weight of row %d is %v, want a finite value >= 0", i, w)
		}
		sum += w
	}
	if s.Weights != nil && sum == 0 {
		return 0, errors.New("tabular: every weight is 0")
	}
	for i, t := range s.Times {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return 0, fmt.Errorf("tabular: time of row %d is %v", i, t)
		}
	}
	if s.Weights != nil {
		if s.Family == Deep || deepSettings {
			return 0, errors.New("tabular: weighted rows need the shallow machine: the deep machine's loss does not weigh them (drop Dims, Costs and Bandwidths)")
		}
		return Shallow, nil
	}
	if s.Family == AutoFamily && deepSettings {
		return Deep, nil
	}
	return s.Family, nil
}

// meanOne returns the weights w scaled to mean 1, or nil for nil.
func meanOne(w []float64) []float64 {
	if w == nil {
		return nil
	}
	var sum float64
	for _, v := range w {
		sum += v
	}
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = v * float64(len(w)) / sum
	}
	return out
}

// TargetScale is the scale on which a regression's targets are fitted.
type TargetScale int

const (
	// AutoScale fits the targets as they are, unless every target is
	// nonnegative and some target column is skewed (sample skewness above
	// skewedTarget): then the cross-validation also scores each setting
	// fitted to log(1 + y), judged on its predictions of y itself, and
	// the better scale wins. With the cost and the bandwidth both fixed
	// there is no cross-validation, and the targets are fitted as they
	// are.
	AutoScale TargetScale = iota
	// LinearScale fits the targets as they are.
	LinearScale
	// LogScale fits log(1 + y), which needs nonnegative targets, and the
	// machine predicts exp(output) - 1.
	LogScale
)

// InputScale is the scale on which the inputs enter the machine, before
// they are standardised.
type InputScale int

const (
	// AutoInputs maps a regression's inputs through their quantiles when the
	// cost and the bandwidth are searched and the shallow machine's lowest
	// held-out loss (leave-one-out, or on grouped or forward folds) is lower
	// on the mapped inputs than on the inputs as they are; then, on the scale
	// kept, it weighs the standardised inputs by their relevance to the
	// shallow machine (see relevance) when its held-out loss is lower so.
	// Where the two scales' losses are within their noise, a fit
	// averages the machines of both (see blends). A
	// classifier's inputs are mapped by the same rule only when the
	// shallow machine chooses on classQuantileRows rows or more, and are
	// never weighed; on fewer rows they are kept as they are, and the
	// machine of their quantiles is averaged in where its loss is the
	// lower within the noise. Those of a fit with both fixed, and a Raw
	// fit's, are taken as they are. Made to choose on fewer rows, the
	// choice lowered classifiers' accuracy.
	AutoInputs InputScale = iota
	// LinearInputs takes the inputs as they are, unweighed.
	LinearInputs
	// QuantileInputs maps each input of more than two distinct values
	// through its training rows' distribution function
	// (scale.QuantileMap), unweighed.
	QuantileInputs
)

func (s InputScale) String() string {
	switch s {
	case AutoInputs:
		return "auto"
	case LinearInputs:
		return "linear"
	case QuantileInputs:
		return "quantile"
	}
	return fmt.Sprintf("InputScale(%d)", int(s))
}

// ParseInputScale parses the names that String returns.
func ParseInputScale(s string) (InputScale, error) {
	for _, v := range []InputScale{AutoInputs, LinearInputs, QuantileInputs} {
		if s == v.String() {
			return v, nil
		}
	}
	return 0, fmt.Errorf("tabular: unknown input scale %q (want auto, linear or quantile)", s)
}

// skewedTarget is the sample skewness above which AutoScale tries the
// log scale. Counts and amounts (cases, breaks, concentrations) are
// right-skewed, and an error proportional to the value fits them better
// than a constant one.
const skewedTarget = 1

func (t TargetScale) String() string {
	switch t {
	case AutoScale:
		return "auto"
	case LinearScale:
		return "linear"
	case LogScale:
		return "log"
	}
	return fmt.Sprintf("TargetScale(%d)", int(t))
}

// ParseTargetScale parses the names that String returns.
func ParseTargetScale(s string) (TargetScale, error) {
	for _, t := range []TargetScale{AutoScale, LinearScale, LogScale} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("tabular: unknown target scale %q (want auto, linear or log)", s)
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
	// Start is the initial point, from 0 to Settings.Starts-1, whose fit
	// was kept; Loss, DataLoss, Iterations, Evaluations, Status and
	// Converged describe that fit.
	Start int
	// CoarseRows is the number of rows of the coarse fit whose minimum
	// started the final fit (see coarseMinRows), 0 if there was none.
	CoarseRows int
	// Dims, Cost and Bandwidth are the settings of the machine, chosen or
	// fixed; LogTarget says a regression was fitted to log(1 + y);
	// Anchors is its number of anchor points.
	Dims            []int
	Cost, Bandwidth float64
	LogTarget       bool
	Anchors         int
	// CostRows is the number of rows whose leave-one-out residuals
	// re-chose the shallow machine's cost when its selection ran on a
	// subsample of them (see SelectionRows) or its anchors grew (see
	// ShallowAnchors), 0 otherwise.
	CostRows int
	// Shallow says the machine is the shallow one (see Family).
	Shallow bool
	// Averaged, when not nil, lists the shallow machines, best first,
	// whose average the machine is (see Machine.Sum); Cost and
	// Bandwidth are the first's. When the first is the deep machine
	// (Shallow false), it weighs DeepWeight in the average and the
	// shallow ones share the rest (see deepWeights).
	Averaged   []Candidate
	DeepWeight float64
	// Costs, when not nil, are the costs whose ridge solutions on one
	// basis the shallow machine averages, its best first (see
	// averageCosts): one machine, the mean of theirs.
	Costs []float64
	// OtherWeight, when not 0, is the weight of the machine of the
	// inputs' other encoding (Machine.Other) in the average the
	// machine predicts (see blends); the rest of Result describes the
	// chosen encoding's machine.
	OtherWeight float64
	// LinearWeight, when not 0, is the weight of the linear machine of
	// the inputs as they are (Machine.Linear) in the average (see
	// hedgeLinear).
	LinearWeight float64
	// InputScale is "quantile" when the inputs were mapped through their
	// quantiles, "linear" when the selection kept them as they are, and
	// empty when it did not choose. InputLosses are the shallow
	// machine's lowest held-out losses that chose, on the inputs as they
	// are and on their quantiles.
	InputScale  string
	InputLosses []float64
	// Relevance, when not nil, holds the weights that multiply the
	// standardised inputs (see AutoInputs); RelevanceLosses are the
	// shallow machine's lowest held-out losses without them and with
	// them, which chose unless RelevanceEvidence is set: then the
	// selection ran on at most evidenceRows rows of a regression, and
	// the shallow machine's lowest negative log evidence per row without
	// and with the weights chose (see rankLoss).
	Relevance         []float64
	RelevanceLosses   []float64
	RelevanceEvidence []float64
	// Metric says the inputs were mapped by their metric, the first
	// block of the machine (see mapInputs); MetricLosses are the shallow
	// machine's held-out losses on the folds that chose, without the
	// metric and with each fold's own.
	Metric       bool
	MetricLosses []float64
	// KernelLosses are, where Fit chose the shallow machine's kernel
	// (AutoKernel), the held-out losses of its fits with the Gaussian and
	// with the Laplacian; the lower was kept.
	KernelLosses []float64
	// Selection is the cross-validation that chose the machine; nil when
	// the cost and the bandwidth were fixed.
	Selection *Selection
	// HeldOut, when not nil, is the chosen setting's held-out loss and
	// score (its average's, if the machine is one) on the folds of the
	// selection's first split with the relevance weights, and the metric
	// if the inputs are mapped by theirs, measured on each fold's
	// training rows alone: where the weights were kept, the selection's
	// scores are those of weights measured on the rows they are scored
	// on. Calibration.Residuals are then this scoring's.
	HeldOut *Candidate
	// Calibration is what the chosen setting's held-out predictions
	// made of the machine, and Residuals their absolute residuals for
	// conformal intervals; both are zero when nothing was searched.
	Calibration Calibration
}

// Calibration records how a selection calibrated the machine it chose,
// from that setting's held-out predictions.
type Calibration struct {
	// LogitScale multiplies a classifier's scores: softmax(LogitScale *
	// scores) has the lowest held-out log-loss, so that its probabilities
	// are calibrated.
	LogitScale float64 `json:"logit_scale,omitempty"`
	// ClassBias is added to each class's scaled score: the biases that,
	// with LogitScale, give the lowest held-out log-loss (the first
	// class's is 0). A least-squares machine's scores are shrunk towards
	// the classes' frequencies; the biases move its decisions where the
	// held-out rows put them. They are in the machine's intercepts.
	ClassBias []float64 `json:"class_bias,omitempty"`
	// Shrinkage multiplies each output of a regression on the
	// standardised scale it is fitted on, which shrinks the predictions
	// towards the training mean: the factor between 0 and 1 that best
	// fits the targets from their held-out predictions.
	Shrinkage []float64 `json:"shrinkage,omitempty"`
	// Residuals holds for each output of a regression the absolute
	// held-out residuals, sorted, on the scale the machine fits
	// (standardised, logarithmic for a log target), after shrinkage:
	// conformal turns them into prediction intervals.
	Residuals [][]float64 `json:"-"`
	// Scores holds a classifier's held-out scores 1 - p, sorted, p the
	// calibrated probability of the row's true class: conformal turns
	// them into the threshold of prediction sets.
	Scores []float64 `json:"-"`
}

// FitRegression fits a machine to the rows of x and y (one column per
// output; the last block of Settings.Dims, if given, must match) by
// minimising the mean squared error plus the regulariser.
func FitRegression(x, y mat.Matrix, s Settings) (*Machine, Result, error) {
	if y == nil {
		return nil, Result{}, errors.New("tabular: no targets")
	}
	_, k := y.Dims()
	return fit(x, y, nil, k, s)
}

// RangeMargin is how far beyond the range of its training targets, as a
// fraction of that range, a regression predicts by default (see
// Settings.Extrapolate), and never below 0 when its targets are not
// negative. Trees and nearest neighbours never leave the range; a kernel
// machine's linear part and a log target can carry a new row with an
// extreme input far beyond it, and the range itself (margin 0) is too
// tight.
const RangeMargin = 0.1

// widenedRange returns, for each column of y, its lowest and highest
// value moved apart by RangeMargin of their difference, the lowest no
// further than 0 if it is not negative: counts and amounts stay
// nonnegative.
func widenedRange(y mat.Matrix) [][2]float64 {
	n, k := y.Dims()
	r := make([][2]float64, k)
	for j := range k {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = math.Min(lo, y.At(i, j)), math.Max(hi, y.At(i, j))
		}
		margin := RangeMargin * (hi - lo)
		r[j] = [2]float64{lo - margin, hi + margin}
		if lo >= 0 {
			r[j][0] = math.Max(lo-margin, 0)
		}
	}
	return r
}

// FitClassifier fits a machine to the rows of x and their labels, from 0
// to classes-1, by minimising the softmax cross-entropy plus the
// regulariser. The last block of Settings.Dims, if given, must have one
// entry per class. The fitted machine predicts class scores (logits).
func FitClassifier(x mat.Matrix, labels []int, classes int, s Settings) (*Machine, Result, error) {
	if classes < 2 {
		return nil, Result{}, fmt.Errorf("tabular: %d classes, want at least 2", classes)
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

// checkData checks the data before the selection spends time on it:
// inputs present, no more anchors than rows, every value finite.
// kernel.NewObjective checks the rest.
func checkData(x, y mat.Matrix, s Settings) error {
	if x == nil {
		return errors.New("tabular: no input data")
	}
	if n, _ := x.Dims(); s.Anchors > n {
		return fmt.Errorf("tabular: %d anchors for %d training points", s.Anchors, n)
	}
	if err := numeric.CheckFinite("tabular: input", x); err != nil {
		return err
	}
	if y != nil {
		return numeric.CheckFinite("tabular: target", y)
	}
	return nil
}

func fit(x, y mat.Matrix, labels []int, outputs int, s Settings) (*Machine, Result, error) {
	begin := time.Now()
	if s.Budget < 0 {
		return nil, Result{}, fmt.Errorf("tabular: budget %v, want 0 (none) or more", s.Budget)
	}
	if s.Budget > 0 {
		s.deadline = begin.Add(s.Budget)
	}
	arch, costs, bandwidths, err := s.resolve(outputs)
	if err != nil {
		return nil, Result{}, err
	}
	if err := checkData(x, y, s); err != nil {
		return nil, Result{}, err
	}
	n, _ := x.Dims()
	family, err := s.family(n)
	if err != nil {
		return nil, Result{}, err
	}
	search := family == Shallow || len(costs) > 1 || len(bandwidths) > 1
	p, val, sval, err := prepareSearch(x, y, labels, s, search)
	if err != nil {
		return nil, Result{}, err
	}
	res := Result{Dims: arch.Dims, Cost: costs[0], Bandwidth: bandwidths[0], LogTarget: p.scale == LogScale}
	asIs := p // the inputs as they are, which the linear machine sees
	if p, err = chooseInputs(p, x, y, labels, sval, outputs, s, &res); err != nil {
		return nil, res, err
	}
	e := encodedFit{arch: arch, costs: costs, bandwidths: bandwidths, val: val, sval: sval, family: family, search: search, outputs: outputs, s: s, begin: begin}
	other := e.startOther(p.other, res)
	m, mres, err := e.fit(p, res)
	if other != nil {
		om, oerr := other.wait(s.Progress)
		if err == nil && oerr != nil {
			return nil, mres, oerr
		}
		if err == nil {
			m.Other, m.OtherWeight, mres.OtherWeight = om, otherWeight, otherWeight
		}
	}
	if err != nil {
		return m, mres, err
	}
	if err := withLinear(m, &mres, asIs, outputs, s); err != nil {
		return nil, mres, err
	}
	mres.Seconds = time.Since(begin).Seconds()
	return m, mres, nil
}

// otherFit is the fit of the shallow machine of the inputs' encoding not
// chosen (see blends). It runs beside the chosen machine's fit, whose
// race and final fit leave a core idle at times; its progress is kept
// until the chosen machine's has been written.
type otherFit struct {
	done     chan struct{}
	m        *Machine
	err      error
	progress bytes.Buffer
}

// startOther starts the fit of the shallow machine of the data p of the
// other encoding, from res; nil if p is nil.
func (e encodedFit) startOther(p *prepared, res Result) *otherFit {
	if p == nil {
		return nil
	}
	o := &otherFit{done: make(chan struct{})}
	e.shallowOnly = true
	if e.s.Progress != nil {
		e.s.Progress = &o.progress
	}
	go func() {
		defer close(o.done)
		o.m, _, o.err = e.fit(p, res)
	}()
	return o
}

// wait returns the other encoding's machine once fitted, after writing
// to progress, if not nil, that it was fitted and its progress.
func (o *otherFit) wait(progress io.Writer) (*Machine, error) {
	<-o.done
	if progress != nil {
		fmt.Fprintf(progress, "tabular: the two encodings' held-out losses are within their noise: the shallow machine of the other weighs %g\n", otherWeight)
		progress.Write(o.progress.Bytes())
	}
	return o.m, o.err
}

// encodedFit holds what fits the machine on the inputs of one encoding,
// once chooseInputs has chosen it: the architecture and the settings
// searched, the validations, and the fit's family and settings.
type encodedFit struct {
	arch              kernel.Architecture
	costs, bandwidths []float64
	val, sval         *validation
	family            Family
	search            bool
	outputs           int
	s                 Settings
	begin             time.Time
	// shallowOnly leaves the deep machine out: the machine of the
	// encoding not chosen is the shallow one, scored on the folds, which
	// costs a tenth of the race and predicted as well on the panels.
	shallowOnly bool
}

// fit weighs and maps the inputs of p (see weighInputs and mapInputs),
// chooses the machine on them and fits it on all the rows, from res.
func (e *encodedFit) fit(p *prepared, res Result) (*Machine, Result, error) {
	s, val, sval, outputs, family := e.s, e.val, e.sval, e.outputs, e.family
	plain := p
	p, err := weighInputs(p, sval, outputs, s, &res)
	measured := res.Relevance
	if err == nil && !e.shallowOnly {
		// The other encoding's machine, which weighs a quarter, keeps
		// its columns, as measured on the panels (docs/learner-panel.md).
		p, err = dropColumns(p, sval, outputs, s, &res)
	}
	if err != nil {
		return nil, res, err
	}
	var rw *reweighing // the weights measured again on each fold (see reweighing)
	if measured != nil && !e.shallowOnly {
		rw = &reweighing{plain: plain, weighed: p, measured: measured}
	}
	if !e.shallowOnly || p.linear.labels == nil {
		// A classifier's other machine is not mapped by its metric: on
		// the panels the map cost a fifth of its time and gained nothing.
		if p, err = mapInputs(p, sval, outputs, s, &res); err != nil {
			return nil, res, err
		}
	}
	n, d := p.linear.x.Dims()
	d = raceInputs(d, s.levels)
	races := racesDeep(n, d)
	skipDeep := family == AutoFamily && (!races || e.shallowOnly) // the shallow machine still scored on the folds
	if family == AutoFamily && !e.shallowOnly && !races && s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the deep machine left out: %s (-family deep fits it)\n", deepLeftOut(n, d))
	}
	race := e.search && family == AutoFamily && !skipDeep
	deep := startDeep(p, val, e.arch, e.costs, e.bandwidths, s, race)
	defer deep.wait() // left running when the shallow machine fails
	var shallow *shallowFit
	if family != Deep {
		shallow, err = selectShallow(p, sval, outputs, s, family == Shallow)
		if err == nil && race && sval != val {
			err = shallow.onFolds(val, sval, s.Workers)
		}
		if err != nil {
			return nil, res, err
		}
	}
	var cal *calibration
	switch {
	case family == Shallow || skipDeep:
		res.Selection = shallow.sel
		return shallow.resultHeldOut(p, res, rw, sval, s.Workers, e.begin)
	case e.search:
		if shallow != nil && s.Workers != 1 {
			shallow.start(p)
			defer shallow.final.wait() // left running when the race fails
		}
		if deep == nil {
			deep = newDeepFolds(val.restrict(p.deepVariants(shallow)), val.folds, e.arch, e.costs, e.bandwidths, s)
			if shallow != nil {
				deep = deep.withProbe(val.k)
			}
		}
		sel, c, err := selectSettings(deep, val, s, shallow)
		if err != nil {
			return nil, res, err
		}
		res.Selection = sel
		if sval != val {
			sel.ShallowRows = len(sval.rows)
		}
		best := sel.Candidates[sel.Best]
		if shallow != nil && shallow.deep != nil {
			m, res, err := fitDeepAverage(p, e.arch, res, shallow, s, e.begin)
			return e.deepHeldOut(m, res, err, rw, p, shallow, shallow.deep.deep)
		}
		if best.Shallow {
			return shallow.resultHeldOut(p, res, rw, sval, s.Workers, e.begin)
		}
		res.Cost, res.Bandwidth, res.LogTarget = best.Cost, best.Bandwidth, best.LogTarget
		cal = &c
		if s.Progress != nil {
			fmt.Fprintf(s.Progress, "tabular: chose %s; fitting on all %d rows\n", best.setting(), n)
		}
	}
	m, res, err := fitDeep(p, e.arch, res, cal, s)
	if cal != nil {
		return e.deepHeldOut(m, res, err, rw, p, shallow, res.Selection.Candidates[res.Selection.Best])
	}
	res.Seconds = time.Since(e.begin).Seconds()
	return m, res, err
}

// deepHeldOut returns the deep machine m that the fit chose, of candidate
// c, with res and err, its held-out scores and residuals measured again
// by rw (see reweighing.deepHeldOut) when rw is not nil, the shallow fit
// competed and the selection ran on the shallow machine's validation.
func (e *encodedFit) deepHeldOut(m *Machine, res Result, err error, rw *reweighing, p *prepared, shallow *shallowFit, c Candidate) (*Machine, Result, error) {
	if err == nil && rw != nil && shallow != nil && e.val == e.sval {
		if err = rw.deepHeldOut(e, p, shallow, c, &res); err != nil {
			return nil, res, err
		}
	}
	res.Seconds = time.Since(e.begin).Seconds()
	return m, res, err
}

// prepareSearch returns the data of a fit prepared (see prepare) and the
// validations of its selections (see validations): those of s.pass when
// the fit searches and the pass ran on the same inputs x, with the
// shallow machine's scores there, if it kept them, completed on every
// bandwidth as the fit's first pass scores them.
func prepareSearch(x, y mat.Matrix, labels []int, s Settings, search bool) (p *prepared, val, sval *validation, err error) {
	if e := s.pass; e != nil && search && e.x == x {
		if e.p.pass != nil {
			if _, err := e.p.passLoss(e.sval, e.outputs, s, nil); err != nil {
				return nil, nil, nil, err
			}
			if s.Progress != nil {
				fmt.Fprintf(s.Progress, "tabular: the shallow machine's scores on these inputs taken from the choice of codes\n")
			}
		}
		return e.p, e.val, e.sval, nil
	}
	if p, err = prepare(x, y, labels, s, search); err != nil {
		return nil, nil, nil, err
	}
	val, sval, err = validations(p.linear, s, search)
	return p, val, sval, err
}

// validations returns the validation of the deep machine's selection
// and that of the shallow machine's passes (see forShallow) on the rows
// of d, or nil when nothing is searched.
func validations(d problemData, s Settings, search bool) (val, sval *validation, err error) {
	if !search {
		return nil, nil, nil
	}
	if val, err = newValidation(d, s); err != nil {
		return nil, nil, err
	}
	sval, err = val.forShallow(d, s)
	return val, sval, err
}

// startDeep returns the deep machine's folds on val, the first fold
// fitting in the background while the shallow machine is chosen (see
// deepFolds.start), when the deep machine will race the shallow one, on
// the targets on one scale, and fits may run in parallel; nil otherwise.
// On two scales, the deep machine's folds wait for the shallow machine's
// choice (see deepVariants).
func startDeep(p *prepared, val *validation, arch kernel.Architecture, costs, bandwidths []float64, s Settings, race bool) *deepFolds {
	if !race || p.scale == AutoScale || s.Workers == 1 {
		return nil
	}
	d := newDeepFolds(val.restrict(p.variants()), val.folds, arch, costs, bandwidths, s).withProbe(val.k)
	d.start()
	return d
}

// chooseInputs returns p, or the data prepared from the inputs x mapped
// through their quantiles, as s.InputScale says (see AutoInputs), and
// records the choice in res.
func chooseInputs(p *prepared, x, y mat.Matrix, labels []int, val *validation, outputs int, s Settings, res *Result) (*prepared, error) {
	n, _ := x.Dims()
	few := labels != nil && val != nil && len(val.rows) < classQuantileRows
	if s.Raw || s.InputScale == LinearInputs || (s.InputScale == AutoInputs && (val == nil || few && !blendable(n, s))) {
		return p, nil
	}
	q := scale.FitQuantileMap(x)
	if !slices.ContainsFunc(q.Knots, func(k []float64) bool { return k != nil }) {
		return p, nil // no column of more than two values
	}
	mapped, err := prepare(q.Transform(x), y, labels, s, val != nil)
	if err != nil {
		return nil, err
	}
	mapped.quantiles = q
	if s.InputScale == QuantileInputs {
		res.InputScale = QuantileInputs.String()
		return mapped, nil
	}
	// The quantiles' pass scores the bandwidths that the first pass
	// ranks best, but its anchors do not wait for them.
	ahead := passAhead(mapped, val, s)
	var losses [2]float64
	if p.pass == nil { // not taken from the choice of codes (see Settings.pass)
		p.pass = newShallowPass(p.variants(), val, s)
	}
	if losses[0], err = p.passLoss(val, outputs, s, nil); err != nil {
		return nil, err
	}
	ahead()
	if losses[1], err = mapped.passLoss(val, outputs, s, p.pass.best(passBandwidths)); err != nil {
		return nil, err
	}
	res.InputLosses = losses[:]
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the shallow machine's lowest held-out loss is %.4g on the inputs as they are, %.4g on their quantiles\n", losses[0], losses[1])
	}
	if few {
		// A classifier of few rows keeps its inputs as they are (see
		// classQuantileRows); their quantiles' machine takes a share
		// where its loss is the lower within the noise.
		res.InputScale = LinearInputs.String()
		if lowerLoss(losses[1], losses[0]) && blends(losses[1], losses[0], n, s) {
			p.other = mapped
		}
		return p, nil
	}
	if lowerLoss(losses[1], losses[0]) {
		res.InputScale = QuantileInputs.String()
		if blends(losses[1], losses[0], n, s) {
			mapped.other = p
		}
		return mapped, nil
	}
	res.InputScale = LinearInputs.String()
	if blends(losses[0], losses[1], n, s) {
		p.other = mapped
	}
	return p, nil
}

// blends says whether a fit of n rows averages its machine with the
// shallow machine of the inputs' other encoding, of held-out losses lo
// (the chosen one's) and hi: when the relative difference of the
// losses, times sqrt(n), is at most blendNoise. Leave-one-out judges the quantiles on the rows
// that placed them, and on small tables its choice between the
// encodings often loses the test rows; averaging the two machines halves
// the cost of a wrong choice and keeps most of a right one. Where the
// losses differ beyond their noise, or the fit cannot average (see
// blendable), the chosen machine stands alone. A classifier on fewer
// than classQuantileRows rows keeps its inputs as they are, and averages
// in their quantiles' machine only where that one's loss is the lower.
func blends(lo, hi float64, n int, s Settings) bool {
	return blendable(n, s) && (hi-lo)/lo*math.Sqrt(float64(n)) <= blendNoise
}

// blendable says whether a fit of n rows may average its encodings'
// machines: one of the auto family on at most blendMaxRows rows.
func blendable(n int, s Settings) bool {
	return s.Family == AutoFamily && n <= blendMaxRows
}

const (
	// blendNoise bounds the relative difference of the encodings'
	// held-out losses, times the square root of the rows, under which
	// their machines are averaged (see blends). On the panels' small
	// regressions the averages gained from 1.5 to 4.
	blendNoise = 2.5
	// blendMaxRows is the most rows of a fit that averages its
	// encodings' machines: the panels measured it on tables of up to
	// 1,000 rows, and the second machine doubles the fit's time.
	blendMaxRows = 1000
	// otherWeight is the weight of the encoding not chosen in the
	// average: the chosen one keeps the larger share.
	otherWeight = 0.25
)

// classQuantileRows is the fewest rows of the shallow machine's
// selection on which a classifier's inputs may be chosen through their
// quantiles (AutoInputs): on the panels' classifiers of fewer, the
// choice followed the folds' noise, and the quantiles' machine only
// weighs in (see blends).
const classQuantileRows = 800

// prepared holds the data of a fit as the machines see them: inputs
// and targets standardised unless the fit is Raw, and the targets on
// the log scale too when that scale is tried.
type prepared struct {
	linear, logarithmic problemData
	quantiles           *scale.QuantileMap // nil: the inputs as they are
	// other, if not nil, is the data on the inputs' other encoding,
	// whose machine the fit averages with this one's (see blends).
	other *prepared
	// metric, if not nil, maps the standardised inputs before the
	// machines (see mapInputs).
	metric *inputMap
	// pass holds the shallow machine's scores when the choice of the
	// inputs' scale made them, nil otherwise.
	pass            *shallowPass
	in, out, logOut *scale.Scaler
	scale           TargetScale // the scales to try, AutoScale for both
	// bounds are the machine's Range: nil for a classifier, a Raw fit
	// and one that may extrapolate.
	bounds [][2]float64
}

// variants returns the problems the selection compares: the targets on
// each scale tried.
func (p *prepared) variants() []problemData {
	switch p.scale {
	case AutoScale:
		return []problemData{p.linear, p.logarithmic}
	case LogScale:
		return []problemData{p.logarithmic}
	}
	return []problemData{p.linear}
}

// deepVariants returns the problems the deep machine is scored on: the
// targets on each scale tried or, when the shallow machine competes, on
// the scale it chose. On the two panels' tables the deep machine never
// won on the scale the shallow machine left (docs/learner-panel.md), and
// each scale doubles its folds.
func (p *prepared) deepVariants(shallow *shallowFit) []problemData {
	if shallow == nil || p.scale != AutoScale {
		return p.variants()
	}
	if shallow.sel.Candidates[shallow.sel.Best].LogTarget {
		return []problemData{p.logarithmic}
	}
	return []problemData{p.linear}
}

// scaling returns the machine's output scaler for the targets on the log
// scale or not.
func (p *prepared) scaling(logTarget bool) *scale.Scaler {
	if logTarget {
		return p.logOut
	}
	return p.out
}

// prepare standardises the data unless raw, and decides on which scales
// the targets are tried: AutoScale tries the log scale only when it
// searches and the targets look like counts.
func prepare(x, y mat.Matrix, labels []int, s Settings, search bool) (*prepared, error) {
	target, raw := s.TargetScale, s.Raw
	switch {
	case y == nil:
		target = LinearScale // a classifier's labels have no scale
	case target == AutoScale && !(search && countLike(y)):
		target = LinearScale
	}
	var logY mat.Matrix
	if target != LinearScale {
		var err error
		if logY, err = log1p(y); err != nil {
			return nil, err
		}
	}
	p := &prepared{scale: target}
	rawLog := logY
	if y != nil && !raw && !s.Extrapolate {
		p.bounds = widenedRange(y)
	}
	if !raw {
		p.in = scale.FitScaler(x)
		scaleLevels(p.in, x, s.levels)
		x = p.in.Transform(x)
		if y != nil {
			p.out = scale.FitScaler(y)
			y = p.out.Transform(y)
		}
		if logY != nil {
			p.logOut = scale.FitScaler(logY)
			logY = p.logOut.Transform(logY)
		}
	}
	out, logOut := p.out, p.logOut
	w := meanOne(s.Weights)
	p.linear = problemData{x: x, y: y, labels: labels, w: w, groups: s.Groups, times: s.Times}
	p.logarithmic = problemData{x: x, y: y, fitY: logY, w: w, groups: s.Groups, times: s.Times, jac: logJacobian(rawLog, out, logOut), back: func(pred *mat.Dense) {
		if logOut != nil {
			logOut.Invert(pred)
		}
		pred.Apply(func(_, _ int, v float64) float64 { return math.Expm1(v) }, pred)
		if out != nil {
			pred.Apply(func(_, j int, v float64) float64 { return (v - out.Mean[j]) / out.Scale[j] }, pred)
		}
	}}
	return p, nil
}

// fitDeep fits the machine of architecture arch with the cost, bandwidth
// and target scale of res to all the rows, from Settings.Starts initial
// points, and scales its outputs by the calibration, if any.
func fitDeep(p *prepared, arch kernel.Architecture, res Result, cal *calibration, s Settings) (*Machine, Result, error) {
	d := p.linear
	if res.LogTarget {
		d = p.logarithmic
	}
	arch.Bandwidth = res.Bandwidth
	f, err := newFinalLoss(d, arch, res.Cost, s)
	if err != nil {
		return nil, res, err
	}
	o, span, anchors := f.o, f.span, f.anchors
	res.Anchors, res.CoarseRows = len(f.anchorRows), f.coarseRows
	classify := d.labels != nil
	// toMachine returns the machine of the parameters params, on the
	// columns, with its scalers and calibration.
	toMachine := func(params []float64) *Machine {
		km := o.Machine(params, anchors)
		if span != nil {
			km.A = span.expand(km.A)
		}
		if cal != nil {
			cal.scaleOutputs(km, classify)
		}
		out := p.scaling(res.LogTarget)
		if cal != nil && cal.bias != nil {
			out = withIntercept(out, cal.bias)
		}
		return &Machine{Machine: p.metric.machine(km), Quantiles: p.quantiles, Input: p.in, Output: out, LogTarget: res.LogTarget, Range: p.bounds}
	}
	last := time.Now()
	start := 0
	var latest optim.Result // the last iteration, kept when the budget stops a fit
	settings := s.deepOptim()
	settings.Iteration = func(iter int, loss float64, params []float64) error {
		if s.Progress != nil && time.Since(last) >= time.Second {
			last = time.Now()
			fmt.Fprintf(s.Progress, "tabular: %siteration %d, loss %.6g\n", startLabel(start, s.Starts), iter, loss)
		}
		if s.Iteration != nil {
			if err := s.Iteration(start, iter, loss, toMachine(params)); err != nil {
				return err
			}
		}
		if !s.deadline.IsZero() && time.Now().After(s.deadline) {
			latest = optim.Result{X: slices.Clone(params), Loss: loss, Iterations: iter, Status: "stopped by the budget"}
			return errBudget
		}
		return nil
	}
	settings.MaxIter, settings.LossTol = s.finalStop()
	var best optim.Result
	for ; start < max(s.Starts, 1); start++ {
		r, err := optim.Minimize(o.Func, f.init(arch, s, start), settings)
		if errors.Is(err, errBudget) {
			r, err = latest, nil
			if start > 0 && r.Loss >= best.Loss {
				break
			}
		}
		if err != nil {
			return nil, res, fmt.Errorf("tabular: %s%w", startLabel(start, s.Starts), err)
		}
		if start == 0 || r.Loss < best.Loss {
			best = r
			res.keepStart(start, r)
		}
		if r.Status == latest.Status && latest.Status != "" {
			break // the budget is spent: no more starts
		}
	}
	_, res.DataLoss = o.Loss(best.X)
	if cal != nil {
		res.Calibration = cal.record(classify)
	}
	return toMachine(best.X), res, nil
}

// finalLoss is what the final fit of a deep machine minimises: the loss
// on all the rows, its anchors, the span of the rows of a table wider
// than they are many, and the starting points of the coarse fits.
type finalLoss struct {
	o          objective
	span       *inputSpan
	anchorRows []int
	anchors    *mat.Dense
	inits      [][]float64 // one per start, nil without coarse fits
	coarseRows int
}

// newFinalLoss returns the final fit's loss on the rows of d. The coarse
// fits run before the loss of all the rows is built, so that the two
// never hold their buffers at once.
func newFinalLoss(d problemData, arch kernel.Architecture, cost float64, s Settings) (*finalLoss, error) {
	f := &finalLoss{anchorRows: anchorRows(Deep, d.x, s, s.Seed)}
	f.anchors = pickRows(d.x, f.anchorRows)
	var err error
	if f.inits, f.coarseRows, err = coarseStarts(d, arch, cost, f.anchors, s); err != nil {
		return nil, err
	}
	f.o, f.span, err = deepObjective(d, arch, cost, f.anchorRows)
	return f, err
}

// init returns the initial point of the given start: the coarse fit's
// minimum, or a random draw.
func (f *finalLoss) init(arch kernel.Architecture, s Settings, start int) []float64 {
	if f.inits != nil {
		return f.inits[start]
	}
	return initial(f.o, f.span, arch, len(f.anchorRows), initRand(s, start))
}

// initRand returns the random source of the initial point of the given
// start of the final fit. Start 0 draws from the seed's own stream, so
// that one start gives the machine that Starts 0 always gave.
func initRand(s Settings, start int) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, initStream+uint64(start)))
}

// deepObjective returns the loss of the final fit on the rows of d with
// the given anchor rows and, for a table wider than its rows, the span of
// the rows that the fit is done in.
func deepObjective(d problemData, arch kernel.Architecture, cost float64, anchorRows []int) (objective, *inputSpan, error) {
	n, inputs := d.x.Dims()
	prob := kernel.Problem{X: d.x, Y: d.targets(), Labels: d.labels, Cost: cost}
	if len(anchorRows) < n {
		prob.Anchors = anchorRows
	}
	var span *inputSpan
	if wide(n, inputs) {
		var err error
		if span, err = newInputSpan(mat.DenseCopyOf(d.x)); err != nil {
			return nil, nil, err
		}
		prob.X = span.coords()
	}
	o, err := newObjective(arch, prob)
	return o, span, err
}

// coarseStarts returns, for a final fit of at least coarseMinRows rows
// (no wider than they are many), the initial point of each of its starts
// and the number of rows of the coarse fits: each start's point drawn as
// the fit on all the rows would draw it, then moved to the minimum of the
// same machine's loss, with the same anchors, on a seeded eighth of the
// rows. Otherwise it returns nil and 0.
func coarseStarts(d problemData, arch kernel.Architecture, cost float64, anchors *mat.Dense, s Settings) ([][]float64, int, error) {
	n, inputs := d.x.Dims()
	if n < coarseMinRows || wide(n, inputs) {
		return nil, 0, nil
	}
	rows := rand.New(rand.NewPCG(s.Seed, coarseStream)).Perm(n)[:n/coarseShare]
	slices.Sort(rows)
	p := kernel.Problem{X: pickRows(d.x, rows), Labels: pick(d.labels, rows), Cost: cost, AnchorPoints: anchors}
	if y := d.targets(); y != nil {
		p.Y = pickRows(y, rows)
	}
	o, err := kernel.NewObjective(arch, p)
	if err != nil {
		return nil, 0, err
	}
	settings := s.deepOptim()
	settings.MaxIter, settings.LossTol = s.finalStop()
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: fitting on a coarse eighth of the rows first\n")
	}
	inits := make([][]float64, max(s.Starts, 1))
	m, _ := anchors.Dims()
	for k := range inits {
		inits[k] = coarseStart(o, initial(o, nil, arch, m, initRand(s, k)), settings, s)
	}
	return inits, len(rows), nil
}

// keepStart records the fit r of the given start as the final fit.
func (res *Result) keepStart(start int, r optim.Result) {
	res.Start = start
	res.Loss, res.Iterations, res.Evaluations = r.Loss, r.Iterations, r.Evaluations
	res.Converged, res.Status = r.Converged, r.Status
}

// coarseStart returns the minimum of the coarse loss o from init, with
// the stopping rule of settings, or the last point reached if the budget
// ends the fit first; init itself if the fit fails (the fit on all the
// rows then says why).
func coarseStart(o *kernel.Objective, init []float64, settings optim.Settings, s Settings) []float64 {
	latest := init
	settings.Iteration = func(_ int, _ float64, params []float64) error {
		if !s.deadline.IsZero() && time.Now().After(s.deadline) {
			latest = slices.Clone(params)
			return errBudget
		}
		return nil
	}
	r, err := optim.Minimize(o.Func, init, settings)
	if err != nil {
		return latest
	}
	return r.X
}

// coarseMinRows is the number of rows from which the final fit of a deep
// machine starts from the minimum of a coarse fit on an eighth of them.
// An iteration on an eighth of the rows costs about an eighth, and the
// fit on all the rows then has little left to do. Settings.Iteration
// sees the fit on all the rows alone.
const coarseMinRows = 2000

const (
	coarseShare  = 8
	coarseStream = 0x636f61727365
)

// deepMemory is the number of past steps that L-BFGS keeps in the deep
// machine's fits, twice optim's default: with it the selection's fits,
// which stop at selectionMaxIter, get further in as many iterations
// (docs/learner-panel.md), at little cost per iteration beside the
// loss's.
const deepMemory = 30

// deepOptim returns the optimiser's settings of the deep machine's fits
// but their stopping rule: Settings.Method and GradTol, deepMemory steps.
func (s Settings) deepOptim() optim.Settings {
	return optim.Settings{Method: s.Method, GradTol: s.GradTol, Memory: deepMemory}
}

// finalStop returns the iteration limit and the loss tolerance of the
// final fit: Settings.MaxIter and LossTol with their defaults.
func (s Settings) finalStop() (maxIter int, lossTol float64) {
	maxIter, lossTol = s.MaxIter, s.LossTol
	if maxIter == 0 {
		maxIter = DefaultMaxIter
	}
	switch {
	case s.UntilStall:
		lossTol = 0
	case lossTol == 0:
		lossTol = DefaultLossTol
	}
	return maxIter, lossTol
}

// errBudget stops the final fit of the deep machine at Settings.Budget.
var errBudget = errors.New("tabular: the budget is spent")

// startLabel names start k of several in messages, and nothing when there
// is only one.
func startLabel(k, starts int) string {
	if starts <= 1 {
		return ""
	}
	return fmt.Sprintf("start %d of %d: ", k+1, starts)
}

// resolve returns the architecture and the candidate costs and bandwidths
// that s means for a machine with the given number of outputs.
func (s Settings) resolve(outputs int) (kernel.Architecture, []float64, []float64, error) {
	arch := kernel.Architecture{Dims: s.Dims, Kernel: s.Kernel}
	if arch.Dims == nil {
		arch.Dims = append(DefaultHidden(), outputs)
	}
	if err := arch.Check(); err != nil {
		return arch, nil, nil, err
	}
	costs, bandwidths := s.Costs, s.Bandwidths
	if costs == nil {
		costs = DefaultCosts()
	}
	if bandwidths == nil {
		bandwidths = DefaultBandwidths()
	}
	switch {
	case len(costs) == 0:
		return arch, nil, nil, errors.New("tabular: empty list of costs")
	case len(bandwidths) == 0:
		return arch, nil, nil, errors.New("tabular: empty list of bandwidths")
	case s.Folds < 0 || s.Folds == 1:
		return arch, nil, nil, fmt.Errorf("tabular: %d cross-validation folds, want at least 2", s.Folds)
	case s.Anchors < 0:
		return arch, nil, nil, fmt.Errorf("tabular: %d anchors, want >= 0", s.Anchors)
	case s.MaxIter < 0:
		return arch, nil, nil, fmt.Errorf("tabular: maximum of %d iterations, want >= 0", s.MaxIter)
	case !(s.LossTol >= 0) || math.IsInf(s.LossTol, 0):
		return arch, nil, nil, fmt.Errorf("tabular: loss tolerance %v, want a finite value >= 0 (UntilStall stops only when the loss stalls)", s.LossTol)
	case s.Starts < 0:
		return arch, nil, nil, fmt.Errorf("tabular: %d starts, want >= 0", s.Starts)
	}
	for _, c := range costs {
		if !(c >= 0) || math.IsInf(c, 0) {
			return arch, nil, nil, fmt.Errorf("tabular: cost %v, want a finite value >= 0", c)
		}
	}
	for _, b := range bandwidths {
		if !(b > 0) || math.IsInf(b, 0) {
			return arch, nil, nil, fmt.Errorf("tabular: bandwidth %v, want a finite value > 0", b)
		}
	}
	return arch, costs, bandwidths, nil
}

// countLike reports whether every target is nonnegative and some column
// is skewed beyond skewedTarget: the targets AutoScale also tries on the
// log scale, when it chooses settings.
func countLike(y mat.Matrix) bool {
	r, c := y.Dims()
	skewed := false
	col := make([]float64, r)
	for j := range c {
		mat.Col(col, j, y)
		if slices.Min(col) < 0 {
			return false
		}
		skewed = skewed || stat.Skew(col, nil) > skewedTarget
	}
	return skewed
}

// log1p returns log(1 + y), or an error naming the first negative target.
func log1p(y mat.Matrix) (*mat.Dense, error) {
	r, c := y.Dims()
	out := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			v := y.At(i, j)
			if v < 0 {
				return nil, fmt.Errorf("tabular: the log target scale needs nonnegative targets; row %d, column %d is %v", i, j, v)
			}
			out.Set(i, j, math.Log1p(v))
		}
	}
	return out, nil
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
