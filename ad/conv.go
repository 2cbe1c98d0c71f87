package ad

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// convShape is the geometry of a convolution: a batch of n images of c
// channels, h x w, with f kernels of kh x kw, padded by pad to hp x wp,
// giving ho x wo outputs.
//
// Both ways of computing the convolution use a "wide" layout. Each image
// is copied into a buffer padded to hp x wp per channel, and its output
// is computed on a grid with the same row length wp, of which only the
// first wo columns are kept. On that grid the input under kernel tap
// (ky, kx) is the padded input shifted by ky*wp + kx elements, so one tap
// of the convolution of an image is a scaled copy of one contiguous run
// of the padded input, added to every output channel: no im2col copy is
// needed. The span of a run, (ho-1)*wp + wo, covers every kept output and
// never reaches past the image. The wp-wo junk columns cost a few per
// cent of extra work; their gradient is held at zero, so they contribute
// nothing backward.
//
// The buffers hold one image, so that they stay in cache while the
// image's taps pass over them, and are allocated when the operation is
// added to the graph.
type convShape struct {
	n, c, h, w int // input shape
	f, kh, kw  int // output channels and kernel size
	pad        int
	hp, wp     int // padded input size
	ho, wo     int // output size
}

// span is the length of the run of the wide grid that holds one
// channel's kept outputs.
func (s *convShape) span() int { return (s.ho-1)*s.wp + s.wo }

// padImage copies image n of x into the interior of dst, whose channels
// are hp x wp and lie ld apart; the border is left as it is (zero).
func padImage[T Float](s *convShape, dst []T, ld int, x []T, n int) {
	x = x[n*s.c*s.h*s.w : (n+1)*s.c*s.h*s.w]
	for c := range s.c {
		src := x[c*s.h*s.w : (c+1)*s.h*s.w]
		d := dst[c*ld+s.pad*s.wp+s.pad:]
		for r := range s.h {
			copy(d[r*s.wp:r*s.wp+s.w], src[r*s.w:(r+1)*s.w])
		}
	}
}

// conv2D is Conv2D. In float32, when useVec is set, vec does the work
// (see convVec). Otherwise one tap of an image is a rank-one update of
// its output channels by gonum's Ger; backward, the kernel gradient is
// one matrix-vector product per tap and the input gradient one rank-one
// update per output channel and tap, into a padded buffer whose interior
// is then added to the input's gradient. Without assembly this beats
// im2col with one GEMM for the batch and a plain loop over the taps on
// small channel counts (go test -bench Conv ./ad).
type conv2D[T Float] struct {
	convShape
	vec *convVec

	xpad  []T // one zero-padded input image, c x hp x wp
	dxpad []T // gradient of xpad; nil if the input has no gradient
	wide  []T // one image's output on the wide grid, f x ho x wp
	dwide []T // gradient of wide; its junk columns stay zero
	dw    []T // one tap of the kernel gradient: max(c, f) values
}

// Conv2D returns the two-dimensional convolution of a batch of images x
// (shape [N C H W]) with the kernels w (shape [F C KH KW]): stride 1, pad
// rows and columns of zeros around each image, no bias. The result has
// shape [N F H+2*pad-KH+1 W+2*pad-KW+1]; pad = (K-1)/2 keeps an odd K x K
// kernel's output the size of its input ("same" padding).
//
// As in deep-learning libraries, the kernel is not flipped: output
// channel f at (i, j) is the sum over c, a and b of
// w[f, c, a, b] * xpadded[c, i+a, j+b]. The gradient with respect to x is
// computed only when x has one, which saves about a third of the work of
// a first layer.
func (g *Graph[T]) Conv2D(x, w *Node[T], pad int) *Node[T] {
	xs, ws := x.Value.Shape, w.Value.Shape
	if len(xs) != 4 || len(ws) != 4 || xs[1] != ws[1] || pad < 0 || slices.Contains(ws, 0) ||
		xs[2]+2*pad < ws[2] || xs[3]+2*pad < ws[3] {
		panic(fmt.Errorf("%w: ad: Conv2D of input shape %v (want [N C H W]) and kernel shape %v (want [F C KH KW]) with padding %d", ErrShape,
			xs, ws, pad))
	}
	o := &conv2D[T]{convShape: convShape{
		n: xs[0], c: xs[1], h: xs[2], w: xs[3],
		f: ws[0], kh: ws[2], kw: ws[3],
		pad: pad,
	}}
	o.hp, o.wp = o.h+2*pad, o.w+2*pad
	o.ho, o.wo = o.hp-o.kh+1, o.wp-o.kw+1
	if single[T]() && useVec {
		o.vec = newConvVec(o.convShape, w.Grad != nil, x.Grad != nil)
		return g.apply(o, []int{o.n, o.f, o.ho, o.wo}, x, w)
	}
	o.xpad = make([]T, o.c*o.hp*o.wp)
	o.wide = make([]T, o.f*o.ho*o.wp)
	if w.Grad != nil || x.Grad != nil {
		o.dwide = make([]T, len(o.wide))
		o.dw = make([]T, max(o.c, o.f))
	}
	if x.Grad != nil {
		o.dxpad = make([]T, len(o.xpad))
	}
	return g.apply(o, []int{o.n, o.f, o.ho, o.wo}, x, w)
}

func (o *conv2D[T]) forward(out *Node[T]) {
	x, w, y := out.inputs[0].Value.Data, out.inputs[1].Value.Data, out.Value.Data
	if o.vec != nil {
		o.vec.forward(retypeSlice[float32](x), retypeSlice[float32](w), retypeSlice[float32](y))
		return
	}
	kk := o.kh * o.kw
	chanIn, chanOut := o.hp*o.wp, o.ho*o.wp
	span := o.span()
	for n := range o.n {
		padImage(&o.convShape, o.xpad, chanIn, x, n)
		clear(o.wide)
		for c := range o.c {
			for k := range kk {
				off := c*chanIn + k/o.kw*o.wp + k%o.kw
				// wide[f] += w[f, c, k] * shifted input, for every f
				ger(o.f, span, w[c*kk+k:], o.c*kk, o.xpad[off:off+span], o.wide, chanOut)
			}
		}
		// Keep the first wo columns of every row.
		yn := y[n*o.f*o.ho*o.wo : (n+1)*o.f*o.ho*o.wo]
		for r := range o.f * o.ho {
			copy(yn[r*o.wo:(r+1)*o.wo], o.wide[r*o.wp:r*o.wp+o.wo])
		}
	}
}

func (o *conv2D[T]) backward(out *Node[T]) {
	x, w := out.inputs[0], out.inputs[1]
	if x.Grad == nil && w.Grad == nil {
		return
	}
	if o.vec != nil {
		var dx, dw []float32
		if x.Grad != nil {
			dx = retypeSlice[float32](x.Grad.Data)
		}
		if w.Grad != nil {
			dw = retypeSlice[float32](w.Grad.Data)
		}
		o.vec.backward(retypeSlice[float32](out.Grad.Data), retypeSlice[float32](x.Value.Data),
			retypeSlice[float32](w.Value.Data), dx, dw)
		return
	}
	kk := o.kh * o.kw
	chanIn, chanOut := o.hp*o.wp, o.ho*o.wp
	span := o.span()
	for n := range o.n {
		dyn := out.Grad.Data[n*o.f*o.ho*o.wo : (n+1)*o.f*o.ho*o.wo]
		for r := range o.f * o.ho {
			copy(o.dwide[r*o.wp:r*o.wp+o.wo], dyn[r*o.wo:(r+1)*o.wo])
		}
		if w.Grad != nil {
			padImage(&o.convShape, o.xpad, chanIn, x.Value.Data, n)
			o.kernelGrad(w.Grad.Data)
		}
		if x.Grad == nil {
			continue
		}
		clear(o.dxpad)
		for f := range o.f {
			df := o.dwide[f*chanOut : f*chanOut+span]
			for k := range kk {
				off := k/o.kw*o.wp + k%o.kw
				// dxpad[c] shifted += w[f, c, k] * dwide[f], for every c
				ger(o.c, span, w.Value.Data[f*o.c*kk+k:], kk, df, o.dxpad[off:], chanIn)
			}
		}
		addInterior(&o.convShape, x.Grad.Data, n, o.dxpad, chanIn)
	}
}

// addInterior adds the interior of the padded image gradient dpad, whose
// channels lie ld apart, to image n of dx.
func addInterior[T Float](s *convShape, dx []T, n int, dpad []T, ld int) {
	dx = dx[n*s.c*s.h*s.w : (n+1)*s.c*s.h*s.w]
	for c := range s.c {
		src := dpad[c*ld+s.pad*s.wp+s.pad:]
		dst := dx[c*s.h*s.w : (c+1)*s.h*s.w]
		for r := range s.h {
			addTo(dst[r*s.w:(r+1)*s.w], dst[r*s.w:(r+1)*s.w], src[r*s.wp:r*s.wp+s.w])
		}
	}
}

// kernelGrad adds to dw the kernel gradient of the image in xpad and
// dwide. Entry dw[f, c, k] is the inner product of dwide[f] with the
// input of channel c shifted by tap k. The products of one tap are a
// matrix-vector product, over the output channels or over the input
// channels, whichever has more rows.
func (o *conv2D[T]) kernelGrad(dw []T) {
	kk := o.kh * o.kw
	chanIn, chanOut := o.hp*o.wp, o.ho*o.wp
	span := o.span()
	if o.f >= o.c {
		for c := range o.c {
			for k := range kk {
				off := c*chanIn + k/o.kw*o.wp + k%o.kw
				// dw[:, c, k] += dwide * shifted input of channel c
				gemv(o.f, span, o.dwide, chanOut, o.xpad[off:off+span], o.dw[:o.f])
				for f, v := range o.dw[:o.f] {
					dw[(f*o.c+c)*kk+k] += v
				}
			}
		}
		return
	}
	for f := range o.f {
		df := o.dwide[f*chanOut : f*chanOut+span]
		for k := range kk {
			off := k/o.kw*o.wp + k%o.kw
			// dw[f, :, k] += shifted inputs * dwide[f]
			gemv(o.c, span, o.xpad[off:], chanIn, df, o.dw[:o.c])
			for c, v := range o.dw[:o.c] {
				dw[(f*o.c+c)*kk+k] += v
			}
		}
	}
}

// ger adds x*y^T to the m x len(y) matrix a with row stride lda; x has
// stride incX.
func ger[T Float](m, n int, x []T, incX int, y, a []T, lda int) {
	x, y, a = x[:(m-1)*incX+1], y[:n], a[:(m-1)*lda+n]
	switch ad := any(a).(type) {
	case []float64:
		blas64.Ger(1, blas64.Vector{N: m, Inc: incX, Data: any(x).([]float64)}, blas64.Vector{N: n, Inc: 1, Data: any(y).([]float64)},
			blas64.General{Rows: m, Cols: n, Stride: lda, Data: ad})
	case []float32:
		blas32.Ger(1, blas32.Vector{N: m, Inc: incX, Data: any(x).([]float32)}, blas32.Vector{N: n, Inc: 1, Data: any(y).([]float32)},
			blas32.General{Rows: m, Cols: n, Stride: lda, Data: ad})
	default:
		if single[T]() {
			ger(m, n, retypeSlice[float32](x), incX, retypeSlice[float32](y), retypeSlice[float32](a), lda)
		} else {
			ger(m, n, retypeSlice[float64](x), incX, retypeSlice[float64](y), retypeSlice[float64](a), lda)
		}
	}
}

// gemv sets y = A*x for the len(y) x n matrix A held in a with row
// stride lda.
func gemv[T Float](m, n int, a []T, lda int, x, y []T) {
	a, x, y = a[:(m-1)*lda+n], x[:n], y[:m]
	switch yd := any(y).(type) {
	case []float64:
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: lda, Data: any(a).([]float64)},
			blas64.Vector{N: n, Inc: 1, Data: any(x).([]float64)}, 0, blas64.Vector{N: m, Inc: 1, Data: yd})
	case []float32:
		blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: m, Cols: n, Stride: lda, Data: any(a).([]float32)},
			blas32.Vector{N: n, Inc: 1, Data: any(x).([]float32)}, 0, blas32.Vector{N: m, Inc: 1, Data: yd})
	default:
		if single[T]() {
			gemv(m, n, retypeSlice[float32](a), lda, retypeSlice[float32](x), retypeSlice[float32](y))
		} else {
			gemv(m, n, retypeSlice[float64](a), lda, retypeSlice[float64](x), retypeSlice[float64](y))
		}
	}
}
