package ad

import "github.com/parametric-machines/machines/internal/numeric"

// negExp sets x[i] = e^(-c x[i]) for c x[i] >= 0, in place. The Gaussian
// kernel evaluates millions of exponentials of non-positive arguments
// (numeric.NegExp and NegExp32). The element type is resolved once per
// slice, not per element.
func negExp[T Float](x []T, c float64) {
	switch xd := any(x).(type) {
	case []float64:
		numeric.NegExp(xd, c)
	case []float32:
		numeric.NegExp32(xd, c)
	default:
		if single[T]() {
			numeric.NegExp32(retypeSlice[float32](x), c)
		} else {
			numeric.NegExp(retypeSlice[float64](x), c)
		}
	}
}
