// Package numeric holds the small checks and helpers that the module's
// numerical packages share: whether numbers are finite, the indices of n
// rows, the exponentials of many non-positive numbers at a time
// (NegExp, NegExp32), which the Gaussian kernel evaluates, and the
// eigendecomposition of a symmetric matrix (EigenSym), which the shallow
// machine's solvers take of their Gram matrices.
package numeric

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// AllFinite reports whether every value of x is a number other than
// ±Inf.
func AllFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// CheckFinite returns an error naming the first entry of a that is NaN
// or ±Inf, by its row and column after what ("kernel: input row 3,
// column 0 is NaN"), or nil if there is none.
func CheckFinite(what string, a mat.Matrix) error {
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s row %d, column %d is %v", what, i, j, v)
			}
		}
	}
	return nil
}

// Indices returns 0, 1, ..., n-1.
func Indices(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}
