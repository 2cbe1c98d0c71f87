package testutil

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Order returns the empirical order of convergence of a method whose
// errors at the step sizes hs are errs: the least-squares slope of
// log(err) against log(h).
func Order(hs, errs []float64) float64 {
	x, y := make([]float64, len(hs)), make([]float64, len(errs))
	for i := range hs {
		x[i], y[i] = math.Log(hs[i]), math.Log(errs[i])
	}
	_, slope := stat.LinearRegression(x, y, nil, false)
	return slope
}
