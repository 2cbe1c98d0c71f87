package finite

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/blas"
)

// seg is a range [lo, hi) of rows of the unfolded state: the columns of
// the weight matrix that one product reads.
type seg struct{ lo, hi int }

// step is one step of a solve: it computes the channels [r0, r1) at the
// positions [t0, t1) from the rows segs of the unfolded state.
type step struct {
	r0, r1, t0, t1 int
	segs           []seg
}

// plan is the schedule of a machine's solves on signals of one shape.
type plan struct {
	kind      Kind
	d, k      int   // channels, kernel positions
	shape     []int // spatial shape of the signals
	positions int   // product of shape
	// taps holds, for every kernel position, the shift of the position
	// it reads along every signal dimension.
	taps [][]int
	// tapMajor orders the unfolded state by kernel position first.
	tapMajor bool
	// fwd and bwd are the steps of the forward and backward solves; grad
	// the products of the weight gradient, one per block row, over all
	// positions.
	fwd, bwd, grad []step
}

func (p *plan) row(c, k int) int {
	if p.tapMajor {
		return k*p.d + c
	}
	return c*p.k + k
}

// Solver runs a machine's forward and backward passes on plain tensors
// and keeps its buffers between calls. The layer that Apply adds to a
// graph uses one; benchmarks and the depth experiment use one directly.
//
// States are D x N matrices: channels in rows, and in columns the
// positions of the signal (row-major over its shape) and, fastest, the
// samples: column p*B + b holds position p of sample b.
type Solver[T Float] struct {
	m *Machine[T]
	p plan

	// OnStep, if not nil, is called after every step of the forward
	// solve with the step's index and the state as it then is.
	OnStep func(step int, y, z *ad.Tensor[T])

	b, n      int // samples, columns
	y, z, a   []T // state, output, activation sigma(y)
	zc        []T // unfolded z; z itself for dense machines
	u, v, vc  []T // cotangents of z and y, unfolded v
	wf        []T // flipped weight
	yt, zt    *ad.Tensor[T]
	ut, vt    *ad.Tensor[T]
	lastW     []T // the weight and scaling of the last Forward
	lastScale []T
	forwarded bool
}

// NewSolver returns a solver for signals of the given spatial shape: none
// for a dense machine, [L] or [H, W] for a convolutional one, [L] for a
// recurrent one. The solver reads the machine's W and Scale at every
// Forward.
func (m *Machine[T]) NewSolver(shape ...int) (*Solver[T], error) {
	if err := m.checkShape(shape); err != nil {
		return nil, err
	}
	s := &Solver[T]{m: m}
	switch m.kind {
	case Dense:
		s.p = densePlan(m.dims)
	case Conv:
		s.p = convPlan(m.dims, m.pad, append([]int(nil), shape...))
	case Recur:
		s.p = recurPlan(m.dims, m.pad[0], m.timeblock, shape[0])
	}
	return s, nil
}

// Steps returns the number of steps of a forward solve: len(Dims), times
// the number of time blocks for a recurrent machine.
func (s *Solver[T]) Steps() int { return len(s.p.fwd) }

// Positions returns the number of positions of one signal.
func (s *Solver[T]) Positions() int { return s.p.positions }

// CheckInput reports whether a matrix of the given shape can be the
// input y0 or z0 of a solve: at most D rows, and columns a whole number
// of signals.
func (s *Solver[T]) CheckInput(shape []int) error {
	if len(shape) != 2 {
		return fmt.Errorf("%w: %s machine input of shape %v, want a matrix", ErrShape, s.m.kind, shape)
	}
	if shape[0] > s.p.d || shape[0] < 1 {
		return fmt.Errorf("%w: %s machine with %d channels given an input of %d channels", ErrShape, s.m.kind, s.p.d, shape[0])
	}
	if shape[1] < 1 || shape[1]%s.p.positions != 0 {
		return fmt.Errorf("%w: %s machine on signals of %d positions given an input of %d columns, not a whole number of signals", ErrShape, s.m.kind, s.p.positions, shape[1])
	}
	return nil
}

func (s *Solver[T]) resize(n int) {
	if n == s.n {
		return
	}
	d, k := s.p.d, s.p.k
	s.n, s.b = n, n/s.p.positions
	s.y, s.z, s.a = make([]T, d*n), make([]T, d*n), make([]T, d*n)
	s.u, s.v = make([]T, d*n), make([]T, d*n)
	if s.p.kind == Dense {
		s.zc, s.vc = s.z, s.v
	} else {
		s.zc, s.vc = make([]T, d*k*n), make([]T, d*k*n)
	}
	s.yt, s.zt = ad.View(s.y, d, n), ad.View(s.z, d, n)
	s.ut, s.vt = ad.View(s.u, d, n), ad.View(s.v, d, n)
}

// Forward solves the machine for the inputs y0 and z0 (nil for zero),
// matrices of at most D rows that are extended with zero rows, and
// returns y and z, D x N matrices that the solver owns until the next
// Forward. It panics if an input or the machine's scaling does not fit
// (see CheckInput and CheckScale).
func (s *Solver[T]) Forward(y0, z0 *ad.Tensor[T]) (y, z *ad.Tensor[T]) {
	var sc []T
	if s.m.Scale != nil {
		if err := s.CheckScale(s.m.Scale.Shape); err != nil {
			panic(err)
		}
		sc = s.m.Scale.Data
	}
	s.forward(s.m.W.Data, sc, y0, z0)
	return s.yt, s.zt
}

func (s *Solver[T]) mustFit(name string, t *ad.Tensor[T], n int) {
	if err := s.CheckInput(t.Shape); err != nil {
		panic(fmt.Errorf("%w (%s)", err, name))
	}
	if n >= 0 && t.Shape[1] != n {
		panic(fmt.Errorf("%w: %s has %d columns, y0 has %d", ad.ErrShape, name, t.Shape[1], n))
	}
}

func (s *Solver[T]) forward(w, scale []T, y0, z0 *ad.Tensor[T]) {
	s.mustFit("y0", y0, -1)
	n := y0.Shape[1]
	if z0 != nil {
		s.mustFit("z0", z0, n)
	}
	s.resize(n)
	copy(s.y, y0.Data)
	clear(s.y[len(y0.Data):])
	if z0 != nil {
		copy(s.z, z0.Data)
		clear(s.z[len(z0.Data):])
	} else {
		clear(s.z)
	}
	s.lastW, s.lastScale, s.forwarded = w, scale, true
	p := &s.p
	dk := p.d * p.k
	f := s.m.f
	for i, st := range p.fwd {
		q0, q1 := st.t0*s.b, st.t1*s.b
		out := part(s.y, n, st.r0, st.r1, q0, q1)
		for _, sg := range st.segs {
			gemm(blas.NoTrans, blas.NoTrans, part(w, dk, st.r0, st.r1, sg.lo, sg.hi), part(s.zc, n, sg.lo, sg.hi, q0, q1), out)
		}
		for r := st.r0; r < st.r1; r++ {
			sr, step := s.scaleRow(scale, r)
			for t := st.t0; t < st.t1; t++ {
				c := T(1)
				if sr != nil {
					c = sr[t*step]
				}
				lo, hi := r*n+t*s.b, r*n+(t+1)*s.b
				ys, as, zs := s.y[lo:hi], s.a[lo:hi], s.z[lo:hi]
				for q, x := range ys {
					v := T(f(float64(x)))
					as[q] = v
					zs[q] += c * v
				}
			}
		}
		if p.kind != Dense {
			s.unfold(s.zc, s.z, st, 1)
		}
		if s.OnStep != nil {
			s.OnStep(i, s.yt, s.zt)
		}
	}
}

// Backward runs the backward pass of the last Forward: given the
// cotangents dy and dz of its y and z (D x N, nil for zero), it returns
// the cotangents of y0 and z0 as D x N matrices (their first rows belong
// to the inputs; the solver owns them until the next call) and adds the
// weight's gradient to dW and the scaling's to dScale when they are not
// nil.
func (s *Solver[T]) Backward(dy, dz, dW, dScale *ad.Tensor[T]) (dy0, dz0 *ad.Tensor[T]) {
	if !s.forwarded {
		panic(fmt.Errorf("%w: finite: Backward before Forward", ad.ErrState))
	}
	var gw, gs []T
	if dW != nil {
		if len(dW.Data) != len(s.lastW) {
			panic(fmt.Errorf("%w: weight gradient of shape %v, want %v", ad.ErrShape, dW.Shape, s.m.WeightShape()))
		}
		gw = dW.Data
	}
	if dScale != nil {
		if len(dScale.Data) != len(s.lastScale) {
			panic(fmt.Errorf("%w: scaling gradient of shape %v for a scaling of %d values", ad.ErrShape, dScale.Shape, len(s.lastScale)))
		}
		gs = dScale.Data
	}
	for _, t := range []*ad.Tensor[T]{dy, dz} {
		if t != nil && (len(t.Shape) != 2 || t.Shape[0] != s.p.d || t.Shape[1] != s.n) {
			panic(fmt.Errorf("%w: cotangent of shape %v, want [%d %d]", ad.ErrShape, t.Shape, s.p.d, s.n))
		}
	}
	s.backward(dy, dz, gw, gs)
	return s.vt, s.ut
}

// backward solves u = dz + W' v, v = dy + s ⊙ sigma'(y) ⊙ u over the
// reversed filtration, W' being the transposed (for convolutions,
// flipped) weight, then adds dW = v z' (on the blocks the mask keeps)
// and dScale = sum of sigma(y) ⊙ u.
func (s *Solver[T]) backward(dy, dz *ad.Tensor[T], gw, gs []T) {
	p := &s.p
	n, d, dk := s.n, p.d, p.d*p.k
	w, scale := s.lastW, s.lastScale
	if dz != nil {
		copy(s.u, dz.Data)
	} else {
		clear(s.u)
	}
	if dy != nil {
		copy(s.v, dy.Data)
	} else {
		clear(s.v)
	}
	if !p.tapMajor {
		s.flip(w)
	}
	df := s.m.df
	for _, st := range p.bwd {
		q0, q1 := st.t0*s.b, st.t1*s.b
		out := part(s.u, n, st.r0, st.r1, q0, q1)
		for _, sg := range st.segs {
			if !p.tapMajor {
				gemm(blas.NoTrans, blas.NoTrans, part(s.wf, dk, st.r0, st.r1, sg.lo, sg.hi), part(s.vc, n, sg.lo, sg.hi, q0, q1), out)
				continue
			}
			// The rows k*D+i of the segment read W[i, k*D+j] for the
			// channels j of the step: the transposed block of delay k,
			// which the product takes as it is, without a flipped copy.
			for lo := sg.lo; lo < sg.hi; {
				k := lo / d
				hi := min(sg.hi, (k+1)*d)
				gemm(blas.Trans, blas.NoTrans, part(w, dk, lo-k*d, hi-k*d, k*d+st.r0, k*d+st.r1), part(s.vc, n, lo, hi, q0, q1), out)
				lo = hi
			}
		}
		for r := st.r0; r < st.r1; r++ {
			sr, step := s.scaleRow(scale, r)
			for t := st.t0; t < st.t1; t++ {
				c := 1.0
				if sr != nil {
					c = float64(sr[t*step])
				}
				lo, hi := r*n+t*s.b, r*n+(t+1)*s.b
				ys, as, us, vs := s.y[lo:hi], s.a[lo:hi], s.u[lo:hi], s.v[lo:hi]
				for q, x := range ys {
					vs[q] += T(c*df(float64(x), float64(as[q]))) * us[q]
				}
			}
		}
		if p.kind != Dense {
			s.unfold(s.vc, s.v, st, -1)
		}
	}
	s.paramGrads(gw, gs)
}

// paramGrads adds to gw and gs (either may be nil) the gradients of the
// weight and the scaling from the adjoints that backward left in s.u
// and s.v.
func (s *Solver[T]) paramGrads(gw, gs []T) {
	p := &s.p
	n, dk := s.n, p.d*p.k
	if gw != nil {
		for _, st := range p.grad {
			for _, sg := range st.segs {
				gemm(blas.NoTrans, blas.Trans, part(s.v, n, st.r0, st.r1, 0, n), part(s.zc, n, sg.lo, sg.hi, 0, n), part(gw, dk, st.r0, st.r1, sg.lo, sg.hi))
			}
		}
	}
	if gs != nil {
		for r := range p.d {
			gr, step := s.scaleRow(gs, r)
			for t := range p.positions {
				var acc T
				lo, hi := r*n+t*s.b, r*n+(t+1)*s.b
				us := s.u[lo:hi]
				for q, a := range s.a[lo:hi] {
					acc += a * us[q]
				}
				gr[t*step] += acc
			}
		}
	}
}

// scaleRow returns the part of a scaling (or of its gradient) that
// belongs to channel r, and the step between the values of successive
// positions: all of row r and 1 for a scaling per entry, the single value
// and 0 for a scaling per channel. It returns nil for no scaling.
func (s *Solver[T]) scaleRow(scale []T, r int) (row []T, step int) {
	if scale == nil {
		return nil, 0
	}
	if len(scale) == s.p.d {
		return scale[r : r+1], 0
	}
	pos := s.p.positions
	return scale[r*pos : (r+1)*pos], 1
}

// CheckScale reports whether a tensor of the given shape can scale the
// machine's activation in this solver: [D] (per channel) or [D, P] (per
// entry) for signals of P positions.
func (s *Solver[T]) CheckScale(shape []int) error {
	if slices.Equal(shape, []int{s.p.d}) || slices.Equal(shape, []int{s.p.d, s.p.positions}) {
		return nil
	}
	return fmt.Errorf("%w: %s machine with %d channels on signals of %d positions given a scaling of shape %v, want [%d] or [%d %d]",
		ErrShape, s.m.kind, s.p.d, s.p.positions, shape, s.p.d, s.p.d, s.p.positions)
}

// flip writes the weight of the backward solve of a channel-major plan:
// row j holds W[i, j, k] where the forward weight's row i holds W[i, j,
// k], each kernel kept whole. Tap-major plans need no copy (see
// backward).
func (s *Solver[T]) flip(w []T) {
	p := &s.p
	d, k := p.d, p.k
	dk := d * k
	if len(s.wf) != len(w) {
		s.wf = make([]T, len(w))
	}
	wf := s.wf
	for i := range d {
		for j := range d {
			// A plain loop: copy would call memmove for every kernel
			// of a few entries.
			dst, src := wf[j*dk+i*k:j*dk+i*k+k], w[i*dk+j*k:i*dk+j*k+k]
			for t, x := range src {
				dst[t] = x
			}
		}
	}
}

// unfold writes the channels of step st of src into the unfolded state
// dst: row (c, k) at position t holds src[c] at position t + sign*shift_k,
// zero where that falls outside the signal. Entries of dst are written
// only from the positions the step computed; the others keep what they
// hold, zero from allocation or the same value from an earlier step.
func (s *Solver[T]) unfold(dst, src []T, st step, sign int) {
	p := &s.p
	n, b := s.n, s.b
	switch len(p.shape) {
	case 1:
		l := p.shape[0]
		for c := st.r0; c < st.r1; c++ {
			for k, tap := range p.taps {
				sh := sign * tap[0]
				lo, hi := max(0, st.t0-sh), min(l, st.t1-sh)
				if lo >= hi {
					continue
				}
				r := p.row(c, k)
				copy(dst[r*n+lo*b:r*n+hi*b], src[c*n+(lo+sh)*b:c*n+(hi+sh)*b])
			}
		}
	case 2:
		h, wd := p.shape[0], p.shape[1]
		for c := st.r0; c < st.r1; c++ {
			for k, tap := range p.taps {
				sh, sw := sign*tap[0], sign*tap[1]
				lo, hi := max(0, -sw), min(wd, wd-sw)
				if lo >= hi {
					continue
				}
				r := p.row(c, k)
				for y := max(0, -sh); y < min(h, h-sh); y++ {
					copy(dst[r*n+(y*wd+lo)*b:r*n+(y*wd+hi)*b], src[c*n+((y+sh)*wd+lo+sw)*b:c*n+((y+sh)*wd+hi+sw)*b])
				}
			}
		}
	}
}
