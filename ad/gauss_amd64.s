//go:build !noasm

#include "textflag.h"

// func sqDistKernel(dst, x []float64, incX, d int, u []float64, ldu int)
//
// dst[j] = sum over r < d of (x[r*incX] - u[r*ldu+j])^2, the terms added
// in order of r, 16 columns at a time; each difference and square is
// rounded as in kernelRows' loop, so the sums are its sums. len(dst) is
// a multiple of 16 and d at least 1.
TEXT ·sqDistKernel(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $4, CX
	MOVQ x_base+24(FP), R9
	MOVQ incX+48(FP), R10
	SHLQ $3, R10
	MOVQ d+56(FP), R11
	MOVQ u_base+64(FP), SI
	MOVQ ldu+88(FP), R8
	SHLQ $3, R8

chunk:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   SI, AX
	MOVQ   R9, BX
	MOVQ   R11, DX

coord:
	VBROADCASTSD (BX), Y4
	VSUBPD       (AX), Y4, Y5
	VSUBPD       32(AX), Y4, Y6
	VSUBPD       64(AX), Y4, Y7
	VSUBPD       96(AX), Y4, Y8
	VMULPD       Y5, Y5, Y5
	VMULPD       Y6, Y6, Y6
	VMULPD       Y7, Y7, Y7
	VMULPD       Y8, Y8, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	ADDQ         R8, AX
	ADDQ         R10, BX
	DECQ         DX
	JNE          coord

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	DECQ    CX
	JNE     chunk
	VZEROUPPER
	RET

// HALF is backRowsKernel on four columns of four rows: w = dc .* k, the
// products added, ((w0 + w1) + (w2 + w3)), to the columns' sums. dc is
// left in Y8-Y11 for PREVADD and PREVSET.
#define HALF(off) \
	VMOVUPD off(SI), Y8; \
	VMOVUPD off(SI)(R9*1), Y9; \
	VMOVUPD off(SI)(R9*2), Y10; \
	VMOVUPD off(SI)(R10*1), Y11; \
	VMULPD  off(DX), Y8, Y12; \
	VMULPD  off(DX)(R9*1), Y9, Y13; \
	VMULPD  off(DX)(R9*2), Y10, Y14; \
	VMULPD  off(DX)(R10*1), Y11, Y15; \
	VMOVUPD Y12, off(DI); \
	VMOVUPD Y13, off(DI)(R9*1); \
	VMOVUPD Y14, off(DI)(R9*2); \
	VMOVUPD Y15, off(DI)(R10*1); \
	VADDPD  Y13, Y12, Y12; \
	VADDPD  Y15, Y14, Y14; \
	VADDPD  Y14, Y12, Y12; \
	VADDPD  off(BX), Y12, Y12; \
	VMOVUPD Y12, off(BX)

#define PREVADD(off) \
	VADDPD  off(R8), Y8, Y8; \
	VMOVUPD Y8, off(R8); \
	VADDPD  off(R8)(R9*1), Y9, Y9; \
	VMOVUPD Y9, off(R8)(R9*1); \
	VADDPD  off(R8)(R9*2), Y10, Y10; \
	VMOVUPD Y10, off(R8)(R9*2); \
	VADDPD  off(R8)(R10*1), Y11, Y11; \
	VMOVUPD Y11, off(R8)(R10*1)

#define PREVSET(off) \
	VMOVUPD Y8, off(R8); \
	VMOVUPD Y9, off(R8)(R9*1); \
	VMOVUPD Y10, off(R8)(R9*2); \
	VMOVUPD Y11, off(R8)(R10*1)

#define NEXT \
	ADDQ $64, SI; \
	ADDQ $64, DX; \
	ADDQ $64, DI; \
	ADDQ $64, R8; \
	ADDQ $64, BX

// func backRowsKernel(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int)
//
// backRowsGo on rows [0, 4 groups) and columns [0, n8), eight columns at
// a time (n8 a multiple of 8, at least 8): the columns' sums are added
// to cols. mode 0 leaves prev alone, 1 adds dc to it, 2 copies dc there.
TEXT ·backRowsKernel(SB), NOSPLIT, $0-152
	MOVQ w_base+0(FP), DI
	MOVQ dc_base+24(FP), SI
	MOVQ k_base+48(FP), DX
	MOVQ prev_base+72(FP), R8
	MOVQ ld+96(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), R10
	MOVQ cols_base+104(FP), BX
	MOVQ groups+128(FP), R12
	MOVQ n8+136(FP), R13
	MOVQ mode+144(FP), R14
	MOVQ R13, AX
	SHLQ $3, AX

group:
	MOVQ   R13, CX
	SHRQ   $3, CX
	CMPQ   R14, $1
	JEQ    add
	JGT    set

alone:
	HALF(0)
	HALF(32)
	NEXT
	DECQ CX
	JNE  alone
	JMP  done

add:
	HALF(0)
	PREVADD(0)
	HALF(32)
	PREVADD(32)
	NEXT
	DECQ CX
	JNE  add
	JMP  done

set:
	HALF(0)
	PREVSET(0)
	HALF(32)
	PREVSET(32)
	NEXT
	DECQ CX
	JNE  set

done:
	SUBQ    AX, SI
	LEAQ    (SI)(R9*4), SI
	SUBQ    AX, DX
	LEAQ    (DX)(R9*4), DX
	SUBQ    AX, DI
	LEAQ    (DI)(R9*4), DI
	SUBQ    AX, R8
	LEAQ    (R8)(R9*4), R8
	SUBQ    AX, BX
	DECQ    R12
	JNE     group
	VZEROUPPER
	RET

// HALF512 is HALF on eight columns with AVX-512; dc is left in Z8-Z11.
#define HALF512 \
	VMOVUPD (SI), Z8; \
	VMOVUPD (SI)(R9*1), Z9; \
	VMOVUPD (SI)(R9*2), Z10; \
	VMOVUPD (SI)(R10*1), Z11; \
	VMULPD  (DX), Z8, Z12; \
	VMULPD  (DX)(R9*1), Z9, Z13; \
	VMULPD  (DX)(R9*2), Z10, Z14; \
	VMULPD  (DX)(R10*1), Z11, Z15; \
	VMOVUPD Z12, (DI); \
	VMOVUPD Z13, (DI)(R9*1); \
	VMOVUPD Z14, (DI)(R9*2); \
	VMOVUPD Z15, (DI)(R10*1); \
	VADDPD  Z13, Z12, Z12; \
	VADDPD  Z15, Z14, Z14; \
	VADDPD  Z14, Z12, Z12; \
	VADDPD  (BX), Z12, Z12; \
	VMOVUPD Z12, (BX)

// func backRowsKernel512(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int)
//
// backRowsKernel with AVX-512: the same operations on each element, so
// the same results.
TEXT ·backRowsKernel512(SB), NOSPLIT, $0-152
	MOVQ w_base+0(FP), DI
	MOVQ dc_base+24(FP), SI
	MOVQ k_base+48(FP), DX
	MOVQ prev_base+72(FP), R8
	MOVQ ld+96(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), R10
	MOVQ cols_base+104(FP), BX
	MOVQ groups+128(FP), R12
	MOVQ n8+136(FP), R13
	MOVQ mode+144(FP), R14
	MOVQ R13, AX
	SHLQ $3, AX

group512:
	MOVQ   R13, CX
	SHRQ   $3, CX
	CMPQ   R14, $1
	JEQ    add512
	JGT    set512

alone512:
	HALF512
	NEXT
	DECQ CX
	JNE  alone512
	JMP  done512

add512:
	HALF512
	VADDPD  (R8), Z8, Z8
	VMOVUPD Z8, (R8)
	VADDPD  (R8)(R9*1), Z9, Z9
	VMOVUPD Z9, (R8)(R9*1)
	VADDPD  (R8)(R9*2), Z10, Z10
	VMOVUPD Z10, (R8)(R9*2)
	VADDPD  (R8)(R10*1), Z11, Z11
	VMOVUPD Z11, (R8)(R10*1)
	NEXT
	DECQ    CX
	JNE     add512
	JMP     done512

set512:
	HALF512
	VMOVUPD Z8, (R8)
	VMOVUPD Z9, (R8)(R9*1)
	VMOVUPD Z10, (R8)(R9*2)
	VMOVUPD Z11, (R8)(R10*1)
	NEXT
	DECQ    CX
	JNE     set512

done512:
	SUBQ    AX, SI
	LEAQ    (SI)(R9*4), SI
	SUBQ    AX, DX
	LEAQ    (DX)(R9*4), DX
	SUBQ    AX, DI
	LEAQ    (DI)(R9*4), DI
	SUBQ    AX, R8
	LEAQ    (R8)(R9*4), R8
	SUBQ    AX, BX
	DECQ    R12
	JNE     group512
	VZEROUPPER
	RET

// func sqDistKernel512(dst, x []float64, incX, d int, u []float64, ldu int)
//
// sqDistKernel with AVX-512, 32 columns at a time: the same operations
// on each element, so the same sums. len(dst) is a multiple of 32 and d
// at least 1.
TEXT ·sqDistKernel512(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $5, CX
	MOVQ x_base+24(FP), R9
	MOVQ incX+48(FP), R10
	SHLQ $3, R10
	MOVQ d+56(FP), R11
	MOVQ u_base+64(FP), SI
	MOVQ ldu+88(FP), R8
	SHLQ $3, R8

chunk512:
	VXORPD Z0, Z0, Z0
	VXORPD Z1, Z1, Z1
	VXORPD Z2, Z2, Z2
	VXORPD Z3, Z3, Z3
	MOVQ   SI, AX
	MOVQ   R9, BX
	MOVQ   R11, DX

coord512:
	VBROADCASTSD (BX), Z4
	VSUBPD       (AX), Z4, Z5
	VSUBPD       64(AX), Z4, Z6
	VSUBPD       128(AX), Z4, Z7
	VSUBPD       192(AX), Z4, Z8
	VMULPD       Z5, Z5, Z5
	VMULPD       Z6, Z6, Z6
	VMULPD       Z7, Z7, Z7
	VMULPD       Z8, Z8, Z8
	VADDPD       Z5, Z0, Z0
	VADDPD       Z6, Z1, Z1
	VADDPD       Z7, Z2, Z2
	VADDPD       Z8, Z3, Z3
	ADDQ         R8, AX
	ADDQ         R10, BX
	DECQ         DX
	JNE          coord512

	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	ADDQ    $256, DI
	ADDQ    $256, SI
	DECQ    CX
	JNE     chunk512
	VZEROUPPER
	RET
