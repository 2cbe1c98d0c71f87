package dataset

import (
	"fmt"
	"math"

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
// 0 and standard deviation 1. A constant column keeps scale 1.
func FitScaler(a mat.Matrix) *Scaler {
	r, c := a.Dims()
	s := &Scaler{Mean: make([]float64, c), Scale: make([]float64, c)}
	col := make([]float64, r)
	for j := range c {
		mat.Col(col, j, a)
		mu, sd := stat.MeanStdDev(col, nil)
		if !(sd > 0) || math.IsInf(sd, 0) {
			sd = 1
		}
		s.Mean[j], s.Scale[j] = mu, sd
	}
	return s
}

// Transform returns a new matrix holding the standardised columns of a.
func (s *Scaler) Transform(a mat.Matrix) *mat.Dense {
	r, c := a.Dims()
	s.check(c)
	out := mat.NewDense(r, c, nil)
	out.Apply(func(_, j int, v float64) float64 { return (v - s.Mean[j]) / s.Scale[j] }, a)
	return out
}

// Invert maps standardised values back to the original units, in place.
func (s *Scaler) Invert(a *mat.Dense) {
	_, c := a.Dims()
	s.check(c)
	a.Apply(func(_, j int, v float64) float64 { return v*s.Scale[j] + s.Mean[j] }, a)
}

func (s *Scaler) check(cols int) {
	if len(s.Mean) != cols || len(s.Scale) != cols {
		panic(fmt.Sprintf("dataset: scaler of %d columns applied to %d", len(s.Mean), cols))
	}
}
