package kernel

import (
	"cmp"
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// Combine says how the Gaussian kernels of the blocks below a level are
// combined into that level's kernel.
type Combine int

const (
	// Additive sums one Gaussian per block:
	// K_i = sum_{l<i} exp(-|h_l - h'_l|^2 / (2 sigma^2)).
	Additive Combine = iota
	// Multiplicative multiplies them, which is one Gaussian on all the
	// blocks below the level: K_i = exp(-|h_<i - h'_<i|^2 / (2 sigma^2)).
	Multiplicative
)

func (c Combine) String() string {
	switch c {
	case Additive:
		return "additive"
	case Multiplicative:
		return "multiplicative"
	}
	return fmt.Sprintf("Combine(%d)", int(c))
}

// ParseCombine parses the names that String returns.
func ParseCombine(s string) (Combine, error) {
	for _, c := range []Combine{Additive, Multiplicative} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("kernel: unknown kernel %q (want additive or multiplicative)", s)
}

// DefaultBandwidth is the Gaussian's sigma where Architecture.Bandwidth
// is zero.
const DefaultBandwidth = 1

// Architecture is the shape of a kernel machine: what the training
// settings and a fitted machine share.
type Architecture struct {
	// Dims is the filtration: the sizes of the blocks of the machine
	// space. The first block holds only augmented input, the last is the
	// output. At least two entries, each at least 1.
	Dims []int
	// Kernel combines the per-block Gaussians; the zero value is Additive.
	Kernel Combine
	// Bandwidth is the Gaussian's sigma; 0 means DefaultBandwidth.
	Bandwidth float64
	// Laplacian replaces the Gaussian of a machine of one level (two
	// blocks) by the Laplacian exp(-|h - h'|_1 / sigma).
	Laplacian bool
}

// Check returns an error saying what is wrong with a: fewer than two
// blocks, an empty block, a negative bandwidth or an unknown kernel.
func (a Architecture) Check() error {
	if len(a.Dims) < 2 {
		return fmt.Errorf("kernel: dims %v: need at least two blocks (input and output)", a.Dims)
	}
	for i, d := range a.Dims {
		if d < 1 {
			return fmt.Errorf("kernel: dims %v: block %d has size %d, want at least 1", a.Dims, i, d)
		}
	}
	if !(a.Bandwidth >= 0) || math.IsInf(a.Bandwidth, 0) {
		return fmt.Errorf("kernel: bandwidth %v, want a finite value > 0 (or 0 for the default)", a.Bandwidth)
	}
	if a.Kernel != Additive && a.Kernel != Multiplicative {
		return fmt.Errorf("kernel: unknown kernel %v", a.Kernel)
	}
	if a.Laplacian && len(a.Dims) > 2 {
		return fmt.Errorf("kernel: dims %v: a Laplacian kernel needs a machine of one level (two blocks)", a.Dims)
	}
	return nil
}

// Sigma returns the bandwidth of the Gaussians: Bandwidth, or
// DefaultBandwidth when it is 0.
func (a Architecture) Sigma() float64 { return cmp.Or(a.Bandwidth, DefaultBandwidth) }

// Size returns the dimension of the machine space, sum(Dims).
func (a Architecture) Size() int {
	s := 0
	for _, d := range a.Dims {
		s += d
	}
	return s
}

// Outputs returns the size of the last block.
func (a Architecture) Outputs() int { return a.Dims[len(a.Dims)-1] }

// NumParams returns the number of trainable parameters for the given
// input dimension and number of anchors: the augmenter sum(Dims) x inputs
// and the coefficients (sum(Dims) - Dims[0]) x anchors.
func (a Architecture) NumParams(inputs, anchors int) int {
	s := a.Size()
	return s*inputs + (s-a.Dims[0])*anchors
}

// network is the graph of a kernel machine's forward pass on a set of
// points, the first m of which (or the listed ones) are the anchors.
type network[T ad.Float] struct {
	out  *ad.Node[T] // output block, Outputs() x points
	norm *ad.Node[T] // sum over levels of the RKHS norm of the level's map
	// states holds the states of the blocks that the kernels read, all
	// but the output, each Dims[i] x points.
	states []*ad.Node[T]
}

// build records the stable state of the machine with augmenter a
// (size x inputs) and coefficients c ((size - d0) x anchors) on the points
// that are the columns of x. anchors lists the columns of x that are the
// anchor points, in the order of c's columns; nil means every column.
// With inputBlock the first block is x itself, and a holds the rows of
// the other blocks alone ((size - d0) x inputs).
func build[T ad.Float](arch Architecture, g *ad.Graph[T], a, c, x *ad.Node[T], anchors []int, inputBlock bool) network[T] {
	return buildFrom(arch, g, a, c, x, anchors, nil, inputBlock)
}

// buildFrom is build, but for points other than the anchors when fixed
// is not nil: fixed then holds the states of the anchors, one node per
// block that the kernels read (the states of a build on the anchors), and
// the network has no norm.
func buildFrom[T ad.Float](arch Architecture, g *ad.Graph[T], a, c, x *ad.Node[T], anchors []int, fixed []*ad.Node[T], inputBlock bool) network[T] {
	sigma := T(arch.Sigma())
	z := g.MatMul(a, x, false, false)
	lo := arch.Dims[0]
	state := x
	if inputBlock {
		lo = 0 // z starts at the second block
	} else {
		state = g.RowBlock(z, 0, lo)
	}
	var k, norm *ad.Node[T]
	var states []*ad.Node[T]
	crow := 0
	for i, d := range arch.Dims[1:] {
		states = append(states, state)
		anchorState := state
		switch {
		case fixed != nil:
			anchorState = fixed[i]
		case anchors != nil:
			anchorState = g.SelectCols(state, anchors)
		}
		switch {
		case arch.Laplacian:
			k = g.Laplacian(anchorState, state, sigma)
		case k == nil:
			k = g.Gaussian(anchorState, state, sigma)
		case arch.Kernel == Additive:
			k = g.AddGaussian(k, anchorState, state, sigma)
		default:
			k = g.MulGaussian(k, anchorState, state, sigma)
		}
		ci := g.RowBlock(c, crow, crow+d)
		val := g.MatMul(ci, k, false, false)
		state = g.Add(g.RowBlock(z, lo, lo+d), val)
		lo += d
		crow += d
		if fixed != nil {
			continue
		}
		// <c_i, K_i c_i> is the squared RKHS norm of this level's map:
		// its values at the anchors paired with its coefficients.
		atAnchors := val
		if anchors != nil {
			atAnchors = g.SelectCols(val, anchors)
		}
		if n := g.Dot(atAnchors, ci); norm == nil {
			norm = n
		} else {
			norm = g.Add(norm, n)
		}
	}
	return network[T]{out: state, norm: norm, states: states}
}

// Machine is a fitted finite-depth kernel machine. It maps its inputs to
// its outputs as they are: a learner that standardises its data keeps
// those maps beside it (as tabular.Machine does).
type Machine struct {
	Architecture
	// A is the augmenter, sum(Dims) x inputs.
	A *mat.Dense
	// C holds the coefficients of levels 1..n, (sum(Dims) - Dims[0]) x m:
	// one column per anchor.
	C *mat.Dense
	// Anchors holds the anchor points' inputs, one per row (m x inputs).
	Anchors *mat.Dense
	// InputBlock makes the first block the input itself: Dims[0] is the
	// number of inputs, and A holds only the rows of the other blocks,
	// (sum(Dims) - Dims[0]) x inputs, not the identity above them. The
	// shallow machine is stored so: on a table of 10,000 columns that
	// identity alone would hold 10^8 numbers.
	InputBlock bool
}

// Inputs returns the input dimension.
func (m *Machine) Inputs() int { _, c := m.A.Dims(); return c }

// NumParams returns the number of trained parameters: the entries of A
// and C.
func (m *Machine) NumParams() int {
	ra, ca := m.A.Dims()
	rc, cc := m.C.Dims()
	return ra*ca + rc*cc
}

// Predict writes the machine's output for each row of x to the rows of
// dst (len(rows) x Outputs()): regression values, or class scores (logits)
// for a classifier. dst may be nil, in which case a new matrix is
// allocated and returned.
func (m *Machine) Predict(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	return m.NewPredictor().Predict(dst, x)
}
