package infinite

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/volterra"
)

// Layer is an infinite-depth kernel machine as a layer of a model
// trained by minibatches: it implements ad.Layer, in float32 and
// float64 (the solves are float64 whatever the model's type). The
// representer theorem anchors a machine at every training input, which a
// minibatch cannot see; a layer is anchored instead at Architecture.Anchors
// learned points, whose initial conditions ψⱼ are parameters trained with
// the coefficients and the rest of the model.
//
// Its input is a batch of initial conditions ψ (N x Dim, a row per
// sample; Dim 0 in the architecture takes the input's size) and its output
// the final states u(1), of the same shape. Its parameters are
// "anchors", the anchors' ψⱼ (Anchors x Dim, standard normal, which suits
// standardised states), and "coef", the coefficients ((Anchors·Basis) x
// Dim, row j·Basis+k holding c_jk, the layout of Machine.Coef), zero, so
// that the layer starts as the identity u(1) = ψ. With Cost above 0 it
// adds Cost |f|²_H (Trajectory.Norm) to the model's penalties.
//
// The anchors xⱼ and the batch solve one equation,
//
//	u(t) = ψ + ∫₀ᵗ Σⱼ k(u(s), xⱼ(s))·cⱼ(t) ds,
//
// the anchors among themselves as in Machine.Forward, every member of
// the batch against the anchors as in Trajectory.Query, on the same grids
// (the anchors on 2·Steps intervals, the batch on Steps, or on 2·Steps
// with Tol). The gradient reaches the batch's ψ, the coefficients, and
// the anchors both through their own evolution and through the batch's
// dependence on them. Every Forward of the graph solves again; a solve
// that fails makes the outputs NaN and is reported through the graph's
// Fail, with the layer's name.
type Layer[T ad.Float] struct {
	Architecture
	// Cost weighs the machine's squared RKHS norm in the model's loss.
	Cost float64
}

// architectureFor returns the architecture with Dim taken from an input of n
// values where it is 0.
func (l Layer[T]) architectureFor(n int) (Architecture, error) {
	s := l.Architecture
	if s.Dim == 0 {
		s.Dim = n
	}
	if s.Dim != n {
		return s, fmt.Errorf("%w: infinite: a layer of dimension %d given inputs of %d values", ad.ErrShape, s.Dim, n)
	}
	return s, s.Check()
}

// Init implements ad.Layer.
func (l Layer[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	if len(in) != 1 || len(in[0]) != 1 {
		return nil, fmt.Errorf("infinite: layer given inputs of shapes %v, want one vector", in)
	}
	set, err := l.architectureFor(in[0][0])
	if err != nil {
		return nil, err
	}
	if !(l.Cost >= 0) || math.IsInf(l.Cost, 0) {
		return nil, fmt.Errorf("infinite: layer cost %v, want a finite value >= 0", l.Cost)
	}
	anchors := s.NewParam("anchors", set.Anchors, set.Dim)
	for i := range anchors.Data {
		anchors.Data[i] = T(s.Rand.NormFloat64())
	}
	s.NewParam("coef", set.Anchors*set.Basis(), set.Dim)
	return [][]int{{set.Dim}}, nil
}

// Apply implements ad.Layer.
func (l Layer[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	psi := x[0]
	if len(psi.Value.Shape) != 2 {
		return nil, fmt.Errorf("%w: infinite: a layer given a batch of shape %v, want [samples, dim]", ad.ErrShape, psi.Value.Shape)
	}
	set, err := l.architectureFor(psi.Value.Cols())
	if err != nil {
		return nil, err
	}
	g := s.Graph
	anchors, coef := s.Param("anchors"), s.Param("coef")
	if anchors.Value.Len() != set.Anchors*set.Dim || coef.Value.Len() != set.Anchors*set.Basis()*set.Dim {
		return nil, fmt.Errorf("%w: infinite: layer %s: parameters of shapes %v and %v for its architecture", ad.ErrShape, s.Name, anchors.Value.Shape, coef.Value.Shape)
	}
	op := &layerOp[T]{s: set, fail: func(err error) { g.Fail(fmt.Errorf("layer %s: %w", s.Name, err)) }}
	out := g.Apply(op, psi.Value.Shape, psi, anchors, coef)
	if l.Cost > 0 {
		// The norm is computed from the trajectory that out's Forward has
		// just solved: it is added after out, so every replay recomputes
		// it after, and its backward pass runs before out's.
		norm := g.Apply(&normOp[T]{main: &op.anchorState}, []int{1, 1}, anchors, coef)
		s.Penalize(g.Scale(norm, T(l.Cost)))
	}
	return []*ad.Node[T]{out}, nil
}

// Machine returns the machine of the layer called name whose parameters
// ps holds, with a copy of its coefficients, and its anchors' initial
// conditions: Machine.Forward of them gives the trajectory against which
// Trajectory.Query evaluates the layer outside a graph.
func (l Layer[T]) Machine(ps *ad.Params[T], name string) (*Machine, []float64, error) {
	anchors, coef := ps.Value(name+".anchors"), ps.Value(name+".coef")
	if anchors == nil || coef == nil {
		return nil, nil, fmt.Errorf("infinite: layer %s: its parameters are not in the set", name)
	}
	set, err := l.architectureFor(anchors.Cols())
	if err != nil {
		return nil, nil, err
	}
	return &Machine{Architecture: set, Coef: float64s(coef.Data)}, float64s(anchors.Data), nil
}

// float64s returns a float64 copy of x.
func float64s[T ad.Float](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// anchorState is what an op that solves the anchors shares with the
// normOp of the same machine.
type anchorState struct {
	// tr is the trajectory of the last successful solve, nil after a
	// failed one.
	tr *Trajectory
	// normWeight is the loss's gradient with respect to the norm, left
	// by normOp's backward pass, which runs first, for the solver op's,
	// so that one backward solve of the anchors serves both.
	normWeight float64
}

// layerOp solves the anchors with Machine.Forward, then the batch
// against their trajectory with a batchKernel, whose parameters include
// that trajectory so that the batch's gradient flows back into it. It
// works in float64 on copies of its inputs.
type layerOp[T ad.Float] struct {
	anchorState
	s    Architecture
	fail func(error)
	k    *batchKernel
	sol  *volterra.Solution
	psi  []float64
}

func (o *layerOp[T]) Forward(out *ad.Node[T]) {
	in := out.Inputs()
	o.psi = float64s(in[0].Value.Data)
	o.tr, o.sol = nil, nil
	fail := func(err error) {
		o.fail(err)
		for i := range out.Value.Data {
			out.Value.Data[i] = T(math.NaN())
		}
	}
	tr, err := (&Machine{Architecture: o.s, Coef: float64s(in[2].Value.Data)}).Forward(float64s(in[1].Value.Data))
	if err != nil {
		fail(fmt.Errorf("anchors: %w", err))
		return
	}
	o.k = newBatchKernel(tr)
	eq := &volterra.SeparableEquation{T0: 0, T: 1, Psi: volterra.Const(o.psi), Kernel: o.k, Batch: len(o.psi) / tr.s.Dim}
	sol, err := volterra.SolveSeparable(eq, tr.s.querySteps(), tr.s.solver())
	if err != nil {
		fail(fmt.Errorf("batch: %w", err))
		return
	}
	o.tr, o.sol = tr, sol
	for i, v := range sol.U[len(sol.U)-len(o.psi):] {
		out.Value.Data[i] = T(v)
	}
}

func (o *layerOp[T]) Backward(out *ad.Node[T]) {
	w := o.normWeight
	o.normWeight = 0
	if o.sol == nil {
		return // the forward solve failed and said so
	}
	in := out.Inputs()
	psi, anchors, coef := in[0], in[1], in[2]
	du := make([]float64, len(o.sol.U))
	for i, v := range out.Grad.Data {
		du[len(du)-len(out.Grad.Data)+i] = float64(v)
	}
	var dpsi []float64
	if psi.Grad != nil {
		dpsi = make([]float64, len(o.psi))
	}
	dp := make([]float64, o.k.NumParams())
	if err := o.sol.Gradient(dpsi, dp, du); err != nil {
		o.fail(fmt.Errorf("batch gradient: %w", err))
		return
	}
	addTo(psi.Grad, dpsi)
	nc := len(o.tr.coef)
	addTo(coef.Grad, dp[:nc])
	if anchors.Grad == nil && coef.Grad == nil {
		return
	}
	// dp[nc:] is the gradient with respect to the anchors' states on
	// their grid, in the layout of Trajectory.U: the cotangent of the
	// anchors' own solve, to which the norm adds its own.
	gq, gp := make([]float64, anchors.Value.Len()), make([]float64, nc)
	if err := o.tr.backward(gq, gp, dp[nc:], w); err != nil {
		o.fail(fmt.Errorf("anchors gradient: %w", err))
		return
	}
	addTo(anchors.Grad, gq)
	addTo(coef.Grad, gp)
}

// addTo adds v to the gradient t, if there is one.
func addTo[T ad.Float](t *ad.Tensor[T], v []float64) {
	if t == nil {
		return
	}
	for i, x := range v {
		t.Data[i] += T(x)
	}
}

// normOp is |f|²_H of the trajectory its main op solved last. Its
// inputs are those of the anchors' solve (their ψ and the
// coefficients), but its backward pass only hands its weight to the
// main op's.
type normOp[T ad.Float] struct{ main *anchorState }

func (o *normOp[T]) Forward(out *ad.Node[T]) {
	if o.main.tr == nil {
		out.Value.Data[0] = T(math.NaN())
		return
	}
	out.Value.Data[0] = T(o.main.tr.Norm())
}

func (o *normOp[T]) Backward(out *ad.Node[T]) { o.main.normWeight = float64(out.Grad.Data[0]) }

// batchKernel is the kernel of eq. 10 for the members of a batch
// against the anchors' trajectory, queryKernel differentiable with
// respect to that trajectory: φ(t, s, v) = Σⱼ k(v, xⱼ(s))·cⱼ(t), m scalar
// terms with the MatVec product, C(t) = [c₁(t) … cₘ(t)] ∈ ℝⁿˣᵐ.
//
// Its parameters are the coefficients, laid out as Machine.Coef,
// followed by the anchors' states on their grid, laid out as
// Trajectory.U; the second block of PhiVJP's dp is nonzero only at the
// grid points around s.
//
// The members are solved as a volterra Batch, like Query's, so that
// their states are Query's bit for bit; as a volterra.PhiVJPAdder it
// adds each member's gradient to the two grid points it touches, where
// PhiVJP alone would clear and sum the whole dp per member and stage.
type batchKernel struct {
	*queryKernel
}

func newBatchKernel(tr *Trajectory) *batchKernel { return &batchKernel{newQueryKernel(tr)} }

func (k *batchKernel) NumParams() int { return len(k.coef) + len(k.anchors.U) }

// bracket returns the grid index i and the weight a such that the
// anchors' states at s are (1-a)·U[i] + a·U[i+1], with a = 0 on a grid
// point, following Trajectory.at.
func (k *batchKernel) bracket(s float64) (int, float64) {
	last := len(k.anchors.T) - 1
	x := s * float64(last)
	g := math.Round(x)
	if math.Abs(x-g) <= 1e-9*float64(last) || x <= 0 || x >= float64(last) {
		return int(min(max(g, 0), float64(last))), 0
	}
	i := math.Floor(x)
	return int(i), x - i
}

func (k *batchKernel) PhiVJP(dv, dp []float64, s float64, v, w []float64) {
	clear(dp)
	k.AddPhiVJP(dv, dp, s, v, w)
}

// AddPhiVJP: with e = -2γ·k(v, xⱼ)·w[j]·(v - xⱼ), v receives e and xⱼ(s)
// receives -e, which goes to the grid points that xⱼ(s) interpolates,
// the only parameters it touches.
func (k *batchKernel) AddPhiVJP(dv, dp []float64, s float64, v, w []float64) {
	clear(dv)
	x := k.anchors.at(k.x, s)
	n, mn := k.n, k.m*k.n
	i, a := k.bracket(s)
	dx0 := dp[len(k.coef)+i*mn : len(k.coef)+(i+1)*mn]
	var dx1 []float64
	if a != 0 {
		dx1 = dp[len(k.coef)+(i+1)*mn : len(k.coef)+(i+2)*mn]
	}
	for j := range k.m {
		xj := x[j*n : (j+1)*n]
		g := -2 * k.gamma * gaussian(k.gamma, v, xj) * w[j]
		for r, y := range v {
			e := g * (y - xj[r])
			dv[r] += e
			dx0[j*n+r] -= (1 - a) * e
			if dx1 != nil {
				dx1[j*n+r] -= a * e
			}
		}
	}
}

// CoefVJP sets dp[j, k, r] = bₖ(t)·w[r·m + j]; the coefficients do
// not depend on the anchors.
func (k *batchKernel) CoefVJP(dp []float64, t float64, w []float64) {
	m, n := k.m, k.n
	clear(dp[len(k.coef):])
	basis := k.anchors.s.basisAt(k.basis, t)
	nb := len(basis)
	for kk, ck := range basis {
		for j := range m {
			dst := dp[(j*nb+kk)*n : (j*nb+kk+1)*n]
			for r := range dst {
				dst[r] = ck * w[r*m+j]
			}
		}
	}
}
