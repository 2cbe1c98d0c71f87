package experiment

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/parametric-machines/machines/baseline"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/figure"
	"github.com/parametric-machines/machines/kernel/infinite"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// The oneshot settings: the paper's sweeps, and the run sizes chosen to
// fit the whole experiment in a few minutes on two cores.
var (
	oneShotMaxFreqs = []int{2, 5, 10, 20}
	oneShotCosts    = []float64{0, 0.001, 0.01, 0.1, 1}
)

const (
	// oneShotCost is the cost of the maxfreq sweep (the paper's 0.1); the
	// cost sweep uses the largest maxfreq.
	oneShotCost = 0.1
	// oneShotDim is the state dimension of the kernel machine.
	oneShotDim = 32
	// Seeds of the one-shot choice and Adam steps, full and quick.
	oneShotSeeds, oneShotSeedsQuick = 5, 2
	oneShotIters, oneShotItersQuick = 200, 30
	// oneShotSnapshots is the number of rows of a coefficient histogram.
	oneShotSnapshots = 11
)

// OneShotReport is the JSON of the oneshot experiment.
type OneShotReport struct {
	Settings  []OneShotSetting  `json:"settings"`
	Baselines []OneShotBaseline `json:"baselines"`
	Seconds   float64           `json:"seconds"`

	// The set-up common to all settings.
	Data        string   `json:"data"`
	TestImages  int      `json:"test_images"`
	Seeds       []uint64 `json:"seeds"`
	Dim         int      `json:"dim"`
	Iterations  int      `json:"iterations"`
	LR          float64  `json:"lr"`
	WeightDecay float64  `json:"weight_decay"`
	Gamma       float64  `json:"gamma"`
	Steps       int      `json:"steps"`
	Figures     []string `json:"figures"`
}

// OneShotSetting is the kernel machine at one maxfreq and cost, over the
// seeds of the one-shot choice.
type OneShotSetting struct {
	MaxFreq      int     `json:"maxfreq"`
	Cost         float64 `json:"cost"`
	AccuracyMean float64 `json:"accuracy_mean"`
	AccuracyStd  float64 `json:"accuracy_std"`
	LossMean     float64 `json:"loss_mean"`
	LossStd      float64 `json:"loss_std"`
	// Seeds is the number of seeds; Accuracies and Losses are per seed.
	Seeds      int       `json:"seeds"`
	Accuracies []float64 `json:"accuracies"`
	Losses     []float64 `json:"losses"`
	Params     int       `json:"params"`
	// snapshots are the coefficients over training for the first seed.
	snapshots []figure.HistogramRow
}

// OneShotBaseline is a reference classifier over the same seeds.
type OneShotBaseline struct {
	Name         string    `json:"name"`
	AccuracyMean float64   `json:"accuracy_mean"`
	AccuracyStd  float64   `json:"accuracy_std"`
	Accuracies   []float64 `json:"accuracies"`
	Settings     string    `json:"settings"`
}

// OneShot trains on one image per class of the IDX data set in c.Data
// and tests on its whole test split (Figure 4): an infinite-depth kernel
// machine for each maxfreq (at cost 0.1) and each cost (at the largest
// maxfreq), against 1-nearest-neighbour, kernel ridge regression on
// one-hot labels and a one-hidden-layer perceptron on the same images,
// repeated over several seeds of the one-shot choice.
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
	if train.Classes > oneShotDim {
		return nil, fmt.Errorf("%d classes, more than the state dimension %d", train.Classes, oneShotDim)
	}
	xt := imageMatrix(test)
	nSeeds, iters := oneShotSeeds, oneShotIters
	if c.Quick {
		nSeeds, iters = oneShotSeedsQuick, oneShotItersQuick
	}
	rep := &OneShotReport{Data: c.Data, TestImages: test.N, Dim: oneShotDim, Iterations: iters,
		LR: infinite.DefaultLR, WeightDecay: infinite.DefaultWeightDecay, Gamma: infinite.DefaultGamma, Steps: infinite.DefaultSteps}

	fixedFreq := slices.Max(maxFreqs)
	var settings []*OneShotSetting
	add := func(f int, cost float64) {
		for _, s := range settings {
			if s.MaxFreq == f && s.Cost == cost {
				return
			}
		}
		settings = append(settings, &OneShotSetting{MaxFreq: f, Cost: cost})
	}
	for _, f := range maxFreqs {
		add(f, oneShotCost)
	}
	for _, cost := range costs {
		add(fixedFreq, cost)
	}
	baselines := []*OneShotBaseline{
		{Name: "1-nearest-neighbour", Settings: "Euclidean distance on pixels in [0, 1]"},
		{Name: "kernel ridge", Settings: "Gaussian kernel on one-hot labels, width and penalty by leave-one-out"},
		{Name: "perceptron", Settings: "one hidden layer of 32 ReLU units, MSE on one-hot labels, weight decay 1e-3, L-BFGS 200 iterations"},
	}

	for k := range nSeeds {
		seed := c.Seed + uint64(k)
		rep.Seeds = append(rep.Seeds, seed)
		idx, err := train.OnePerClass(rand.New(rand.NewPCG(seed, 0x6f6e6573686f74)))
		if err != nil {
			return nil, err
		}
		sub := train.Subset(idx)
		x := imageMatrix(sub)
		for i, fit := range []func(x *mat.Dense, labels []int, classes int, xt *mat.Dense, seed uint64) ([]int, error){
			nearestNeighbour, ridgeClassifier, perceptronClassifier,
		} {
			pred, err := fit(x, sub.Labels, train.Classes, xt, seed)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", baselines[i].Name, err)
			}
			acc := accuracy(pred, test.Labels)
			baselines[i].Accuracies = append(baselines[i].Accuracies, acc)
			c.logf("oneshot: seed %d: %s accuracy %.4f", seed, baselines[i].Name, acc)
		}
		for _, s := range settings {
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
				return nil, fmt.Errorf("maxfreq %d cost %g seed %d: %w", s.MaxFreq, s.Cost, seed, err)
			}
			acc, loss, err := cl.Evaluate(xt, test.Labels)
			if err != nil {
				return nil, fmt.Errorf("maxfreq %d cost %g seed %d: %w", s.MaxFreq, s.Cost, seed, err)
			}
			s.Params = cl.Machine.NumParams() + len(cl.A.RawMatrix().Data) + len(cl.B)
			s.Accuracies = append(s.Accuracies, acc)
			s.Losses = append(s.Losses, loss)
			c.logf("oneshot: seed %d: kernel machine maxfreq %d cost %g: accuracy %.4f loss %.4f (%.1fs)",
				seed, s.MaxFreq, s.Cost, acc, loss, time.Since(t0).Seconds())
		}
	}
	for _, s := range settings {
		s.Seeds = len(s.Accuracies)
		s.AccuracyMean, s.AccuracyStd = meanStd(s.Accuracies)
		s.LossMean, s.LossStd = meanStd(s.Losses)
		rep.Settings = append(rep.Settings, *s)
	}
	for _, b := range baselines {
		b.AccuracyMean, b.AccuracyStd = meanStd(b.Accuracies)
		rep.Baselines = append(rep.Baselines, *b)
	}
	figs, err := oneShotFigures(c.dir(), rep, settings, maxFreqs, costs, fixedFreq)
	if err != nil {
		return nil, err
	}
	rep.Figures = figs
	rep.Seconds = time.Since(start).Seconds()
	return &Report{Figures: figs, OneShot: rep}, nil
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

// nearestNeighbour predicts the label of the closest training image.
func nearestNeighbour(x *mat.Dense, labels []int, _ int, xt *mat.Dense, _ uint64) ([]int, error) {
	rt, _ := xt.Dims()
	r, _ := x.Dims()
	pred := make([]int, rt)
	for i := range rt {
		q := xt.RawRowView(i)
		best := math.Inf(1)
		for j := range r {
			var d float64
			for k, v := range x.RawRowView(j) {
				e := v - q[k]
				d += e * e
			}
			if d < best {
				best, pred[i] = d, labels[j]
			}
		}
	}
	return pred, nil
}

func ridgeClassifier(x *mat.Dense, labels []int, classes int, xt *mat.Dense, _ uint64) ([]int, error) {
	var m baseline.KernelRidge
	if err := m.Fit(x, oneHot(labels, classes)); err != nil {
		return nil, err
	}
	return argmaxRows(m.Predict(nil, xt)), nil
}

func perceptronClassifier(x *mat.Dense, labels []int, classes int, xt *mat.Dense, seed uint64) ([]int, error) {
	p, _, err := baseline.FitPerceptron(x, oneHot(labels, classes), baseline.PerceptronSettings{
		Hidden: []int{32}, Activation: baseline.ReLU, WeightDecay: 1e-3, Seed: seed, MaxIter: 200})
	if err != nil {
		return nil, err
	}
	return argmaxRows(p.Predict(nil, xt)), nil
}

// oneShotFigures draws Figure 4: accuracy and loss against maxfreq (a)
// and cost (c), and the coefficients over training (b, d).
func oneShotFigures(dir string, rep *OneShotReport, settings []*OneShotSetting, maxFreqs []int, costs []float64, fixedFreq int) ([]string, error) {
	find := func(f int, cost float64) *OneShotSetting {
		for _, s := range settings {
			if s.MaxFreq == f && s.Cost == cost {
				return s
			}
		}
		return nil
	}
	var bySweepF, bySweepC []*OneShotSetting
	freqs := slices.Clone(maxFreqs)
	slices.Sort(freqs)
	freqs = slices.Compact(freqs)
	for _, f := range freqs {
		bySweepF = append(bySweepF, find(f, oneShotCost))
	}
	cs := slices.Clone(costs)
	slices.Sort(cs)
	cs = slices.Compact(cs)
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
		{"oneshot-4a", fmt.Sprintf("cost %g", oneShotCost), "Fourier components (maxfreq)", xf, bySweepF},
		{"oneshot-4c", fmt.Sprintf("maxfreq %d", fixedFreq), fmt.Sprintf("log10 cost (cost 0 at %g)", math.Log10(low)), xc, bySweepC},
	} {
		acc := figure.Chart{Title: "test accuracy, " + p.title, XLabel: p.xlabel, YLabel: "accuracy", Legend: figure.BottomRight}
		loss := figure.Chart{Title: "test loss, " + p.title, XLabel: p.xlabel, YLabel: "cross-entropy", Legend: figure.TopRight}
		mean, lo, hi, lm := make([]float64, len(p.ss)), make([]float64, len(p.ss)), make([]float64, len(p.ss)), make([]float64, len(p.ss))
		for i, s := range p.ss {
			mean[i], lo[i], hi[i], lm[i] = s.AccuracyMean, s.AccuracyMean-s.AccuracyStd, s.AccuracyMean+s.AccuracyStd, s.LossMean
		}
		acc.Series = append(acc.Series,
			figure.Series{Name: "kernel machine", X: p.x, Y: mean, Points: len(p.x) == 1},
			figure.Series{Name: "kernel machine ± std over seeds", X: p.x, Y: lo, Dashed: true, Color: band},
			figure.Series{X: p.x, Y: hi, Dashed: true, Color: band})
		for _, b := range rep.Baselines {
			y := make([]float64, len(p.x))
			for i := range y {
				y[i] = b.AccuracyMean
			}
			acc.Series = append(acc.Series, figure.Series{Name: b.Name, X: p.x, Y: y, Dashed: true})
		}
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
