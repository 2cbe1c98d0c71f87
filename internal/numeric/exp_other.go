//go:build !amd64 || noasm

package numeric

// Without the assembly kernel Exp computes every value with exp1.
const useAVX2 = false

func expKernel(dst, x []float64) { panic("numeric: no exp kernel in this build") }
