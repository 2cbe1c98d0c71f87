//go:build !noasm

#include "textflag.h"

// func kernel6x16(k int, a, b, c []float32, ldc int)
// func kernel6x8(k int, a, b, c []float64, ldc int)
//
// c[r*ldc+j] += sum over p < k of a[p*6+r] * b[p*nr+j], for r < 6 and
// j < nr (16 float32, 8 float64: two registers). The tile's sums stay in
// Y0-Y11 (row r in Y(2r) and Y(2r+1)) while the panels go by; C is read
// and written once, at the end. The two kernels differ only in the
// instructions' element type and size (E bytes).

// ROW(BCAST, FMA, E, r, acc0, acc1, tmp) adds a[p*6+r] * b[p*nr:+nr] to
// the sums of row r.
#define ROW(BCAST, FMA, E, r, acc0, acc1, tmp) \
	BCAST (r*E)(SI), tmp \
	FMA   Y12, tmp, acc0 \
	FMA   Y13, tmp, acc1

// STORE(ADD, acc0, acc1) adds the sums of one row to C and moves to the
// next row.
#define STORE(ADD, acc0, acc1) \
	ADD     (DX), acc0, acc0 \
	ADD     32(DX), acc1, acc1 \
	VMOVUPS acc0, (DX) \
	VMOVUPS acc1, 32(DX) \
	ADDQ    R8, DX

#define KERNEL(BCAST, FMA, ADD, E) \
	MOVQ k+0(FP), CX \
	MOVQ a_base+8(FP), SI \
	MOVQ b_base+32(FP), DI \
	MOVQ c_base+56(FP), DX \
	MOVQ ldc+80(FP), R8 \
	SHLQ $(E/4+1), R8 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	TESTQ CX, CX \
	JE    store \
loop: \
	VMOVUPS (DI), Y12 \
	VMOVUPS 32(DI), Y13 \
	ROW(BCAST, FMA, E, 0, Y0, Y1, Y14) \
	ROW(BCAST, FMA, E, 1, Y2, Y3, Y15) \
	ROW(BCAST, FMA, E, 2, Y4, Y5, Y14) \
	ROW(BCAST, FMA, E, 3, Y6, Y7, Y15) \
	ROW(BCAST, FMA, E, 4, Y8, Y9, Y14) \
	ROW(BCAST, FMA, E, 5, Y10, Y11, Y15) \
	ADDQ $(6*E), SI \
	ADDQ $64, DI \
	DECQ CX \
	JNE  loop \
store: \
	STORE(ADD, Y0, Y1) \
	STORE(ADD, Y2, Y3) \
	STORE(ADD, Y4, Y5) \
	STORE(ADD, Y6, Y7) \
	STORE(ADD, Y8, Y9) \
	STORE(ADD, Y10, Y11) \
	VZEROUPPER \
	RET

TEXT ·kernel6x16(SB), NOSPLIT, $0-88
	KERNEL(VBROADCASTSS, VFMADD231PS, VADDPS, 4)

TEXT ·kernel6x8(SB), NOSPLIT, $0-88
	KERNEL(VBROADCASTSD, VFMADD231PD, VADDPD, 8)
