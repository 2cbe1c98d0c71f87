//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// expVec reports whether negExp64 runs four exponentials at a time in
// negExp64x4, which needs AVX2 for the table lookup (a gather), and
// whether the Gaussian's squared distances run in sqDistKernel.
var expVec = cpu.X86.HasAVX2

// expConsts are the constants of negExp64, in the order the assembly
// reads them; taking them from Go keeps the two versions bit for bit
// alike.
var expConsts = [...]float64{708, expInvLn2, 0.5, expLn2Hi, expLn2Lo, 1.0 / 24, 1.0 / 6, 1}

// negExp64x4, in exp_amd64.s, is negExp64Go on a slice whose length is a
// multiple of 4: the same operations in the same order, on four
// elements per instruction, so the results are identical.
//
//go:noescape
func negExp64x4(x []float64, c float64)

// sqDistKernel, in gauss_amd64.s, is sqDistGo on 16 columns at a time.
//
//go:noescape
func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int)
