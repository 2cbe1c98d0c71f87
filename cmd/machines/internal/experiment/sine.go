package experiment

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// sineRows is the number of training samples of the sine task.
const sineRows = 100

// sineTask returns sineRows noisy samples of sin(x^2/2) + U[0,1) on
// [0,8] and the 801-point test grid of sin(x^2/2) + 0.5.
func sineTask(seed uint64) task {
	x, y := dataset.NoisySine(sineRows, rand.New(rand.NewPCG(seed, 0x73696e65)))
	xt, yt := dataset.SineGrid(801)
	return task{x: x, y: column(y), xt: xt, yt: column(yt)}
}

// sineMachine is the kernel machine of the sine task: dims (2,2,2,1),
// 507 parameters on 100 points, with its cost chosen among costs.
func sineMachine(c Config, costs ...float64) tabular.Settings {
	return kernelMachine(c, []int{2, 2, 2, 1}, costs, sineRows)
}

// Sine fits 100 noisy samples of sin(x^2/2) (Figure 3c): a kernel machine
// of 507 parameters against one-hidden-layer perceptrons with ReLU
// and sigmoid activations of about 609 parameters, and kernel ridge.
func Sine(c Config) (*Report, error) {
	t := sineTask(c.Seed)
	km, err := t.fitKernel("kernel machine", sineMachine(c, costs...), c)
	if err != nil {
		return nil, err
	}
	models := []*fitted{km}
	for _, act := range []baseline.Activation{baseline.ReLU, baseline.Sigmoid} {
		f, err := t.fitPerceptron("perceptron "+act.String(), baseline.PerceptronSettings{
			Hidden: baseline.HiddenForParams(1, 1, 1, 609), Activation: act,
			Standardize: true, Seed: c.Seed, MaxIter: c.maxIter(),
		}, c)
		if err != nil {
			return nil, err
		}
		models = append(models, f)
	}
	ridge, err := t.fitRidge("kernel ridge", c)
	if err != nil {
		return nil, err
	}
	models = append(models, ridge)
	r := &Report{}
	for _, f := range models {
		r.Models = append(r.Models, f.Model)
	}
	fits := sineFits(t, "sine: fits to 100 noisy samples", models)
	paths, err := figure.Panels(filepath.Join(c.dir(), "sine"), figure.Layout{Cols: 2, Width: 480, Height: 320},
		fits, learningCurves("sine: loss over training", models[:3]))
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)
	return r, nil
}

// sineFits charts the noisy samples, the truth and each model's curve.
func sineFits(t task, title string, models []*fitted) figure.Chart {
	ch := figure.Chart{Title: title, XLabel: "x", YLabel: "y", Legend: figure.BottomLeft}
	ch.Series = append(ch.Series,
		figure.Series{Name: "samples", X: mat.Col(nil, 0, t.x), Y: mat.Col(nil, 0, t.y), Points: true},
		figure.Series{Name: "sin(x²/2) + 0.5", X: mat.Col(nil, 0, t.xt), Y: mat.Col(nil, 0, t.yt), Dashed: true})
	for _, f := range models {
		ch.Series = append(ch.Series, figure.Series{
			Name: fmt.Sprintf("%s (test MSE %.3g)", f.Name, f.TestMSE),
			X:    mat.Col(nil, 0, t.xt), Y: mat.Col(nil, 0, f.predict(t.xt))})
	}
	return ch
}

// sweepCosts are the regularisation costs of SineCost.
var sweepCosts = []float64{1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 3e-4, 1e-4}

// SineCost fits the kernel machine of Sine over a sweep of regularisation
// costs (Figure 3d).
func SineCost(c Config) (*Report, error) {
	t := sineTask(c.Seed)
	r := &Report{}
	var models []*fitted
	train, test := make([]float64, len(sweepCosts)), make([]float64, len(sweepCosts))
	for i, cost := range sweepCosts {
		f, err := t.fitKernel(fmt.Sprintf("kernel machine cost=%g", cost), sineMachine(c, cost), c)
		if err != nil {
			return nil, err
		}
		f.Cost = &sweepCosts[i]
		r.Models = append(r.Models, f.Model)
		models = append(models, f)
		train[i], test[i] = f.TrainMSE, f.TestMSE
	}
	sweep := figure.Chart{Title: "sine: error against regularisation cost", XLabel: "cost", YLabel: "mean squared error",
		LogX: true, LogY: true, Legend: figure.TopLeft, Series: []figure.Series{
			{Name: "train", X: sweepCosts, Y: train},
			{Name: "test", X: sweepCosts, Y: test, Dashed: true},
		}}
	// Three costs across the range: one so large that the constant
	// function wins, one in the middle, one small enough to overfit.
	shown := []*fitted{models[4], models[6], models[8]}
	paths, err := figure.Panels(filepath.Join(c.dir(), "sine-cost"), figure.Layout{Cols: 2, Width: 480, Height: 320},
		sweep, sineFits(t, "sine: fits at three costs", shown))
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)
	return r, nil
}
