//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// sqDistVec reports whether the Gaussian's squared distances run in
// sqDistKernel, which needs AVX2.
var sqDistVec = cpu.X86.HasAVX2

// sqDistKernel, in gauss_amd64.s, is sqDistGo on 16 columns at a time.
//
//go:noescape
func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int)
