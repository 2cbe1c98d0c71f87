//go:build !noasm

#include "textflag.h"

// func axpyRowsKernel(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64)
//
// c[j] += (alpha s[l*sinc]) b[l*ldb+j] for l = 0..k-1 in turn, 16
// columns at a time: the chunk of c stays in Y0-Y3 while the k rows of b
// go by. Each term is rounded, then added, as gonum's AXPY does. len(c)
// is a multiple of 16 and k at least 1.
TEXT ·axpyRowsKernel(SB), NOSPLIT, $0-104
	MOVQ         c_base+0(FP), DI
	MOVQ         c_len+8(FP), CX
	SHRQ         $4, CX
	MOVQ         b_base+24(FP), SI
	MOVQ         ldb+48(FP), R8
	SHLQ         $3, R8
	MOVQ         s_base+56(FP), R9
	MOVQ         sinc+80(FP), R10
	SHLQ         $3, R10
	MOVQ         k+88(FP), R11
	VBROADCASTSD alpha+96(FP), Y15

chunk:
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ    SI, AX
	MOVQ    R9, BX
	MOVQ    R11, DX

term:
	VBROADCASTSD (BX), Y4
	VMULPD       Y15, Y4, Y4  // alpha s[l]
	VMULPD       (AX), Y4, Y5
	VMULPD       32(AX), Y4, Y6
	VMULPD       64(AX), Y4, Y7
	VMULPD       96(AX), Y4, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	ADDQ         R8, AX
	ADDQ         R10, BX
	DECQ         DX
	JNE          term

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

// func dots4Kernel(lanes, a, b []float64, ldb int)
//
// lanes[4q+j] = sum over p of a[4p+j] * b[q*ldb+4p+j] for q, j < 4 and
// 4p < len(a), a multiple of 4: the four partial sums of gonum's dot
// product, for four rows of b at once, each product rounded and then
// added in order.
TEXT ·dots4Kernel(SB), NOSPLIT, $0-80
	MOVQ   lanes_base+0(FP), DI
	MOVQ   a_base+24(FP), SI
	MOVQ   a_len+32(FP), CX
	SHRQ   $2, CX
	MOVQ   b_base+48(FP), R8
	MOVQ   ldb+72(FP), R9
	SHLQ   $3, R9
	LEAQ   (R8)(R9*1), R10
	LEAQ   (R10)(R9*1), R11
	LEAQ   (R11)(R9*1), R12
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ  CX, CX
	JE     store

loop:
	VMOVUPD (SI), Y8
	VMULPD  (R8), Y8, Y4
	VMULPD  (R10), Y8, Y5
	VMULPD  (R11), Y8, Y6
	VMULPD  (R12), Y8, Y7
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R10
	ADDQ    $32, R11
	ADDQ    $32, R12
	DECQ    CX
	JNE     loop

store:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

// func axpyRowsKernel512(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64)
//
// axpyRowsKernel with AVX-512, 32 columns at a time in Z0-Z3: the same
// operations on twice the elements per instruction, so the same results.
// len(c) is a multiple of 32 and k at least 1.
TEXT ·axpyRowsKernel512(SB), NOSPLIT, $0-104
	MOVQ         c_base+0(FP), DI
	MOVQ         c_len+8(FP), CX
	SHRQ         $5, CX
	MOVQ         b_base+24(FP), SI
	MOVQ         ldb+48(FP), R8
	SHLQ         $3, R8
	MOVQ         s_base+56(FP), R9
	MOVQ         sinc+80(FP), R10
	SHLQ         $3, R10
	MOVQ         k+88(FP), R11
	VBROADCASTSD alpha+96(FP), Z15

chunk512:
	VMOVUPD (DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	VMOVUPD 192(DI), Z3
	MOVQ    SI, AX
	MOVQ    R9, BX
	MOVQ    R11, DX

term512:
	VBROADCASTSD (BX), Z4
	VMULPD       Z15, Z4, Z4  // alpha s[l]
	VMULPD       (AX), Z4, Z5
	VMULPD       64(AX), Z4, Z6
	VMULPD       128(AX), Z4, Z7
	VMULPD       192(AX), Z4, Z8
	VADDPD       Z5, Z0, Z0
	VADDPD       Z6, Z1, Z1
	VADDPD       Z7, Z2, Z2
	VADDPD       Z8, Z3, Z3
	ADDQ         R8, AX
	ADDQ         R10, BX
	DECQ         DX
	JNE          term512

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

// ROW3 adds (alpha s) b, b's chunk in Z12-Z15 and s at addr, to a row's
// chunk in a0-a3.
#define ROW3(addr, a0, a1, a2, a3) \
	VBROADCASTSD addr, Z16; \
	VMULPD       Z31, Z16, Z16; \
	VMULPD       Z12, Z16, Z20; \
	VMULPD       Z13, Z16, Z21; \
	VMULPD       Z14, Z16, Z22; \
	VMULPD       Z15, Z16, Z23; \
	VADDPD       Z20, a0, a0; \
	VADDPD       Z21, a1, a1; \
	VADDPD       Z22, a2, a2; \
	VADDPD       Z23, a3, a3

// func axpyRows3Kernel512(c []float64, ldc, n int, b []float64, ldb int, s []float64, sinc, step, k int, alpha float64)
//
// axpyRowsKernel512 on three rows of c at once (c, c+ldc, c+2ldc, their
// first n columns, n a multiple of 32), row r's scalars at s[r*step +
// l*sinc]: each chunk of b is read once for the three rows, each term
// rounded and added as for one row, so the same results.
TEXT ·axpyRows3Kernel512(SB), NOSPLIT, $0-128
	MOVQ         c_base+0(FP), DI
	MOVQ         ldc+24(FP), R13
	SHLQ         $3, R13
	MOVQ         n+32(FP), CX
	SHRQ         $5, CX
	MOVQ         b_base+40(FP), SI
	MOVQ         ldb+64(FP), R8
	SHLQ         $3, R8
	MOVQ         s_base+72(FP), R9
	MOVQ         sinc+96(FP), R10
	SHLQ         $3, R10
	MOVQ         step+104(FP), R12
	SHLQ         $3, R12
	MOVQ         k+112(FP), R11
	VBROADCASTSD alpha+120(FP), Z31

chunk3:
	VMOVUPD (DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 128(DI), Z2
	VMOVUPD 192(DI), Z3
	VMOVUPD (DI)(R13*1), Z4
	VMOVUPD 64(DI)(R13*1), Z5
	VMOVUPD 128(DI)(R13*1), Z6
	VMOVUPD 192(DI)(R13*1), Z7
	VMOVUPD (DI)(R13*2), Z8
	VMOVUPD 64(DI)(R13*2), Z9
	VMOVUPD 128(DI)(R13*2), Z10
	VMOVUPD 192(DI)(R13*2), Z11
	MOVQ    SI, AX
	MOVQ    R9, BX
	MOVQ    R11, DX

term3:
	VMOVUPD (AX), Z12
	VMOVUPD 64(AX), Z13
	VMOVUPD 128(AX), Z14
	VMOVUPD 192(AX), Z15
	ROW3((BX), Z0, Z1, Z2, Z3)
	ROW3((BX)(R12*1), Z4, Z5, Z6, Z7)
	ROW3((BX)(R12*2), Z8, Z9, Z10, Z11)
	ADDQ R8, AX
	ADDQ R10, BX
	DECQ DX
	JNE  term3

	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	VMOVUPD Z4, (DI)(R13*1)
	VMOVUPD Z5, 64(DI)(R13*1)
	VMOVUPD Z6, 128(DI)(R13*1)
	VMOVUPD Z7, 192(DI)(R13*1)
	VMOVUPD Z8, (DI)(R13*2)
	VMOVUPD Z9, 64(DI)(R13*2)
	VMOVUPD Z10, 128(DI)(R13*2)
	VMOVUPD Z11, 192(DI)(R13*2)
	ADDQ    $256, DI
	ADDQ    $256, SI
	DECQ    CX
	JNE     chunk3
	VZEROUPPER
	RET

// DOTS4 multiplies a's chunk in reg by b's four chunks in Y12-Y15 into
// t0-t3 and adds them to the partial sums a0-a3.
#define DOTS4(reg, t0, t1, t2, t3, a0, a1, a2, a3) \
	VMULPD Y12, reg, t0; \
	VMULPD Y13, reg, t1; \
	VMULPD Y14, reg, t2; \
	VMULPD Y15, reg, t3; \
	VADDPD t0, a0, a0; \
	VADDPD t1, a1, a1; \
	VADDPD t2, a2, a2; \
	VADDPD t3, a3, a3

// func dots12Kernel(lanes, a []float64, lda int, b []float64, ldb int)
//
// dots4Kernel for three rows of a at once (a, a+lda, a+2lda, each of
// len(a) elements, a multiple of 4): lanes[16r+4q+j] are the partial
// sums of row r of a with row q of b. Each chunk of b is read once for
// the three rows; the sums are dots4Kernel's. It needs AVX-512 for the
// registers Y16-Y30.
TEXT ·dots12Kernel(SB), NOSPLIT, $0-88
	MOVQ   lanes_base+0(FP), DI
	MOVQ   a_base+24(FP), SI
	MOVQ   a_len+32(FP), CX
	SHRQ   $2, CX
	MOVQ   lda+48(FP), R12
	SHLQ   $3, R12
	MOVQ   b_base+56(FP), R8
	MOVQ   ldb+80(FP), R9
	SHLQ   $3, R9
	LEAQ   (R9)(R9*2), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	TESTQ  CX, CX
	JE     store12

loop12:
	VMOVUPD (R8), Y12
	VMOVUPD (R8)(R9*1), Y13
	VMOVUPD (R8)(R9*2), Y14
	VMOVUPD (R8)(R11*1), Y15
	VMOVUPD (SI), Y16
	VMOVUPD (SI)(R12*1), Y21
	VMOVUPD (SI)(R12*2), Y26
	DOTS4(Y16, Y17, Y18, Y19, Y20, Y0, Y1, Y2, Y3)
	DOTS4(Y21, Y22, Y23, Y24, Y25, Y4, Y5, Y6, Y7)
	DOTS4(Y26, Y27, Y28, Y29, Y30, Y8, Y9, Y10, Y11)
	ADDQ    $32, SI
	ADDQ    $32, R8
	DECQ    CX
	JNE     loop12

store12:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VMOVUPD Y8, 256(DI)
	VMOVUPD Y9, 288(DI)
	VMOVUPD Y10, 320(DI)
	VMOVUPD Y11, 352(DI)
	VZEROUPPER
	RET
