//go:build !noasm

package ad

// vecKernels reports whether the processor runs the vector kernels:
// AVX and FMA, with the operating system saving the 256-bit registers.
var vecKernels = func() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 1 {
		return false
	}
	_, _, c, _ := cpuid(1, 0)
	const (
		fma     = 1 << 12
		osxsave = 1 << 27
		avx     = 1 << 28
	)
	if c&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	// The XMM and YMM state must be enabled in XCR0.
	xcr0, _ := xgetbv0()
	return xcr0&6 == 6
}()

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

// cpuid and xgetbv0 are the instructions CPUID and XGETBV (of register
// 0).

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (a, d uint32)
