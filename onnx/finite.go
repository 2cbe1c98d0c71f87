package onnx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// The names of the input and output of an exported finite machine.
const (
	InputY0 = "y0"
	OutputZ = "z"
)

// Finite returns the ONNX model of the finite machine m, computing in
// m's element type, float32 or float64. shape is the spatial shape of
// the signals the graph takes: none for a dense machine, [L] or [H, W]
// for a convolutional one, [L] for a recurrent one; the batch is
// dynamic.
//
// The graph has the input "y0", the machine's input block, [N, d0] or
// [N, d0, shape...] with d0 = m.Dims()[0], and the output "z", the
// stable state of all D = sum(Dims) channels, [N, D] or [N, D,
// shape...]: what m.Apply returns for y0 and a nil z0. The solve is
// unrolled block by block, as the library computes it: each block of a
// dense or convolutional machine is one product (or convolution) of
// the blocks before it; a recurrent machine goes time step by time step,
// and within each, block by block, each step one product of the state's
// recent past, so its graph grows with the length L.
func Finite[T ad.Float](m *finite.Machine[T], shape ...int) (*onnxpb.ModelProto, error) {
	f, err := newFinitePass(newBuilder("finite machine"), m, shape)
	if err != nil {
		return nil, fmt.Errorf("onnx: finite machine: %w", err)
	}
	b := f.b
	dims := m.Dims()
	inShape, outShape := append([]int{dims[0]}, shape...), append([]int{m.Size()}, shape...)
	b.g.Input = append(b.g.Input, valueInfo(InputY0, "the input block, of shape "+batchShape(inShape), f.elem, int64s(inShape)...))
	b.rename(f.state(InputY0, dims[0], "", 0), OutputZ)
	b.g.Output = append(b.g.Output, valueInfo(OutputZ, "the stable state of every block, of shape "+batchShape(outShape), f.elem, int64s(outShape)...))
	meta := [][2]string{{"kind", "finite-machine"}, {"machine", m.Kind().String()}, {"dims", strings.Trim(fmt.Sprint(dims), "[]")},
		{"activation", m.Activation().String()}}
	return b.model("a finite machine of github.com/parametric-machines/machines, unrolled block by block", meta...), nil
}

// finiteLayer adds the finite.Layer l, whose parameters ps holds under
// scope, applied to x, y0 and optionally z0, of the shapes src.
func finiteLayer[T ad.Float](b *builder, l finite.Layer[T], ps *ad.Params[T], scope string, x []string, src [][]int) ([]string, error) {
	m, err := l.Machine(ps, scope)
	if err != nil {
		return nil, err
	}
	f, err := newFinitePass(b, m, src[0][1:])
	if err != nil {
		return nil, err
	}
	z0, cz := "", 0
	if len(x) > 1 {
		z0, cz = x[1], src[1][0]
	}
	return []string{f.state(x[0], src[0][0], z0, cz)}, nil
}

// finitePass builds the graph of a finite machine.
type finitePass[T ad.Float] struct {
	b     *builder
	m     *finite.Machine[T]
	elem  onnxpb.TensorProto_DataType
	shape []int
	off   []int     // the first channel of every block, then D
	w     []float64 // the weight, row-major
}

// newFinitePass returns the pass of m on signals of the given shape, or
// why m cannot solve them.
func newFinitePass[T ad.Float](b *builder, m *finite.Machine[T], shape []int) (*finitePass[T], error) {
	s, err := m.NewSolver(shape...)
	if err != nil {
		return nil, err
	}
	if m.Scale != nil {
		if err := s.CheckScale(m.Scale.Shape); err != nil {
			return nil, err
		}
	}
	f := &finitePass[T]{b: b, m: m, elem: elemType[T](), shape: shape, off: []int{0}, w: float64s(m.W.Data)}
	for _, d := range m.Dims() {
		f.off = append(f.off, f.off[len(f.off)-1]+d)
	}
	return f, nil
}

// state returns the stable state z, [N, D, shape...], for the inputs y0,
// [N, c0, shape...], and z0, [N, cz, shape...] or "" for zero, whose
// missing channels are zero (0 < c0, cz <= D): what Layer.Apply returns.
// A dense or convolutional machine is unrolled block by block, a
// recurrent one time step by time step (see recur).
func (f *finitePass[T]) state(y0 string, c0 int, z0 string, cz int) string {
	if f.m.Kind() == finite.Recur {
		return f.recur(y0, c0, z0, cz)
	}
	var blocks []string
	for i := range f.m.Dims() {
		y := f.channels(y0, c0, i)
		if i > 0 {
			y = f.add(y, f.product(i, blocks))
		}
		blocks = append(blocks, f.finish(i, y, f.channels(z0, cz, i), -1))
	}
	return f.b.op("Concat", blocks, intAttr("axis", 1))
}

// add returns a + p, or p if a is "".
func (f *finitePass[T]) add(a, p string) string {
	if a == "" {
		return p
	}
	return f.b.op("Add", []string{a, p})
}

// finish returns z of block i from its y: z0, the block's channels of
// the input z0 ("" for none), plus the scaling times the activation of
// y; t is as for scale.
func (f *finitePass[T]) finish(i int, y, z0 string, t int) string {
	z := f.scale(i, f.activate(y), t)
	if z0 == "" {
		return z
	}
	return f.b.op("Add", []string{z0, z})
}

// channels returns the channels of block i of x, an input of c channels
// on axis 1, zero where the block goes beyond them; "" if x is "" or
// has none of the block's channels.
func (f *finitePass[T]) channels(x string, c, i int) string {
	b := f.b
	r0, r1 := f.off[i], f.off[i+1]
	switch {
	case x == "" || r0 >= c:
		return ""
	case r0 == 0 && r1 == c:
		return x
	case r1 <= c:
		return b.slice(x, r0, r1)
	}
	if r0 > 0 {
		x = b.slice(x, r0, c)
	}
	// Zero channels after the last: pads of [N, c, ...] at the end of
	// axis 1. The values of a recurrent machine are one time step's.
	rank := 2
	if f.m.Kind() == finite.Conv {
		rank += len(f.shape)
	}
	pads := make([]int64, 2*rank)
	pads[rank+1] = int64(r1 - c)
	return b.op("Pad", []string{x, b.int64s([]int64{int64(2 * rank)}, pads)})
}

// scaling returns the scaling of the channels of block i, at time t of
// a recurrent machine's signal (-1 for the whole signal), and its shape
// to broadcast with the block, or nil for no scaling.
func (f *finitePass[T]) scaling(i, t int) ([]float64, []int64) {
	s := f.m.Scale
	if s == nil {
		return nil, nil
	}
	r0, r1 := f.off[i], f.off[i+1]
	pos := len(s.Data) / f.off[len(f.off)-1]
	dims := []int64{int64(r1 - r0)}
	if pos > 1 && t < 0 { // one per entry, over the signal
		return float64s(s.Data[r0*pos : r1*pos]), append(dims, int64s(f.shape)...)
	}
	at := 0 // the entry of each channel's row: one per channel, or time t
	if pos > 1 {
		at = t
	}
	var v []float64
	for r := r0; r < r1; r++ {
		v = append(v, float64(s.Data[r*pos+at]))
	}
	if t < 0 { // one per channel, over the signal
		for range f.shape {
			dims = append(dims, 1)
		}
	}
	return v, dims
}

// product returns y of block i > 0 of a dense or convolutional machine,
// W restricted to the rows of block i and the columns of the blocks
// before it, applied to their states z.
func (f *finitePass[T]) product(i int, z []string) string {
	b := f.b
	r0, r1, cols := f.off[i], f.off[i+1], f.off[i]
	d, taps := f.off[len(f.off)-1], f.m.Taps()
	in := z[0]
	if len(z) > 1 {
		in = b.op("Concat", z, intAttr("axis", 1))
	}
	if f.m.Kind() == finite.Dense {
		// z W' with W' [cols, rows].
		wt := make([]float64, cols*(r1-r0))
		for r := r0; r < r1; r++ {
			for c := range cols {
				wt[c*(r1-r0)+r-r0] = f.w[r*d+c]
			}
		}
		return b.op("MatMul", []string{in, b.reals(f.elem, []int64{int64(cols), int64(r1 - r0)}, wt)})
	}
	k := make([]float64, 0, (r1-r0)*cols*taps)
	for r := r0; r < r1; r++ {
		k = append(k, f.w[r*d*taps:r*d*taps+cols*taps]...)
	}
	kshape := []int{r1 - r0, cols}
	for _, p := range f.m.Pad() {
		kshape = append(kshape, 2*p+1)
	}
	return b.conv(f.elem, in, kshape, k, f.m.Pad(), f.shape)
}

// activate returns the activation of y.
func (f *finitePass[T]) activate(y string) string { return f.b.activation(f.elem, f.m.Activation(), y) }

// scale returns z of block i, the scaling times a, the activation of
// its y; t is the time step of a recurrent machine's a, [N, d_i], or -1
// for the whole signal.
//
// A block's channels of one sample, [N, d_i], are multiplied by the
// diagonal matrix of the scaling, exactly as by the scaling: ONNX
// Runtime fuses a multiplication by a single constant next to a matrix
// product into the product, with the constant as a float32 attribute,
// which would cost a float64 model with a block of one channel its
// precision.
func (f *finitePass[T]) scale(i int, a string, t int) string {
	v, dims := f.scaling(i, t)
	switch {
	case v == nil:
		return a
	case len(dims) == 1:
		n := len(v)
		diag := make([]float64, n*n)
		for r, x := range v {
			diag[r*n+r] = x
		}
		return f.b.op("MatMul", []string{a, f.b.reals(f.elem, []int64{int64(n), int64(n)}, diag)})
	}
	return f.b.op("Mul", []string{f.b.reals(f.elem, dims, v), a})
}

// recur returns the state of a recurrent machine, [N, D, L], for the
// inputs of state, computed time step by time step and, within each,
// block by block: block i at time t reads, at delay 0, the blocks before
// it at time t; at delays below the time block, those blocks at earlier
// times; at longer delays, every channel. That order respects every
// dependency the mask allows, so the state is the machine's stable
// state.
func (f *finitePass[T]) recur(y0 string, c0 int, z0 string, cz int) string {
	b := f.b
	m := f.m
	d, pad, tb, length := f.off[len(f.off)-1], m.Pad()[0], m.TimeBlock(), f.shape[0]
	dims := m.Dims()
	// w(r, k, c) is W[r, k, c], output channel r, delay k, input channel c.
	w := func(r, k, c int) float64 { return f.w[(r*(pad+1)+k)*d+c] }
	at := func(x string, t int) string { // x at time t, [N, channels]
		if x == "" {
			return ""
		}
		return b.op("Gather", []string{x, b.int64s(nil, []int64{int64(t)})}, intAttr("axis", 2))
	}
	states := make([]string, length) // z at each time, [N, D]
	for t := range length {
		yt, zt := at(y0, t), at(z0, t)
		var blocks []string // the blocks of z at time t so far
		for i := range dims {
			r0, r1 := f.off[i], f.off[i+1]
			// The inputs of the product, [N, channels] each, and the
			// rows of W' they meet.
			var ins []string
			var rows [][]float64
			addRows := func(k, c0, c1 int) {
				for c := c0; c < c1; c++ {
					row := make([]float64, r1-r0)
					for r := r0; r < r1; r++ {
						row[r-r0] = w(r, k, c)
					}
					rows = append(rows, row)
				}
			}
			if i > 0 {
				ins = append(ins, blocks...)
				addRows(0, 0, r0)
			}
			for k := 1; k <= min(pad, t); k++ {
				if k < tb {
					if i > 0 {
						ins = append(ins, b.slice(states[t-k], 0, r0))
						addRows(k, 0, r0)
					}
				} else {
					ins = append(ins, states[t-k])
					addRows(k, 0, d)
				}
			}
			// Block 0 has the input to start from; a later block has at
			// least the blocks before it at delay 0 to read.
			y := f.channels(yt, c0, i)
			if len(ins) > 0 {
				in := ins[0]
				if len(ins) > 1 {
					in = b.op("Concat", ins, intAttr("axis", 1))
				}
				wt := slices.Concat(rows...)
				y = f.add(y, b.op("MatMul", []string{in, b.reals(f.elem, []int64{int64(len(rows)), int64(r1 - r0)}, wt)}))
			}
			blocks = append(blocks, f.finish(i, y, f.channels(zt, cz, i), t))
		}
		states[t] = b.op("Concat", blocks, intAttr("axis", 1))
	}
	for t, s := range states {
		states[t] = b.op("Unsqueeze", []string{s, b.int64s([]int64{1}, []int64{2})})
	}
	return b.op("Concat", states, intAttr("axis", 2))
}
