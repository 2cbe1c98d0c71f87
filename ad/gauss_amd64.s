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
