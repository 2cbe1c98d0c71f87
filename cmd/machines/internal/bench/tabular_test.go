package bench

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestTabularSuite(t *testing.T) {
	if !slices.Contains(Suites(), "tabular") {
		t.Errorf("Suites() = %v, no tabular", Suites())
	}
	ws, err := Suite("tabular")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
		if w.setup == nil || w.Unit == "" || w.Reference == "" {
			t.Errorf("workload %s incomplete: %+v", w.Name, w)
		}
	}
	if want := []string{"F1-2000", "F1-20000"}; !slices.Equal(names, want) {
		t.Errorf("tabular workloads %v, want %v", names, want)
	}
}

func TestRSquared(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	for _, test := range []struct {
		pred []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 1},
		{[]float64{2.5, 2.5, 2.5, 2.5}, 0},
		{[]float64{2, 2, 3, 3}, 0.6}, // residuals 1, 0, 0, 1 against 5 about the mean
	} {
		if got := rSquared(y, mat.NewDense(4, 1, test.pred)); math.Abs(got-test.want) > 1e-12 {
			t.Errorf("R² of %v = %v, want %v", test.pred, got, test.want)
		}
	}
}

func TestCheckR2(t *testing.T) {
	if err := checkR2(0.91, 0.90, 5000); err != nil {
		t.Errorf("R² 0.91 against 0.90: %v", err)
	}
	for _, r2 := range []float64{0.89, math.NaN()} {
		if err := checkR2(r2, 0.90, 5000); err == nil {
			t.Errorf("R² %v against 0.90: no error", r2)
		}
	}
}

// TestFriedmanFit fits a small Friedman 1 problem through the tabular
// workloads' setup, which checks the held-out R².
func TestFriedmanFit(t *testing.T) {
	if testing.Short() {
		t.Skip("a full fit with cross-validation")
	}
	if _, err := friedmanFit(300, 500, 0.6); err != nil {
		t.Fatal(err)
	}
}
