package tabular

import (
	"math"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// TestScoreBins checks the bins of a regression, by its predictions in
// groups of equal size, and of a classifier, by the probability of its
// predicted class.
func TestScoreBins(t *testing.T) {
	// 12 rows predicted 11, 10, ..., 0, observed twice that: 2 bins of 6.
	pred := mat.NewDense(12, 1, nil)
	values := make([]float64, 12)
	for i := range 12 {
		pred.Set(i, 0, float64(11-i))
		values[i] = 2 * float64(11-i)
	}
	got := scoreBins(&Model{Task: Regression}, pred, &dataset.Target{Values: values})
	want := []Bin{{Rows: 6, Predicted: 2.5, Observed: 5}, {Rows: 6, Predicted: 8.5, Observed: 17}}
	if !slices.Equal(got, want) {
		t.Errorf("regression bins %v, want %v", got, want)
	}
	// Two targets, row by row: the first one's.
	pred2 := mat.NewDense(5, 2, nil)
	values2 := make([]float64, 10)
	for i := range 5 {
		pred2.Set(i, 0, float64(i))
		values2[2*i], values2[2*i+1] = float64(i)+1, -100
	}
	if got := scoreBins(&Model{Task: Regression}, pred2, &dataset.Target{Values: values2}); !slices.Equal(got, []Bin{{Rows: 5, Predicted: 2, Observed: 3}}) {
		t.Errorf("two targets' bins %v, want the first's", got)
	}
	if got := scoreBins(&Model{Task: Regression}, pred.Slice(0, 4, 0, 1).(*mat.Dense), &dataset.Target{Values: values[:4]}); got != nil {
		t.Errorf("4 rows: bins %v, want none", got)
	}
	// Probabilities 0.95 (right, wrong), 0.55 (right, right, wrong), and
	// 1, in the last bin (right).
	scores := [][]float64{{0.95, 0.05}, {0.05, 0.95}, {0.55, 0.45}, {0.45, 0.55}, {0.55, 0.45}, {1, 0}}
	labels := []int{0, 0, 0, 1, 1, 0}
	cls := mat.NewDense(6, 2, nil)
	for i, s := range scores {
		cls.SetRow(i, []float64{math.Log(s[0]), math.Log(s[1])})
	}
	got = scoreBins(&Model{Task: Classification, Classes: []string{"a", "b"}}, cls, &dataset.Target{Labels: labels})
	want = []Bin{{Rows: 3, Predicted: 0.55, Observed: 2.0 / 3}, {Rows: 3, Predicted: (0.95 + 0.95 + 1) / 3, Observed: 2.0 / 3}}
	if len(got) != len(want) {
		t.Fatalf("classifier bins %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Rows != want[i].Rows || math.Abs(got[i].Predicted-want[i].Predicted) > 1e-12 || math.Abs(got[i].Observed-want[i].Observed) > 1e-12 {
			t.Errorf("classifier bin %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
