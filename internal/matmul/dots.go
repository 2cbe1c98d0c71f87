package matmul

import "fmt"

// Products c = a*b' with few columns (a product with b transposed, at
// most dotsCols rows of b) are computed as inner products of rows of a
// with rows of b, four by three at a time, where the packed kernels
// would copy a and b and pad the few columns to a whole tile: a linear
// layer's forward pass, samples times a weight matrix of a few outputs.

// dotsCols is the most columns of c that the inner products compute.
const dotsCols = 16

// Dots4x3 sets sums[3r+j] to the inner product of a[r*lda:][:k] with
// b[j*ldb:][:k], for r < 4 and j < 3: twelve inner products, four rows of
// a with three rows of b, each element of the seven rows loaded once.
// With ldb 1 the rows of b are three shifts of one row, a correlation's
// three taps. It panics if a slice is too short.
func Dots4x3(sums, a []float32, lda int, b []float32, ldb, k int) {
	if k < 0 || len(sums) < 12 || len(a) < 3*lda+k || len(b) < 2*ldb+k || lda < 0 || ldb < 0 {
		panic(fmt.Sprintf("matmul: Dots4x3 of length %d on %d elements of a (stride %d) and %d of b (stride %d) into %d sums",
			k, len(a), lda, len(b), ldb, len(sums)))
	}
	if useKernels {
		dots4x3Kernel(sums, a, lda, b, ldb, k)
		return
	}
	dots4x3Go(sums, a, lda, b, ldb, k)
}

// dots4x3Go is Dots4x3 in Go.
func dots4x3Go(sums, a []float32, lda int, b []float32, ldb, k int) {
	for r := range 4 {
		ar := a[r*lda : r*lda+k]
		for j := range 3 {
			var s float32
			for p, x := range ar {
				s += x * b[j*ldb+p]
			}
			sums[3*r+j] = s
		}
	}
}

// dotsNT computes c = alpha*a*b' + beta*c, for at least 4 rows and 3
// columns of c, by Dots4x3. The last group of rows or columns overlaps
// the one before it when they do not come out even, and each element
// of c is set once.
func dotsNT(alpha float32, a, b matrix[float32], beta float32, c matrix[float32]) {
	m, n, k := c.Rows, c.Cols, a.Cols
	var sums [12]float32
	for i0 := 0; i0 < m; i0 += 4 {
		i := min(i0, m-4)
		for j0 := 0; j0 < n; j0 += 3 {
			j := min(j0, n-3)
			Dots4x3(sums[:], a.Data[i*a.Stride:], a.Stride, b.Data[j*b.Stride:], b.Stride, k)
			for r := i0 - i; r < 4; r++ {
				row := c.Data[(i+r)*c.Stride+j : (i+r)*c.Stride+j+3]
				for q := j0 - j; q < 3; q++ {
					if beta == 0 {
						row[q] = alpha * sums[3*r+q]
					} else {
						row[q] = alpha*sums[3*r+q] + beta*row[q]
					}
				}
			}
		}
	}
}
