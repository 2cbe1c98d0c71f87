package onnx

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// The names of the input and output of an exported finite machine.
const (
	InputY0 = "y0"
	OutputZ = "z"
)

// MaxModelBytes is the size of the largest model a protocol buffer, and
// so an ONNX file, can hold: 2 GiB.
const MaxModelBytes = 2 << 30

// recurBytes estimates the size of the model of a recurrent machine of
// the given blocks and delays unrolled over steps time steps, with
// weights of elem bytes: each step holds about half the weight's D^2
// (pad+1) entries as constants and some 400 bytes of nodes per block.
// Measured in float64: 1.0 KB a step for blocks 1,3 and pad 2, and 44
// KB for blocks 4,16,16,4 and pad 8, where this says 1.0 and 59.
func recurBytes(dims []int, pad, steps, elem int) float64 {
	d := 0
	for _, n := range dims {
		d += n
	}
	perStep := float64(d)*float64(d)*float64(pad+1)*float64(elem)/2 + 400*float64(len(dims))
	return float64(steps) * perStep
}

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
	// Sized before the solver, whose plan of a recurrent machine has a
	// step per time block.
	if m.Kind() == finite.Recur && len(shape) == 1 {
		if b := recurBytes(m.Dims(), m.Pad()[0], shape[0], reflect.TypeFor[T]().Bits()/8); b > MaxModelBytes {
			return nil, fmt.Errorf("onnx: finite machine: a recurrent machine unrolled over %d time steps makes a model of about %s, more than the %s an ONNX file holds; export fewer steps",
				shape[0], budget.Bytes(b), budget.Bytes(MaxModelBytes))
		}
	}
	s, err := m.NewSolver(shape...)
	if err != nil {
		return nil, fmt.Errorf("onnx: finite machine: %w", err)
	}
	if m.Scale != nil {
		if err := s.CheckScale(m.Scale.Shape); err != nil {
			return nil, fmt.Errorf("onnx: finite machine: %w", err)
		}
	}

	f := &finitePass[T]{b: newBuilder("finite machine"), m: m, elem: elemType[T](), shape: shape,
		off: []int{0}, w: float64s(m.W.Data)}
	for _, d := range m.Dims() {
		f.off = append(f.off, f.off[len(f.off)-1]+d)
	}
	switch name := m.Activation().Name; name {
	case "tanh", "sigmoid", "relu", "identity":
	default:
		return nil, fmt.Errorf("onnx: finite machine: activation %q: only tanh, sigmoid, relu and identity can be exported", name)
	}
	b := f.b
	dims := m.Dims()
	d := f.off[len(dims)]
	inShape, outShape := append([]int{dims[0]}, shape...), append([]int{d}, shape...)
	b.g.Input = append(b.g.Input, valueInfo(InputY0, "the input block, of shape "+batchShape(inShape), f.elem, int64s(inShape)...))
	var z string
	if m.Kind() == finite.Recur {
		z = f.recur()
	} else {
		var blocks []string
		for i := range dims {
			y := InputY0
			if i > 0 {
				y = f.product(i, blocks)
			}
			blocks = append(blocks, f.scale(i, f.activate(y), -1))
		}
		z = b.op("Concat", blocks, intAttr("axis", 1))
	}
	b.rename(z, OutputZ)
	b.g.Output = append(b.g.Output, valueInfo(OutputZ, "the stable state of every block, of shape "+batchShape(outShape), f.elem, int64s(outShape)...))
	meta := [][2]string{{"kind", "finite-machine"}, {"machine", m.Kind().String()}, {"dims", strings.Trim(fmt.Sprint(dims), "[]")},
		{"activation", m.Activation().Name}}
	return b.model("a finite machine of github.com/parametric-machines/machines, unrolled block by block", meta...), nil
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
func (f *finitePass[T]) activate(y string) string {
	switch f.m.Activation().Name {
	case "tanh":
		return f.b.op("Tanh", []string{y})
	case "sigmoid":
		return f.b.op("Sigmoid", []string{y})
	case "relu":
		return f.b.op("Relu", []string{y})
	}
	return y
}

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

// recur returns the state of a recurrent machine, [N, D, L], computed
// time step by time step and, within each, block by block: block i at
// time t reads, at delay 0, the blocks before it at time t; at delays
// below the time block, those blocks at earlier times; at longer
// delays, every channel. That order respects every dependency the mask
// allows, so the state is the machine's stable state.
func (f *finitePass[T]) recur() string {
	b := f.b
	m := f.m
	d, pad, tb, length := f.off[len(f.off)-1], m.Pad()[0], m.TimeBlock(), f.shape[0]
	dims := m.Dims()
	// w(r, k, c) is W[r, k, c], output channel r, delay k, input channel c.
	w := func(r, k, c int) float64 { return f.w[(r*(pad+1)+k)*d+c] }
	states := make([]string, length) // z at each time, [N, D]
	for t := range length {
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
			// Block 0 starts from the input; a later block has at least
			// the blocks before it at delay 0 to read.
			var y0, p string
			if i == 0 {
				y0 = b.op("Gather", []string{InputY0, b.int64s(nil, []int64{int64(t)})}, intAttr("axis", 2))
			}
			if len(ins) > 0 {
				in := ins[0]
				if len(ins) > 1 {
					in = b.op("Concat", ins, intAttr("axis", 1))
				}
				wt := slices.Concat(rows...)
				p = b.op("MatMul", []string{in, b.reals(f.elem, []int64{int64(len(rows)), int64(r1 - r0)}, wt)})
			}
			var z string
			switch {
			case y0 == "":
				z = p
			case p == "":
				z = y0
			default:
				z = b.op("Add", []string{y0, p})
			}
			blocks = append(blocks, f.scale(i, f.activate(z), t))
		}
		states[t] = b.op("Concat", blocks, intAttr("axis", 1))
	}
	for t, s := range states {
		states[t] = b.op("Unsqueeze", []string{s, b.int64s([]int64{1}, []int64{2})})
	}
	return b.op("Concat", states, intAttr("axis", 2))
}
