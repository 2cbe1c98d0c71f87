package experiment

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/plotutil"
)

// The oneshot settings: the paper's sweeps, and the shot counts of the
// authors' runs.
var (
	oneShotMaxFreqs = []int{2, 5, 10, 20}
	oneShotCosts    = []float64{0, 0.001, 0.01, 0.1, 1}
	oneShotShots    = []int{1, 5, 10}
	// oneShotCNNChannels are the channels of the CNN baseline's two
	// convolution blocks.
	oneShotCNNChannels = []int{8, 16}
)

// The sizes of the run, fixed by measuring time alone (never accuracy)
// so that the default run, 1, 5 and 10 shots, fits in ten minutes on two
// cores. A training step of the machine costs about (anchors² + images ·
// anchors) · Dim · Steps, so the state is smaller than the package's
// default and a fixed number of anchors serves every shot count.
const (
	// oneShotCost is the cost of the maxfreq sweep (the paper's 0.1); the
	// cost sweep is at the largest maxfreq. The grid is the two sweeps,
	// not their product, which the paper never drew.
	oneShotCost = 0.1
	// oneShotDim and oneShotSteps are the state dimension of the kernel
	// machine and the RK4 steps of a query.
	oneShotDim, oneShotSteps = 16, 8
	// oneShotAnchors is the number of learned anchors beyond one shot;
	// one shot anchors the machine at the training images themselves,
	// as many.
	oneShotAnchors = 10
	// Seeds of the shot choice, full and quick. Ten seeds are the fewest
	// that give the paired t interval and the sign test some power.
	oneShotSeeds, oneShotSeedsQuick = 10, 2
	// Adam steps of the kernel machine, each on the whole training set:
	// one shot, more shots (whose steps each see more images), quick.
	oneShotIters, oneShotItersMore, oneShotItersQuick = 200, 100, 30
	// oneShotPerceptronIters are the L-BFGS iterations of the perceptron
	// and CNN baselines, full and quick.
	oneShotPerceptronIters, oneShotPerceptronItersQuick = 200, 50
	// oneShotVal is the number of validation images per class, drawn
	// from the training images that are not shots.
	oneShotVal = 10
	// oneShotLevel is the confidence level of the paired intervals.
	oneShotLevel = 0.95
	// oneShotSnapshots is the number of rows of a coefficient histogram.
	oneShotSnapshots = 11
	// oneShotWorkers is the number of fits run at once.
	oneShotWorkers = 2
	// oneShotChannels is the number of channels of the convolutional
	// augmenter: the authors' 8·maxfreq at maxfreq 2. Their rule would
	// make the augmenter most of a run's cost at large maxfreq.
	oneShotChannels = 16
)

// Bounds of oneshot's settings, so that a mistyped one is refused before
// any work rather than running for days or exhausting memory. A kernel
// machine's fit takes time in proportion to its Fourier components.
// Kernel ridge decomposes a matrix of (classes x shots)^2 entries: 800 MB
// for 1,000 shots of 10 classes. Every value of a list adds runs.
const (
	MaxOneShotFreq  = 1000
	MaxOneShotShots = 1000
	MaxOneShotList  = 20
)

// checkOneShotLists refuses, before any work, lists of maxfreqs, costs
// and shot counts that are too long, out of range or not finite, under
// either protocol.
func checkOneShotLists(maxFreqs []int, costs []float64, shots []int) error {
	if n := max(len(maxFreqs), len(costs), len(shots)); n > MaxOneShotList {
		return fmt.Errorf("%d values in a list of maxfreqs, costs or shot counts, more than the %d a run may take (its time grows with their number)", n, MaxOneShotList)
	}
	for _, f := range maxFreqs {
		if f < 1 || f > MaxOneShotFreq {
			return fmt.Errorf("maxfreq %d, want 1 to %d (the paper's largest is 20; a fit's time grows with the Fourier components)", f, MaxOneShotFreq)
		}
	}
	for _, v := range costs {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("cost %v, want a finite value >= 0", v)
		}
	}
	for _, s := range shots {
		if s < 1 || s > MaxOneShotShots {
			return fmt.Errorf("shots %d, want 1 to %d training images per class (kernel ridge decomposes a matrix of classes x shots rows and columns)", s, MaxOneShotShots)
		}
	}
	return nil
}

// OneShotReport is the JSON of the oneshot experiment: a run per shot
// count.
type OneShotReport struct {
	Protocol string       `json:"protocol"`
	Runs     []OneShotRun `json:"runs"`
	Seconds  float64      `json:"seconds"`
	Data     string       `json:"data"`
	Figures  []string     `json:"figures"`
}

// OneShotRun is the experiment at one shot count.
type OneShotRun struct {
	// Models are the kernel machine (first) and the baselines, each
	// with the setting it chose on validation per seed and the test
	// accuracy of that setting.
	Models []OneShotModel `json:"models"`
	// BestBaseline is the baseline of the highest mean test accuracy;
	// picking it after the fact can only favour the baselines.
	BestBaseline string `json:"best_baseline"`
	// Comparisons are the kernel machine against each baseline.
	Comparisons []OneShotComparison `json:"comparisons"`
	// Settings are the kernel machine's grid points, with their
	// validation and test accuracy and loss over the seeds: the test
	// figures are drawn, never used to choose.
	Settings []OneShotSetting `json:"settings"`
	Seconds  float64          `json:"seconds"`

	// The set-up common to all models.
	Shots              int      `json:"shots"`
	ValidationPerClass int      `json:"validation_per_class"`
	TestImages         int      `json:"test_images"`
	Seeds              []uint64 `json:"seeds"`
	// The kernel machine's fixed settings: Anchors 0 means the
	// training images themselves.
	Dim         int     `json:"dim"`
	Anchors     int     `json:"anchors"`
	Augmenter   string  `json:"augmenter"`
	Basis       string  `json:"basis"`
	Solver      string  `json:"solver"`
	Iterations  int     `json:"iterations"`
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"`
	Gamma       float64 `json:"gamma"`
	Steps       int     `json:"steps"`
	// CNNHidden is the width of the CNN's hidden layer, which brings its
	// parameter count, CNNParams, nearest the kernel machine's at the
	// largest maxfreq, or the number of classes if that is more.
	CNNHidden int `json:"cnn_hidden"`
	CNNParams int `json:"cnn_params"`
}

// OneShotModel is one model over the seeds: its grid, the setting chosen
// by validation accuracy per seed, and that setting's accuracies.
type OneShotModel struct {
	Name string   `json:"name"`
	Grid []string `json:"grid"`
	// Chosen, ValAccuracies and Accuracies are per seed; the test
	// accuracy is that of the chosen setting.
	Chosen        []string  `json:"chosen"`
	ValAccuracies []float64 `json:"val_accuracies"`
	Accuracies    []float64 `json:"accuracies"`
	AccuracyMean  float64   `json:"accuracy_mean"`
	AccuracyStd   float64   `json:"accuracy_std"`
}

// OneShotComparison is the kernel machine minus one baseline.
type OneShotComparison struct {
	Baseline string `json:"baseline"`
	PairedComparison
}

// OneShotSetting is the kernel machine at one maxfreq and cost over the
// seeds of the shot choice.
type OneShotSetting struct {
	MaxFreq          int       `json:"maxfreq"`
	Cost             float64   `json:"cost"`
	ValAccuracyMean  float64   `json:"val_accuracy_mean"`
	ValAccuracyStd   float64   `json:"val_accuracy_std"`
	ValLossMean      float64   `json:"val_loss_mean"`
	TestAccuracyMean float64   `json:"test_accuracy_mean"`
	TestAccuracyStd  float64   `json:"test_accuracy_std"`
	TestLossMean     float64   `json:"test_loss_mean"`
	ValAccuracies    []float64 `json:"val_accuracies"`
	ValLosses        []float64 `json:"val_losses"`
	TestAccuracies   []float64 `json:"test_accuracies"`
	TestLosses       []float64 `json:"test_losses"`
	Params           int       `json:"params"`
	// Histogram holds the coefficients over training for the first
	// seed, the data of Figure 4b and 4d.
	Histogram []figure.HistogramRow `json:"histogram"`
}

// candidate is one setting of a baseline: fit returns its predictor.
type candidate struct {
	name string
	fit  func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error)
}

// OneShot trains on a few images per class of the IDX data set in
// c.Data, for each shot count of c.Shots, and tests on its whole test
// split (Figure 4): an infinite-depth kernel machine over the paper's
// sweeps of maxfreq and cost, against k-nearest-neighbours, kernel ridge
// regression on one-hot labels, a softmax perceptron and a small CNN,
// each over its own grid. For each seed a separate validation set of
// other training images is drawn; every model picks its setting by
// accuracy there, and only the picked setting's test accuracy enters the
// table. The kernel machine is compared with each baseline by paired
// per-seed differences.
func OneShot(c Config) (*Report, error) {
	start := time.Now()
	if c.Data == "" {
		return nil, errors.New("oneshot needs the directory of an IDX data set (-data DIR)")
	}
	maxFreqs, costs, shotList := c.MaxFreqs, c.Costs, c.Shots
	if maxFreqs == nil {
		maxFreqs = oneShotMaxFreqs
	}
	if costs == nil {
		costs = oneShotCosts
	}
	if shotList == nil {
		shotList = oneShotShots
	}
	if len(maxFreqs) == 0 || len(costs) == 0 || len(shotList) == 0 {
		return nil, errors.New("oneshot needs at least one maxfreq, cost and shot count")
	}
	if err := checkOneShotLists(maxFreqs, costs, shotList); err != nil {
		return nil, err
	}
	if c.Tol < 0 || math.IsNaN(c.Tol) || math.IsInf(c.Tol, 0) {
		return nil, fmt.Errorf("tolerance %v, want a finite value >= 0 (0 for RK4)", c.Tol)
	}
	train, test, err := loadIDXSplits(c.Data)
	if err != nil {
		return nil, err
	}
	// The CNN baseline halves the images twice.
	if train.Rows%4 != 0 || train.Cols%4 != 0 {
		return nil, fmt.Errorf("%dx%d images: the CNN baseline needs sides divisible by 4", train.Rows, train.Cols)
	}
	if train.Classes > oneShotDim {
		return nil, fmt.Errorf("%d classes, more than the state dimension %d", train.Classes, oneShotDim)
	}
	rep := &OneShotReport{Data: c.Data}
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		c.logf(format, args...)
	}
	xt := imageMatrix(test)
	for _, shots := range uniqueSorted(shotList) {
		run, err := oneShotRun(c, train, test, xt, shots, sweepGrid(maxFreqs, costs), logf)
		if err != nil {
			return nil, err
		}
		figs, err := oneShotFigures(c.dir(), run, maxFreqs, costs)
		if err != nil {
			return nil, err
		}
		rep.Figures = append(rep.Figures, figs...)
		rep.Runs = append(rep.Runs, *run)
	}
	rep.Seconds = time.Since(start).Seconds()
	return &Report{Figures: rep.Figures, OneShot: rep}, nil
}

// loadIDXSplits reads the train and t10k splits of the IDX data set in
// dir, which must have images of one size.
func loadIDXSplits(dir string) (train, test *dataset.Images, err error) {
	if dir == "" {
		return nil, nil, errors.New("oneshot needs the directory of an IDX data set (-data DIR)")
	}
	if train, err = dataset.LoadIDX(dir, "train"); err != nil {
		return nil, nil, err
	}
	if test, err = dataset.LoadIDXClasses(dir, "t10k", train.Classes); err != nil {
		return nil, nil, err
	}
	if train.Rows != test.Rows || train.Cols != test.Cols {
		return nil, nil, fmt.Errorf("train images %dx%d, test images %dx%d", train.Rows, train.Cols, test.Rows, test.Cols)
	}
	return train, test, nil
}

// sweepCost returns the cost of the maxfreq sweep: the paper's, if the
// costs have it, else the largest.
func sweepCost(costs []float64) float64 {
	if slices.Contains(costs, oneShotCost) {
		return oneShotCost
	}
	return slices.Max(costs)
}

// sweepGrid returns the kernel machine's grid: every maxfreq at the
// sweep cost, then every other cost at the largest maxfreq.
func sweepGrid(maxFreqs []int, costs []float64) []*OneShotSetting {
	freqs, cs := uniqueSorted(maxFreqs), uniqueSorted(costs)
	sc, top := sweepCost(cs), freqs[len(freqs)-1]
	var out []*OneShotSetting
	for _, f := range freqs {
		out = append(out, &OneShotSetting{MaxFreq: f, Cost: sc})
	}
	for _, v := range cs {
		if v != sc {
			out = append(out, &OneShotSetting{MaxFreq: top, Cost: v})
		}
	}
	return out
}

// oneShotRun is the experiment at one shot count: per seed, the
// baselines and the kernel machine's grid, as jobs on oneShotWorkers.
func oneShotRun(c Config, train, test *dataset.Images, xt *mat.Dense, shots int, settings []*OneShotSetting,
	logf func(string, ...any)) (*OneShotRun, error) {
	start := time.Now()
	t, err := newOneShotTrial(c, train, test, xt, shots, settings, logf)
	if err != nil {
		return nil, err
	}
	jobs, err := t.jobs()
	if err != nil {
		return nil, err
	}
	if err := runJobs(jobs, oneShotWorkers); err != nil {
		return nil, err
	}
	t.collect()
	t.summarise()
	t.run.Seconds = time.Since(start).Seconds()
	return t.run, nil
}

// oneShotTrial is the experiment at one shot count as it runs: its
// set-up, and the results of each seed as its jobs leave them.
type oneShotTrial struct {
	c           Config
	train, test *dataset.Images
	xt          *mat.Dense // the test images
	shots       int
	settings    []*OneShotSetting
	logf        func(string, ...any)

	run             *OneShotRun
	base            infinite.Config // the kernel machine's fixed settings
	val             int             // validation images per class
	nSeeds          int
	iters, mlpIters int
	km              *OneShotModel
	baselines       []*OneShotModel
	// The results of seed k: the baselines' choices, and per grid point
	// the validation and test accuracy and loss.
	bres [][]baselineResult
	kres [][]kmResult
	mu   sync.Mutex // guards the settings
}

// baselineResult is a baseline's grid, choice and accuracies at a seed.
type baselineResult struct {
	grid    []string
	chosen  string
	val, te float64
}

// kmResult is the kernel machine at a grid point and a seed.
type kmResult struct{ val, valLoss, test, testLoss float64 }

// newOneShotTrial sets up the experiment at one shot count: its sizes,
// the kernel machine's fixed settings and the CNN's budget.
func newOneShotTrial(c Config, train, test *dataset.Images, xt *mat.Dense, shots int, settings []*OneShotSetting,
	logf func(string, ...any)) (*oneShotTrial, error) {
	val, err := validationSize(train.Labels, train.Classes, shots, oneShotVal)
	if err != nil {
		return nil, err
	}
	t := &oneShotTrial{c: c, train: train, test: test, xt: xt, shots: shots, settings: settings, logf: logf, val: val}
	t.nSeeds, t.iters, t.mlpIters = oneShotSeeds, oneShotIters, oneShotPerceptronIters
	if shots > 1 {
		t.iters = oneShotItersMore
	}
	if c.Quick {
		t.nSeeds, t.iters, t.mlpIters = oneShotSeedsQuick, oneShotItersQuick, oneShotPerceptronItersQuick
	}
	anchors := 0
	if shots > 1 {
		anchors = oneShotAnchors
	}
	run := &OneShotRun{Shots: shots, ValidationPerClass: val, TestImages: test.N, Dim: oneShotDim, Anchors: anchors,
		Augmenter: "linear", Basis: "cosines", Solver: "RK4", Iterations: t.iters,
		LR: infinite.DefaultLR, WeightDecay: infinite.DefaultWeightDecay, Gamma: infinite.DefaultGamma, Steps: oneShotSteps}
	base := infinite.Config{Dim: oneShotDim, Steps: oneShotSteps, Iterations: t.iters, Anchors: anchors, Sine: c.Sine, Tol: c.Tol}
	if c.Conv {
		base.Augmenter, base.Height, base.Width, base.Channels = infinite.Conv, train.Rows, train.Cols, oneShotChannels
		run.Augmenter = fmt.Sprintf("3x3 convolution, stride 2, %d channels, ReLU, then linear", oneShotChannels)
	}
	if c.Sine {
		run.Basis = "cosines and sines"
	}
	if c.Tol > 0 {
		run.Solver = fmt.Sprintf("adaptive Dormand-Prince, rtol = atol = %g, adjoint gradients", c.Tol)
	}
	// The CNN's budget is the machine's parameter count at the largest
	// maxfreq of the grid, but its hidden layer is at least as wide as
	// the classes, lest it be a bottleneck.
	top := base
	for _, s := range settings {
		top.MaxFreq = max(top.MaxFreq, s.MaxFreq)
	}
	run.CNNHidden = max(train.Classes, baseline.CNNHiddenForParams(train.Rows, train.Cols, train.Classes, oneShotCNNChannels,
		top.NumParams(train.Classes*shots, train.Rows*train.Cols)))
	run.CNNParams = baseline.CNNParams(train.Rows, train.Cols, train.Classes, baseline.CNNSettings{Channels: oneShotCNNChannels, Hidden: run.CNNHidden})
	t.run, t.base = run, base
	t.km = &OneShotModel{Name: "kernel machine"}
	for _, s := range settings {
		t.km.Grid = append(t.km.Grid, settingName(s))
	}
	t.baselines = []*OneShotModel{{Name: "k-nearest-neighbour"}, {Name: "kernel ridge"}, {Name: "softmax perceptron"}, {Name: "CNN"}}
	return t, nil
}

// jobs draws the shots and validation images of each seed and returns
// the fits: per seed, each baseline over its grid and the kernel machine
// at each grid point.
func (t *oneShotTrial) jobs() ([]func() error, error) {
	train := t.train
	t.bres = make([][]baselineResult, t.nSeeds)
	t.kres = make([][]kmResult, t.nSeeds)
	var jobs []func() error
	for k := range t.nSeeds {
		seed := t.c.Seed + uint64(k)
		t.run.Seeds = append(t.run.Seeds, seed)
		shotIdx, valIdx, err := drawShots(train.Labels, train.Classes, t.shots, t.val, rand.New(rand.NewPCG(seed, 0x6f6e6573686f74)))
		if err != nil {
			return nil, err
		}
		sub, vsub := train.Subset(shotIdx), train.Subset(valIdx)
		x, xv := imageMatrix(sub), imageMatrix(vsub)
		t.bres[k] = make([]baselineResult, len(t.baselines))
		t.kres[k] = make([]kmResult, len(t.settings))
		for i, grid := range baselineGrids(x, train.Rows, train.Cols, train.Classes, t.run.CNNHidden, seed, t.mlpIters) {
			jobs = append(jobs, func() error { return t.fitBaseline(k, i, seed, grid, x, xv, sub, vsub) })
		}
		for i, s := range t.settings {
			jobs = append(jobs, func() error { return t.fitMachine(k, i, seed, s, x, xv, sub, vsub) })
		}
	}
	return jobs, nil
}

// fitBaseline fits baseline i at seed k (the seed-th) over its grid on
// the shots x, keeps the setting of the highest validation accuracy on
// xv and tests it.
func (t *oneShotTrial) fitBaseline(k, i int, seed uint64, grid []candidate, x, xv *mat.Dense, sub, vsub *dataset.Images) error {
	t0 := time.Now()
	r := baselineResult{val: -1}
	var best func(*mat.Dense) []int
	for _, g := range grid {
		r.grid = append(r.grid, g.name)
		predict, err := g.fit(x, sub.Labels)
		if err != nil {
			return fmt.Errorf("%d-shot %s %s seed %d: %w", t.shots, t.baselines[i].Name, g.name, seed, err)
		}
		// The first of equally good settings in grid order
		// wins: the grids run from the simplest model up.
		if acc := accuracy(predict(xv), vsub.Labels); acc > r.val {
			r.val, r.chosen, best = acc, g.name, predict
		}
	}
	r.te = accuracy(best(t.xt), t.test.Labels)
	t.bres[k][i] = r
	t.logf("oneshot: %d-shot seed %d: %s chose %s (validation %.4f): test accuracy %.4f (%.1fs)",
		t.shots, seed, t.baselines[i].Name, r.chosen, r.val, r.te, time.Since(t0).Seconds())
	return nil
}

// fitMachine trains the kernel machine at grid point i, s, at seed k
// (the seed-th) on the shots x and measures it on the validation images
// xv and the test images; the first seed's coefficients over training
// are kept for the histograms.
func (t *oneShotTrial) fitMachine(k, i int, seed uint64, s *OneShotSetting, x, xv *mat.Dense, sub, vsub *dataset.Images) error {
	t0 := time.Now()
	cfg := t.base
	cfg.MaxFreq, cfg.Cost, cfg.Seed = s.MaxFreq, s.Cost, seed
	var hist []figure.HistogramRow
	if k == 0 {
		every := max(t.iters/(oneShotSnapshots-1), 1)
		cfg.Observe = func(it int, _ float64, coef []float64) {
			if it%every == 0 {
				hist = append(hist, figure.HistogramRow{Y: float64(it), Values: slices.Clone(coef)})
			}
		}
	}
	cl, err := infinite.Fit(x, sub.Labels, t.train.Classes, cfg)
	if err != nil {
		return fmt.Errorf("%d-shot maxfreq %d cost %g seed %d: %w", t.shots, s.MaxFreq, s.Cost, seed, err)
	}
	var r kmResult
	if r.val, r.valLoss, err = cl.Evaluate(xv, vsub.Labels); err == nil {
		r.test, r.testLoss, err = cl.Evaluate(t.xt, t.test.Labels)
	}
	if err != nil {
		return fmt.Errorf("%d-shot maxfreq %d cost %g seed %d: %w", t.shots, s.MaxFreq, s.Cost, seed, err)
	}
	t.kres[k][i] = r
	t.mu.Lock()
	s.Params = cl.Params.Len()
	if k == 0 {
		s.Histogram = hist
	}
	t.mu.Unlock()
	t.logf("oneshot: %d-shot seed %d: kernel machine %s: validation accuracy %.4f loss %.4f (%.1fs)",
		t.shots, seed, settingName(s), r.val, r.valLoss, time.Since(t0).Seconds())
	return nil
}

// collect gathers the results of each seed into the models and the grid
// points: each baseline's choice, and the kernel machine's, the grid
// point of the highest validation accuracy, then the lower validation
// loss, then the earlier grid point.
func (t *oneShotTrial) collect() {
	km := t.km
	for k := range t.nSeeds {
		for i, b := range t.baselines {
			r := t.bres[k][i]
			if k == 0 {
				b.Grid = r.grid
			}
			b.Chosen, b.ValAccuracies, b.Accuracies = append(b.Chosen, r.chosen), append(b.ValAccuracies, r.val), append(b.Accuracies, r.te)
		}
		best := 0
		for i, r := range t.kres[k] {
			if b := t.kres[k][best]; r.val > b.val || (r.val == b.val && r.valLoss < b.valLoss) {
				best = i
			}
		}
		r := t.kres[k][best]
		km.Chosen = append(km.Chosen, settingName(t.settings[best]))
		km.ValAccuracies, km.Accuracies = append(km.ValAccuracies, r.val), append(km.Accuracies, r.test)
		t.logf("oneshot: %d-shot seed %d: kernel machine chose %s: test accuracy %.4f", t.shots, t.run.Seeds[k], km.Chosen[k], r.test)
		for i, s := range t.settings {
			r := t.kres[k][i]
			s.ValAccuracies, s.ValLosses = append(s.ValAccuracies, r.val), append(s.ValLosses, r.valLoss)
			s.TestAccuracies, s.TestLosses = append(s.TestAccuracies, r.test), append(s.TestLosses, r.testLoss)
		}
	}
}

// summarise puts the grid points and the models, with their means and
// standard deviations over the seeds, into the run, with the kernel
// machine's paired comparison with each baseline and the best baseline.
func (t *oneShotTrial) summarise() {
	run, baselines := t.run, t.baselines
	for _, s := range t.settings {
		s.ValAccuracyMean, s.ValAccuracyStd = meanStd(s.ValAccuracies)
		s.ValLossMean, _ = meanStd(s.ValLosses)
		s.TestAccuracyMean, s.TestAccuracyStd = meanStd(s.TestAccuracies)
		s.TestLossMean, _ = meanStd(s.TestLosses)
		run.Settings = append(run.Settings, *s)
	}
	for _, m := range append([]*OneShotModel{t.km}, baselines...) {
		m.AccuracyMean, m.AccuracyStd = meanStd(m.Accuracies)
		run.Models = append(run.Models, *m)
	}
	best := 0
	for i, b := range baselines {
		if b.AccuracyMean > baselines[best].AccuracyMean {
			best = i
		}
		run.Comparisons = append(run.Comparisons, OneShotComparison{Baseline: b.Name, PairedComparison: comparePaired(t.km.Accuracies, b.Accuracies, oneShotLevel)})
	}
	run.BestBaseline = baselines[best].Name
}

// runJobs runs the jobs on the given number of workers of the module's
// pool, which stops at the first failure and returns it.
func runJobs(jobs []func() error, workers int) error {
	return parallel.Run(len(jobs), workers, func(i int) error { return jobs[i]() })
}

func settingName(s *OneShotSetting) string {
	return fmt.Sprintf("maxfreq %d cost %g", s.MaxFreq, s.Cost)
}

func uniqueSorted[T int | float64](v []T) []T {
	v = slices.Clone(v)
	slices.Sort(v)
	return slices.Compact(v)
}

// validationSize returns the validation images per class: want, or
// fewer if some class has fewer images to spare beyond its shots, but at
// least one.
func validationSize(labels []int, classes, shots, want int) (int, error) {
	count := make([]int, classes)
	for _, l := range labels {
		count[l]++
	}
	val := want
	for cl, n := range count {
		if n-shots < 1 {
			return 0, fmt.Errorf("class %d has %d training images, too few for %d shots and a validation image", cl, n, shots)
		}
		val = min(val, n-shots)
	}
	return val, nil
}

// drawShots draws, for each class, shots training images and val other
// validation images, both sorted by class then index.
func drawShots(labels []int, classes, shots, val int, rnd *rand.Rand) (shotIdx, valIdx []int, err error) {
	byClass := make([][]int, classes)
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	for cl, idx := range byClass {
		if len(idx) < shots+val {
			return nil, nil, fmt.Errorf("class %d has %d training images, want %d shots and %d for validation", cl, len(idx), shots, val)
		}
		perm := rnd.Perm(len(idx))
		for _, p := range perm[:shots] {
			shotIdx = append(shotIdx, idx[p])
		}
		for _, p := range perm[shots : shots+val] {
			valIdx = append(valIdx, idx[p])
		}
	}
	return shotIdx, valIdx, nil
}

// baselineGrids returns the candidate settings of the baselines, in the
// order of OneShot's baselines, for the training images x, the CNN's
// hidden layer being cnnHidden wide.
func baselineGrids(x *mat.Dense, rows, cols, classes, cnnHidden int, seed uint64, mlpIters int) [][]candidate {
	n, _ := x.Dims()
	var knn []candidate
	for _, std := range []bool{false, true} {
		for _, k := range []int{1, 3, 5} {
			if k > n {
				continue
			}
			name := fmt.Sprintf("k %d raw pixels", k)
			if std {
				name = fmt.Sprintf("k %d standardised pixels", k)
			}
			knn = append(knn, candidate{name, func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error) {
				m := &baseline.NearestNeighbours{K: k, Standardize: std}
				if err := m.Fit(x, labels); err != nil {
					return nil, err
				}
				return m.Predict, nil
			}})
		}
	}
	// The kernel widths are multiples of the median distance between
	// the training images, the scale the penalty is relative to.
	med := medianDistance(x)
	var ridge []candidate
	for _, f := range []float64{0.25, 0.5, 1, 2, 4, 8} {
		for _, lambda := range []float64{1e-6, 1e-4, 1e-2, 1, 100, 1e4} {
			ridge = append(ridge, candidate{fmt.Sprintf("sigma %g×median lambda %g", f, lambda), func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error) {
				m := &baseline.KernelRidge{Settings: baseline.RidgeSettings{Sigma: f * med, Lambda: lambda}}
				if err := m.Fit(x, oneHot(labels, classes)); err != nil {
					return nil, err
				}
				return func(x *mat.Dense) []int { return argmaxRows(m.Predict(nil, x)) }, nil
			}})
		}
	}
	var mlp []candidate
	for _, hidden := range [][]int{nil, {32}} {
		for _, wd := range []float64{1e-4, 1e-3, 1e-2, 1e-1} {
			name := fmt.Sprintf("linear softmax weight decay %g", wd)
			if hidden != nil {
				name = fmt.Sprintf("%d ReLU units weight decay %g", hidden[0], wd)
			}
			mlp = append(mlp, candidate{name, func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error) {
				p, _, err := baseline.FitSoftmaxPerceptron(x, labels, classes, baseline.PerceptronSettings{
					Hidden: hidden, Activation: baseline.ReLU, WeightDecay: wd, Seed: seed, MaxIter: mlpIters})
				if err != nil {
					return nil, err
				}
				return func(x *mat.Dense) []int { return p.Classify(x) }, nil
			}})
		}
	}
	var cnn []candidate
	for _, wd := range []float64{1e-4, 1e-3, 1e-2, 1e-1} {
		cnn = append(cnn, candidate{fmt.Sprintf("weight decay %g", wd), func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error) {
			m, _, err := baseline.FitCNN(x, rows, cols, labels, classes, baseline.CNNSettings{
				Channels: oneShotCNNChannels, Hidden: cnnHidden, WeightDecay: wd, Seed: seed, MaxIter: mlpIters})
			if err != nil {
				return nil, err
			}
			return func(x *mat.Dense) []int { return m.Classify(x) }, nil
		}})
	}
	return [][]candidate{knn, ridge, mlp, cnn}
}

// medianDistance returns the median Euclidean distance between distinct
// rows of x, or 1 if there are fewer than two.
func medianDistance(x *mat.Dense) float64 {
	n, _ := x.Dims()
	var d []float64
	for i := range n {
		for j := range i {
			var s float64
			for k, v := range x.RawRowView(i) {
				e := v - x.RawRowView(j)[k]
				s += e * e
			}
			d = append(d, math.Sqrt(s))
		}
	}
	if len(d) == 0 {
		return 1
	}
	sort.Float64s(d)
	return stat.Quantile(0.5, stat.Empirical, d, nil)
}

// imageMatrix returns the images as rows of pixels in [0, 1].
func imageMatrix(im *dataset.Images) *mat.Dense {
	x := mat.NewDense(im.N, im.Rows*im.Cols, nil)
	for i := range im.N {
		im.Image(x.RawRowView(i), i)
	}
	return x
}

func accuracy(pred, labels []int) float64 {
	n := 0
	for i, p := range pred {
		if p == labels[i] {
			n++
		}
	}
	return float64(n) / float64(len(labels))
}

// meanStd returns the mean and the sample standard deviation (0 for one
// value).
func meanStd(v []float64) (mean, std float64) {
	if len(v) < 2 {
		return stat.Mean(v, nil), 0
	}
	return stat.MeanStdDev(v, nil)
}

func oneHot(labels []int, classes int) *mat.Dense {
	y := mat.NewDense(len(labels), classes, nil)
	for i, l := range labels {
		y.Set(i, l, 1)
	}
	return y
}

// argmaxRows returns the index of the largest entry of each row.
func argmaxRows(scores *mat.Dense) []int {
	r, _ := scores.Dims()
	out := make([]int, r)
	for i := range out {
		out[i] = floats.MaxIdx(scores.RawRowView(i))
	}
	return out
}

// oneShotFigures draws Figure 4 for one run: the kernel machine's
// accuracy (test and validation, mean and ± std over the seeds) and test
// loss against maxfreq (a) and cost (c), with a band across for each
// baseline, the mean ± std of the test accuracy of its setting chosen
// on validation; and the coefficients over training (b, d). The test
// accuracies of the grid are drawn for the figure only: each seed's
// choice was made on validation.
func oneShotFigures(dir string, run *OneShotRun, maxFreqs []int, costs []float64) ([]string, error) {
	sweeps := oneShotSweeps(run, maxFreqs, costs)
	var out []string
	for _, p := range sweeps {
		acc, loss := oneShotSweepCharts(run, p)
		paths, err := figure.Panels(filepath.Join(dir, p.name), figure.Layout{Cols: 2, Width: 520, Height: 380}, acc, loss)
		if err != nil {
			return nil, err
		}
		out = append(out, paths...)
	}
	suffix := fmt.Sprintf("-%dshot", run.Shots)
	for _, p := range []struct {
		name   string
		ss     []*OneShotSetting
		titles func(s *OneShotSetting) string
	}{
		{"oneshot-4b" + suffix, sweeps[0].ss, func(s *OneShotSetting) string { return fmt.Sprintf("maxfreq %d", s.MaxFreq) }},
		{"oneshot-4d" + suffix, sweeps[1].ss, func(s *OneShotSetting) string { return fmt.Sprintf("cost %g", s.Cost) }},
	} {
		var hs []figure.Histogram
		for _, s := range p.ss {
			hs = append(hs, figure.Histogram{Title: "c_jk, " + p.titles(s), XLabel: "c_jk", YLabel: "iteration", Bins: 40, Rows: s.Histogram})
		}
		paths, err := figure.Histograms(filepath.Join(dir, p.name), figure.Layout{Cols: min(len(hs), 5), Width: 260, Height: 260}, hs...)
		if err != nil {
			return nil, err
		}
		out = append(out, paths...)
	}
	return out, nil
}

// oneShotSweep is a sweep of Figure 4's kernel machine: its grid points
// and where they are drawn.
type oneShotSweep struct {
	name, title, xlabel string
	x                   []float64
	ss                  []*OneShotSetting
}

// oneShotSweeps returns the run's sweeps over maxfreq (4a) and over cost
// (4c).
func oneShotSweeps(run *OneShotRun, maxFreqs []int, costs []float64) [2]oneShotSweep {
	find := func(f int, cost float64) *OneShotSetting {
		for i := range run.Settings {
			if s := &run.Settings[i]; s.MaxFreq == f && s.Cost == cost {
				return s
			}
		}
		return nil
	}
	freqs, cs := uniqueSorted(maxFreqs), uniqueSorted(costs)
	fixedFreq, sc := freqs[len(freqs)-1], sweepCost(cs)
	var bySweepF, bySweepC []*OneShotSetting
	for _, f := range freqs {
		bySweepF = append(bySweepF, find(f, sc))
	}
	for _, v := range cs {
		bySweepC = append(bySweepC, find(fixedFreq, v))
	}
	xf := make([]float64, len(freqs))
	for i, f := range freqs {
		xf[i] = float64(f)
	}
	// Cost 0 has no logarithm: it is drawn one decade below the smallest
	// positive cost.
	xc := make([]float64, len(cs))
	low := 1e-4
	for _, v := range cs {
		if v > 0 {
			low = v / 10
			break
		}
	}
	for i, v := range cs {
		xc[i] = math.Log10(max(v, low))
	}
	suffix := fmt.Sprintf("-%dshot", run.Shots)
	return [2]oneShotSweep{
		{"oneshot-4a" + suffix, fmt.Sprintf("%d-shot, cost %g", run.Shots, sc), "Fourier components (maxfreq)", xf, bySweepF},
		{"oneshot-4c" + suffix, fmt.Sprintf("%d-shot, maxfreq %d", run.Shots, fixedFreq), fmt.Sprintf("log10 cost (cost 0 at %g)", math.Log10(low)), xc, bySweepC},
	}
}

// oneShotSweepCharts returns the accuracy and the test loss charts of a
// sweep.
func oneShotSweepCharts(run *OneShotRun, p oneShotSweep) (acc, loss figure.Chart) {
	grey := color.Gray{Y: 150}
	acc = figure.Chart{Title: "accuracy, " + p.title, XLabel: p.xlabel, YLabel: "accuracy", Legend: figure.BottomRight}
	loss = figure.Chart{Title: "test loss, " + p.title, XLabel: p.xlabel, YLabel: "cross-entropy", Legend: figure.TopRight}
	n := len(p.ss)
	mean, lo, hi, val, lm := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range p.ss {
		mean[i], lo[i], hi[i] = s.TestAccuracyMean, s.TestAccuracyMean-s.TestAccuracyStd, s.TestAccuracyMean+s.TestAccuracyStd
		val[i], lm[i] = s.ValAccuracyMean, s.TestLossMean
	}
	single := n == 1
	acc.Series = append(acc.Series,
		figure.Series{Name: "kernel machine, test", X: p.x, Y: mean, Points: single, Color: color.Black},
		figure.Series{Name: "± std over seeds", X: p.x, Y: lo, Dashed: true, Color: grey, Points: single},
		figure.Series{X: p.x, Y: hi, Dashed: true, Color: grey, Points: single},
		figure.Series{Name: "kernel machine, validation", X: p.x, Y: val, Dashed: true, Color: color.Black, Points: single})
	ends := []float64{p.x[0], p.x[n-1]}
	if single {
		ends = []float64{p.x[0] - 1, p.x[0] + 1}
	}
	for i, b := range run.Models[1:] {
		col := plotutil.Color(i + 1)
		acc.Series = append(acc.Series,
			figure.Series{Name: b.Name + " (test, ± std)", X: ends, Y: []float64{b.AccuracyMean, b.AccuracyMean}, Color: col},
			figure.Series{X: ends, Y: []float64{b.AccuracyMean - b.AccuracyStd, b.AccuracyMean - b.AccuracyStd}, Dashed: true, Color: col},
			figure.Series{X: ends, Y: []float64{b.AccuracyMean + b.AccuracyStd, b.AccuracyMean + b.AccuracyStd}, Dashed: true, Color: col})
	}
	loss.Series = append(loss.Series, figure.Series{Name: "kernel machine", X: p.x, Y: lm, Points: single})
	return acc, loss
}
