//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// gaussVec reports whether the Gaussian's kernels, its squared distances
// (sqDistKernel) and its backward pass (backRowsKernel), run in
// assembly, which needs AVX2, and gauss512 whether their AVX-512
// versions do (sqDistKernel512, backRowsKernel512).
var (
	gaussVec = cpu.X86.HasAVX2
	gauss512 = gaussVec && cpu.X86.HasAVX512F
)

// sqDistKernel, in gauss_amd64.s, is sqDistGo on 16 columns at a time.
//
//go:noescape
func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int)

// backRowsKernel, in gauss_amd64.s, is backRowsGo on groups of four rows
// and the first n8 columns, eight at a time.
//
//go:noescape
func backRowsKernel(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int)

// backRowsKernel512, in gauss_amd64.s, is backRowsKernel with AVX-512.
//
//go:noescape
func backRowsKernel512(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int)

// sqDistKernel512, in gauss_amd64.s, is sqDistKernel on 32 columns at a
// time.
//
//go:noescape
func sqDistKernel512(dst, x []float64, incX, d int, u []float64, ldu int)
