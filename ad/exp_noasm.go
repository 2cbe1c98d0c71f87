//go:build !amd64 || noasm

package ad

// Without assembly negExp64 runs the plain loop on every element.
const expVec = false

func negExp64x4(x []float64, c float64) { negExp64Go(x, c) }
