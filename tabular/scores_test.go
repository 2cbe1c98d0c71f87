package tabular

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestClassScores checks a classifier's held-out scores 1 - p of the
// true class: one per held-out prediction, sorted, in [0, 1], small where
// the classes are apart and near 1 - 1/2 where a coin decides them.
func TestClassScores(t *testing.T) {
	for _, tc := range []struct {
		name   string
		coin   bool    // the input says nothing of the class
		lo, hi float64 // bounds of the median score
	}{
		{"apart", false, 0, 0.2},
		{"coin", true, 0.3, 0.7},
	} {
		rnd := rand.New(rand.NewPCG(1, 2))
		n := 60
		x := mat.NewDense(n, 1, nil)
		labels := make([]int, n)
		for i := range n {
			labels[i] = i % 2
			v := float64(labels[i])*4 + rnd.NormFloat64()*0.3
			if tc.coin {
				v = rnd.NormFloat64()
			}
			x.Set(i, 0, v)
		}
		_, res, err := FitClassifier(x, labels, 2, Settings{Family: Shallow})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Calibration.Scores
		if len(s) < n || !slices.IsSorted(s) || s[0] < 0 || s[len(s)-1] > 1 {
			t.Fatalf("%s: %d scores from %v to %v, want at least %d sorted in [0, 1]", tc.name, len(s), s[0], s[len(s)-1], n)
		}
		if m := s[len(s)/2]; m < tc.lo || m > tc.hi {
			t.Errorf("%s: median score %v, want it in [%v, %v]", tc.name, m, tc.lo, tc.hi)
		}
	}
}
