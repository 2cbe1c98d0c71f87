//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// sqDistVec reports whether the Gaussian's squared distances run in
// sqDistKernel, which needs AVX2, and sqDist512 whether in
// sqDistKernel512, which needs AVX-512.
var (
	sqDistVec = cpu.X86.HasAVX2
	sqDist512 = sqDistVec && cpu.X86.HasAVX512F
)

// sqDistKernel, in gauss_amd64.s, is sqDistGo on 16 columns at a time.
//
//go:noescape
func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int)

// backVec reports whether the Gaussian's backward pass runs in
// backRowsKernel, which needs AVX2, and back512 whether in
// backRowsKernel512, which needs AVX-512.
var (
	backVec = cpu.X86.HasAVX2
	back512 = backVec && cpu.X86.HasAVX512F
)

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
