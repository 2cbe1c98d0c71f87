//go:build !noasm

#include "textflag.h"

// Integer constants of the exponent: the mask of the table index and the
// exponent bias.
DATA expInts<>+0(SB)/4, $255
DATA expInts<>+4(SB)/4, $255
DATA expInts<>+8(SB)/4, $255
DATA expInts<>+12(SB)/4, $255
DATA expInts<>+16(SB)/4, $1023
DATA expInts<>+20(SB)/4, $1023
DATA expInts<>+24(SB)/4, $1023
DATA expInts<>+28(SB)/4, $1023
GLOBL expInts<>(SB), RODATA|NOPTR, $32

// func negExpX4(x []float64, c float64)
//
// x[i] = e^(-c x[i]) four at a time, by negExpGo's steps. Where that
// computes r = -a - k ln2Hi - k ln2Lo and Horner's rule in r, this
// computes s = -r = a + k ln2Hi + k ln2Lo and subtracts s times each
// partial sum: rounding to nearest is symmetric, so every intermediate
// is exactly the negation of the Go one and the result is the same.
// k = -int(a invLn2 + 0.5) lives in four 32-bit lanes (|k| < 2^18 below
// the cutoff 708, beyond which the result is masked to 0).
TEXT ·negExpX4(SB), NOSPLIT, $0-32
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD c+24(FP), Y15
	LEAQ         ·expConsts(SB), AX
	VBROADCASTSD 0(AX), Y14  // 708
	VBROADCASTSD 8(AX), Y13  // invLn2
	VBROADCASTSD 16(AX), Y12 // 1/2
	VBROADCASTSD 24(AX), Y11 // ln2Hi
	VBROADCASTSD 32(AX), Y10 // ln2Lo
	VBROADCASTSD 40(AX), Y9  // 1/24
	VBROADCASTSD 48(AX), Y8  // 1/6
	VBROADCASTSD 56(AX), Y7  // 1
	LEAQ         ·expTable(SB), DX
	SHRQ         $2, CX
	JE           done

loop:
	VMULPD      (SI), Y15, Y0         // a = c x
	VCMPPD      $0x1e, Y14, Y0, Y1    // a > 708
	VMULPD      Y13, Y0, Y2
	VADDPD      Y12, Y2, Y2
	VCVTTPD2DQY Y2, X2                // int(a invLn2 + 0.5)
	VPXOR       X3, X3, X3
	VPSUBD      X2, X3, X3            // k
	VCVTDQ2PD   X3, Y4                // float64(k)
	VMULPD      Y11, Y4, Y5
	VADDPD      Y5, Y0, Y5            // a + k ln2Hi
	VMULPD      Y10, Y4, Y4
	VADDPD      Y4, Y5, Y5            // s = -r
	VMULPD      Y9, Y5, Y0
	VSUBPD      Y0, Y8, Y0            // 1/6 + r/24
	VMULPD      Y0, Y5, Y0
	VSUBPD      Y0, Y12, Y0           // 1/2 + r(...)
	VMULPD      Y0, Y5, Y0
	VSUBPD      Y0, Y7, Y0            // 1 + r(...)
	VMULPD      Y0, Y5, Y0
	VSUBPD      Y0, Y7, Y0            // p = 1 + r(...)
	VPAND       expInts<>+0(SB), X3, X4
	VPCMPEQD    Y6, Y6, Y6
	VGATHERDPD  Y6, (DX)(X4*8), Y2    // expTable[k&255]
	VMULPD      Y2, Y0, Y0
	VPSRAD      $8, X3, X3
	VPADDD      expInts<>+16(SB), X3, X3
	VPMOVSXDQ   X3, Y3
	VPSLLQ      $52, Y3, Y3           // 2^(k>>8)
	VMULPD      Y3, Y0, Y0
	VANDNPD     Y0, Y1, Y0            // 0 beyond the cutoff
	VMOVUPD     Y0, (SI)
	ADDQ        $32, SI
	DECQ        CX
	JNE         loop

done:
	VZEROUPPER
	RET

// func negExpX8(x []float64, c float64)
//
// negExpX4 on eight elements per instruction, with AVX-512: the same
// operations in the same order, so the results are identical. The lanes
// beyond the cutoff are cleared by a mask (a <= 708 or NaN keeps the
// value, as negExpX4's comparison does).
TEXT ·negExpX8(SB), NOSPLIT, $0-32
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD c+24(FP), Z15
	LEAQ         ·expConsts(SB), AX
	VBROADCASTSD 0(AX), Z14  // 708
	VBROADCASTSD 8(AX), Z13  // invLn2
	VBROADCASTSD 16(AX), Z12 // 1/2
	VBROADCASTSD 24(AX), Z11 // ln2Hi
	VBROADCASTSD 32(AX), Z10 // ln2Lo
	VBROADCASTSD 40(AX), Z9  // 1/24
	VBROADCASTSD 48(AX), Z8  // 1/6
	VBROADCASTSD 56(AX), Z7  // 1
	VPBROADCASTD expInts<>+0(SB), Y6  // 255
	VPBROADCASTD expInts<>+16(SB), Y5 // 1023
	LEAQ         ·expTable(SB), DX
	SHRQ         $3, CX
	JE           done8

loop8:
	VMULPD      (SI), Z15, Z0         // a = c x
	VCMPPD      $0x1a, Z14, Z0, K1    // !(a > 708)
	VMULPD      Z13, Z0, Z2
	VADDPD      Z12, Z2, Z2
	VCVTTPD2DQ  Z2, Y2                // int(a invLn2 + 0.5)
	VPXOR       Y3, Y3, Y3
	VPSUBD      Y2, Y3, Y3            // k
	VCVTDQ2PD   Y3, Z4                // float64(k)
	VMULPD      Z11, Z4, Z1
	VADDPD      Z1, Z0, Z1            // a + k ln2Hi
	VMULPD      Z10, Z4, Z4
	VADDPD      Z4, Z1, Z1            // s = -r
	VMULPD      Z9, Z1, Z0
	VSUBPD      Z0, Z8, Z0            // 1/6 + r/24
	VMULPD      Z0, Z1, Z0
	VSUBPD      Z0, Z12, Z0           // 1/2 + r(...)
	VMULPD      Z0, Z1, Z0
	VSUBPD      Z0, Z7, Z0            // 1 + r(...)
	VMULPD      Z0, Z1, Z0
	VSUBPD      Z0, Z7, Z0            // p = 1 + r(...)
	VPAND       Y6, Y3, Y4
	KXNORW      K2, K2, K2
	VGATHERDPD  (DX)(Y4*8), K2, Z2    // expTable[k&255]
	VMULPD      Z2, Z0, Z0
	VPSRAD      $8, Y3, Y3
	VPADDD      Y5, Y3, Y3
	VPMOVSXDQ   Y3, Z3
	VPSLLQ      $52, Z3, Z3           // 2^(k>>8)
	VMULPD.Z    Z3, Z0, K1, Z0        // 0 beyond the cutoff
	VMOVUPD     Z0, (SI)
	ADDQ        $64, SI
	DECQ        CX
	JNE         loop8

done8:
	VZEROUPPER
	RET
