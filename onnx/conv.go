package onnx

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// conv adds the bias-free convolution, stride 1, of x, a batch of
// signals [N, C, in...] with one or two spatial dimensions, by the
// kernel w of shape [F, C, k...] (row-major), with pads zeros on both
// sides along each spatial dimension. As in ONNX and in package ad, the
// kernel is not flipped: output f at position p sums w[f, c, j] times
// the padded input of channel c at p + j.
//
// ONNX Runtime's CPU provider has Conv in float32 only, so in float64 the
// convolution is written out: the shifted copies of the padded signal,
// one per kernel position, stacked along the channels, times the kernel
// as a [K*C, F] matrix.
func (b *builder) conv(elem onnxpb.TensorProto_DataType, x string, wshape []int, w []float64, pads, in []int) string {
	d := len(in)
	if d != 1 && d != 2 || len(wshape) != 2+d || len(pads) != d {
		panic(fmt.Errorf("%w: onnx: convolution of signals of shape %v by a kernel of shape %v with padding %v", ad.ErrShape, in, wshape, pads))
	}
	k := wshape[2:]
	if elem == onnxpb.TensorProto_FLOAT {
		return b.op("Conv", []string{x, b.reals(elem, int64s(wshape), w)},
			intsAttr("kernel_shape", int64s(k)), intsAttr("pads", int64s(append(pads[:d:d], pads...))))
	}
	f, c := wshape[0], wshape[1]
	out := make([]int, d)
	taps := 1
	for i := range d {
		out[i] = in[i] + 2*pads[i] - k[i] + 1
		taps *= k[i]
	}
	padding := make([]int64, 2*(2+d))
	for i := range d {
		padding[2+i], padding[2+d+2+i] = int64(pads[i]), int64(pads[i])
	}
	padded := b.op("Pad", []string{x, b.int64s([]int64{int64(len(padding))}, padding)})
	axes := make([]int64, d)
	for i := range d {
		axes[i] = int64(2 + i)
	}
	axesName := b.int64s([]int64{int64(d)}, axes)
	shifted := make([]string, taps)
	kernel := make([]float64, taps*c*f)
	for t := range taps {
		// Kernel position t, row-major over k, is the offset j.
		j := make([]int64, d)
		ends := make([]int64, d)
		for i, r := d-1, t; i >= 0; i-- {
			j[i] = int64(r % k[i])
			r /= k[i]
			ends[i] = j[i] + int64(out[i])
		}
		shifted[t] = b.op("Slice", []string{padded, b.int64s([]int64{int64(d)}, j), b.int64s([]int64{int64(d)}, ends), axesName})
		for ci := range c {
			for fi := range f {
				kernel[(t*c+ci)*f+fi] = w[(fi*c+ci)*taps+t]
			}
		}
	}
	// Channels last for the product, then back.
	last, first := []int64{0, 2, 1}, []int64{0, 2, 1}
	if d == 2 {
		last, first = []int64{0, 2, 3, 1}, []int64{0, 3, 1, 2}
	}
	cols := b.op("Transpose", []string{b.op("Concat", shifted, intAttr("axis", 1))}, intsAttr("perm", last))
	y := b.op("MatMul", []string{cols, b.reals(elem, []int64{int64(taps * c), int64(f)}, kernel)})
	return b.op("Transpose", []string{y}, intsAttr("perm", first))
}
