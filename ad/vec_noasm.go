//go:build !amd64 || noasm

package ad

// Without assembly the kernels of convVec and the elementwise kernels
// are the plain Go ones. Tests exercise convVec with them, but Conv2D
// does not use it: its path through gonum's routines is faster than
// these loops.
const vecKernels = true

var useVec = false

func rowTaps4Kernel(dst []float32, ld int, src []float32, offs []int, w []float32, n int) {
	rowTaps4Go(dst, ld, src, offs, w, n)
}

func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	copyRowsGo(dst, ldDst, src, ldSrc, rows, cols)
}

func addRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	addRowsGo(dst, ldDst, src, ldSrc, rows, cols)
}

func addVecKernel(dst, a, b []float32) { addVecGo(dst, a, b) }

func clampVecKernel(dst, a []float32, hi float32) { clampVecGo(dst, a, hi) }

func addInsideVecKernel(dst, dy, x []float32, hi float32) { addInsideGo32(dst, dy, x, hi) }
