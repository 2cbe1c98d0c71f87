package experiment

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
	"gonum.org/v1/plot/plotutil"
)

// The shift task: signals of shiftLength steps of shiftDT, each a sine of
// random phase with Gaussian noise of standard deviation shiftNoise; the
// target is the clean sine delayed by shiftDelay steps.
const (
	shiftLength = 64
	shiftDT     = 0.1
	shiftNoise  = 0.1
	shiftDelay  = 10
	shiftBatch  = 32
	shiftSteps  = 1000
	// shiftStepsQuick is the number of Adam steps of a quick run.
	shiftStepsQuick = 200
	shiftLR         = 0.01
)

// shiftDims is the filtration of both machines: the input channel, then
// three blocks of 4 channels.
var shiftDims = []int{1, 4, 4, 4}

// shiftSignal writes signal i of the task's training set, determined by
// seed and i alone, as sample j of the batch x (B x 1 x L, samples first)
// and its target as sample j of y (B*L x 1, time fastest).
func shiftSignal(seed uint64, i, j int, x, y *ad.Tensor[float64]) {
	rnd := rand.New(rand.NewPCG(seed, uint64(i)))
	phase := 2 * math.Pi * rnd.Float64()
	for t := range shiftLength {
		at := float64(t) * shiftDT
		x.Data[j*shiftLength+t] = math.Sin(at+phase) + shiftNoise*rnd.NormFloat64()
		y.Data[j*shiftLength+t] = math.Sin(at - shiftDelay*shiftDT + phase)
	}
}

// shiftModel is a machine with a 1x1 read-out and bias, trained by
// train.Run on a set of signals generated from a seed.
type shiftModel struct {
	params ad.Params[float64]
	seed   uint64 // of the training signals
	g      ad.Graph[float64]
	x, y   *ad.Tensor[float64] // the graph's input and target
	pred   *ad.Node[float64]
	loss   *ad.Node[float64]
	losses []float64 // the loss of every training minibatch
}

func newShiftModel(layer finite.Layer[float64], init, rnd *rand.Rand, seed uint64) (*shiftModel, error) {
	s := &shiftModel{seed: seed}
	g := &s.g
	s.x, s.y = ad.NewTensor[float64](shiftBatch, 1, shiftLength), ad.NewTensor[float64](shiftBatch*shiftLength, 1)
	scope := ad.NewScope(g, &s.params, "machine", init)
	if _, err := layer.Init(scope, [][]int{{1, shiftLength}}); err != nil {
		return nil, err
	}
	z, err := layer.Apply(scope, []*ad.Node[float64]{g.Input(s.x)})
	if err != nil {
		return nil, err
	}
	d := z[0].Value.Shape[1]
	readout := ad.NewTensor[float64](1, d, 1, 1) // a 1x1 convolution over time
	ad.GlorotUniform(readout.Data, d, 1, rnd)
	r := s.params.Use(g, "readout", readout)
	bias := s.params.Use(g, "bias", ad.NewTensor[float64](1, 1))
	out := g.Conv2D(g.Reshape(z[0], shiftBatch, d, 1, shiftLength), r, 0)
	s.pred = g.AddRow(g.Reshape(out, shiftBatch*shiftLength, 1), bias)
	s.loss = g.MSE(s.pred, g.Input(s.y))
	return s, nil
}

func (s *shiftModel) Params() *ad.Params[float64] { return &s.params }

// Loss implements train.Model: the loss on the training signals listed
// in batch.
func (s *shiftModel) Loss(batch []int, backward bool) (float64, error) {
	for j, i := range batch {
		shiftSignal(s.seed, i, j, s.x, s.y)
	}
	s.g.Forward()
	if backward {
		s.g.Backward(s.loss)
		s.losses = append(s.losses, s.loss.Scalar())
	}
	return s.loss.Scalar(), nil
}

// eval returns the loss on the batch (x, y) and leaves the prediction in
// s.pred.
func (s *shiftModel) eval(x, y *ad.Tensor[float64]) float64 {
	copy(s.x.Data, x.Data)
	copy(s.y.Data, y.Data)
	s.g.Forward()
	return s.loss.Scalar()
}

// Shift trains a convolutional and a recurrent machine of finite depth
// (dims [1,4,4,4], tanh, with a 1x1 read-out and bias) to predict a sine
// delayed by 10 steps from the noisy, undelayed sine: 1000 Adam steps
// (200 if quick) on fresh minibatches of 32 signals of 64 steps. Each
// model's train error is the loss on the last minibatch, its test error
// the loss on a held-out minibatch after training; the log gives the
// held-out loss before and after. Figures: shift-prediction (prediction
// against target on a held-out signal) and shift-loss.
func Shift(c Config) (*Report, error) {
	steps := shiftSteps
	if c.Quick {
		steps = shiftStepsQuick
	}
	seed := func(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(c.Seed, stream)) }
	testX, testY := ad.NewTensor[float64](shiftBatch, 1, shiftLength), ad.NewTensor[float64](shiftBatch*shiftLength, 1)
	testSeed := seed(3).Uint64()
	for j := range shiftBatch {
		shiftSignal(testSeed, j, j, testX, testY)
	}

	r := &Report{}
	var curves []figure.Series
	var charts []figure.Chart
	for i, spec := range []shiftSpec{
		{"conv machine", finite.Layer[float64]{Kind: finite.Conv, Dims: shiftDims, Activation: ad.Tanh, Pad: []int{3}}, "pad 3"},
		{"recurrent machine", finite.Layer[float64]{Kind: finite.Recur, Dims: shiftDims, Activation: ad.Tanh, Pad: []int{6}, TimeBlock: 5}, "pad 6, timeblock 5"},
	} {
		model, err := newShiftModel(spec.layer, seed(uint64(1+i)), seed(uint64(10+i)), seed(uint64(20+i)).Uint64())
		if err != nil {
			return nil, err
		}
		m, err := spec.fit(c, model, steps, testX, testY)
		if err != nil {
			return nil, err
		}
		r.Models = append(r.Models, m)
		it := make([]float64, len(model.losses))
		for k := range it {
			it[k] = float64(k + 1)
		}
		curves = append(curves, figure.Series{Name: spec.name, X: it, Y: model.losses, Color: plotutil.Color(i)})
		charts = append(charts, shiftPrediction(spec.name, *m.FinalLoss, plotutil.Color(i), testX, testY, model.pred.Value))
	}
	paths, err := figure.Panels(filepath.Join(c.dir(), "shift-prediction"), figure.Layout{}, charts...)
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)
	paths, err = figure.Lines(filepath.Join(c.dir(), "shift-loss"), figure.Chart{
		Title: "shift: minibatch loss over Adam steps", XLabel: "step", YLabel: "mean squared error", LogY: true,
		Legend: figure.TopRight, Series: curves,
	})
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)
	return r, nil
}

// shiftSpec is one of the machines of the shift task.
type shiftSpec struct {
	name     string
	layer    finite.Layer[float64]
	settings string
}

// fit trains model by steps Adam steps, logs its held-out loss on
// (testX, testY) before and after, and returns its entry in the report.
func (spec shiftSpec) fit(c Config, model *shiftModel, steps int, testX, testY *ad.Tensor[float64]) (Model, error) {
	initial := model.eval(testX, testY)
	start := time.Now()
	// One epoch over steps minibatches of fresh signals.
	_, err := train.Run[float64](model, steps*shiftBatch, train.Config{Epochs: 1, Batch: shiftBatch,
		Optimizer: &optim.Adam{LR: shiftLR}, Seed: c.Seed, Progress: c.Progress})
	if err != nil {
		return Model{}, fmt.Errorf("%s: %w", spec.name, err)
	}
	last := model.losses[len(model.losses)-1]
	secs := time.Since(start).Seconds()
	final := model.eval(testX, testY)
	c.logf("%s (%s): %d parameters, held-out loss %.4g before training, %.4g after %d steps (%.1fs)",
		spec.name, spec.settings, model.params.Len(), initial, final, steps, secs)
	return Model{
		Name: spec.name, Params: model.params.Len(), TrainMSE: last, TestMSE: final,
		InitialLoss: &initial, FinalLoss: &final,
		FitSeconds: secs, Iterations: steps,
		Settings: Settings{Optimizer: fmt.Sprintf("adam lr %g, minibatch %d, %s", shiftLR, shiftBatch, spec.settings),
			MaxIter: steps, Dims: shiftDims, Activation: "tanh"},
	}, nil
}

// shiftPrediction charts the first held-out signal: its input, its target
// and the prediction of the model called name.
func shiftPrediction(name string, loss float64, col color.Color, testX, testY, pred *ad.Tensor[float64]) figure.Chart {
	tx := make([]float64, shiftLength)
	in, target, predicted := make([]float64, shiftLength), make([]float64, shiftLength), make([]float64, shiftLength)
	for t := range shiftLength {
		tx[t] = float64(t) * shiftDT
		in[t], target[t], predicted[t] = testX.Data[t], testY.Data[t], pred.Data[t]
	}
	return figure.Chart{
		Title: fmt.Sprintf("%s: held-out loss %.3g", name, loss), XLabel: "time", YLabel: "signal", Legend: figure.BottomLeft,
		Series: []figure.Series{
			{Name: "noisy input", X: tx, Y: in, Color: plotutil.Color(2), Points: true},
			{Name: "target (delayed sine)", X: tx, Y: target, Color: plotutil.Color(3), Dashed: true},
			{Name: "prediction", X: tx, Y: predicted, Color: col},
		},
	}
}
