//go:build !amd64 || noasm

package ad

// Without assembly the kernels of convVec are the plain Go ones. Tests
// exercise convVec with them, but Conv2D does not use it: its path
// through gonum's routines is faster than these loops.
const vecKernels = true

var useVec = false

func rowTaps4Kernel(dst []float32, ld int, src []float32, offs []int, w []float32, n int) {
	rowTaps4Go(dst, ld, src, offs, w, n)
}

func dots4x3Kernel(sums []float32, a []float32, lda int, b []float32, n int) {
	dots4x3Go(sums, a, lda, b, n)
}

func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	copyRowsGo(dst, ldDst, src, ldSrc, rows, cols)
}

func addRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	addRowsGo(dst, ldDst, src, ldSrc, rows, cols)
}
