package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotutil"
)

// The authors' protocol of Figure 4 (Veos-Digital/infinite-depth-kernel-machines,
// examples/ck_machine_rmnist.py and evaluate_on_dataset.py).
const (
	// Their sweep is over maxfreq at one cost; -cost adds costs at the
	// largest maxfreq.
	ckCost = 0.1
	// ckEpochs epochs of minibatches of ckBatch: with ten training
	// images, an epoch is one Adam step on all of them. The quick run
	// takes ckEpochsQuick and tests on the first ckTestQuick test images.
	ckEpochs, ckEpochsQuick = 10, 2
	ckBatch                 = 128
	ckTestQuick             = 300
	// ckLR and ckWeightDecay are their Adam's, whose weight decay is
	// PyTorch's: added to the gradient, not decoupled.
	ckLR, ckWeightDecay = 0.04, 0.01
	// ckTol is their rtol = atol of odeint_adjoint.
	ckTol = 1e-3
	// ckWorkers test batches are solved at once.
	ckWorkers = 2
)

// ckModel is the authors' classifier: the machine anchored at the
// training images and one linear read-out of the states z at freqs
// times evenly spaced in [0, 1].
type ckModel struct {
	ckShape
	classes int
	cost    float64
	// params is [conv | coefficients | read-out weights (classes ×
	// freqs·anchors) | read-out biases]; the first two are the
	// machine's θ.
	params  []float64
	patches []float64 // the anchors'
	labels  []int
	ts      []float64
	tol     float64 // of the solver
	adam    optim.Adam
}

func (m *ckModel) thetaLen() int { return m.convLen() + m.coefLen() }

// readout returns the read-out's weights and biases, views of params.
func (m *ckModel) readout() (w, b []float64) {
	lo := m.thetaLen()
	n := m.classes * m.freqs * m.anchors
	return m.params[lo : lo+n], m.params[lo+n:]
}

// newCKModel draws the model as PyTorch draws the authors' modules:
// conv weights and biases U(±1/3) (fan-in 9), the coefficients
// Glorot-uniform over their anchors × features × freqs tensor, the
// read-out U(±1/sqrt(its inputs)).
func newCKModel(sh ckShape, classes int, cost float64, patches []float64, labels []int, rnd *rand.Rand) *ckModel {
	m := &ckModel{ckShape: sh, classes: classes, cost: cost, patches: patches, labels: labels, tol: ckTol,
		adam: optim.Adam{LR: ckLR}}
	readIn := sh.freqs * sh.anchors
	m.params = make([]float64, m.thetaLen()+classes*readIn+classes)
	uniform := func(x []float64, limit float64) {
		for i := range x {
			x[i] = limit * (2*rnd.Float64() - 1)
		}
	}
	uniform(m.params[:sh.convLen()], 1.0/3)
	uniform(m.params[sh.convLen():m.thetaLen()], math.Sqrt(6/float64((sh.features()+sh.anchors)*sh.freqs)))
	uniform(m.params[m.thetaLen():], 1/math.Sqrt(float64(readIn)))
	m.ts = make([]float64, sh.freqs)
	for i := range m.ts {
		m.ts[i] = float64(i) / float64(sh.freqs-1)
	}
	return m
}

// solve solves the machine for the anchors followed by the queries
// whose patches are given.
func (m *ckModel) solve(queries []float64) (*ode.Solution, *ckSystem, error) {
	sys := newCKSystem(m.ckShape, append(slices.Clone(m.patches), queries...), m.params[:m.thetaLen()])
	sol, err := ode.DormandPrince(sys, make([]float64, sys.Dim()), m.ts, ode.Settings{RTol: m.tol, ATol: m.tol, DropSteps: true})
	return sol, sys, err
}

// logits returns the read-out of row b of a solve.
func (m *ckModel) logits(dst []float64, sol *ode.Solution, b int) {
	w, bias := m.readout()
	copy(dst, bias)
	dim := len(sol.Y) / m.freqs
	for i := range m.freqs {
		z := sol.Y[i*dim+b*m.anchors : i*dim+(b+1)*m.anchors]
		for k := range dst {
			wk := w[k*m.freqs*m.anchors+i*m.anchors : k*m.freqs*m.anchors+(i+1)*m.anchors]
			for j, v := range z {
				dst[k] += wk[j] * v
			}
		}
	}
}

// machineNorm returns the authors' estimate of the machine's RKHS norm,
// the mean over the output times of Σ_jk z_j(t)[k] c_k(t)·c_j(t) over
// the anchors; with grams non-nil it also leaves each time's c(t)c(t)ᵀ
// there, and with cts each time's c(t).
func (m *ckModel) machineNorm(sol *ode.Solution, sys *ckSystem, grams, cts [][]float64) float64 {
	a, f := m.anchors, m.features()
	dim := len(sol.Y) / m.freqs
	gram := make([]float64, a*a)
	var norm float64
	for i, t := range m.ts {
		sys.weightsAt(t)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(a, f, sys.ct), general(a, f, sys.ct), 0, general(a, a, gram))
		for j := range a {
			for k := range a {
				norm += sol.Y[i*dim+j*a+k] * gram[k*a+j]
			}
		}
		if grams != nil {
			grams[i] = slices.Clone(gram)
			cts[i] = slices.Clone(sys.ct)
		}
	}
	return norm / float64(m.freqs)
}

// squares returns the sum of the squares of the conv's and the
// read-out's weights and biases, the rest of the authors' penalty.
func (m *ckModel) squares() float64 {
	var s float64
	for _, x := range [][]float64{m.params[:m.convLen()], m.params[m.thetaLen():]} {
		for _, v := range x {
			s += v * v
		}
	}
	return s
}

// step takes one Adam step on the training images, with PyTorch's
// weight decay added to the gradient, and returns the penalised
// training loss and the accuracy before the step.
func (m *ckModel) step() (loss, acc float64, err error) {
	loss, acc, grad, err := m.lossGrad()
	if err != nil {
		return 0, 0, err
	}
	for i, v := range m.params {
		grad[i] += ckWeightDecay * v
	}
	m.adam.Step(m.params, grad)
	return loss, acc, nil
}

// lossGrad returns the penalised training loss, the training accuracy
// and the loss's gradient. The training images are the anchors: the
// authors solve them twice, as anchors and as inputs, which gives the
// same states and the same gradient as solving them once.
func (m *ckModel) lossGrad() (loss, acc float64, grad []float64, err error) {
	sol, sys, err := m.solve(nil)
	if err != nil {
		return 0, 0, nil, err
	}
	a, f := m.anchors, m.features()
	dim := len(sol.Y) / m.freqs
	grams, cts := make([][]float64, m.freqs), make([][]float64, m.freqs)
	norm := m.machineNorm(sol, sys, grams, cts)
	grad = make([]float64, len(m.params))
	w, _ := m.readout()
	dw, db := grad[m.thetaLen():m.thetaLen()+len(w)], grad[m.thetaLen()+len(w):]
	dY := make([]float64, len(sol.Y))
	logits, dl := make([]float64, m.classes), make([]float64, m.classes)
	var ce float64
	right := 0
	for b, label := range m.labels {
		m.logits(logits, sol, b)
		ce += crossEntropyGrad(dl, logits, label, 1/float64(a))
		if floats.MaxIdx(logits) == label {
			right++
		}
		for k, g := range dl {
			db[k] += g
			for i := range m.freqs {
				z := sol.Y[i*dim+b*a : i*dim+(b+1)*a]
				dz := dY[i*dim+b*a : i*dim+(b+1)*a]
				wk := w[k*m.freqs*a+i*a : k*m.freqs*a+(i+1)*a]
				dwk := dw[k*m.freqs*a+i*a : k*m.freqs*a+(i+1)*a]
				for j, v := range z {
					dwk[j] += g * v
					dz[j] += g * wk[j]
				}
			}
		}
	}
	ce /= float64(a)
	// The norm term: through z at each output time, and through c(t)
	// directly, d/dC of Σ_jk z_jk (CCᵀ)_kj being (Z + Zᵀ)C.
	dcoef := grad[m.convLen():m.thetaLen()]
	scale := m.cost / float64(m.freqs)
	zc := make([]float64, a*f)
	for i, t := range m.ts {
		z := sol.Y[i*dim : i*dim+a*a]
		for j := range a {
			for k := range a {
				dY[i*dim+j*a+k] += scale * grams[i][j*a+k]
			}
		}
		zz := make([]float64, a*a)
		for j := range a {
			for k := range a {
				zz[j*a+k] = z[j*a+k] + z[k*a+j]
			}
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(a, a, zz), general(a, f, cts[i]), 0, general(a, f, zc))
		for mm := range m.freqs {
			wm := scale * math.Cos(2*math.Pi*float64(mm)*t)
			for x, g := range zc {
				dcoef[x*m.freqs+mm] += wm * g
			}
		}
	}
	dtheta := make([]float64, m.thetaLen())
	if err := sol.Gradient(nil, dtheta, dY, ode.Adjoint); err != nil {
		return 0, 0, nil, err
	}
	for i, g := range dtheta {
		grad[i] += g
	}
	for _, r := range [][2]int{{0, m.convLen()}, {m.thetaLen(), len(m.params)}} {
		for i := r[0]; i < r[1]; i++ {
			grad[i] += 2 * m.cost * m.params[i]
		}
	}
	return ce + m.cost*(m.squares()+norm), float64(right) / float64(a), grad, nil
}

// crossEntropyGrad returns -log softmax(logits)[label] and sets dst to
// scale times its gradient, softmax(logits) - onehot(label).
func crossEntropyGrad(dst, logits []float64, label int, scale float64) float64 {
	lse := floats.LogSumExp(logits)
	for k, v := range logits {
		dst[k] = scale * math.Exp(v-lse)
	}
	dst[label] -= scale
	return lse - logits[label]
}

// evaluate classifies the test images whose patches are given, in
// minibatches of ckBatch solved with the anchors as the authors do, and
// returns the mean cross-entropy, the accuracy and the penalised loss,
// whose norm term is the mean over the minibatches' solves.
func (m *ckModel) evaluate(patches []float64, labels []int) (ce, acc, penalised float64, err error) {
	per := m.pix * m.patch
	type part struct {
		ce, norm float64
		right    int
		err      error
	}
	batches := (len(labels) + ckBatch - 1) / ckBatch
	parts := make([]part, batches)
	parallel.Run(batches, ckWorkers, func(k int) error {
		logits := make([]float64, m.classes)
		lo, hi := k*ckBatch, min((k+1)*ckBatch, len(labels))
		sol, sys, err := m.solve(patches[lo*per : hi*per])
		if err != nil {
			parts[k].err = err
			return nil // every part is reported below, in order
		}
		p := &parts[k]
		for b := lo; b < hi; b++ {
			m.logits(logits, sol, m.anchors+b-lo)
			p.ce += crossEntropyGrad(make([]float64, m.classes), logits, labels[b], 1)
			if floats.MaxIdx(logits) == labels[b] {
				p.right++
			}
		}
		p.norm = m.machineNorm(sol, sys, nil, nil)
		return nil
	})
	var norm float64
	right := 0
	for _, p := range parts {
		if p.err != nil {
			return 0, 0, 0, p.err
		}
		ce += p.ce
		norm += p.norm / float64(batches)
		right += p.right
	}
	ce /= float64(len(labels))
	return ce, float64(right) / float64(len(labels)), ce + m.cost*(m.squares()+norm), nil
}

// OneShotPaperReport is the JSON of the oneshot experiment under the
// authors' protocol.
type OneShotPaperReport struct {
	Experiment string `json:"experiment"`
	Protocol   string `json:"protocol"`
	Seed       uint64 `json:"seed"`
	Quick      bool   `json:"quick"`
	Data       string `json:"data"`
	// Shots images per class, TrainIndices in the training split: one
	// fixed draw. TestImages are the images tested after every epoch.
	Shots        int   `json:"shots"`
	TrainIndices []int `json:"train_indices"`
	TestImages   int   `json:"test_images"`
	// PixelMean and PixelStd normalise the pixels (in [0, 1]), the
	// training split's statistics, as MNIST's 0.1307 and 0.3081 are.
	PixelMean float64 `json:"pixel_mean"`
	PixelStd  float64 `json:"pixel_std"`
	// The fixed settings.
	Epochs      int     `json:"epochs"`
	Batch       int     `json:"batch"`
	LR          float64 `json:"lr"`
	WeightDecay float64 `json:"weight_decay"`
	Solver      string  `json:"solver"`
	Selection   string  `json:"selection"`
	// Settings are the machines trained, one per maxfreq and cost.
	Settings []OneShotPaperSetting `json:"settings"`
	// NearestNeighbour is the test accuracy of 1-nearest-neighbour on
	// the raw pixels of the same training images.
	NearestNeighbour float64  `json:"nearest_neighbour_accuracy"`
	Seconds          float64  `json:"seconds"`
	Figures          []string `json:"figures"`
}

// OneShotPaperSetting is one machine of OneShotPaperReport: every
// epoch, the epoch the authors' checkpoint rule keeps (the lowest
// penalised test loss: a choice made on the test set) and its accuracy,
// and the accuracy after the last epoch, which no choice touched.
type OneShotPaperSetting struct {
	MaxFreq       int                 `json:"maxfreq"`
	Cost          float64             `json:"cost"`
	Params        int                 `json:"params"`
	Epochs        []OneShotPaperEpoch `json:"epochs"`
	BestEpoch     int                 `json:"best_epoch"`
	BestAccuracy  float64             `json:"best_accuracy"`
	FinalAccuracy float64             `json:"final_accuracy"`
	Seconds       float64             `json:"seconds"`
}

// OneShotPaperEpoch is one epoch: the penalised training loss and the
// training accuracy before its step, the test measures after it.
type OneShotPaperEpoch struct {
	TrainLoss     float64 `json:"train_loss"`
	TrainAccuracy float64 `json:"train_accuracy"`
	TestLoss      float64 `json:"test_loss"`
	TestCE        float64 `json:"test_cross_entropy"`
	TestAccuracy  float64 `json:"test_accuracy"`
	Seconds       float64 `json:"seconds"`
}

// OneShotPaper runs Figure 4 under the authors' protocol on the IDX data
// set in c.Data: one fixed draw of c.Shots[0] images per class (one if
// nil; the draw of the fair experiment's first seed), their machine
// (see ckSystem) for each maxfreq of c.MaxFreqs (2, 5, 10, 20 if nil)
// at cost 0.1 and each further cost of c.Costs at the largest maxfreq,
// trained by their Adam for 10 epochs of one step, tested on the whole
// test split after each, and kept at the epoch of the lowest penalised
// test loss, their checkpoint rule. Quick runs 2 epochs and tests on
// the first 300 test images.
func OneShotPaper(c Config) (*Report, error) {
	begin := time.Now()
	maxFreqs, costs, shots, err := oneShotPaperSweeps(c)
	if err != nil {
		return nil, err
	}
	train, test, shotIdx, err := oneShotPaperData(c, shots)
	if err != nil {
		return nil, err
	}
	rep := &OneShotPaperReport{Protocol: Paper.String(), Data: c.Data, Shots: shots, TrainIndices: shotIdx, TestImages: test.N,
		Epochs: ckEpochs, Batch: ckBatch, LR: ckLR, WeightDecay: ckWeightDecay,
		Solver:    fmt.Sprintf("adaptive Dormand-Prince, rtol = atol = %g, adjoint gradients", ckTol),
		Selection: "the epoch of the lowest penalised test loss (the authors' checkpoint rule: a choice made on the test set)"}
	if c.Quick {
		rep.Epochs = ckEpochsQuick
	}
	rep.PixelMean, rep.PixelStd = pixelStats(train)
	sub := train.Subset(shotIdx)
	x, xt := imageMatrix(sub), imageMatrix(test)
	nn := &baseline.NearestNeighbours{K: 1}
	if err := nn.Fit(x, sub.Labels); err != nil {
		return nil, err
	}
	rep.NearestNeighbour = accuracy(nn.Predict(xt), test.Labels)
	c.logf("oneshot (paper): %d-shot, 1-nearest-neighbour test accuracy %.4f", shots, rep.NearestNeighbour)
	normalise := func(m *mat.Dense) []float64 {
		d := slices.Clone(m.RawMatrix().Data)
		for i, v := range d {
			d[i] = (v - rep.PixelMean) / rep.PixelStd
		}
		return d
	}
	patches, pix := ckPatches(normalise(x), sub.N, train.Rows, train.Cols)
	testPatches, _ := ckPatches(normalise(xt), test.N, train.Rows, train.Cols)
	for _, s := range sweepGrid(maxFreqs, uniqueSorted(costs)) {
		set, err := trainCK(c, rep, ckShape{anchors: sub.N, freqs: s.MaxFreq, pix: pix, patch: 10}, s.Cost, train.Classes,
			patches, sub.Labels, testPatches, test.Labels)
		if err != nil {
			return nil, err
		}
		rep.Settings = append(rep.Settings, *set)
	}
	paths, err := oneShotPaperFigure(filepath.Join(c.dir(), "oneshot-paper"), rep)
	if err != nil {
		return nil, err
	}
	rep.Figures, rep.Seconds = paths, time.Since(begin).Seconds()
	return &Report{Figures: paths, OneShotPaper: rep}, nil
}

// oneShotPaperSweeps returns the maxfreqs, the costs and the shot count
// of the authors' protocol that c asks for, or an error before any work
// if they are out of range.
func oneShotPaperSweeps(c Config) (maxFreqs []int, costs []float64, shots int, err error) {
	maxFreqs, costs = c.MaxFreqs, c.Costs
	if maxFreqs == nil {
		maxFreqs = oneShotMaxFreqs
	}
	if costs == nil {
		costs = []float64{ckCost}
	}
	shots = 1
	switch {
	case len(c.Shots) == 1:
		shots = c.Shots[0]
	case len(c.Shots) > 1:
		return nil, nil, 0, fmt.Errorf("the paper's protocol takes one shot count, got %v", c.Shots)
	}
	if err := checkOneShotLists(maxFreqs, costs, []int{shots}); err != nil {
		return nil, nil, 0, err
	}
	for _, f := range maxFreqs {
		if f < 2 {
			return nil, nil, 0, fmt.Errorf("maxfreq %d: the paper's protocol reads the states at maxfreq times, want at least 2", f)
		}
	}
	return maxFreqs, costs, shots, nil
}

// oneShotPaperData loads the data set of c, checks that the authors'
// machine can train on it, and draws the shots (at indices shotIdx of
// train); the quick run keeps the first test images only.
func oneShotPaperData(c Config, shots int) (train, test *dataset.Images, shotIdx []int, err error) {
	train, test, err = loadIDXSplits(c.Data)
	if err != nil {
		return nil, nil, nil, err
	}
	if train.Rows < 3 || train.Cols < 3 {
		return nil, nil, nil, fmt.Errorf("%dx%d images, smaller than the augmenter's 3x3 convolution", train.Rows, train.Cols)
	}
	if n := shots * train.Classes; n > ckBatch {
		return nil, nil, nil, fmt.Errorf("%d shots of %d classes make %d training images, more than the authors' one minibatch of %d", shots, train.Classes, n, ckBatch)
	}
	shotIdx, _, err = drawShots(train.Labels, train.Classes, shots, 0, rand.New(rand.NewPCG(c.Seed, 0x6f6e6573686f74)))
	if err != nil {
		return nil, nil, nil, err
	}
	if c.Quick {
		test = test.Subset(seq(min(ckTestQuick, test.N)))
	}
	return train, test, shotIdx, nil
}

// trainCK trains one machine of the authors' protocol and tests it
// after every epoch.
func trainCK(c Config, rep *OneShotPaperReport, sh ckShape, cost float64, classes int, patches []float64, labels []int,
	testPatches []float64, testLabels []int) (*OneShotPaperSetting, error) {
	start := time.Now()
	m := newCKModel(sh, classes, cost, patches, labels, rand.New(rand.NewPCG(c.Seed, uint64(sh.freqs))))
	set := &OneShotPaperSetting{MaxFreq: sh.freqs, Cost: cost, Params: len(m.params)}
	best := math.Inf(1)
	for e := range rep.Epochs {
		t0 := time.Now()
		loss, acc, err := m.step()
		if err != nil {
			return nil, fmt.Errorf("maxfreq %d cost %g epoch %d: %w", sh.freqs, cost, e+1, err)
		}
		ce, tacc, tloss, err := m.evaluate(testPatches, testLabels)
		if err != nil {
			return nil, fmt.Errorf("maxfreq %d cost %g epoch %d: test: %w", sh.freqs, cost, e+1, err)
		}
		ep := OneShotPaperEpoch{TrainLoss: loss, TrainAccuracy: acc, TestLoss: tloss, TestCE: ce, TestAccuracy: tacc,
			Seconds: time.Since(t0).Seconds()}
		set.Epochs = append(set.Epochs, ep)
		if tloss < best {
			best, set.BestEpoch, set.BestAccuracy = tloss, e+1, tacc
		}
		c.logf("oneshot (paper): maxfreq %d cost %g: epoch %d/%d: training loss %.4f, accuracy %.2f; test loss %.4f (penalised), accuracy %.4f (%.1fs)",
			sh.freqs, cost, e+1, rep.Epochs, loss, acc, tloss, tacc, ep.Seconds)
	}
	set.FinalAccuracy = set.Epochs[len(set.Epochs)-1].TestAccuracy
	set.Seconds = time.Since(start).Seconds()
	return set, nil
}

// pixelStats returns the mean and the standard deviation of the pixels
// of im, in [0, 1].
func pixelStats(im *dataset.Images) (mean, std float64) {
	var s, s2 float64
	for _, p := range im.Pixels {
		v := float64(p) / 255
		s += v
		s2 += v * v
	}
	n := float64(len(im.Pixels))
	mean = s / n
	return mean, math.Sqrt(max(s2/n-mean*mean, 1e-12))
}

// seq returns 0, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// oneShotPaperFigure draws the test accuracy and the penalised test
// loss after every epoch of each machine, as the authors' runs log
// them, and the accuracy at the epoch their rule keeps and at the last,
// against maxfreq, with 1-nearest-neighbour across.
func oneShotPaperFigure(base string, rep *OneShotPaperReport) ([]string, error) {
	acc := figure.Chart{Title: fmt.Sprintf("%d-shot, the authors' protocol: test accuracy", rep.Shots), XLabel: "epoch", YLabel: "accuracy", Legend: figure.BottomRight}
	loss := figure.Chart{Title: "penalised test loss", XLabel: "epoch", YLabel: "cross-entropy + cost × penalty", Legend: figure.TopRight}
	sum := figure.Chart{Title: "test accuracy against maxfreq", XLabel: "maxfreq", YLabel: "accuracy", Legend: figure.BottomRight}
	var freqs, bestAcc, finalAcc []float64
	for i, s := range rep.Settings {
		ep := make([]float64, len(s.Epochs))
		a, l := make([]float64, len(s.Epochs)), make([]float64, len(s.Epochs))
		for k, e := range s.Epochs {
			ep[k], a[k], l[k] = float64(k+1), e.TestAccuracy, e.TestLoss
		}
		name := fmt.Sprintf("maxfreq %d cost %g", s.MaxFreq, s.Cost)
		col := plotutil.Color(i)
		single := len(ep) == 1
		acc.Series = append(acc.Series, figure.Series{Name: name, X: ep, Y: a, Color: col, Points: single})
		loss.Series = append(loss.Series, figure.Series{Name: name, X: ep, Y: l, Color: col, Points: single})
		if s.Cost == rep.Settings[0].Cost {
			freqs = append(freqs, float64(s.MaxFreq))
			bestAcc, finalAcc = append(bestAcc, s.BestAccuracy), append(finalAcc, s.FinalAccuracy)
		}
	}
	single := len(freqs) == 1
	ends := []float64{freqs[0], freqs[len(freqs)-1]}
	if single {
		ends = []float64{freqs[0] - 1, freqs[0] + 1}
	}
	sum.Series = append(sum.Series,
		figure.Series{Name: "epoch of the lowest test loss (test-set selection)", X: freqs, Y: bestAcc, Points: single},
		figure.Series{Name: "last epoch", X: freqs, Y: finalAcc, Dashed: true, Points: single},
		figure.Series{Name: "1-nearest-neighbour", X: ends, Y: []float64{rep.NearestNeighbour, rep.NearestNeighbour}, Dashed: true})
	return figure.Panels(base, figure.Layout{Cols: 3, Width: 440, Height: 340}, acc, loss, sum)
}
