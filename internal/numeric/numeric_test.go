package numeric

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestAllFinite(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want bool
	}{
		{nil, true},
		{[]float64{0, -1, math.MaxFloat64}, true},
		{[]float64{0, math.NaN()}, false},
		{[]float64{math.Inf(1), 0}, false},
		{[]float64{1, math.Inf(-1)}, false},
	} {
		if got := AllFinite(tc.x); got != tc.want {
			t.Errorf("AllFinite(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

func TestCheckFinite(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *mat.Dense
		want string
	}{
		{"finite", mat.NewDense(2, 2, []float64{1, 2, 3, 4}), ""},
		{"NaN", mat.NewDense(2, 2, []float64{1, 2, math.NaN(), 4}), "kernel: input row 1, column 0 is NaN"},
		{"Inf", mat.NewDense(2, 2, []float64{1, math.Inf(-1), math.NaN(), 4}), "kernel: input row 0, column 1 is -Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFinite("kernel: input", tc.a)
			if got := ""; err != nil {
				got = err.Error()
				if got != tc.want {
					t.Errorf("error %q, want %q", got, tc.want)
				}
			} else if tc.want != "" {
				t.Errorf("no error, want %q", tc.want)
			}
		})
	}
}

func TestIndices(t *testing.T) {
	if got := Indices(4); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("Indices(4) = %v", got)
	}
	if got := Indices(0); len(got) != 0 {
		t.Errorf("Indices(0) = %v", got)
	}
}
