package experiment

import (
	"path/filepath"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/plot/plotutil"
)

// Iteration budgets of the optimisers, in full and quick runs.
const (
	maxIter      = 2000
	maxIterQuick = 300
)

func (c Config) maxIter() int {
	if c.Quick {
		return maxIterQuick
	}
	return maxIter
}

// polynomialGrid is the side of the polynomial task's training grid.
const polynomialGrid = 6

// polynomialMachine is the kernel machine of the polynomial task: dims
// (2,3,3,2,1), 346 parameters on 36 points, fitted to the exact minimum
// because the surface is noise-free.
func polynomialMachine(c Config) tabular.Settings {
	s := kernelMachine(c, []int{2, 3, 3, 2, 1}, costs, polynomialGrid*polynomialGrid)
	s.UntilStall = true
	return s
}

// Polynomial fits p(x,y) = (2x-1)^2 + 2y + xy - 3 on the 6x6 grid of
// [0,1]^2 and tests on the 101x101 grid (Figure 3a and 3b): a kernel
// machine of 346 parameters against a one-hidden-layer perceptron
// of about 625 and kernel ridge regression.
func Polynomial(c Config) (*Report, error) {
	x, y := dataset.PolynomialGrid(polynomialGrid)
	xt, yt := dataset.PolynomialGrid(101)
	t := task{x: x, y: column(y), xt: xt, yt: column(yt)}
	km, err := t.fitKernel("kernel machine", polynomialMachine(c), c)
	if err != nil {
		return nil, err
	}
	mlp, err := t.fitPerceptron("perceptron", baseline.PerceptronSettings{
		Hidden: baseline.HiddenForParams(2, 1, 1, 625), Activation: baseline.Tanh,
		Standardize: true, Seed: c.Seed, MaxIter: c.maxIter(),
	}, c)
	if err != nil {
		return nil, err
	}
	ridge, err := t.fitRidge("kernel ridge", c)
	if err != nil {
		return nil, err
	}
	models := []*fitted{km, mlp, ridge}
	r := &Report{}
	for _, f := range models {
		r.Models = append(r.Models, f.Model)
	}

	// Figure 3a: the fitted surfaces beside the truth, on one colour scale.
	axis := make([]float64, 101)
	for i := range axis {
		axis[i] = float64(i) / 100
	}
	surface := func(v func(i int) float64) [][]float64 {
		z := make([][]float64, 101)
		for r := range z {
			z[r] = make([]float64, 101)
			for c := range z[r] {
				z[r][c] = v(c*101 + r) // rows of xt run through y fastest
			}
		}
		return z
	}
	maps := []figure.Heatmap{{Title: "truth", X: axis, Y: axis, Z: surface(func(i int) float64 { return yt[i] })}}
	for _, f := range models {
		p := f.predict(xt)
		maps = append(maps, figure.Heatmap{Title: f.Name, X: axis, Y: axis, Z: surface(func(i int) float64 { return p.At(i, 0) })})
	}
	paths, err := figure.Heatmaps(filepath.Join(c.dir(), "polynomial-surfaces"), figure.Layout{},
		figure.HeatmapSet{XLabel: "x", YLabel: "y", Label: "p(x, y)", Min: -3, Max: 1, Maps: maps})
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)

	// Figure 3b: train and test error over the optimisers' iterations.
	paths, err = figure.Lines(filepath.Join(c.dir(), "polynomial-loss"), learningCurves("polynomial: loss over training", models))
	if err != nil {
		return nil, err
	}
	r.Figures = append(r.Figures, paths...)
	return r, nil
}

// learningCurves charts the train (solid) and test (dashed) error of
// each iterative fit over its iterations, on a log scale.
func learningCurves(title string, models []*fitted) figure.Chart {
	ch := figure.Chart{Title: title, XLabel: "iteration", YLabel: "mean squared error", LogY: true, Legend: figure.TopRight}
	for i, f := range models {
		if len(f.curve) == 0 {
			continue
		}
		it, train, test := make([]float64, len(f.curve)), make([]float64, len(f.curve)), make([]float64, len(f.curve))
		for j, p := range f.curve {
			it[j], train[j], test[j] = float64(p.iter), floor(p.train), floor(p.test)
		}
		col := plotutil.Color(i)
		ch.Series = append(ch.Series,
			figure.Series{Name: f.Name + " (train)", X: it, Y: train, Color: col},
			figure.Series{Name: f.Name + " (test)", X: it, Y: test, Color: col, Dashed: true})
	}
	return ch
}

// floor keeps an exactly zero error plottable on a log axis.
func floor(v float64) float64 { return max(v, 1e-16) }
