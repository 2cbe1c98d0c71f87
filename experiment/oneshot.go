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

	"github.com/parametric-machines/machines/baseline"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/figure"
	"github.com/parametric-machines/machines/kernel/infinite"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// The oneshot settings: the paper's sweeps, whose product is the kernel
// machine's grid, and the run sizes chosen to fit the whole 1-shot
// experiment in under ten minutes on two cores.
var (
	oneShotMaxFreqs = []int{2, 5, 10, 20}
	oneShotCosts    = []float64{0, 0.001, 0.01, 0.1, 1}
)

const (
	// oneShotCost is the cost of the maxfreq sweep figure (the paper's
	// 0.1); the cost sweep figure uses the largest maxfreq.
	oneShotCost = 0.1
	// oneShotDim is the state dimension of the kernel machine.
	oneShotDim = 32
	// Seeds of the shot choice and Adam steps, full and quick. Ten seeds
	// are the fewest that give the paired t interval and the sign test
	// some power.
	oneShotSeeds, oneShotSeedsQuick = 10, 2
	oneShotIters, oneShotItersQuick = 200, 30
	// oneShotPerceptronIters are the L-BFGS iterations of the perceptron
	// baseline, full and quick.
	oneShotPerceptronIters, oneShotPerceptronItersQuick = 200, 50
	// oneShotVal is the number of validation images per class, drawn
	// from the training images that are not shots.
	oneShotVal = 10
	// oneShotLevel is the confidence level of the paired intervals.
	oneShotLevel = 0.95
	// oneShotSnapshots is the number of rows of a coefficient histogram.
	oneShotSnapshots = 11
	// oneShotWorkers is the number of kernel machines trained at once:
	// Train uses one core.
	oneShotWorkers = 2
)

// OneShotReport is the JSON of the oneshot experiment.
type OneShotReport struct {
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
	// validation accuracy and loss over the seeds.
	Settings []OneShotSetting `json:"settings"`
	Seconds  float64          `json:"seconds"`

	// The set-up common to all models.
	Data               string   `json:"data"`
	Shots              int      `json:"shots"`
	ValidationPerClass int      `json:"validation_per_class"`
	TestImages         int      `json:"test_images"`
	Seeds              []uint64 `json:"seeds"`
	Dim                int      `json:"dim"`
	Iterations         int      `json:"iterations"`
	LR                 float64  `json:"lr"`
	WeightDecay        float64  `json:"weight_decay"`
	Gamma              float64  `json:"gamma"`
	Steps              int      `json:"steps"`
	Figures            []string `json:"figures"`
}

// OneShotModel is one model over the seeds: its grid, the setting chosen
// by validation accuracy per seed, and that setting's accuracies.
type OneShotModel struct {
	Name string   `json:"name"`
	Grid []string `json:"grid"`
	// Chosen, ValAccuracies and Accuracies are per seed; the test
	// accuracy is measured only for the chosen setting.
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

// OneShotSetting is the kernel machine at one maxfreq and cost, on the
// validation images, over the seeds of the shot choice.
type OneShotSetting struct {
	MaxFreq         int       `json:"maxfreq"`
	Cost            float64   `json:"cost"`
	ValAccuracyMean float64   `json:"val_accuracy_mean"`
	ValAccuracyStd  float64   `json:"val_accuracy_std"`
	ValLossMean     float64   `json:"val_loss_mean"`
	ValAccuracies   []float64 `json:"val_accuracies"`
	ValLosses       []float64 `json:"val_losses"`
	Params          int       `json:"params"`
	// snapshots are the coefficients over training for the first seed.
	snapshots []figure.HistogramRow
}

// candidate is one setting of a baseline: fit returns its predictor.
type candidate struct {
	name string
	fit  func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error)
}

// OneShot trains on c.Shots images per class (default 1) of the IDX data
// set in c.Data and tests on its whole test split (Figure 4): an
// infinite-depth kernel machine over a grid of maxfreq and cost, against
// k-nearest-neighbours, kernel ridge regression on one-hot labels, a
// softmax perceptron and a small CNN, each over its own grid. For each
// seed a separate validation set of other training images is drawn;
// every model picks its setting by accuracy there, and only the picked
// setting meets the test set. The kernel machine is compared with each
// baseline by paired per-seed differences.
func OneShot(c Config) (*Report, error) {
	start := time.Now()
	if c.Data == "" {
		return nil, errors.New("oneshot needs the directory of an IDX data set (-data DIR)")
	}
	maxFreqs, costs := c.MaxFreqs, c.Costs
	if maxFreqs == nil {
		maxFreqs = oneShotMaxFreqs
	}
	if costs == nil {
		costs = oneShotCosts
	}
	if len(maxFreqs) == 0 || len(costs) == 0 {
		return nil, errors.New("oneshot needs at least one maxfreq and one cost")
	}
	for _, f := range maxFreqs {
		if f < 1 {
			return nil, fmt.Errorf("maxfreq %d, want at least 1", f)
		}
	}
	for _, v := range costs {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("cost %v, want a finite value >= 0", v)
		}
	}
	shots := c.Shots
	if shots == 0 {
		shots = 1
	}
	if shots < 0 {
		return nil, fmt.Errorf("shots %d, want at least 1", shots)
	}
	train, err := dataset.LoadIDX(c.Data, "train")
	if err != nil {
		return nil, err
	}
	test, err := dataset.LoadIDXClasses(c.Data, "t10k", train.Classes)
	if err != nil {
		return nil, err
	}
	if train.Rows != test.Rows || train.Cols != test.Cols {
		return nil, fmt.Errorf("train images %dx%d, test images %dx%d", train.Rows, train.Cols, test.Rows, test.Cols)
	}
	// The CNN baseline halves the images twice.
	if train.Rows%4 != 0 || train.Cols%4 != 0 {
		return nil, fmt.Errorf("%dx%d images: the CNN baseline needs sides divisible by 4", train.Rows, train.Cols)
	}
	if train.Classes > oneShotDim {
		return nil, fmt.Errorf("%d classes, more than the state dimension %d", train.Classes, oneShotDim)
	}
	val, err := validationSize(train.Labels, train.Classes, shots, oneShotVal)
	if err != nil {
		return nil, err
	}
	xt := imageMatrix(test)
	nSeeds, iters, mlpIters := oneShotSeeds, oneShotIters, oneShotPerceptronIters
	if c.Quick {
		nSeeds, iters, mlpIters = oneShotSeedsQuick, oneShotItersQuick, oneShotPerceptronItersQuick
	}
	rep := &OneShotReport{Data: c.Data, Shots: shots, ValidationPerClass: val, TestImages: test.N, Dim: oneShotDim, Iterations: iters,
		LR: infinite.DefaultLR, WeightDecay: infinite.DefaultWeightDecay, Gamma: infinite.DefaultGamma, Steps: infinite.DefaultSteps}

	var settings []*OneShotSetting
	for _, f := range uniqueSorted(maxFreqs) {
		for _, v := range uniqueSorted(costs) {
			settings = append(settings, &OneShotSetting{MaxFreq: f, Cost: v})
		}
	}
	km := &OneShotModel{Name: "kernel machine"}
	for _, s := range settings {
		km.Grid = append(km.Grid, settingName(s))
	}
	baselines := []*OneShotModel{{Name: "k-nearest-neighbour"}, {Name: "kernel ridge"}, {Name: "softmax perceptron"}, {Name: "CNN"}}

	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		c.logf(format, args...)
	}
	for k := range nSeeds {
		seed := c.Seed + uint64(k)
		rep.Seeds = append(rep.Seeds, seed)
		shotIdx, valIdx, err := drawShots(train.Labels, train.Classes, shots, val, rand.New(rand.NewPCG(seed, 0x6f6e6573686f74)))
		if err != nil {
			return nil, err
		}
		sub, vsub := train.Subset(shotIdx), train.Subset(valIdx)
		x, xv := imageMatrix(sub), imageMatrix(vsub)

		for i, grid := range baselineGrids(x, train.Rows, train.Cols, train.Classes, seed, mlpIters) {
			b := baselines[i]
			t0 := time.Now()
			if k == 0 {
				for _, g := range grid {
					b.Grid = append(b.Grid, g.name)
				}
			}
			bestAcc, bestName := -1.0, ""
			var best func(*mat.Dense) []int
			for _, g := range grid {
				predict, err := g.fit(x, sub.Labels)
				if err != nil {
					return nil, fmt.Errorf("%s %s seed %d: %w", b.Name, g.name, seed, err)
				}
				// The first of equally good settings in grid order wins:
				// the grids run from the simplest model up.
				if acc := accuracy(predict(xv), vsub.Labels); acc > bestAcc {
					bestAcc, bestName, best = acc, g.name, predict
				}
			}
			acc := accuracy(best(xt), test.Labels)
			b.Chosen, b.ValAccuracies, b.Accuracies = append(b.Chosen, bestName), append(b.ValAccuracies, bestAcc), append(b.Accuracies, acc)
			logf("oneshot: seed %d: %s chose %s (validation %.4f): test accuracy %.4f (%.1fs)", seed, b.Name, bestName, bestAcc, acc, time.Since(t0).Seconds())
		}

		cls := make([]*infinite.Classifier, len(settings))
		errs := make([]error, len(settings))
		sem := make(chan struct{}, oneShotWorkers)
		var wg sync.WaitGroup
		for i, s := range settings {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				t0 := time.Now()
				cfg := infinite.Config{Dim: oneShotDim, MaxFreq: s.MaxFreq, Cost: s.Cost, Iterations: iters, Seed: seed}
				if k == 0 {
					every := max(iters/(oneShotSnapshots-1), 1)
					cfg.Observe = func(it int, _ float64, coef []float64) {
						if it%every == 0 {
							s.snapshots = append(s.snapshots, figure.HistogramRow{Y: float64(it), Values: slices.Clone(coef)})
						}
					}
				}
				cl, err := infinite.Train(x, sub.Labels, train.Classes, cfg)
				if err != nil {
					errs[i] = fmt.Errorf("maxfreq %d cost %g seed %d: %w", s.MaxFreq, s.Cost, seed, err)
					return
				}
				acc, loss, err := cl.Evaluate(xv, vsub.Labels)
				if err != nil {
					errs[i] = fmt.Errorf("maxfreq %d cost %g seed %d: %w", s.MaxFreq, s.Cost, seed, err)
					return
				}
				cls[i] = cl
				s.Params = cl.Params.Len()
				s.ValAccuracies = append(s.ValAccuracies, acc)
				s.ValLosses = append(s.ValLosses, loss)
				logf("oneshot: seed %d: kernel machine %s: validation accuracy %.4f loss %.4f (%.1fs)",
					seed, settingName(s), acc, loss, time.Since(t0).Seconds())
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		// The highest validation accuracy wins, then the lower
		// validation loss, then the earlier grid point.
		b := 0
		for i, s := range settings {
			last := len(s.ValAccuracies) - 1
			bs := settings[b]
			if a, ba := s.ValAccuracies[last], bs.ValAccuracies[last]; a > ba || (a == ba && s.ValLosses[last] < bs.ValLosses[last]) {
				b = i
			}
		}
		pred, err := cls[b].Predict(xt)
		if err != nil {
			return nil, err
		}
		acc := accuracy(pred, test.Labels)
		km.Chosen = append(km.Chosen, settingName(settings[b]))
		km.ValAccuracies = append(km.ValAccuracies, settings[b].ValAccuracies[len(settings[b].ValAccuracies)-1])
		km.Accuracies = append(km.Accuracies, acc)
		logf("oneshot: seed %d: kernel machine chose %s: test accuracy %.4f", seed, km.Chosen[k], acc)
	}
	for _, s := range settings {
		s.ValAccuracyMean, s.ValAccuracyStd = meanStd(s.ValAccuracies)
		s.ValLossMean, _ = meanStd(s.ValLosses)
		rep.Settings = append(rep.Settings, *s)
	}
	best := 0
	for _, m := range append([]*OneShotModel{km}, baselines...) {
		m.AccuracyMean, m.AccuracyStd = meanStd(m.Accuracies)
		rep.Models = append(rep.Models, *m)
	}
	for i, b := range baselines {
		if b.AccuracyMean > baselines[best].AccuracyMean {
			best = i
		}
		rep.Comparisons = append(rep.Comparisons, OneShotComparison{Baseline: b.Name, PairedComparison: comparePaired(km.Accuracies, b.Accuracies, oneShotLevel)})
	}
	rep.BestBaseline = baselines[best].Name
	figs, err := oneShotFigures(c.dir(), settings, maxFreqs, costs)
	if err != nil {
		return nil, err
	}
	rep.Figures = figs
	rep.Seconds = time.Since(start).Seconds()
	return &Report{Figures: figs, OneShot: rep}, nil
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
// order of OneShot's baselines, for the training images x.
func baselineGrids(x *mat.Dense, rows, cols, classes int, seed uint64, mlpIters int) [][]candidate {
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
	// The CNN has about the kernel machine's parameter count (25,084
	// against 25,760 on 28x28 images): two convolution blocks of 8 and
	// 16 channels and a hidden layer of 30 units.
	var cnn []candidate
	for _, wd := range []float64{1e-4, 1e-3, 1e-2, 1e-1} {
		cnn = append(cnn, candidate{fmt.Sprintf("weight decay %g", wd), func(x *mat.Dense, labels []int) (func(*mat.Dense) []int, error) {
			m, _, err := baseline.FitCNN(x, rows, cols, labels, classes, baseline.CNNSettings{
				Channels: []int{8, 16}, Hidden: 30, WeightDecay: wd, Seed: seed, MaxIter: mlpIters})
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

// oneShotFigures draws Figure 4 as the grid shows it on validation:
// accuracy and loss against maxfreq (a) and cost (c), and the
// coefficients over training (b, d). The test set never enters it.
func oneShotFigures(dir string, settings []*OneShotSetting, maxFreqs []int, costs []float64) ([]string, error) {
	find := func(f int, cost float64) *OneShotSetting {
		for _, s := range settings {
			if s.MaxFreq == f && s.Cost == cost {
				return s
			}
		}
		return nil
	}
	freqs, cs := uniqueSorted(maxFreqs), uniqueSorted(costs)
	fixedFreq := freqs[len(freqs)-1]
	// The maxfreq sweep is at the paper's cost if the grid has it, else
	// at the grid's largest cost.
	sweepCost := cs[len(cs)-1]
	if slices.Contains(cs, oneShotCost) {
		sweepCost = oneShotCost
	}
	var bySweepF, bySweepC []*OneShotSetting
	for _, f := range freqs {
		bySweepF = append(bySweepF, find(f, sweepCost))
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
	band := color.Gray{Y: 150}
	var out []string
	for _, p := range []struct {
		name, title, xlabel string
		x                   []float64
		ss                  []*OneShotSetting
	}{
		{"oneshot-4a", fmt.Sprintf("cost %g", sweepCost), "Fourier components (maxfreq)", xf, bySweepF},
		{"oneshot-4c", fmt.Sprintf("maxfreq %d", fixedFreq), fmt.Sprintf("log10 cost (cost 0 at %g)", math.Log10(low)), xc, bySweepC},
	} {
		acc := figure.Chart{Title: "validation accuracy, " + p.title, XLabel: p.xlabel, YLabel: "accuracy", Legend: figure.BottomRight}
		loss := figure.Chart{Title: "validation loss, " + p.title, XLabel: p.xlabel, YLabel: "cross-entropy", Legend: figure.TopRight}
		mean, lo, hi, lm := make([]float64, len(p.ss)), make([]float64, len(p.ss)), make([]float64, len(p.ss)), make([]float64, len(p.ss))
		for i, s := range p.ss {
			mean[i], lo[i], hi[i], lm[i] = s.ValAccuracyMean, s.ValAccuracyMean-s.ValAccuracyStd, s.ValAccuracyMean+s.ValAccuracyStd, s.ValLossMean
		}
		acc.Series = append(acc.Series,
			figure.Series{Name: "kernel machine", X: p.x, Y: mean, Points: len(p.x) == 1},
			figure.Series{Name: "kernel machine ± std over seeds", X: p.x, Y: lo, Dashed: true, Color: band},
			figure.Series{X: p.x, Y: hi, Dashed: true, Color: band})
		loss.Series = append(loss.Series, figure.Series{Name: "kernel machine", X: p.x, Y: lm, Points: len(p.x) == 1})
		paths, err := figure.Panels(filepath.Join(dir, p.name), figure.Layout{Cols: 2, Width: 420, Height: 300}, acc, loss)
		if err != nil {
			return nil, err
		}
		out = append(out, paths...)
	}
	for _, p := range []struct {
		name   string
		ss     []*OneShotSetting
		titles func(s *OneShotSetting) string
	}{
		{"oneshot-4b", bySweepF, func(s *OneShotSetting) string { return fmt.Sprintf("maxfreq %d", s.MaxFreq) }},
		{"oneshot-4d", bySweepC, func(s *OneShotSetting) string { return fmt.Sprintf("cost %g", s.Cost) }},
	} {
		var hs []figure.Histogram
		for _, s := range p.ss {
			hs = append(hs, figure.Histogram{Title: "c_jk, " + p.titles(s), XLabel: "c_jk", YLabel: "iteration", Bins: 40, Rows: s.snapshots})
		}
		paths, err := figure.Histograms(filepath.Join(dir, p.name), figure.Layout{Cols: min(len(hs), 5), Width: 260, Height: 260}, hs...)
		if err != nil {
			return nil, err
		}
		out = append(out, paths...)
	}
	return out, nil
}
