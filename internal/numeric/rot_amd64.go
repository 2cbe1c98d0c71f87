//go:build !noasm

package numeric

import "golang.org/x/sys/cpu"

// rotVec reports whether rotateRows runs four elements at a time in
// rotX4, which needs AVX.
var rotVec = cpu.X86.HasAVX

// rotX4, in rot_amd64.s, is rotGo on slices whose length is a multiple
// of 4: the same operations in the same order, on four elements per
// instruction, so the results are identical.
//
//go:noescape
func rotX4(x, y []float64, c, s float64)

// rotVec8 reports whether rotateRows runs eight elements at a time in
// rotX8, which needs AVX-512.
var rotVec8 = cpu.X86.HasAVX512F

// rotX8, in rot_amd64.s, is rotX4 on eight elements per instruction, for
// slices whose length is a multiple of 8; the results are identical.
//
//go:noescape
func rotX8(x, y []float64, c, s float64)
