package ad

import (
	"fmt"

	"github.com/parametric-machines/machines/internal/matmul"
)

// convVec computes a float32 convolution with small kernels for 256-bit
// vectors with fused multiply-add, in assembly on amd64: rowTaps4 and
// matmul.Dots4x3 do the arithmetic, copyRows and addRows move rows
// between the layouts. rowTaps4 keeps its sums in registers across all
// taps. gonum's Ger loads and stores the output once per tap, and its
// kernels use 128-bit vectors without fused multiply-add.
//
// Per image, with chanIn = hp*wp and the wide layout of convShape:
//
//   - forward, wide row f at p is the sum over the taps t = (c, ky, kx)
//     of w[f, c, ky, kx] * xpad[c*chanIn + ky*wp + kx + p]: rowTaps4 on
//     four output channels at a time;
//   - the padded input's gradient, dxpad row c at q, is the sum over the
//     taps t = (f, ky, kx) of w[f, c, ky, kx] * dwide[f][margin + q -
//     ky*wp - kx], where dwide holds the output gradient after margin
//     zeros: rowTaps4 again, on four input channels at a time;
//   - the kernel gradient dw[f, c, ky, kx] is the inner product of
//     dwide[f][margin:] with xpad shifted as forward: matmul.Dots4x3
//     with rows of b one element apart, on four output channels and
//     three kx at a time.
//
// Rows are rounded up to whole vectors, and the buffers carry zeros
// enough that the rounding reads nothing but zeros into any kept result.
type convVec struct {
	convShape
	ldw    int // row stride of wide: span rounded up to 16
	ldx    int // row stride of dxpad: hp*wp rounded up to 16
	margin int // zeros before each row of dwide: (kh-1)*wp + kw-1
	lde    int // row stride of dwide: margin + ldx

	xpad  []float32 // c padded channels of hp*wp, then zeros
	wide  []float32 // output rows, f rounded up to 4 of them
	dwide []float32 // output gradient rows, f rounded up to 4, zero but at kept outputs
	dxpad []float32 // gradient of xpad, c rounded up to 4 rows; nil without an input gradient
	offF  []int     // forward taps' offsets into xpad
	offX  []int     // input gradient taps' offsets into dwide
	wF    []float32 // kernel packed for rowTaps4 forward: [f/4][c*kh*kw][4]
	wX    []float32 // kernel packed for rowTaps4 backward: [c/4][f*kh*kw][4]
}

// vecSlack is the number of zeros after a padded image, more than the
// rounding of a row to whole vectors reads past its end.
const vecSlack = 32

func roundUp(n, m int) int { return (n + m - 1) / m * m }

func newConvVec(s convShape, kernelGrad, inputGrad bool) *convVec {
	chanIn := s.hp * s.wp
	kk := s.kh * s.kw
	v := &convVec{convShape: s}
	v.ldw = roundUp(s.span(), 16)
	v.ldx = roundUp(chanIn, 16)
	v.margin = (s.kh-1)*s.wp + s.kw - 1
	v.lde = v.margin + v.ldx
	v.xpad = make([]float32, s.c*chanIn+vecSlack)
	v.wide = make([]float32, roundUp(s.f, 4)*v.ldw)
	v.wF = make([]float32, roundUp(s.f, 4)*s.c*kk)
	v.offF = make([]int, s.c*kk)
	for t := range v.offF {
		c, k := t/kk, t%kk
		v.offF[t] = c*chanIn + k/s.kw*s.wp + k%s.kw
	}
	if kernelGrad || inputGrad {
		v.dwide = make([]float32, roundUp(s.f, 4)*v.lde)
	}
	if inputGrad {
		v.dxpad = make([]float32, roundUp(s.c, 4)*v.ldx)
		v.wX = make([]float32, roundUp(s.c, 4)*s.f*kk)
		v.offX = make([]int, s.f*kk)
		for t := range v.offX {
			f, k := t/kk, t%kk
			v.offX[t] = f*v.lde + v.margin - k/s.kw*s.wp - k%s.kw
		}
	}
	return v
}

func (v *convVec) forward(x, w, y []float32) {
	kk := v.kh * v.kw
	taps := v.c * kk
	// wF[g][t][r] = w[4g+r, t]; the rows past f stay zero.
	for f := range v.f {
		for t := range taps {
			v.wF[(f/4*taps+t)*4+f%4] = w[f*taps+t]
		}
	}
	out := v.f * v.ho * v.wo
	for n := range v.n {
		v.padInput(x, n)
		for g := range roundUp(v.f, 4) / 4 {
			rowTaps4(v.wide[4*g*v.ldw:], v.ldw, v.xpad, v.offF, v.wF[4*g*taps:4*(g+1)*taps], v.ldw)
		}
		yn := y[n*out : (n+1)*out]
		for f := range v.f {
			copyRows(yn[f*v.ho*v.wo:], v.wo, v.wide[f*v.ldw:], v.wp, v.ho, v.wo)
		}
	}
}

// padInput copies image n of x into the interior of xpad.
func (v *convVec) padInput(x []float32, n int) {
	img := v.h * v.w
	x = x[n*v.c*img : (n+1)*v.c*img]
	for c := range v.c {
		copyRows(v.xpad[c*v.hp*v.wp+v.pad*v.wp+v.pad:], v.wp, x[c*img:], v.w, v.h, v.w)
	}
}

// backward adds the gradients to dx and dw, either of which may be nil.
func (v *convVec) backward(dy, x, w, dx, dw []float32) {
	kk := v.kh * v.kw
	taps := v.f * kk
	if dx != nil {
		// wX[g][(f, k)][r] = w[f, 4g+r, k]; the rows past c stay zero.
		for f := range v.f {
			for c := range v.c {
				for k := range kk {
					v.wX[(c/4*taps+f*kk+k)*4+c%4] = w[(f*v.c+c)*kk+k]
				}
			}
		}
	}
	out := v.f * v.ho * v.wo
	for n := range v.n {
		dyn := dy[n*out : (n+1)*out]
		for f := range v.f {
			copyRows(v.dwide[f*v.lde+v.margin:], v.wp, dyn[f*v.ho*v.wo:], v.wo, v.ho, v.wo)
		}
		if dw != nil {
			v.padInput(x, n)
			v.kernelGrad(dw)
		}
		if dx != nil {
			for g := range roundUp(v.c, 4) / 4 {
				rowTaps4(v.dxpad[4*g*v.ldx:], v.ldx, v.dwide, v.offX, v.wX[4*g*taps:4*(g+1)*taps], v.ldx)
			}
			img := v.h * v.w
			dxn := dx[n*v.c*img : (n+1)*v.c*img]
			for c := range v.c {
				addRows(dxn[c*img:], v.w, v.dxpad[c*v.ldx+v.pad*v.wp+v.pad:], v.wp, v.h, v.w)
			}
		}
	}
}

// kernelGrad adds to dw the kernel gradient of the image in xpad and
// dwide, for four output channels and three kx at a time.
func (v *convVec) kernelGrad(dw []float32) {
	chanIn := v.hp * v.wp
	var sums [12]float32
	for f0 := 0; f0 < v.f; f0 += 4 {
		a := v.dwide[f0*v.lde+v.margin:]
		for c := range v.c {
			for ky := range v.kh {
				base := c*chanIn + ky*v.wp
				for kx := 0; kx < v.kw; kx += 3 {
					matmul.Dots4x3(sums[:], a, v.lde, v.xpad[base+kx:], 1, v.ldw)
					for r := range min(4, v.f-f0) {
						at := (((f0+r)*v.c+c)*v.kh+ky)*v.kw + kx
						for j := range min(3, v.kw-kx) {
							dw[at+j] += sums[3*r+j]
						}
					}
				}
			}
		}
	}
}

// rowTaps4 sets the four rows dst[r*ld : r*ld+n] to the sums over taps t
// of w[4t+r] * src[offs[t] : offs[t]+n]. n must be a multiple of 16 and
// at most ld. The arguments are checked here because the kernel does not
// check them.
func rowTaps4(dst []float32, ld int, src []float32, offs []int, w []float32, n int) {
	if n%16 != 0 || n > ld || len(dst) < 3*ld+n || len(w) < 4*len(offs) {
		panic(fmt.Errorf("%w: ad: rowTaps4 of %d values in rows %d apart, %d outputs, %d taps and %d weights", ErrShape,
			n, ld, len(dst), len(offs), len(w)))
	}
	for _, off := range offs {
		if off < 0 || off+n > len(src) {
			panic(fmt.Errorf("%w: ad: rowTaps4 tap at %d of %d values beyond an input of %d", ErrShape, off, n, len(src)))
		}
	}
	rowTaps4Kernel(dst, ld, src, offs, w, n)
}

// copyRows sets dst[r*ldDst+j] = src[r*ldSrc+j] for r < rows, j < cols:
// a copy between images with different row lengths.
func copyRows(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	checkRows("copyRows", dst, ldDst, src, ldSrc, rows, cols)
	copyRowsKernel(dst, ldDst, src, ldSrc, rows, cols)
}

// addRows adds src[r*ldSrc+j] to dst[r*ldDst+j] for r < rows, j < cols.
func addRows(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	checkRows("addRows", dst, ldDst, src, ldSrc, rows, cols)
	addRowsKernel(dst, ldDst, src, ldSrc, rows, cols)
}

func checkRows(name string, dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	if rows < 1 {
		return
	}
	if cols < 0 || cols > ldDst || cols > ldSrc || len(dst) < (rows-1)*ldDst+cols || len(src) < (rows-1)*ldSrc+cols {
		panic(fmt.Errorf("%w: ad: %s of %dx%d values, rows %d and %d apart, from %d to %d values", ErrShape,
			name, rows, cols, ldSrc, ldDst, len(src), len(dst)))
	}
}

// rowTaps4Go, copyRowsGo and addRowsGo are the kernels in plain Go: the
// reference the assembly is tested against, and the kernels where there
// is none.

func rowTaps4Go(dst []float32, ld int, src []float32, offs []int, w []float32, n int) {
	for r := range 4 {
		row := dst[r*ld : r*ld+n]
		clear(row)
		for t, off := range offs {
			a := w[4*t+r]
			for p, x := range src[off : off+n] {
				row[p] += a * x
			}
		}
	}
}

func copyRowsGo(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	for r := range rows {
		copy(dst[r*ldDst:r*ldDst+cols], src[r*ldSrc:r*ldSrc+cols])
	}
}

func addRowsGo(dst []float32, ldDst int, src []float32, ldSrc int, rows, cols int) {
	for r := range rows {
		d, s := dst[r*ldDst:r*ldDst+cols], src[r*ldSrc:r*ldSrc+cols]
		for j, x := range s {
			d[j] += x
		}
	}
}
