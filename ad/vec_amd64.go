//go:build !noasm

package ad

import "golang.org/x/sys/cpu"

// vecKernels reports whether the processor runs the vector kernels:
// AVX and FMA, with the operating system saving the 256-bit registers
// (which cpu.X86.HasAVX includes).
var vecKernels = cpu.X86.HasAVX && cpu.X86.HasFMA

// useVec says whether Conv2D in float32 uses convVec. Tests switch it.
var useVec = vecKernels

// The kernels of convVec, in vec_amd64.s; rowTaps4, copyRows and
// addRows say what they compute and check their arguments, which the
// kernels do not.

//go:noescape
func rowTaps4Kernel(dst []float32, ld int, src []float32, offs []int, w []float32, n int)

//go:noescape
func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)

//go:noescape
func addRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)

// The elementwise kernels, in vec_amd64.s, compute what addVec32,
// clampVec32 and addInside32 say, without checking lengths.

//go:noescape
func addVecKernel(dst, a, b []float32)

//go:noescape
func clampVecKernel(dst, a []float32, hi float32)

//go:noescape
func addInsideVecKernel(dst, dy, x []float32, hi float32)
