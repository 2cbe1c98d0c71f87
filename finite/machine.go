package finite

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Float is the element type of a machine: float32 or float64.
type Float = ad.Float

// Kind is the architecture of a machine: what its weight is and how the
// filtration runs over the state.
type Kind int

const (
	// Dense machines have a plain matrix as weight.
	Dense Kind = iota + 1
	// Conv machines convolve over space (1-D or 2-D signals).
	Conv
	// Recur machines convolve causally over time.
	Recur
)

func (k Kind) String() string {
	switch k {
	case Dense:
		return "dense"
	case Conv:
		return "conv"
	case Recur:
		return "recur"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ErrShape is the error of tensors whose shape does not fit the machine:
// the engine's, so that errors.Is matches every panic of the library
// about shapes.
var ErrShape = ad.ErrShape

// Machine is a machine of finite depth: a layer whose stable state solves
//
//	y = y0 + W z,  z = z0 + s ⊙ sigma(y)
//
// where W is strictly block lower triangular on the filtration given by
// Dims, sigma is pointwise and s is 1 unless Scale is set. See the
// package documentation for the layout of states and weights.
type Machine[T Float] struct {
	kind      Kind
	dims      []int
	pad       []int
	timeblock int
	sigma     ad.Activation
	f         func(x float64) float64    // sigma
	df        func(x, y float64) float64 // its derivative, from x and y = sigma(x)

	// W is the weight. Its shape is [D, D] for a dense machine, [D, D, K]
	// or [D, D, K, K] (output channel, input channel, kernel position)
	// for a 1-D or 2-D convolutional machine with K = 2*pad+1, and
	// [D, pad+1, D] (output channel, delay, input channel) for a
	// recurrent machine, with D = sum(Dims). Entries that the filtration
	// excludes are never read and get zero gradient.
	W *ad.Tensor[T]
	// Scale, if not nil, is a learned scaling of the activation: z = z0
	// + Scale ⊙ sigma(y), with Scale of shape [D], one value per channel,
	// or [D, P], one value per entry of signals of P positions (row-major
	// over their shape; P = 1 for a dense machine), shared by the samples.
	// With Identity as activation the machine's nonlinearity is then a
	// learned scaling alone.
	Scale *ad.Tensor[T]
}

// NewDense returns a dense machine on the filtration dims (the sizes of
// its blocks, input block first) with activation sigma and Glorot-uniform
// weights drawn from rnd (zero weights if rnd is nil).
func NewDense[T Float](dims []int, sigma ad.Activation, rnd *rand.Rand) (*Machine[T], error) {
	return newMachine[T](Dense, dims, sigma, nil, 0, rnd)
}

// NewConv returns a convolutional machine for signals of len(pad)
// dimensions (1 or 2) with kernels of size 2*pad[d]+1 along dimension d,
// zero-padded so that the state has the size of the signal.
func NewConv[T Float](dims []int, sigma ad.Activation, pad []int, rnd *rand.Rand) (*Machine[T], error) {
	if len(pad) != 1 && len(pad) != 2 {
		return nil, fmt.Errorf("finite: conv machine with %d padding entries, want 1 (1-D signals) or 2 (2-D)", len(pad))
	}
	return newMachine[T](Conv, dims, sigma, pad, 0, rnd)
}

// NewRecur returns a recurrent machine: a causal convolution over time
// whose kernel spans the pad+1 time steps t-pad..t, on the filtration of
// blocks of timeblock time steps by blocks of channels.
func NewRecur[T Float](dims []int, sigma ad.Activation, pad, timeblock int, rnd *rand.Rand) (*Machine[T], error) {
	if timeblock < 1 {
		return nil, fmt.Errorf("finite: recurrent machine with timeblock %d, want >= 1", timeblock)
	}
	return newMachine[T](Recur, dims, sigma, []int{pad}, timeblock, rnd)
}

func newMachine[T Float](kind Kind, dims []int, sigma ad.Activation, pad []int, timeblock int, rnd *rand.Rand) (*Machine[T], error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("finite: %s machine with no blocks in dims", kind)
	}
	for i, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("finite: %s machine with dims %v: block %d has size %d, want >= 1", kind, dims, i, d)
		}
	}
	for i, p := range pad {
		if p < 1 {
			return nil, fmt.Errorf("finite: %s machine with padding %v: entry %d is %d, want >= 1", kind, pad, i, p)
		}
	}
	if err := sigma.Check(); err != nil {
		return nil, fmt.Errorf("finite: %s machine: %v", kind, err)
	}
	m := &Machine[T]{kind: kind, dims: slices.Clone(dims), pad: slices.Clone(pad), timeblock: timeblock, sigma: sigma}
	m.f, m.df = sigma.Func()
	m.W = ad.NewTensor[T](m.WeightShape()...)
	if rnd != nil {
		initWeight(m, m.W.Data, rnd)
	}
	return m, nil
}

// initWeight draws a full weight of m Glorot-uniform from rnd.
func initWeight[T Float](m *Machine[T], w []T, rnd *rand.Rand) {
	d, k := m.Size(), m.Taps()
	ad.GlorotUniform(w, k*d, k*d, rnd)
}

// Kind returns the machine's architecture.
func (m *Machine[T]) Kind() Kind { return m.kind }

// Dims returns the sizes of the blocks of the filtration.
func (m *Machine[T]) Dims() []int { return slices.Clone(m.dims) }

// Pad returns the padding of a convolutional machine (one entry per
// signal dimension) or the delay span of a recurrent one (one entry).
func (m *Machine[T]) Pad() []int { return slices.Clone(m.pad) }

// TimeBlock returns the number of time steps per block of a recurrent
// machine's filtration, 0 for other kinds.
func (m *Machine[T]) TimeBlock() int { return m.timeblock }

// Activation returns the machine's activation.
func (m *Machine[T]) Activation() ad.Activation { return m.sigma }

// Size returns D = sum(Dims), the number of channels of the state.
func (m *Machine[T]) Size() int {
	d := 0
	for _, n := range m.dims {
		d += n
	}
	return d
}

// Taps returns the number of kernel positions: 1 for a dense machine.
func (m *Machine[T]) Taps() int {
	switch m.kind {
	case Conv:
		k := 1
		for _, p := range m.pad {
			k *= 2*p + 1
		}
		return k
	case Recur:
		return m.pad[0] + 1
	}
	return 1
}

// WeightShape returns the shape the weight W must have.
func (m *Machine[T]) WeightShape() []int {
	d := m.Size()
	switch m.kind {
	case Conv:
		s := []int{d, d}
		for _, p := range m.pad {
			s = append(s, 2*p+1)
		}
		return s
	case Recur:
		return []int{d, m.pad[0] + 1, d}
	}
	return []int{d, d}
}

// SetWeight makes w the machine's weight after checking its shape.
func (m *Machine[T]) SetWeight(w *ad.Tensor[T]) error {
	if want := m.WeightShape(); !slices.Equal(w.Shape, want) || len(w.Data) != m.Size()*m.Size()*m.Taps() {
		return fmt.Errorf("%w: %s machine with dims %v: weight of shape %v, want %v", ErrShape, m.kind, m.dims, w.Shape, want)
	}
	m.W = w
	return nil
}

// LearnScale gives the machine a learned scaling, initially 1: one value
// per channel, or with the spatial shape of its signals (see NewSolver)
// one value per entry, which then ties the machine to signals of that
// shape. It replaces any scaling the machine had, and returns an error if
// the shape does not fit the machine.
func (m *Machine[T]) LearnScale(shape ...int) error {
	scale := ad.NewTensor[T](m.Size())
	if len(shape) > 0 {
		if err := m.checkShape(shape); err != nil {
			return err
		}
		pos := 1
		for _, n := range shape {
			pos *= n
		}
		scale = ad.NewTensor[T](m.Size(), pos)
	}
	for i := range scale.Data {
		scale.Data[i] = 1
	}
	m.Scale = scale
	return nil
}

// NumParams returns the number of parameters the filtration lets the
// machine use: the weight entries on the strictly lower blocks (for a
// recurrent machine, with the delays that the mask keeps), plus the
// scaling if any. A Layer registers exactly these.
func (m *Machine[T]) NumParams() int {
	d := m.Size()
	lower := 0
	off := 0
	for _, n := range m.dims {
		lower += n * off
		off += n
	}
	n := lower * m.Taps()
	if m.kind == Recur {
		short := min(m.timeblock, m.pad[0]+1) // delays masked on and above the diagonal
		n = lower*short + d*d*(m.pad[0]+1-short)
	}
	if m.Scale != nil {
		n += len(m.Scale.Data)
	}
	return n
}

// checkShape checks the spatial shape of the signals of a solve.
func (m *Machine[T]) checkShape(shape []int) error {
	switch m.kind {
	case Dense:
		if len(shape) != 0 {
			return fmt.Errorf("%w: dense machine given signal shape %v, want none", ErrShape, shape)
		}
	case Conv:
		if len(shape) != len(m.pad) {
			return fmt.Errorf("%w: %d-D conv machine given signals of shape %v", ErrShape, len(m.pad), shape)
		}
		for i, n := range shape {
			if k := 2*m.pad[i] + 1; n < k {
				return fmt.Errorf("%w: conv machine with kernel size %d along dimension %d given signals of shape %v: shorter than the kernel", ErrShape, k, i, shape)
			}
		}
	case Recur:
		if len(shape) != 1 {
			return fmt.Errorf("%w: recurrent machine given signals of shape %v, want one length", ErrShape, shape)
		}
		if k := m.pad[0] + 1; shape[0] < k {
			return fmt.Errorf("%w: recurrent machine with kernel length %d given signals of length %d: shorter than the kernel", ErrShape, k, shape[0])
		}
	}
	return nil
}
