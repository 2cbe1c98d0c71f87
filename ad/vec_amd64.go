//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// vecKernels reports whether the processor runs the vector kernels:
// AVX and FMA, with the operating system saving the 256-bit registers
// (which cpu.X86.HasAVX includes).
var vecKernels = cpu.X86.HasAVX && cpu.X86.HasFMA

// useVec says whether Conv2D in float32 uses convVec. Tests switch it.
var useVec = vecKernels

// The kernels of convVec, in conv_amd64.s; rowTaps4, dots4x3, copyRows
// and addRows say what they compute and check their arguments, which the
// kernels do not.

//go:noescape
func rowTaps4Kernel(dst []float32, ld int, src []float32, offs []int, w []float32, n int)

//go:noescape
func dots4x3Kernel(sums []float32, a []float32, lda int, b []float32, n int)

//go:noescape
func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)

//go:noescape
func addRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)
