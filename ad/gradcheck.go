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
func CheckGradient(g *Graph, loss *Node, params []*Node, step float64) GradientError {
	g.Forward()
	g.Backward(loss)
	var worst GradientError
	maxNum, maxDiff := 0.0, 0.0
	for p, n := range params {
		x := n.Value.Data
		saved := append([]float64(nil), x...)
		analytic := append([]float64(nil), n.Grad.Data...)
		numeric := fd.Gradient(nil, func(y []float64) float64 {
			copy(x, y)
			g.Forward()
			return loss.Scalar()
		}, saved, &fd.Settings{Formula: fd.Central, Step: step})
		copy(x, saved)
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
