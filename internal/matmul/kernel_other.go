//go:build !amd64 || noasm

package matmul

// Without the assembly kernels F32 and F64 call gonum.
const (
	useKernels = false
	use512     = false
)

func kernel6x16(k int, a, b, c []float32, ldc int) { panic("matmul: no kernels in this build") }

func kernel6x8(k int, a, b, c []float64, ldc int) { panic("matmul: no kernels in this build") }

func axpyRowsKernel(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64) {
	axpyRowsGo(c, b, ldb, s, sinc, k, alpha)
}

func axpyRowsKernel512(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64) {
	axpyRowsGo(c, b, ldb, s, sinc, k, alpha)
}

func axpyRows3Kernel512(c []float64, ldc, n int, b []float64, ldb int, s []float64, sinc, step, k int, alpha float64) {
	for r := range 3 {
		axpyRowsGo(c[r*ldc:r*ldc+n], b, ldb, s[r*step:], sinc, k, alpha)
	}
}

func dots12Kernel(lanes, a []float64, lda int, b []float64, ldb int) {
	for r := range 3 {
		dots4Go(lanes[16*r:16*r+16], a[r*lda:r*lda+len(a)], b, ldb, 4)
	}
}

func dots4Kernel(lanes, a, b []float64, ldb int) { dots4Go(lanes, a, b, ldb, 4) }

func dots4x3Kernel(sums, a []float32, lda int, b []float32, ldb, k int) {
	dots4x3Go(sums, a, lda, b, ldb, k)
}
