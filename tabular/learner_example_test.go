package tabular_test

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// Fit y = sin(3x) from 40 points with the default settings, which choose
// the cost and the bandwidth by cross-validation, then predict between
// the training points.
func ExampleFitRegression() {
	x, y := mat.NewDense(40, 1, nil), mat.NewDense(40, 1, nil)
	for i := range 40 {
		v := -1 + 2*float64(i)/39
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(3*v))
	}
	m, res, err := tabular.FitRegression(x, y, tabular.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("dims %v, shallow %v, cost %g, bandwidth %.3g, chosen among %d settings\n",
		res.Dims, res.Shallow, res.Cost, res.Bandwidth, len(res.Selection.Candidates))
	query := mat.NewDense(3, 1, []float64{-0.5, 0.05, 0.7})
	pred := m.Predict(nil, query)
	for i := range 3 {
		v := query.At(i, 0)
		// Two decimals: the last digits depend on the processor's kernels.
		fmt.Printf("x %5.2f: predicted %5.2f, true %5.2f\n", v, pred.At(i, 0), math.Sin(3*v))
	}
	// Output:
	// dims [1 1], shallow true, cost 0.0001, bandwidth 0.729, chosen among 9 settings
	// x -0.50: predicted -1.00, true -1.00
	// x  0.05: predicted  0.15, true  0.15
	// x  0.70: predicted  0.86, true  0.86
}

// Classify points by the quadrant they fall in; the machine predicts one
// score per class.
func ExampleFitClassifier() {
	var rows []float64
	var labels []int
	for i := range 8 {
		for j := range 8 {
			a, b := float64(i)-3.5, float64(j)-3.5
			rows = append(rows, a, b)
			label := 0
			if a > 0 {
				label++
			}
			if b > 0 {
				label += 2
			}
			labels = append(labels, label)
		}
	}
	x := mat.NewDense(64, 2, rows)
	m, res, err := tabular.FitClassifier(x, labels, 4, tabular.Settings{Costs: []float64{1e-3}, Bandwidths: []float64{1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("converged:", res.Converged)
	query := mat.NewDense(2, 2, []float64{-2, 2.5, 3, -1})
	scores := m.Predict(nil, query)
	for i := range 2 {
		fmt.Printf("(%g, %g): class %d\n", query.At(i, 0), query.At(i, 1), argmax(mat.Row(nil, i, scores)))
	}
	// Output:
	// converged: true
	// (-2, 2.5): class 2
	// (3, -1): class 1
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
