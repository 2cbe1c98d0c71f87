package scale

import (
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Scaler maps each column j of a data matrix to (x - Mean[j]) / Scale[j].
// Models keep one for their inputs and one for regression targets so that
// they can be fitted on standardised data and used on raw data.
type Scaler struct {
	Mean, Scale []float64
}

// FitScaler returns the Scaler that standardises each column of a to mean
// 0 and standard deviation 1. A constant column keeps scale 1. Columns of
// finite values as large as a float64 holds (near 1e308), whose sums and
// squares overflow, are standardised too. It panics if a value is NaN or
// infinite, which would make its column's mean NaN.
func FitScaler(a mat.Matrix) *Scaler {
	r, c := a.Dims()
	s := &Scaler{Mean: make([]float64, c), Scale: make([]float64, c)}
	col := make([]float64, r)
	for j := range c {
		mat.Col(col, j, a)
		if i := slices.IndexFunc(col, func(v float64) bool { return !finite(v) }); i >= 0 {
			panic(fmt.Errorf("%w: scale: column %d, row %d is %v, want a finite value", ad.ErrValue, j, i, col[i]))
		}
		mu, sd := stat.MeanStdDev(col, nil)
		if !finite(mu) || !finite(sd) {
			mu, sd = hugeMeanStdDev(col)
		}
		if !(sd > 0) {
			sd = 1
		}
		s.Mean[j], s.Scale[j] = mu, sd
	}
	return s
}

// hugeMeanStdDev returns the mean and standard deviation of finite values
// whose sum or squares overflow, computed on the values divided by the
// largest magnitude. A standard deviation beyond the largest float64
// (values of both signs near it) is cut to it.
func hugeMeanStdDev(x []float64) (mean, std float64) {
	var top float64
	for _, v := range x {
		top = math.Max(top, math.Abs(v))
	}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v / top
	}
	mean, std = stat.MeanStdDev(y, nil)
	return mean * top, math.Min(std*top, math.MaxFloat64)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Transform returns a new matrix holding the standardised columns of a.
func (s *Scaler) Transform(a mat.Matrix) *mat.Dense {
	r, c := a.Dims()
	s.check(c)
	out := mat.NewDense(r, c, nil)
	out.Apply(func(_, j int, v float64) float64 { return s.TransformValue(j, v) }, a)
	return out
}

// TransformValue standardises the value v of column j, as Transform does.
func (s *Scaler) TransformValue(j int, v float64) float64 {
	z := (v - s.Mean[j]) / s.Scale[j]
	if math.IsInf(z, 0) && finite(v) {
		// v - Mean overflowed: values of both signs near 1e308.
		z = v/s.Scale[j] - s.Mean[j]/s.Scale[j]
	}
	return z
}

// Invert maps standardised values back to the original units, in place.
func (s *Scaler) Invert(a *mat.Dense) {
	_, c := a.Dims()
	s.check(c)
	a.Apply(func(_, j int, v float64) float64 { return s.InvertValue(j, v) }, a)
}

// InvertValue maps the standardised value v of column j back to the
// original units, as Invert does.
func (s *Scaler) InvertValue(j int, v float64) float64 {
	x := v*s.Scale[j] + s.Mean[j]
	if math.IsInf(x, 0) && finite(v) {
		// v*Scale overflowed though the sum may not: values of both
		// signs near 1e308.
		x = 2 * (v*(s.Scale[j]/2) + s.Mean[j]/2)
	}
	return x
}

func (s *Scaler) check(cols int) {
	if len(s.Mean) != cols || len(s.Scale) != cols {
		panic(fmt.Errorf("%w: scale: scaler of %d columns applied to %d", ad.ErrShape, len(s.Mean), cols))
	}
}
