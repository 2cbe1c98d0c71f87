package scale

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
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

// TestScalerHuge standardises columns of values near the largest
// float64, whose sums and squares overflow.
func TestScalerHuge(t *testing.T) {
	for _, test := range []struct {
		name string
		col  []float64
		// sd is the standard deviation of the standardised column: 1,
		// less where the column's exceeds the largest float64.
		sd float64
	}{
		{"positive", []float64{1e308, 1.5e308, 1.7e308, 0.2e308}, 1},
		{"both signs", []float64{-1.7e308, 1.7e308, -1.6e308, 1.6e308}, 1.9061304607e308 / math.MaxFloat64},
		{"one huge", []float64{1, 2, 3, 1.7e308}, 1},
		// A value minus the mean overflows.
		{"one negative", []float64{-1.7e308, 1.7e308, 1.7e308, 1.7e308}, 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			a := mat.NewDense(len(test.col), 1, test.col)
			s := FitScaler(a)
			z := s.Transform(a)
			mu, sd := stat.MeanStdDev(mat.Col(nil, 0, z), nil)
			if math.Abs(mu) > 1e-12 || math.Abs(sd-test.sd) > 1e-4 {
				t.Errorf("standardised to mean %v, standard deviation %v; want 0, %v", mu, sd, test.sd)
			}
			s.Invert(z)
			for i, v := range test.col {
				if math.Abs(z.At(i, 0)-v) > 1e-12*1.7e308 {
					t.Errorf("row %d: Invert gives %v, want %v", i, z.At(i, 0), v)
				}
			}
		})
	}
}

// TestFitPanics checks that the fits refuse the values they cannot map,
// naming the column and the row: a NaN or an infinity made FitScaler's
// mean NaN, and with it every value of the column.
func TestFitPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		fit  func(mat.Matrix)
		v    float64
		want string
	}{
		{"scaler NaN", func(a mat.Matrix) { FitScaler(a) }, math.NaN(), "column 1, row 2 is NaN"},
		{"scaler Inf", func(a mat.Matrix) { FitScaler(a) }, math.Inf(-1), "column 1, row 2 is -Inf"},
		{"quantile NaN", func(a mat.Matrix) { FitQuantileMap(a) }, math.NaN(), "column 1, row 2 is NaN"},
	} {
		a := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, c.v, 7, 8})
		if err := testutil.PanicError(func() { c.fit(a) }); !errors.Is(err, ad.ErrValue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: panic %v, want ad.ErrValue saying %q", c.name, err, c.want)
		}
	}
}
