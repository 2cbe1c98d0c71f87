package testutil

import (
	"fmt"
	"math"
)

// MaxErr returns the largest error, in absolute value, of the states ys at
// the times ts against exact, which sets dst to the exact state at t. The
// states are stored as the solvers store them, one row per time: the state
// at ts[k] is ys[k*n:(k+1)*n] for n = len(ys)/len(ts). A NaN counts as an
// infinite error, so that a test of the form MaxErr(...) > tol catches it.
func MaxErr(ts, ys []float64, exact func(dst []float64, t float64)) float64 {
	if len(ts) == 0 || len(ys)%len(ts) != 0 {
		panic(fmt.Sprintf("testutil: %d values for %d times", len(ys), len(ts)))
	}
	n := len(ys) / len(ts)
	want := make([]float64, n)
	var e float64
	for k, t := range ts {
		exact(want, t)
		for i, w := range want {
			d := math.Abs(ys[k*n+i] - w)
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
			e = max(e, d)
		}
	}
	return e
}
