//go:build !noasm

#include "textflag.h"

// func rotX4(x, y []float64, c, s float64)
//
// y[i], x[i] = c y[i] - s x[i], s y[i] + c x[i], four at a time, each
// product and sum rounded as rotGo rounds it (no fused multiply-add).
TEXT ·rotX4(SB), NOSPLIT, $0-64
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSD c+48(FP), Y0
	VBROADCASTSD s+56(FP), Y1
	SHRQ $2, CX
	JZ   done

loop:
	VMOVUPD (DI), Y2      // v = y
	VMOVUPD (SI), Y3      // u = x
	VMULPD  Y0, Y2, Y4    // c v
	VMULPD  Y1, Y3, Y5    // s u
	VSUBPD  Y5, Y4, Y4    // c v - s u
	VMULPD  Y1, Y2, Y6    // s v
	VMULPD  Y0, Y3, Y7    // c u
	VADDPD  Y7, Y6, Y6    // s v + c u
	VMOVUPD Y4, (DI)
	VMOVUPD Y6, (SI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// func rotX8(x, y []float64, c, s float64)
//
// rotX4 eight at a time, for slices whose length is a multiple of 8.
TEXT ·rotX8(SB), NOSPLIT, $0-64
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSD c+48(FP), Z0
	VBROADCASTSD s+56(FP), Z1
	SHRQ $3, CX
	JZ   done8

loop8:
	VMOVUPD (DI), Z2
	VMOVUPD (SI), Z3
	VMULPD  Z0, Z2, Z4
	VMULPD  Z1, Z3, Z5
	VSUBPD  Z5, Z4, Z4
	VMULPD  Z1, Z2, Z6
	VMULPD  Z0, Z3, Z7
	VADDPD  Z7, Z6, Z6
	VMOVUPD Z4, (DI)
	VMOVUPD Z6, (SI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop8

done8:
	VZEROUPPER
	RET
