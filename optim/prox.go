package optim

import "math"

// GroupLasso is the penalty Lambda * sum over groups of the Euclidean norm
// of the group's parameters. It drives whole groups (the weights of one
// edge of an architecture, say) to exactly zero, which is what pruning
// needs; Prox applies it as a proximal step, because a plain (sub)gradient
// step only makes the norms hover around zero.
type GroupLasso struct {
	Lambda float64
	// Groups lists the parameter index ranges [lo, hi) of each group.
	Groups [][2]int
}

// Norms writes the Euclidean norm of each group of x to dst (allocated if
// nil) and returns it.
func (l GroupLasso) Norms(dst []float64, x []float32) []float64 {
	if dst == nil {
		dst = make([]float64, len(l.Groups))
	}
	for i, g := range l.Groups {
		s := 0.0
		for _, v := range x[g[0]:g[1]] {
			s += float64(v) * float64(v)
		}
		dst[i] = math.Sqrt(s)
	}
	return dst
}

// Value returns the penalty at x.
func (l GroupLasso) Value(x []float32) float64 {
	s := 0.0
	for _, n := range l.Norms(nil, x) {
		s += n
	}
	return l.Lambda * s
}

// Prox replaces x by the minimiser of step*penalty(y) + |y - x|^2 / 2:
// each group is shrunk towards zero by step*Lambda in norm, and set to
// exactly zero when its norm is smaller than that (block soft-thresholding).
// Call it after each gradient step of the smooth part of the loss, with
// that step's learning rate.
func (l GroupLasso) Prox(x []float32, step float64) {
	t := step * l.Lambda
	for _, g := range l.Groups {
		s := 0.0
		for _, v := range x[g[0]:g[1]] {
			s += float64(v) * float64(v)
		}
		scale := 0.0
		if n := math.Sqrt(s); n > t {
			scale = 1 - t/n
		}
		for i := g[0]; i < g[1]; i++ {
			x[i] = float32(float64(x[i]) * scale)
		}
	}
}
