//go:build !noasm

package numeric

import "golang.org/x/sys/cpu"

// useAVX2 reports whether the processor runs expKernel.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expKernel, in exp_amd64.s, sets dst[i] = exp1(x[i]) for every i <
// len(x), a multiple of 4, with len(dst) = len(x).
//
//go:noescape
func expKernel(dst, x []float64)
