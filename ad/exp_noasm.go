//go:build !amd64 || noasm

package ad

// Without assembly the Gaussian's squared distances and backward pass
// run their Go loops alone.
const (
	gaussVec = false
	gauss512 = false
)

func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int) {
	sqDistGo(dst, x, incX, d, u, ldu)
}

func backRowsKernel(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int) {
	backRowsGo(w, dc, k, prev, mode == 2, ld, 0, 4*groups, 0, n8, cols)
}

func backRowsKernel512(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int) {
	backRowsKernel(w, dc, k, prev, ld, cols, groups, n8, mode)
}

func sqDistKernel512(dst, x []float64, incX, d int, u []float64, ldu int) {
	sqDistGo(dst, x, incX, d, u, ldu)
}
