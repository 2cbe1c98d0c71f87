package ad

import (
	"math"

	"gonum.org/v1/gonum/diff/fd"
)

// GradientError describes the worst disagreement found by CheckGradient.
type GradientError struct {
	Param, Index      int     // which parameter and which element of it
	Analytic, Numeric float64 // the two derivatives there
	// Rel is max |analytic - numeric| over all elements divided by the
	// largest numeric derivative: a scale-free measure of the whole
	// gradient's error.
	Rel float64
}

// CheckGradient compares the gradient that Backward computes for loss
// with respect to params against central finite differences with the
// given step (0 means gonum's default). It replays the graph, perturbing
// one element of a parameter at a time, and restores every value before
// returning.
//
// The differences are taken in float64 but the graph evaluates in its
// own element type. For float32 the rounding error of the loss, about
// 1e-7 of its size, is divided by the step: use a step near 1e-3, where
// a correct gradient shows a Rel of about 1e-4 (the tests of this package
// accept 2e-3) and a wrong one a Rel near 1. The tests also check every
// float32 operation more strictly, against the same graph built in
// float64.
func CheckGradient[T Float](g *Graph[T], loss *Node[T], params []*Node[T], step float64) GradientError {
	g.Forward()
	g.Backward(loss)
	var worst GradientError
	maxNum, maxDiff := 0.0, 0.0
	for p, n := range params {
		x := n.Value.Data
		saved := make([]float64, len(x))
		analytic := make([]float64, len(x))
		for i, v := range x {
			saved[i], analytic[i] = float64(v), float64(n.Grad.Data[i])
		}
		numeric := fd.Gradient(nil, func(y []float64) float64 {
			for i, v := range y {
				x[i] = T(v)
			}
			g.Forward()
			return float64(loss.Scalar())
		}, saved, &fd.Settings{Formula: fd.Central, Step: step})
		for i, v := range saved {
			x[i] = T(v)
		}
		for i, d := range numeric {
			maxNum = math.Max(maxNum, math.Abs(d))
			if diff := math.Abs(d - analytic[i]); diff > maxDiff || (p == 0 && i == 0) {
				maxDiff = diff
				worst = GradientError{Param: p, Index: i, Analytic: analytic[i], Numeric: d}
			}
		}
	}
	g.Forward()
	worst.Rel = maxDiff / math.Max(maxNum, math.SmallestNonzeroFloat64)
	return worst
}
