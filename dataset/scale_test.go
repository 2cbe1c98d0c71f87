package dataset

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestScaler(t *testing.T) {
	a := mat.NewDense(4, 3, []float64{
		1, 10, 5,
		2, 20, 5,
		3, 30, 5,
		4, 50, 5,
	})
	s := FitScaler(a)
	z := s.Transform(a)
	for j := range 2 {
		mu, sd := stat.MeanStdDev(mat.Col(nil, j, z), nil)
		if !(math.Abs(mu) < 1e-12 && math.Abs(sd-1) < 1e-12) {
			t.Errorf("column %d standardised to mean %v, sd %v", j, mu, sd)
		}
	}
	if s.Scale[2] != 1 || z.At(0, 2) != 0 {
		t.Errorf("constant column: scale %v, value %v; want 1 and 0", s.Scale[2], z.At(0, 2))
	}
	s.Invert(z)
	if !mat.EqualApprox(z, a, 1e-12) {
		t.Errorf("Invert(Transform(a)) = %v, want %v", mat.Formatted(z), mat.Formatted(a))
	}
}
