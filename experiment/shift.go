package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/internal/figure"
	"github.com/parametric-machines/machines/optim"
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

// shiftBatchInto fills x (1 x L*B) with noisy sines of random phase and
// y (1 x L*B) with the clean sines delayed by shiftDelay steps; column
// t*B + b holds time t of sample b.
func shiftBatchInto(rnd *rand.Rand, x, y *ad.Tensor[float64]) {
	b := len(x.Data) / shiftLength
	for s := range b {
		phase := 2 * math.Pi * rnd.Float64()
		for t := range shiftLength {
			at := float64(t) * shiftDT
			x.Data[t*b+s] = math.Sin(at+phase) + shiftNoise*rnd.NormFloat64()
			y.Data[t*b+s] = math.Sin(at - shiftDelay*shiftDT + phase)
		}
	}
}

// shiftModel is a machine with a 1x1 read-out and bias, all of whose
// parameters live in one flat vector for Adam.
type shiftModel struct {
	m      *finite.Machine[float64]
	params []float64
	grad   []float64
	g      ad.Graph[float64]
	x, y   *ad.Tensor[float64] // the graph's input and target
	pred   *ad.Node[float64]
	loss   *ad.Node[float64]
}

func newShiftModel(m *finite.Machine[float64], rnd *rand.Rand) (*shiftModel, error) {
	d := m.Size()
	nw := len(m.W.Data)
	s := &shiftModel{m: m, params: make([]float64, nw+d+1)}
	s.grad = make([]float64, len(s.params))
	copy(s.params, m.W.Data)
	if err := m.SetWeight(ad.View(s.params[:nw], m.WeightShape()...)); err != nil {
		return nil, err
	}
	readout := ad.View(s.params[nw:nw+d], 1, d)
	limit := math.Sqrt(6 / float64(d+1))
	for i := range readout.Data {
		readout.Data[i] = limit * (2*rnd.Float64() - 1)
	}
	g := &s.g
	p := m.Bind(g, ad.View(s.grad[:nw], m.WeightShape()...), nil)
	r := g.Param(readout, ad.View(s.grad[nw:nw+d], 1, d))
	bias := g.Param(ad.View(s.params[nw+d:], 1, 1), ad.View(s.grad[nw+d:], 1, 1))
	n := shiftLength * shiftBatch
	s.x, s.y = ad.NewTensor[float64](1, n), ad.NewTensor[float64](1, n)
	z := m.Apply(g, p, g.Input(s.x), nil, shiftLength)
	s.pred = g.AddCol(g.MatMul(r, z, false, false), bias)
	s.loss = g.MSE(s.pred, g.Input(s.y))
	return s, nil
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
	conv, err := finite.NewConv[float64](shiftDims, finite.Tanh, []int{3}, seed(1))
	if err != nil {
		return nil, err
	}
	recur, err := finite.NewRecur[float64](shiftDims, finite.Tanh, 6, 5, seed(2))
	if err != nil {
		return nil, err
	}
	n := shiftLength * shiftBatch
	testX, testY := ad.NewTensor[float64](1, n), ad.NewTensor[float64](1, n)
	shiftBatchInto(seed(3), testX, testY)

	r := &Report{}
	var curves []figure.Series
	var charts []figure.Chart
	for i, spec := range []struct {
		name     string
		m        *finite.Machine[float64]
		settings string
	}{
		{"conv machine", conv, "pad 3"},
		{"recurrent machine", recur, "pad 6, timeblock 5"},
	} {
		model, err := newShiftModel(spec.m, seed(uint64(10+i)))
		if err != nil {
			return nil, err
		}
		initial := model.eval(testX, testY)
		data := seed(uint64(20 + i))
		adam := &optim.Adam{LR: shiftLR}
		start := time.Now()
		var it, losses []float64
		var last float64
		for step := 1; step <= steps; step++ {
			shiftBatchInto(data, model.x, model.y)
			model.g.Forward()
			model.g.Backward(model.loss)
			last = model.loss.Scalar()
			if math.IsNaN(last) || math.IsInf(last, 0) {
				return nil, fmt.Errorf("%s: loss %v at step %d", spec.name, last, step)
			}
			adam.Step(model.params, model.grad)
			it, losses = append(it, float64(step)), append(losses, last)
			if step%100 == 0 {
				c.logf("%s: step %d, minibatch loss %.4g", spec.name, step, last)
			}
		}
		secs := time.Since(start).Seconds()
		final := model.eval(testX, testY)
		c.logf("%s (%s): %d parameters, held-out loss %.4g before training, %.4g after %d steps (%.1fs)",
			spec.name, spec.settings, model.paramCount(), initial, final, steps, secs)
		r.Models = append(r.Models, Model{
			Name: spec.name, Params: model.paramCount(), TrainMSE: last, TestMSE: final,
			InitialLoss: &initial, FinalLoss: &final,
			FitSeconds: secs, Iterations: steps,
			Settings: Settings{Optimizer: fmt.Sprintf("adam lr %g, minibatch %d, %s", shiftLR, shiftBatch, spec.settings),
				MaxIter: steps, Dims: shiftDims, Activation: "tanh"},
		})
		curves = append(curves, figure.Series{Name: spec.name, X: it, Y: losses, Color: plotutil.Color(i)})

		// The first held-out signal: input, target and prediction.
		tx := make([]float64, shiftLength)
		in, target, pred := make([]float64, shiftLength), make([]float64, shiftLength), make([]float64, shiftLength)
		for t := range shiftLength {
			tx[t] = float64(t) * shiftDT
			in[t], target[t], pred[t] = testX.Data[t*shiftBatch], testY.Data[t*shiftBatch], model.pred.Value.Data[t*shiftBatch]
		}
		charts = append(charts, figure.Chart{
			Title: fmt.Sprintf("%s: held-out loss %.3g", spec.name, final), XLabel: "time", YLabel: "signal", Legend: figure.BottomLeft,
			Series: []figure.Series{
				{Name: "noisy input", X: tx, Y: in, Color: plotutil.Color(2), Points: true},
				{Name: "target (delayed sine)", X: tx, Y: target, Color: plotutil.Color(3), Dashed: true},
				{Name: "prediction", X: tx, Y: pred, Color: plotutil.Color(i)},
			},
		})
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

// paramCount counts the parameters the model uses: the machine's, the
// read-out's and the bias.
func (s *shiftModel) paramCount() int { return s.m.Params() + s.m.Size() + 1 }
