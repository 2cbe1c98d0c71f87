//go:build !amd64 || noasm

package ad

// Without assembly negExp64 and sqDist run the plain loops on every
// element.
const expVec = false

func negExp64x4(x []float64, c float64) { negExp64Go(x, c) }

func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int) {
	sqDistGo(dst, x, incX, d, u, ldu)
}
