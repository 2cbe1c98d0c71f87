package scale

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestQuantileMap checks the map fitted to columns of several kinds: ties
// counted half, values between and beyond the knots, a two-valued column
// left alone, and a column of more distinct values than QuantileKnots
// mapped through its quantiles.
func TestQuantileMap(t *testing.T) {
	const n = 1000
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		v := []float64{1, 2, 2, 10}[i%4] // ranks 1/8, 1/2, 7/8 (ties counted half)
		x.SetRow(i, []float64{v, float64(i % 2), math.Exp(float64(i) / 100)})
	}
	q := FitQuantileMap(x)
	if err := q.Check(3); err != nil {
		t.Fatalf("a fitted map fails its check: %v", err)
	}
	if q.Knots[1] != nil {
		t.Errorf("two-valued column mapped through knots %v", q.Knots[1])
	}
	if k := len(q.Knots[2]); k != QuantileKnots {
		t.Errorf("column of %d distinct values has %d knots, want %d", n, k, QuantileKnots)
	}
	for _, tc := range []struct {
		col     int
		in, out float64
	}{
		{0, 1, 0.125},
		{0, 2, 0.5},
		{0, 10, 0.875},
		{0, 6, 0.6875}, // halfway between the knots 2 and 10
		{0, -5, 0.125}, // held beyond the first knot
		{0, 99, 0.875}, // and the last
		{1, 1, 1},      // left alone
		{1, 7, 7},
		{2, math.Exp(4.995), 0.5}, // the median row's value
	} {
		if got := q.TransformValue(tc.col, tc.in); math.Abs(got-tc.out) > 2e-3 {
			t.Errorf("column %d: %v maps to %v, want %v", tc.col, tc.in, got, tc.out)
		}
	}
	if got := q.TransformValue(0, math.NaN()); !math.IsNaN(got) {
		t.Errorf("NaN maps to %v, want NaN", got)
	}
	mapped := q.Transform(x)
	if got, want := mapped.At(5, 0), q.TransformValue(0, x.At(5, 0)); got != want {
		t.Errorf("Transform gives %v, TransformValue %v", got, want)
	}
}

// TestQuantileMapCheck checks that maps no fit could make are refused with
// the column and the entry at fault.
func TestQuantileMapCheck(t *testing.T) {
	for _, tc := range []struct {
		name         string
		knots, ranks [][]float64
		want         string
	}{
		{"columns", [][]float64{nil}, [][]float64{nil}, "for 2 columns"},
		{"one knot", [][]float64{{1}, nil}, [][]float64{{0.5}, nil}, "column 0: 1 knots"},
		{"lengths", [][]float64{{1, 2}, nil}, [][]float64{{0.5}, nil}, "column 0: 2 knots and 1 ranks"},
		{"order", [][]float64{nil, {1, 1}}, [][]float64{nil, {0.2, 0.8}}, "column 1: knot 1"},
		{"infinite", [][]float64{{1, math.Inf(1)}, nil}, [][]float64{{0.2, 0.8}, nil}, "column 0: knot 1"},
		{"rank above 1", [][]float64{{1, 2}, nil}, [][]float64{{0.2, 1.5}, nil}, "column 0: rank 1"},
		{"ranks down", [][]float64{{1, 2}, nil}, [][]float64{{0.8, 0.2}, nil}, "column 0: rank 1"},
		{"NaN rank", [][]float64{{1, 2}, nil}, [][]float64{{math.NaN(), 0.2}, nil}, "column 0: rank 0"},
	} {
		err := (&QuantileMap{Knots: tc.knots, Ranks: tc.ranks}).Check(2)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
