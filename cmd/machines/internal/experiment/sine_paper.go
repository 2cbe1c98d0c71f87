package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/plotutil"
)

// The authors' protocol of Figure 3c, read from their code
// (Veos-Digital/finite-depth-kernel-machines, examples/sin.py).
const (
	// paperSineCost is their one cost for all three models.
	paperSineCost = 0.003
	// paperSinePoints training and as many test points, x uniform on
	// [-paperSineLimit, paperSineLimit].
	paperSinePoints = 100
	paperSineLimit  = 10.0
	// paperSineRounds calls of L-BFGS, of at most paperSineIters
	// iterations each, every call starting its history afresh (PyTorch's
	// LBFGS made anew each epoch); the quick run makes fewer.
	paperSineRounds, paperSineRoundsQuick = 3000, 40
	paperSineIters                        = 20
	// paperSineGradTol is their gradient tolerance of a call.
	paperSineGradTol = 1e-7
	// paperSineGrid is the number of points of [-10, 10] on which the
	// error against the truth sin x + 0.5 is measured, as their plot
	// draws it.
	paperSineGrid = 1000
	// paperSineStream is the stream of the generator of a draw's data,
	// seeded by the draw's seed.
	paperSineStream = 0x70617065
)

// SinePaperReport is the JSON of the sine experiment under the authors'
// protocol: one record per model over the independent draws.
type SinePaperReport struct {
	Experiment string `json:"experiment"`
	Protocol   string `json:"protocol"`
	Seed       uint64 `json:"seed"`
	Quick      bool   `json:"quick"`
	// Data describes the draws; DrawSeeds seeds each, and Draws holds
	// each one's numbers, for other code to be run on the same data.
	Data      string     `json:"data"`
	DrawSeeds []uint64   `json:"draw_seeds"`
	Draws     []SineDraw `json:"draws"`
	// Cost weighs every model's own penalty; Rounds calls of L-BFGS of
	// at most IterationsPerRound iterations each train every model.
	Cost               float64          `json:"cost"`
	Rounds             int              `json:"rounds"`
	IterationsPerRound int              `json:"iterations_per_round"`
	Models             []SinePaperModel `json:"models"`
	Seconds            float64          `json:"seconds"`
	Figures            []string         `json:"figures"`
}

// SinePaperModel is one model of SinePaperReport. The losses are those
// the authors plot: the mean squared error plus Cost times the penalty;
// TestLoss is their dashed "test loss". TruthMSE is the mean squared
// error against sin x + 0.5 on a grid of [-10, 10].
type SinePaperModel struct {
	Name       string   `json:"name"`
	Params     int      `json:"params"`
	Penalty    string   `json:"penalty"`
	Init       string   `json:"init"`
	TrainLoss  DrawStat `json:"train_loss"`
	TestLoss   DrawStat `json:"test_loss"`
	TrainMSE   DrawStat `json:"train_mse"`
	TestMSE    DrawStat `json:"test_mse"`
	TruthMSE   DrawStat `json:"truth_mse"`
	FitSeconds DrawStat `json:"fit_seconds"`
	// CurveTrain and CurveTest are the penalised losses after every
	// round of the first draw, Figure 3c.
	CurveTrain []float64 `json:"curve_train"`
	CurveTest  []float64 `json:"curve_test"`
}

// SineDraw is one draw of the authors' data: the training and the test
// inputs and the noise vector both share; the targets are sin x + Noise.
type SineDraw struct {
	X     []float64 `json:"x"`
	TestX []float64 `json:"test_x"`
	Noise []float64 `json:"noise"`
}

// newSineDraw returns the numbers of draw t.
func newSineDraw(t task) SineDraw {
	d := SineDraw{X: mat.Col(nil, 0, t.x), TestX: mat.Col(nil, 0, t.xt)}
	for i, x := range d.X {
		d.Noise = append(d.Noise, t.y.At(i, 0)-math.Sin(x))
	}
	return d
}

// DrawStat is a quantity over independent draws: its value in each, and
// their mean and sample standard deviation.
type DrawStat struct {
	Values []float64 `json:"values"`
	Mean   float64   `json:"mean"`
	Std    float64   `json:"std"`
}

func newDrawStat(v []float64) DrawStat {
	s := DrawStat{Values: v}
	s.Mean, s.Std = meanStd(v)
	return s
}

// paperSineDraw draws the authors' data with rnd: n training and n test
// inputs uniform on [-10, 10] and one noise vector U(0, 1) that both
// share, as their unconditional torch.manual_seed(2) makes them share it.
func paperSineDraw(rnd *rand.Rand) task {
	draw := func() *mat.Dense {
		x := mat.NewDense(paperSinePoints, 1, nil)
		for i := range paperSinePoints {
			x.Set(i, 0, paperSineLimit*(2*rnd.Float64()-1))
		}
		return x
	}
	x, xt := draw(), draw()
	y, yt := mat.NewDense(paperSinePoints, 1, nil), mat.NewDense(paperSinePoints, 1, nil)
	for i := range paperSinePoints {
		e := rnd.Float64()
		y.Set(i, 0, math.Sin(x.At(i, 0))+e)
		yt.Set(i, 0, math.Sin(xt.At(i, 0))+e)
	}
	return task{x: x, y: y, xt: xt, yt: yt}
}

// paperModel is a model of the authors' protocol as the rounds see it:
// its loss and gradient, its initial parameters, its loss split into the
// data term and the penalty, and its predictions.
type paperModel struct {
	name, penalty, init string
	params              int
	f                   optim.Func
	x0                  []float64
	loss                func(params []float64) (loss, data float64)
	predict             func(params []float64, x *mat.Dense) *mat.Dense
}

// withBias returns x with a column of ones after its columns: the
// augmenter's bias as a weight, so that the penalty |A|² counts it as
// the authors' square_params does.
func withBias(x *mat.Dense) *mat.Dense {
	r, c := x.Dims()
	out := mat.NewDense(r, c+1, nil)
	for i := range r {
		copy(out.RawRowView(i), x.RawRowView(i))
		out.Set(i, c, 1)
	}
	return out
}

// paperKernelMachine is their (2,2,2,1) kernel machine: an affine
// augmenter of the raw input, a unit-bandwidth Gaussian added up over
// the filtration, coefficients on all 100 training points (514
// parameters); penalty |A|² + |b|² plus the RKHS norm; the augmenter
// drawn as PyTorch draws nn.Linear(1, 7), U(-1, 1), and the coefficients
// Glorot-uniform over their 100 x 5.
func paperKernelMachine(t task, cost float64, rnd *rand.Rand) (*paperModel, error) {
	arch := kernel.Architecture{Dims: []int{2, 2, 2, 1}, Kernel: kernel.Additive, Bandwidth: 1}
	xb := withBias(t.x)
	o, err := kernel.NewObjective(arch, kernel.Problem{X: xb, Y: t.y, Cost: cost})
	if err != nil {
		return nil, err
	}
	size := 7 // sum of the dims
	x0 := make([]float64, o.Len())
	na := 2 * size
	for i := range na {
		x0[i] = 2*rnd.Float64() - 1
	}
	ad.GlorotUniform(x0[na:], paperSinePoints, size-2, rnd)
	predict := func(params []float64, x *mat.Dense) *mat.Dense {
		m := &kernel.Machine{Architecture: arch, Anchors: xb,
			A: mat.NewDense(size, 2, params[:na]), C: mat.NewDense(size-2, paperSinePoints, params[na:])}
		return m.Predict(nil, withBias(x))
	}
	return &paperModel{name: "kernel machine", params: o.Len(), f: o.Func, x0: x0, loss: o.Loss, predict: predict,
		penalty: "|A|² + |b|² of the augmenter plus the RKHS norm", init: "augmenter U(-1, 1); coefficients Glorot-uniform"}, nil
}

// paperPerceptron is their 1-16-32-1 perceptron (609 parameters) on the
// raw input, penalised by the sum of the squares of every weight and
// bias, drawn as PyTorch draws nn.Linear.
func paperPerceptron(t task, act baseline.Activation, cost float64, seed uint64) (*paperModel, error) {
	o, err := baseline.NewPerceptronObjective(t.x, t.y, baseline.PerceptronSettings{Hidden: []int{16, 32}, Activation: act,
		WeightDecay: cost, DecayBiases: true, TorchInit: true, Seed: seed})
	if err != nil {
		return nil, err
	}
	x0 := o.Init()
	return &paperModel{name: "perceptron " + act.String(), params: len(x0), f: o.Func, x0: x0, loss: o.Loss,
		predict: func(params []float64, x *mat.Dense) *mat.Dense { return o.Perceptron(params).Predict(nil, x) },
		penalty: "sum of the squares of every weight and bias", init: "U(±1/sqrt(inputs)) per layer, weights and biases"}, nil
}

// paperResult is one model trained on one draw.
type paperResult struct {
	trainLoss, testLoss, trainMSE, testMSE, truthMSE, seconds float64
	curveTrain, curveTest                                     []float64
	fit                                                       *mat.Dense // predictions on the truth grid
}

// paperTrain trains m by rounds calls of L-BFGS from its initial
// parameters, each of at most paperSineIters iterations with a fresh
// history, and measures it after each on t: the penalised losses (the
// penalty does not depend on the data, so the test's is the training
// loss's) and, at the end, the plain errors.
func paperTrain(m *paperModel, t task, grid, truth *mat.Dense, rounds int) (paperResult, error) {
	start := time.Now()
	x := m.x0
	var r paperResult
	for k := range rounds {
		res, err := optim.Minimize(m.f, x, optim.Settings{MaxIter: paperSineIters, GradTol: paperSineGradTol})
		if err != nil {
			return r, fmt.Errorf("%s: round %d: %w", m.name, k+1, err)
		}
		x = res.X
		loss, data := m.loss(x)
		r.curveTrain = append(r.curveTrain, loss)
		r.curveTest = append(r.curveTest, mse(m.predict(x, t.xt), t.yt)+loss-data)
	}
	r.seconds = time.Since(start).Seconds()
	r.trainLoss, r.trainMSE = m.loss(x)
	r.testLoss = r.curveTest[len(r.curveTest)-1]
	r.testMSE = mse(m.predict(x, t.xt), t.yt)
	r.fit = m.predict(x, grid)
	r.truthMSE = mse(r.fit, truth)
	return r, nil
}

// SinePaper runs Figure 3c under the authors' protocol on Config.Draws
// independent draws (one if zero): their data, their three models with
// their penalties, one cost for all (Config.Costs, one value; 0.003 if
// nil), 3,000 calls of L-BFGS of at most 20 iterations each (40 with
// Quick), no selection of any kind. It reports, per model and over the
// draws, the penalised training and test losses that the authors plot,
// and beside them the test error without the penalty and the error
// against the truth.
func SinePaper(c Config) (*Report, error) {
	begin := time.Now()
	cost := paperSineCost
	switch {
	case len(c.Costs) == 1:
		cost = c.Costs[0]
	case len(c.Costs) > 1:
		return nil, fmt.Errorf("the paper's protocol has one cost for all models, got %v", c.Costs)
	}
	if cost < 0 || math.IsNaN(cost) || math.IsInf(cost, 0) {
		return nil, fmt.Errorf("cost %v, want a finite value >= 0", cost)
	}
	if c.Draws < 0 {
		return nil, fmt.Errorf("%d draws, want at least 1", c.Draws)
	}
	draws, rounds := max(c.Draws, 1), paperSineRounds
	if c.Quick {
		rounds = paperSineRoundsQuick
	}
	rep := &SinePaperReport{Protocol: Paper.String(), Cost: cost, Rounds: rounds, IterationsPerRound: paperSineIters,
		Data: "100 training and 100 test points, x uniform on [-10, 10], y = sin x + U(0, 1) with one noise vector for both"}
	grid := mat.NewDense(paperSineGrid, 1, nil)
	truth := mat.NewDense(paperSineGrid, 1, nil)
	for i := range paperSineGrid {
		x := -paperSineLimit + 2*paperSineLimit*float64(i)/float64(paperSineGrid-1)
		grid.Set(i, 0, x)
		truth.Set(i, 0, math.Sin(x)+0.5)
	}
	names := []string{"kernel machine", "perceptron relu", "perceptron sigmoid"}
	results := make([][]paperResult, draws)
	models := make([]*paperModel, len(names))
	var tasks []task
	var jobs []func() error
	var mu sync.Mutex
	for d := range draws {
		seed := c.Seed + uint64(d)
		rep.DrawSeeds = append(rep.DrawSeeds, seed)
		t := paperSineDraw(rand.New(rand.NewPCG(seed, paperSineStream)))
		tasks = append(tasks, t)
		rep.Draws = append(rep.Draws, newSineDraw(t))
		results[d] = make([]paperResult, len(names))
		for i := range names {
			jobs = append(jobs, func() error {
				m, err := paperSineModel(i, t, cost, seed)
				if err != nil {
					return err
				}
				r, err := paperTrain(m, t, grid, truth, rounds)
				if err != nil {
					return fmt.Errorf("draw %d: %w", d+1, err)
				}
				results[d][i] = r
				mu.Lock()
				models[i] = m
				mu.Unlock()
				c.logf("sine (paper): draw %d/%d: %s: penalised train %.4f test %.4f; test MSE %.4f, against the truth %.4f (%.1fs)",
					d+1, draws, m.name, r.trainLoss, r.testLoss, r.testMSE, r.truthMSE, r.seconds)
				return nil
			})
		}
	}
	if err := runJobs(jobs, oneShotWorkers); err != nil {
		return nil, err
	}
	rep.Models = summarise(models, results)
	paths, err := sinePaperFigure(filepath.Join(c.dir(), "sine-paper"), rep, tasks[0], grid, results[0])
	if err != nil {
		return nil, err
	}
	rep.Figures, rep.Seconds = paths, time.Since(begin).Seconds()
	return &Report{Figures: paths, SinePaper: rep}, nil
}

// summarise returns the record of each model over the draws: results[d][i]
// is model i on draw d.
func summarise(models []*paperModel, results [][]paperResult) []SinePaperModel {
	var out []SinePaperModel
	for i, m := range models {
		pick := func(f func(paperResult) float64) DrawStat {
			v := make([]float64, len(results))
			for d, r := range results {
				v[d] = f(r[i])
			}
			return newDrawStat(v)
		}
		out = append(out, SinePaperModel{Name: m.name, Params: m.params, Penalty: m.penalty, Init: m.init,
			TrainLoss:  pick(func(r paperResult) float64 { return r.trainLoss }),
			TestLoss:   pick(func(r paperResult) float64 { return r.testLoss }),
			TrainMSE:   pick(func(r paperResult) float64 { return r.trainMSE }),
			TestMSE:    pick(func(r paperResult) float64 { return r.testMSE }),
			TruthMSE:   pick(func(r paperResult) float64 { return r.truthMSE }),
			FitSeconds: pick(func(r paperResult) float64 { return r.seconds }),
			CurveTrain: results[0][i].curveTrain, CurveTest: results[0][i].curveTest})
	}
	return out
}

// paperSineModel returns model i of the protocol (the kernel machine,
// the ReLU and the sigmoid perceptron) on t, its initial parameters
// drawn from seed.
func paperSineModel(i int, t task, cost float64, seed uint64) (*paperModel, error) {
	switch i {
	case 0:
		return paperKernelMachine(t, cost, rand.New(rand.NewPCG(seed, 0x6b6d)))
	case 1:
		return paperPerceptron(t, baseline.ReLU, cost, seed)
	case 2:
		return paperPerceptron(t, baseline.Sigmoid, cost, seed)
	}
	return nil, errors.New("no such model")
}

// sinePaperFigure draws Figure 3c as the authors drew it, the fits of
// the first draw and their penalised training (solid) and test (dashed)
// losses per round, and beside it what their figure leaves out: each
// draw's test error without the penalty and error against the truth.
func sinePaperFigure(base string, rep *SinePaperReport, t task, grid *mat.Dense, first []paperResult) ([]string, error) {
	fits := figure.Chart{Title: "sine, the authors' protocol: fits (draw 1)", XLabel: "x", YLabel: "y", Legend: figure.BottomLeft}
	gx := mat.Col(nil, 0, grid)
	truth := make([]float64, len(gx))
	for i, x := range gx {
		truth[i] = math.Sin(x) + 0.5
	}
	fits.Series = append(fits.Series,
		figure.Series{Name: "training samples", X: mat.Col(nil, 0, t.x), Y: mat.Col(nil, 0, t.y), Points: true},
		figure.Series{Name: "sin x + 0.5", X: gx, Y: truth, Dashed: true})
	curves := figure.Chart{Title: fmt.Sprintf("penalised loss, cost %g (draw 1)", rep.Cost), XLabel: "L-BFGS call",
		YLabel: "MSE + cost × penalty", Legend: figure.TopRight}
	testMSE := figure.Chart{Title: "test MSE without the penalty", XLabel: "draw", YLabel: "mean squared error", LogY: true, Legend: figure.TopRight}
	truthMSE := figure.Chart{Title: "MSE against sin x + 0.5", XLabel: "draw", YLabel: "mean squared error", LogY: true, Legend: figure.TopRight}
	for i, m := range rep.Models {
		col := plotutil.Color(i + 2)
		fits.Series = append(fits.Series, figure.Series{Name: m.Name, X: gx, Y: mat.Col(nil, 0, first[i].fit), Color: col})
		round := make([]float64, len(m.CurveTrain))
		for k := range round {
			round[k] = float64(k + 1)
		}
		curves.Series = append(curves.Series,
			figure.Series{Name: m.Name + " (train)", X: round, Y: m.CurveTrain, Color: col},
			figure.Series{Name: m.Name + " (test)", X: round, Y: m.CurveTest, Color: col, Dashed: true})
		draw := make([]float64, len(m.TestMSE.Values))
		for d := range draw {
			draw[d] = float64(d + 1)
		}
		testMSE.Series = append(testMSE.Series, figure.Series{Name: fmt.Sprintf("%s (mean %.3g)", m.Name, m.TestMSE.Mean),
			X: draw, Y: floors(m.TestMSE.Values), Color: col, Points: true})
		truthMSE.Series = append(truthMSE.Series, figure.Series{Name: fmt.Sprintf("%s (mean %.3g)", m.Name, m.TruthMSE.Mean),
			X: draw, Y: floors(m.TruthMSE.Values), Color: col, Points: true})
	}
	return figure.Panels(base, figure.Layout{Cols: 2, Width: 480, Height: 320}, fits, curves, testMSE, truthMSE)
}

// floors applies floor to every value, for a log axis.
func floors(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = floor(x)
	}
	return out
}
