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

// TAILMASK sets BX to the bytes of the last cols%8 elements of a row of
// cols (in CX) and Y15 to the mask of as many leading lanes, for the
// masked moves that finish each row.
#define TAILMASK \
	MOVQ     CX, BX                 \
	ANDQ     $7, BX                 \
	SHLQ     $2, BX                 \
	LEAQ     tailMask<>+32(SB), R11 \
	SUBQ     BX, R11                \
	VMOVUPS  (R11), Y15

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

// func copyRowsKernel(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int)
//
// dst[r*ldDst+j] = src[r*ldSrc+j] for r < rows, j < cols: whole vectors,
// then one masked move for the rest of the row.
TEXT ·copyRowsKernel(SB), NOSPLIT, $0-80
	MOVQ  dst_base+0(FP), DI
	MOVQ  ldDst+24(FP), R8
	SHLQ  $2, R8
	MOVQ  src_base+32(FP), SI
	MOVQ  ldSrc+56(FP), R9
	SHLQ  $2, R9
	MOVQ  rows+64(FP), R10
	MOVQ  cols+72(FP), CX
	TAILMASK
	MOVQ  CX, DX
	ANDQ  $-8, DX
	TESTQ R10, R10
	JLE   copyDone

copyRow:
	XORQ AX, AX

copyVec:
	CMPQ    AX, DX
	JGE     copyTail
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     copyVec

copyTail:
	TESTQ      BX, BX
	JE         copyNext
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VMASKMOVPS Y0, Y15, (DI)(AX*4)

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
// dst[r*ldDst+j] += src[r*ldSrc+j] for r < rows, j < cols: whole vectors,
// then four elements if as many are left, then one at a time. A masked
// move would finish a row in one instruction, as in copyRowsKernel, but
// its store, reaching into the next row, holds up the loads of that row
// from dst: measured a third slower on rows of 14.
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
	ANDQ  $-8, DX
	TESTQ R10, R10
	JLE   addDone

addRow:
	XORQ AX, AX

addVec:
	CMPQ    AX, DX
	JGE     addQuad
	VMOVUPS (SI)(AX*4), Y0
	VADDPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     addVec

addQuad:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JG      addTail
	VMOVUPS (SI)(AX*4), X0
	VADDPS  (DI)(AX*4), X0, X0
	VMOVUPS X0, (DI)(AX*4)
	MOVQ    BX, AX

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

// ELEMENTS sets CX to the length of the first slice argument, DX to it
// rounded down to whole vectors, and BX and Y15 as TAILMASK does, for the
// elementwise kernels below: they run whole vectors and then one masked
// vector, and AX counts the elements done.
#define ELEMENTS \
	MOVQ dst_len+8(FP), CX \
	TAILMASK               \
	MOVQ CX, DX            \
	ANDQ $-8, DX           \
	XORQ AX, AX

// func addVecKernel(dst, a, b []float32)
//
// dst[i] = a[i] + b[i] for i < len(dst).
TEXT ·addVecKernel(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), R8
	ELEMENTS

addVec2:
	LEAQ    16(AX), R9
	CMPQ    R9, DX
	JG      addVec1
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VADDPS  (R8)(AX*4), Y0, Y0
	VADDPS  32(R8)(AX*4), Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	MOVQ    R9, AX
	JMP     addVec2

addVec1:
	CMPQ    AX, DX
	JGE     addVecTail
	VMOVUPS (SI)(AX*4), Y0
	VADDPS  (R8)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)

addVecTail:
	MOVQ       CX, AX
	ANDQ       $-8, AX
	TESTQ      BX, BX
	JE         addVecDone
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VMASKMOVPS (R8)(AX*4), Y15, Y1
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y15, (DI)(AX*4)

addVecDone:
	VZEROUPPER
	RET

// func clampVecKernel(dst, a []float32, hi float32)
//
// dst[i] = min(max(a[i], 0), hi) for i < len(dst), as Go computes it:
// NaN stays NaN (VMAXPS and VMINPS return their second source, here a[i],
// when either is NaN), and -0 becomes +0 (the maximum keeps -0, adding
// +0 turns it into +0 and changes nothing else).
TEXT ·clampVecKernel(SB), NOSPLIT, $0-52
	MOVQ         dst_base+0(FP), DI
	MOVQ         a_base+24(FP), SI
	VBROADCASTSS hi+48(FP), Y14
	VXORPS       Y13, Y13, Y13
	ELEMENTS

clampVec2:
	LEAQ    16(AX), R9
	CMPQ    R9, DX
	JG      clampVec1
	VMAXPS  (SI)(AX*4), Y13, Y0
	VMAXPS  32(SI)(AX*4), Y13, Y1
	VMINPS  Y0, Y14, Y0
	VMINPS  Y1, Y14, Y1
	VADDPS  Y13, Y0, Y0
	VADDPS  Y13, Y1, Y1
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	MOVQ    R9, AX
	JMP     clampVec2

clampVec1:
	CMPQ    AX, DX
	JGE     clampVecTail
	VMAXPS  (SI)(AX*4), Y13, Y0
	VMINPS  Y0, Y14, Y0
	VADDPS  Y13, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)

clampVecTail:
	MOVQ       CX, AX
	ANDQ       $-8, AX
	TESTQ      BX, BX
	JE         clampVecDone
	VMASKMOVPS (SI)(AX*4), Y15, Y0
	VMAXPS     Y0, Y13, Y0
	VMINPS     Y0, Y14, Y0
	VADDPS     Y13, Y0, Y0
	VMASKMOVPS Y0, Y15, (DI)(AX*4)

clampVecDone:
	VZEROUPPER
	RET

// func addInsideVecKernel(dst, dy, x []float32, hi float32)
//
// dst[i] += dy[i] where 0 < x[i] < hi, for i < len(dst): the ordered
// comparisons are false for NaN, and elsewhere dy[i] is masked to +0,
// as addInside32 does.
TEXT ·addInsideVecKernel(SB), NOSPLIT, $0-76
	MOVQ         dst_base+0(FP), DI
	MOVQ         dy_base+24(FP), SI
	MOVQ         x_base+48(FP), R8
	VBROADCASTSS hi+72(FP), Y14
	VXORPS       Y13, Y13, Y13
	ELEMENTS

insideVec1:
	CMPQ    AX, DX
	JGE     insideVecTail
	VMOVUPS (R8)(AX*4), Y0
	VCMPPS  $0x1e, Y13, Y0, Y1 // x > 0
	VCMPPS  $0x11, Y14, Y0, Y2 // x < hi
	VANDPS  Y2, Y1, Y1
	VANDPS  (SI)(AX*4), Y1, Y1
	VADDPS  (DI)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     insideVec1

insideVecTail:
	TESTQ      BX, BX
	JE         insideVecDone
	VMASKMOVPS (R8)(AX*4), Y15, Y0
	VMASKMOVPS (SI)(AX*4), Y15, Y3
	VMASKMOVPS (DI)(AX*4), Y15, Y4
	VCMPPS     $0x1e, Y13, Y0, Y1
	VCMPPS     $0x11, Y14, Y0, Y2
	VANDPS     Y2, Y1, Y1
	VANDPS     Y3, Y1, Y1
	VADDPS     Y4, Y1, Y1
	VMASKMOVPS Y1, Y15, (DI)(AX*4)

insideVecDone:
	VZEROUPPER
	RET
