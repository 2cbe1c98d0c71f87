//go:build !noasm

package numeric

import "golang.org/x/sys/cpu"

// expVec reports whether NegExp runs four exponentials at a time in
// negExpX4, which needs AVX2 for the table lookup (a gather).
var expVec = cpu.X86.HasAVX2

// expVec8 reports whether NegExp runs eight exponentials at a time in
// negExpX8, which needs AVX-512.
var expVec8 = cpu.X86.HasAVX512F

// expConsts are the constants of NegExp, in the order the assembly
// reads them; taking them from Go keeps the two versions bit for bit
// alike.
var expConsts = [...]float64{708, expInvLn2, 0.5, expLn2Hi, expLn2Lo, 1.0 / 24, 1.0 / 6, 1}

// negExpX4, in negexp_amd64.s, is negExpGo on a slice whose length is a
// multiple of 4: the same operations in the same order, on four
// elements per instruction, so the results are identical.
//
//go:noescape
func negExpX4(x []float64, c float64)

// negExpX8, in negexp_amd64.s, is negExpX4 on eight elements per
// instruction, for a slice whose length is a multiple of 8; the results
// are identical.
//
//go:noescape
func negExpX8(x []float64, c float64)
