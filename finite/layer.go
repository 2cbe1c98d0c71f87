package finite

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Scaling says whether a Layer learns a scaling of its activation, and
// of what shape (see Machine.Scale).
type Scaling int

const (
	// NoScale: z = z0 + sigma(y).
	NoScale Scaling = iota
	// ScalePerChannel learns one value per channel.
	ScalePerChannel
	// ScalePerEntry learns one value per channel and position of the
	// signal, which ties the layer to signals of one shape.
	ScalePerEntry
)

func (s Scaling) String() string {
	switch s {
	case NoScale:
		return "none"
	case ScalePerChannel:
		return "channel"
	case ScalePerEntry:
		return "entry"
	}
	return fmt.Sprintf("Scaling(%d)", int(s))
}

// Layer is a dense, convolutional or recurrent machine of finite depth
// as a layer of a model: it implements ad.Layer. Its inputs are y0 and,
// optionally, z0, batches of N x C (dense) or N x C x L or N x C x H x W
// signals with C at most the machine's D = sum(Dims) channels (the
// missing channels are zero); its output is the stable state z, with D
// channels in the same layout.
//
// Its parameters are "weight", the entries of the machine's weight W that
// the filtration uses, and only those, in the row-major order of W (see
// Machine.NumParams), drawn Glorot-uniform as NewDense draws W; and with
// Scale, "scale", initially 1.
type Layer[T Float] struct {
	// Kind is Dense, Conv or Recur; the zero value is none of them, an
	// error.
	Kind Kind
	// Dims is the filtration: the sizes of the blocks of channels.
	Dims []int
	// Activation is sigma; the zero value is the identity.
	Activation ad.Activation
	// Pad is the padding of a convolutional machine, one entry per signal
	// dimension, or the delay span of a recurrent one (one entry).
	Pad []int
	// TimeBlock is a recurrent machine's number of time steps per block,
	// at least 1; it has no default.
	TimeBlock int
	// Scale says whether the layer learns a scaling of its activation;
	// the zero value, NoScale, learns none.
	Scale Scaling
}

// machine returns the layer's machine, with a zero weight.
func (l Layer[T]) machine() (*Machine[T], error) {
	if l.Scale < NoScale || l.Scale > ScalePerEntry {
		return nil, fmt.Errorf("finite: unknown scaling %v", l.Scale)
	}
	switch l.Kind {
	case Dense:
		if len(l.Pad) > 0 {
			return nil, fmt.Errorf("finite: dense machine with padding %v, want none", l.Pad)
		}
		return NewDense[T](l.Dims, l.Activation, nil)
	case Conv:
		return NewConv[T](l.Dims, l.Activation, l.Pad, nil)
	case Recur:
		if len(l.Pad) != 1 {
			return nil, fmt.Errorf("finite: recurrent machine with padding %v, want one delay span", l.Pad)
		}
		return NewRecur[T](l.Dims, l.Activation, l.Pad[0], l.TimeBlock, nil)
	}
	return nil, fmt.Errorf("finite: unknown machine kind %v", l.Kind)
}

// Init implements ad.Layer.
func (l Layer[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	m, err := l.machine()
	if err != nil {
		return nil, err
	}
	if len(in) < 1 || len(in) > 2 {
		return nil, fmt.Errorf("finite: %d inputs, want y0 and optionally z0", len(in))
	}
	for i, shape := range in {
		if len(shape) < 1 || !slices.Equal(shape[1:], in[0][1:]) || shape[0] > m.Size() {
			return nil, fmt.Errorf("%w: finite: %s machine with %d channels given input %d of shape %v (input 0 %v), want [channels (1 to %d), positions...]",
				ErrShape, m.kind, m.Size(), i, shape, in[0], m.Size())
		}
	}
	spatial := in[0][1:]
	if err := m.checkShape(spatial); err != nil {
		return nil, err
	}
	full := ad.NewTensor[T](m.WeightShape()...)
	initWeight(m, full.Data, s.Rand)
	w := s.NewParam("weight", m.NumParams())
	m.pack(w.Data, full.Data)
	switch l.Scale {
	case ScalePerChannel:
		fill(s.NewParam("scale", m.Size()).Data, 1)
	case ScalePerEntry:
		fill(s.NewParam("scale", m.Size(), positions(spatial)).Data, 1)
	}
	return [][]int{append([]int{m.Size()}, spatial...)}, nil
}

// Apply implements ad.Layer.
func (l Layer[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	m, err := l.machine()
	if err != nil {
		return nil, err
	}
	w := s.Graph.Apply(&unpack[T]{runs: m.used()}, m.WeightShape(), s.Param("weight"))
	var scale, z0 *ad.Node[T]
	if l.Scale != NoScale {
		scale = s.Param("scale")
	}
	if len(x) > 1 {
		z0 = x[1]
	}
	return []*ad.Node[T]{m.apply(s.Graph, w, scale, x[0], z0)}, nil
}

// Machine returns the machine of the layer called name whose parameters
// ps holds, with a copy of its weight and scaling: what package finite's
// Solver, Save and the ONNX export take.
func (l Layer[T]) Machine(ps *ad.Params[T], name string) (*Machine[T], error) {
	m, err := l.machine()
	if err != nil {
		return nil, err
	}
	w := ps.Value(name + ".weight")
	if w == nil || w.Len() != m.NumParams() {
		return nil, fmt.Errorf("finite: layer %s: no weight of %d entries in the parameters", name, m.NumParams())
	}
	m.unpack(m.W.Data, w.Data)
	if l.Scale != NoScale {
		sc := ps.Value(name + ".scale")
		if sc == nil {
			return nil, fmt.Errorf("finite: layer %s: no scale in the parameters", name)
		}
		m.Scale = &ad.Tensor[T]{Shape: slices.Clone(sc.Shape), Data: slices.Clone(sc.Data)}
	}
	return m, nil
}

func fill[T Float](x []T, v T) {
	for i := range x {
		x[i] = v
	}
}

func positions(shape []int) int {
	p := 1
	for _, n := range shape {
		p *= n
	}
	return p
}

// run is a range [lo, hi) of the flat weight that the filtration uses.
type run struct{ lo, hi int }

// used returns the ranges of W's entries that the filtration lets the
// machine use, in order: for every output channel of block b (and, for
// a recurrent machine, every delay), its inputs from the blocks before
// b, which are contiguous in W's row-major layout; a recurrent machine's
// delays of timeblock or more use every input.
func (m *Machine[T]) used() []run {
	d, k := m.Size(), m.Taps()
	var runs []run
	off := 0
	for _, n := range m.dims {
		for c := off; c < off+n; c++ {
			switch m.kind {
			case Recur:
				short := min(m.timeblock, m.pad[0]+1)
				for delay := range m.pad[0] + 1 {
					width := d
					if delay < short {
						width = off
					}
					if lo := (c*(m.pad[0]+1) + delay) * d; width > 0 {
						runs = append(runs, run{lo, lo + width})
					}
				}
			default:
				if off > 0 {
					runs = append(runs, run{c * d * k, c*d*k + off*k})
				}
			}
		}
		off += n
	}
	return runs
}

// pack copies the entries of the full weight w that the machine uses
// into dst; unpack copies them back into w, whose other entries it
// zeroes.
func (m *Machine[T]) pack(dst, w []T) {
	i := 0
	for _, r := range m.used() {
		i += copy(dst[i:], w[r.lo:r.hi])
	}
}

func (m *Machine[T]) unpack(w, src []T) {
	clear(w)
	i := 0
	for _, r := range m.used() {
		i += copy(w[r.lo:r.hi], src[i:])
	}
}

// unpack is the graph operation from a layer's packed weight to the
// machine's full one, zero where the filtration excludes; its backward
// pass gathers the full weight's gradient back.
type unpack[T Float] struct{ runs []run }

func (u *unpack[T]) Forward(out *ad.Node[T]) {
	w, src := out.Value.Data, out.Inputs()[0].Value.Data
	clear(w)
	i := 0
	for _, r := range u.runs {
		i += copy(w[r.lo:r.hi], src[i:])
	}
}

func (u *unpack[T]) Backward(out *ad.Node[T]) {
	in := out.Inputs()[0]
	if in.Grad == nil {
		return
	}
	dst, g := in.Grad.Data, out.Grad.Data
	i := 0
	for _, r := range u.runs {
		for _, v := range g[r.lo:r.hi] {
			dst[i] += v
			i++
		}
	}
}

// apply adds the machine to g as one operation, with weight w (full) and
// scaling scale (nil for none), and returns its stable state z for the
// inputs y0 and z0 (nil for zero). Batches hold their samples first:
// N x C matrices for a dense machine, N x C x L or N x C x H x W
// tensors of signals otherwise, with C at most D; z has the same shape
// with D channels. The operation's forward pass is the machine's forward
// solve; its backward pass is one solve over the reversed filtration
// followed by one weight-gradient product, and it gives gradients to y0,
// z0, the weight and the scaling. Internally the solve works on
// channels x (positions x samples), the layout of Solver; the operation
// converts on the way in and out. It panics, with an error wrapping
// ErrShape, if the shapes do not fit the machine.
func (m *Machine[T]) apply(g *ad.Graph[T], w, scale, y0, z0 *ad.Node[T]) *ad.Node[T] {
	shape := y0.Value.Shape
	want := "[samples, channels]"
	if m.kind != Dense {
		want = "[samples, channels, positions...]"
	}
	if len(shape) < 2 {
		panic(fmt.Errorf("%w: %s machine given y0 of shape %v, want %s", ad.ErrShape, m.kind, shape, want))
	}
	s, err := m.NewSolver(shape[2:]...)
	if err != nil {
		panic(fmt.Errorf("%w: %v (y0 of shape %v, want %s)", ad.ErrShape, err, shape, want))
	}
	for _, in := range []struct {
		name string
		x    *ad.Node[T]
	}{{"y0", y0}, {"z0", z0}} {
		if in.x == nil {
			continue
		}
		sh := in.x.Value.Shape
		if len(sh) != len(shape) || sh[0] != shape[0] || !slices.Equal(sh[2:], shape[2:]) || sh[0] < 1 || sh[1] < 1 || sh[1] > m.Size() {
			panic(fmt.Errorf("%w: %s machine with %d channels given %s of shape %v (y0 %v), want %s with 1 to %d channels", ad.ErrShape, m.kind, m.Size(), in.name, sh, shape, want, m.Size()))
		}
	}
	if w == nil || !slices.Equal(w.Value.Shape, m.WeightShape()) {
		var got []int
		if w != nil {
			got = w.Value.Shape
		}
		panic(fmt.Errorf("%w: %s machine with dims %v given a weight of shape %v, want %v", ad.ErrShape, m.kind, m.dims, got, m.WeightShape()))
	}
	if scale != nil {
		if err := s.CheckScale(scale.Value.Shape); err != nil {
			panic(err)
		}
	}
	n, c, pos := shape[0], shape[1], s.Positions()
	l := &layer[T]{s: s, hasZ0: z0 != nil, hasScale: scale != nil, samples: n, positions: pos,
		y0: ad.NewTensor[T](c, pos*n), grad: ad.NewTensor[T](m.Size(), pos*n)}
	if z0 != nil {
		l.z0 = ad.NewTensor[T](z0.Value.Shape[1], pos*n)
	}
	inputs := []*ad.Node[T]{y0, w}
	if z0 != nil {
		inputs = append(inputs, z0)
	}
	if scale != nil {
		inputs = append(inputs, scale)
	}
	out := append([]int{n, m.Size()}, shape[2:]...)
	return g.Apply(l, out, inputs...)
}

// layer is the graph operation of a machine. y0, z0 and grad hold the
// inputs and the output's gradient in the solver's layout.
type layer[T Float] struct {
	s                  *Solver[T]
	hasZ0, hasScale    bool
	samples, positions int
	y0, z0, grad       *ad.Tensor[T]
}

func (l *layer[T]) nodes(out *ad.Node[T]) (y0, w, z0, scale *ad.Node[T]) {
	in := out.Inputs()
	y0, w, i := in[0], in[1], 2
	if l.hasZ0 {
		z0, i = in[i], i+1
	}
	if l.hasScale {
		scale = in[i]
	}
	return y0, w, z0, scale
}

// toSolver copies src, samples x channels x positions, to dst, channels
// x positions x samples; fromSolver adds the first channels of src, in
// the solver's layout, to dst in the batch layout.
func toSolver[T Float](dst, src []T, samples, positions int) {
	channels := len(src) / (samples * positions)
	for n := range samples {
		for c := range channels {
			row := src[(n*channels+c)*positions : (n*channels+c+1)*positions]
			for p, v := range row {
				dst[(c*positions+p)*samples+n] = v
			}
		}
	}
}

func fromSolver[T Float](dst, src []T, samples, positions int) {
	channels := len(dst) / (samples * positions)
	for n := range samples {
		for c := range channels {
			row := dst[(n*channels+c)*positions : (n*channels+c+1)*positions]
			for p := range row {
				row[p] += src[(c*positions+p)*samples+n]
			}
		}
	}
}

func (l *layer[T]) Forward(out *ad.Node[T]) {
	y0, w, z0, scale := l.nodes(out)
	toSolver(l.y0.Data, y0.Value.Data, l.samples, l.positions)
	var z0v *ad.Tensor[T]
	if z0 != nil {
		toSolver(l.z0.Data, z0.Value.Data, l.samples, l.positions)
		z0v = l.z0
	}
	var sc []T
	if scale != nil {
		sc = scale.Value.Data
	}
	l.s.forward(w.Value.Data, sc, l.y0, z0v)
	clear(out.Value.Data)
	fromSolver(out.Value.Data, l.s.z, l.samples, l.positions)
}

func (l *layer[T]) Backward(out *ad.Node[T]) {
	y0, w, z0, scale := l.nodes(out)
	var gw, gs []T
	if w.Grad != nil {
		gw = w.Grad.Data
	}
	if scale != nil && scale.Grad != nil {
		gs = scale.Grad.Data
	}
	toSolver(l.grad.Data, out.Grad.Data, l.samples, l.positions)
	l.s.backward(nil, l.grad, gw, gs)
	if y0.Grad != nil {
		fromSolver(y0.Grad.Data, l.s.v, l.samples, l.positions)
	}
	if z0 != nil && z0.Grad != nil {
		fromSolver(z0.Grad.Data, l.s.u, l.samples, l.positions)
	}
}
