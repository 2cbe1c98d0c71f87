package baseline

import (
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNearestNeighbours(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{
		0, 0,
		0, 1,
		0, 2,
		0.1, 10,
		0.1, 11,
	})
	labels := []int{0, 0, 0, 1, 1}
	q := mat.NewDense(3, 2, []float64{
		0, 1.2, // nearest rows 1, 2, 0, 3, 4
		0.1, 9, // nearest rows 3, 4, 2, 1, 0
		0.1, 6.5, // nearest rows 3, 4, 2, 1, 0
	})
	for _, tc := range []struct {
		name string
		m    NearestNeighbours
		want []int
	}{
		{"k 1", NearestNeighbours{K: 1}, []int{0, 1, 1}},
		{"k 0 means 1", NearestNeighbours{}, []int{0, 1, 1}},
		{"k 3", NearestNeighbours{K: 3}, []int{0, 1, 1}},
		// Two votes each for the last two: the nearest row's label wins.
		{"k 4 tie", NearestNeighbours{K: 4}, []int{0, 1, 1}},
		{"k 5 majority", NearestNeighbours{K: 5}, []int{0, 0, 0}},
		{"standardised k 1", NearestNeighbours{K: 1, Standardize: true}, []int{0, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.m.Fit(x, labels); err != nil {
				t.Fatal(err)
			}
			if got := tc.m.Predict(q); !slices.Equal(got, tc.want) {
				t.Errorf("predictions %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNearestNeighboursStandardize(t *testing.T) {
	// Column 1 spreads 100 times wider than column 0; column 2 is
	// constant and must be dropped, not divided by zero.
	x := mat.NewDense(2, 3, []float64{
		0, 0, 5,
		1, 100, 5,
	})
	labels := []int{0, 1}
	// Raw, column 1 decides: 30 is nearer 0 than 100. Standardised to
	// ±1 per column, the query is at (0.8, -0.4): nearer (1, 1).
	q := mat.NewDense(1, 3, []float64{0.9, 30, 1e6})
	for _, tc := range []struct {
		std  bool
		want int
	}{{false, 0}, {true, 1}} {
		m := NearestNeighbours{K: 1, Standardize: tc.std}
		if err := m.Fit(x, labels); err != nil {
			t.Fatal(err)
		}
		if got := m.Predict(q)[0]; got != tc.want {
			t.Errorf("standardise %v: class %d, want %d", tc.std, got, tc.want)
		}
	}
}

func TestNearestNeighboursErrors(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{0, 1})
	for _, tc := range []struct {
		name   string
		m      NearestNeighbours
		labels []int
	}{
		{"k above rows", NearestNeighbours{K: 3}, []int{0, 1}},
		{"labels", NearestNeighbours{}, []int{0}},
	} {
		if err := tc.m.Fit(x, tc.labels); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
