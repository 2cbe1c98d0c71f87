//go:build !amd64 || noasm

package ad

// Without assembly sqDist runs the plain loop on every element.
const sqDistVec = false

func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int) {
	sqDistGo(dst, x, incX, d, u, ldu)
}
