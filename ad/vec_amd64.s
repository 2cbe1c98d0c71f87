//go:build !noasm

#include "textflag.h"

// func rowTaps4Kernel(dst []float32, ld int, src []float32, offs []int, w []float32, n int)
//
// For r = 0..3 and p < n in steps of 16, dst[r*ld+p : +16] is set to the
// sum over taps t of w[4t+r] * src[offs[t]+p : +16]. The 4x16 sums stay
// in Y0-Y7 while the taps go by.
TEXT ·rowTaps4Kernel(SB), NOSPLIT, $0-112
	MOVQ dst_base+0(FP), DI
	MOVQ ld+24(FP), R8
	SHLQ $2, R8
	MOVQ src_base+32(FP), SI
	MOVQ offs_base+56(FP), R9
	MOVQ offs_len+64(FP), R10
	MOVQ w_base+80(FP), R11
	MOVQ n+104(FP), CX
	LEAQ (DI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), R14
	XORQ AX, AX

block:
	CMPQ   AX, CX
	JGE    done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   R11, DX
	XORQ   BX, BX
	TESTQ  R10, R10
	JE     store

tap:
	MOVQ         (R9)(BX*8), R15
	ADDQ         AX, R15
	VMOVUPS      (SI)(R15*4), Y8
	VMOVUPS      32(SI)(R15*4), Y9
	VBROADCASTSS (DX), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS 4(DX), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS 8(DX), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS 12(DX), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $16, DX
	INCQ         BX
	CMPQ         BX, R10
	JLT          tap

store:
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, (R12)(AX*4)
	VMOVUPS Y3, 32(R12)(AX*4)
	VMOVUPS Y4, (R13)(AX*4)
	VMOVUPS Y5, 32(R13)(AX*4)
	VMOVUPS Y6, (R14)(AX*4)
	VMOVUPS Y7, 32(R14)(AX*4)
	ADDQ    $16, AX
	JMP     block

done:
	VZEROUPPER
	RET

// HSUM leaves the sum of the eight lanes of Y in the low lane of X (the
// same register), using T.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T   \
	VADDPS       T, X, X    \
	VPERMILPS    $0x4e, X, T \
	VADDPS       T, X, X    \
	VPERMILPS    $0xb1, X, T \
	VADDSS       T, X, X

// func dots4x3Kernel(sums []float32, a []float32, lda int, b []float32, n int)
//
// sums[3r+j] is set to the sum over p < n of a[r*lda+p] * b[p+j], for
// r = 0..3, j = 0..2 and n a multiple of 8. The twelve sums stay in
// Y0-Y11; b's three shifts are loaded once for the four rows of a.
TEXT ·dots4x3Kernel(SB), NOSPLIT, $0-88
	MOVQ   sums_base+0(FP), R9
	MOVQ   a_base+24(FP), SI
	MOVQ   lda+48(FP), R8
	SHLQ   $2, R8
	MOVQ   b_base+56(FP), DI
	MOVQ   n+80(FP), CX
	LEAQ   (SI)(R8*1), R10
	LEAQ   (R10)(R8*1), R11
	LEAQ   (R11)(R8*1), R12
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
	CMPQ        AX, CX
	JGE         sum
	VMOVUPS     (DI)(AX*4), Y12
	VMOVUPS     4(DI)(AX*4), Y13
	VMOVUPS     8(DI)(AX*4), Y14
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

sum:
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

// func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)
//
// dst[r*ldDst+j] = src[r*ldSrc+j] for r < rows, j < cols.
TEXT ·copyRowsKernel(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  ldDst+24(FP), R8
	SHLQ  $2, R8
	MOVQ  src_base+32(FP), SI
	MOVQ  ldSrc+56(FP), R9
	SHLQ  $2, R9
	MOVQ  rows+64(FP), R10
	MOVQ  cols+72(FP), CX
	MOVQ  CX, DX
	SUBQ  $8, DX
	TESTQ R10, R10
	JLE   copyDone

copyRow:
	XORQ AX, AX

copyVec:
	CMPQ    AX, DX
	JG      copyTail
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     copyVec

copyTail:
	CMPQ AX, CX
	JGE  copyNext
	MOVL (SI)(AX*4), R11
	MOVL R11, (DI)(AX*4)
	INCQ AX
	JMP  copyTail

copyNext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ R10
	JNZ  copyRow

copyDone:
	VZEROUPPER
	RET

// func addRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)
//
// dst[r*ldDst+j] += src[r*ldSrc+j] for r < rows, j < cols.
TEXT ·addRowsKernel(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  ldDst+24(FP), R8
	SHLQ  $2, R8
	MOVQ  src_base+32(FP), SI
	MOVQ  ldSrc+56(FP), R9
	SHLQ  $2, R9
	MOVQ  rows+64(FP), R10
	MOVQ  cols+72(FP), CX
	MOVQ  CX, DX
	SUBQ  $8, DX
	TESTQ R10, R10
	JLE   addDone

addRow:
	XORQ AX, AX

addVec:
	CMPQ    AX, DX
	JG      addTail
	VMOVUPS (SI)(AX*4), Y0
	VADDPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     addVec

addTail:
	CMPQ   AX, CX
	JGE    addNext
	VMOVSS (SI)(AX*4), X0
	VADDSS (DI)(AX*4), X0, X0
	VMOVSS X0, (DI)(AX*4)
	INCQ   AX
	JMP    addTail

addNext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ R10
	JNZ  addRow

addDone:
	VZEROUPPER
	RET
