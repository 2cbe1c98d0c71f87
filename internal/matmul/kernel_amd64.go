//go:build !noasm

package matmul

import "golang.org/x/sys/cpu"

// useKernels reports whether the processor runs the kernels: AVX and
// FMA, with the operating system saving the 256-bit registers (which
// cpu.X86.HasAVX includes).
var useKernels = cpu.X86.HasAVX && cpu.X86.HasFMA

// use512 reports whether axpyRows runs axpyRowsKernel512, which needs
// AVX-512.
var use512 = useKernels && cpu.X86.HasAVX512F

// kernel6x16 and kernel6x8, in kernel_amd64.s, compute what kernel says
// for float32 and float64.

//go:noescape
func kernel6x16(k int, a, b, c []float32, ldc int)

//go:noescape
func kernel6x8(k int, a, b, c []float64, ldc int)

// axpyRowsKernel and dots4Kernel, in thin_amd64.s, compute what axpyRows
// and dots4 say.

//go:noescape
func axpyRowsKernel(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64)

// axpyRowsKernel512, in thin_amd64.s, is axpyRowsKernel on 32 columns
// at a time.
//
//go:noescape
func axpyRowsKernel512(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64)

// axpyRows3Kernel512, in thin_amd64.s, is axpyRowsKernel512 on three
// rows of c at once.
//
//go:noescape
func axpyRows3Kernel512(c []float64, ldc, n int, b []float64, ldb int, s []float64, sinc, step, k int, alpha float64)

// dots12Kernel, in thin_amd64.s, is dots4Kernel on three rows of a at
// once; it needs AVX-512.
//
//go:noescape
func dots12Kernel(lanes, a []float64, lda int, b []float64, ldb int)

//go:noescape
func dots4Kernel(lanes, a, b []float64, ldb int)

// dots4x3Kernel, in dots_amd64.s, computes what Dots4x3 says.
//
//go:noescape
func dots4x3Kernel(sums, a []float32, lda int, b []float32, ldb, k int)
