package testutil

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
)

// CheckGradient compares a gradient got, computed by the code under test,
// with central finite differences of f at x (step 1e-5), entry by entry
// within tol absolute or relative, and logs the largest relative
// difference. f must leave any state it changes as it found it; x is not
// modified.
func CheckGradient(t testing.TB, got []float64, f func(x []float64) float64, x []float64, tol float64) {
	t.Helper()
	want := fd.Gradient(nil, f, append([]float64(nil), x...), &fd.Settings{Formula: fd.Central, Step: 1e-5})
	if len(got) != len(want) {
		t.Errorf("gradient of %d entries, want %d", len(got), len(want))
		return
	}
	var worst float64
	for i := range got {
		worst = max(worst, math.Abs(got[i]-want[i])/max(1, math.Abs(want[i])))
	}
	t.Logf("largest difference from finite differences %.2g", worst)
	for i := range got {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], tol, tol) {
			t.Errorf("gradient[%d] = %.10g, finite differences %.10g", i, got[i], want[i])
		}
	}
}
