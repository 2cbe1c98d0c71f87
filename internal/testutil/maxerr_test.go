package testutil

import (
	"math"
	"testing"
)

func TestMaxErr(t *testing.T) {
	// exact is (t, 2t).
	exact := func(dst []float64, t float64) {
		dst[0] = t
		dst[1] = 2 * t
	}
	for _, tc := range []struct {
		name   string
		ts, ys []float64
		want   float64
	}{
		{"exact", []float64{0, 1}, []float64{0, 0, 1, 2}, 0},
		{"first component", []float64{0, 1}, []float64{0, 0, 1.5, 2}, 0.5},
		{"second component", []float64{0, 1}, []float64{0, -0.25, 1, 2}, 0.25},
		{"largest of several", []float64{0, 1, 2}, []float64{0.1, 0, 1, 1.7, 2, 4}, 0.3},
		{"NaN", []float64{0, 1}, []float64{0, 0, math.NaN(), 2}, math.Inf(1)},
	} {
		if got := MaxErr(tc.ts, tc.ys, exact); !(math.Abs(got-tc.want) <= 1e-15 || got == tc.want) {
			t.Errorf("%s: MaxErr = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name   string
		ts, ys []float64
	}{
		{"no times", nil, nil},
		{"ragged", []float64{0, 1}, []float64{0, 0, 1}},
	} {
		if _, ok := Panics(func() { MaxErr(tc.ts, tc.ys, exact) }); !ok {
			t.Errorf("%s: MaxErr did not panic", tc.name)
		}
	}
}
