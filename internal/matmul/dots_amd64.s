//go:build !noasm

#include "textflag.h"

// HSUM leaves the sum of the eight lanes of Y in the low lane of X (the
// same register), using T.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T    \
	VADDPS       T, X, X     \
	VPERMILPS    $0x4e, X, T \
	VADDPS       T, X, X     \
	VPERMILPS    $0xb1, X, T \
	VADDSS       T, X, X

// tailMask is eight lanes of ones and eight of zeros: the eight lanes
// from byte 32-4t are a mask of the first t.
DATA tailMask<>+0(SB)/8, $-1
DATA tailMask<>+8(SB)/8, $-1
DATA tailMask<>+16(SB)/8, $-1
DATA tailMask<>+24(SB)/8, $-1
DATA tailMask<>+32(SB)/8, $0
DATA tailMask<>+40(SB)/8, $0
DATA tailMask<>+48(SB)/8, $0
DATA tailMask<>+56(SB)/8, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $64


// func dots4x3Kernel(sums []float32, a []float32, lda int, b []float32, ldb int, k int)
//
// sums[3r+j] is set to the sum over p < k of a[r*lda+p] * b[j*ldb+p], for
// r = 0..3 and j = 0..2. The twelve sums stay in Y0-Y11 while whole
// vectors of the rows go by, the three of b loaded once for the four of
// a; the last k%8 elements are loaded masked, b's rows in two passes so
// that a register is left for a's.
TEXT ·dots4x3Kernel(SB), NOSPLIT, $0-96
	MOVQ   a_base+24(FP), SI
	MOVQ   lda+48(FP), R8
	SHLQ   $2, R8
	MOVQ   b_base+56(FP), DI
	MOVQ   ldb+80(FP), R9
	SHLQ   $2, R9
	MOVQ   k+88(FP), CX
	LEAQ   (SI)(R8*1), R10
	LEAQ   (R10)(R8*1), R11
	LEAQ   (R11)(R8*1), R12
	LEAQ   (DI)(R9*1), R13
	LEAQ   (R13)(R9*1), R14
	MOVQ   CX, DX
	ANDQ   $-8, DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ   AX, AX

loop:
	CMPQ        AX, DX
	JGE         tail
	VMOVUPS     (DI)(AX*4), Y12
	VMOVUPS     (R13)(AX*4), Y13
	VMOVUPS     (R14)(AX*4), Y14
	VMOVUPS     (SI)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS     (R10)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS     (R11)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS     (R12)(AX*4), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ        $8, AX
	JMP         loop

tail:
	MOVQ        CX, BX
	ANDQ        $7, BX
	JE          sum
	SHLQ        $2, BX
	LEAQ        tailMask<>+32(SB), R8
	SUBQ        BX, R8
	VMOVUPS     (R8), Y15
	VMASKMOVPS  (DI)(AX*4), Y15, Y12
	VMASKMOVPS  (R13)(AX*4), Y15, Y13
	VMASKMOVPS  (SI)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VMASKMOVPS  (R10)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y3
	VFMADD231PS Y13, Y14, Y4
	VMASKMOVPS  (R11)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VMASKMOVPS  (R12)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y9
	VFMADD231PS Y13, Y14, Y10
	VMASKMOVPS  (R14)(AX*4), Y15, Y12
	VMASKMOVPS  (SI)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y2
	VMASKMOVPS  (R10)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y5
	VMASKMOVPS  (R11)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y8
	VMASKMOVPS  (R12)(AX*4), Y15, Y14
	VFMADD231PS Y12, Y14, Y11

sum:
	MOVQ   sums_base+0(FP), R9
	HSUM(Y0, X0, X12)
	VMOVSS X0, (R9)
	HSUM(Y1, X1, X12)
	VMOVSS X1, 4(R9)
	HSUM(Y2, X2, X12)
	VMOVSS X2, 8(R9)
	HSUM(Y3, X3, X12)
	VMOVSS X3, 12(R9)
	HSUM(Y4, X4, X12)
	VMOVSS X4, 16(R9)
	HSUM(Y5, X5, X12)
	VMOVSS X5, 20(R9)
	HSUM(Y6, X6, X12)
	VMOVSS X6, 24(R9)
	HSUM(Y7, X7, X12)
	VMOVSS X7, 28(R9)
	HSUM(Y8, X8, X12)
	VMOVSS X8, 32(R9)
	HSUM(Y9, X9, X12)
	VMOVSS X9, 36(R9)
	HSUM(Y10, X10, X12)
	VMOVSS X10, 40(R9)
	HSUM(Y11, X11, X12)
	VMOVSS X11, 44(R9)
	VZEROUPPER
	RET
