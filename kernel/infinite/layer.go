package infinite

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/volterra"
)

// Layer is an infinite-depth kernel machine as a layer of the engine, for
// a model trained by minibatches. The representer theorem anchors a
// machine at every training input, which a minibatch cannot see; a
// layer is anchored instead at Settings.Anchors learned points, whose
// initial conditions ψⱼ are parameters trained with the coefficients and
// the rest of the model.
type Layer struct {
	Settings
	// Anchors holds the anchors' initial conditions ψⱼ, Anchors×Dim, a
	// row per anchor.
	Anchors *ad.Tensor[float64]
	// Coef holds the coefficients, (Anchors·Basis)×Dim: row j·Basis+k
	// is c_jk, the layout of Machine.Coef.
	Coef *ad.Tensor[float64]

	err error
}

// NewLayer returns a layer with standard normal anchors, which suits
// standardised states, and zero coefficients, so that it starts as the
// identity u(1) = ψ. It returns an error for invalid settings.
func NewLayer(s Settings, rnd *rand.Rand) (*Layer, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	l := &Layer{Settings: s, Anchors: ad.NewTensor[float64](s.Anchors, s.Dim),
		Coef: ad.NewTensor[float64](s.Anchors*s.Basis(), s.Dim)}
	for i := range l.Anchors.Data {
		l.Anchors.Data[i] = rnd.NormFloat64()
	}
	return l, nil
}

// Machine returns the layer's current machine, sharing no memory with
// the layer; Machine().Forward(l.Anchors.Data) gives the trajectory
// against which Trajectory.Query evaluates the layer outside a graph.
func (l *Layer) Machine() *Machine {
	return &Machine{Settings: l.Settings, Coef: append([]float64(nil), l.Coef.Data...)}
}

// Apply adds the layer to g for the batch psi of initial conditions
// (B×Dim, a row per sample) and registers the anchors and coefficients
// in ps as name+".anchors" and name+".coef". It returns the final states
// u(1) of the batch (B×Dim) and the machine's squared RKHS norm |f|²_H
// (1×1, Trajectory.Norm), whose multiple a model may add to its loss.
//
// The anchors xⱼ and the batch solve one equation,
//
//	u(t) = ψ + ∫₀ᵗ Σⱼ k(u(s), xⱼ(s))·cⱼ(t) ds,
//
// the anchors among themselves as in Machine.Forward, every member of
// the batch against the anchors as in Trajectory.Query, on the same grids
// (the anchors on 2·Steps intervals, the batch on Steps, or on 2·Steps
// with Tol). The gradient
// reaches the batch's ψ, the coefficients, and the anchors both through
// their own evolution and through the batch's dependence on them.
//
// Every Forward of g solves again, for the values then in the nodes; the
// batch size is that of psi when Apply is called. A solve that fails
// makes both outputs NaN, which a training loop reports as a non-finite
// loss, and Err tells why.
func (l *Layer) Apply(g *ad.Graph[float64], ps *ad.Params[float64], name string, psi *ad.Node[float64]) (out, norm *ad.Node[float64]) {
	if err := l.Settings.Check(); err != nil {
		panic(err)
	}
	m, n, f := l.Settings.Anchors, l.Dim, l.Basis()
	switch {
	case len(psi.Value.Shape) != 2 || psi.Value.Cols() != n || psi.Value.Rows() < 1:
		panic(fmt.Sprintf("infinite: a layer of dimension %d given a batch of shape %v, want [samples, %d]", n, psi.Value.Shape, n))
	case l.Anchors.Len() != m*n:
		panic(fmt.Sprintf("infinite: layer anchors of shape %v, want [%d, %d]", l.Anchors.Shape, m, n))
	case l.Coef.Len() != m*f*n:
		panic(fmt.Sprintf("infinite: layer coefficients of shape %v, want [%d, %d]", l.Coef.Shape, m*f, n))
	}
	anchors := ps.Use(g, name+".anchors", l.Anchors)
	coef := ps.Use(g, name+".coef", l.Coef)
	op := &layerOp{l: l, anchorState: anchorState{err: &l.err}}
	out = g.Apply(op, psi.Value.Shape, psi, anchors, coef)
	// The norm is computed from the trajectory that out's Forward has just
	// solved: it is added after out, so every replay recomputes it after,
	// and its backward pass runs before out's.
	norm = g.Apply(&normOp{main: &op.anchorState}, []int{1, 1}, anchors, coef)
	return out, norm
}

// Err returns the error of the last solve of any graph the layer was
// applied to that failed, and forgets it.
func (l *Layer) Err() error {
	err := l.err
	l.err = nil
	return err
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
	// err receives the errors of the solves.
	err *error
}

// layerOp solves the anchors with Machine.Forward, then the batch
// against their trajectory with a batchKernel, whose parameters include
// that trajectory so that the batch's gradient flows back into it.
type layerOp struct {
	anchorState
	l   *Layer
	k   *batchKernel
	sol *volterra.Solution
}

func (o *layerOp) Forward(out *ad.Node[float64]) {
	in := out.Inputs()
	psi, anchors, coef := in[0].Value.Data, in[1].Value.Data, in[2].Value.Data
	o.tr, o.sol = nil, nil
	fail := func(err error) {
		*o.err = err
		for i := range out.Value.Data {
			out.Value.Data[i] = math.NaN()
		}
	}
	tr, err := (&Machine{Settings: o.l.Settings, Coef: coef}).Forward(anchors)
	if err != nil {
		fail(err)
		return
	}
	o.k = newBatchKernel(tr)
	eq := &volterra.SeparableEquation{T0: 0, T: 1, Psi: volterra.Const(append([]float64(nil), psi...)), Kernel: o.k,
		Batch: len(psi) / tr.s.Dim}
	sol, err := volterra.SolveSeparable(eq, tr.s.querySteps(), tr.s.solver())
	if err != nil {
		fail(fmt.Errorf("infinite: layer batch: %w", err))
		return
	}
	o.tr, o.sol = tr, sol
	copy(out.Value.Data, sol.U[len(sol.U)-len(psi):])
}

func (o *layerOp) Backward(out *ad.Node[float64]) {
	w := o.normWeight
	o.normWeight = 0
	if o.sol == nil {
		return // the forward solve failed; Err says why
	}
	in := out.Inputs()
	psi, anchors, coef := in[0], in[1], in[2]
	du := make([]float64, len(o.sol.U))
	copy(du[len(du)-len(out.Grad.Data):], out.Grad.Data)
	var dpsi []float64
	if psi.Grad != nil {
		dpsi = make([]float64, len(psi.Value.Data))
	}
	dp := make([]float64, o.k.NumParams())
	if err := o.sol.Gradient(dpsi, dp, du); err != nil {
		*o.err = fmt.Errorf("infinite: layer batch: %w", err)
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
	gq, gp := make([]float64, len(anchors.Value.Data)), make([]float64, nc)
	if err := o.tr.backward(gq, gp, dp[nc:], w); err != nil {
		*o.err = fmt.Errorf("infinite: layer anchors: %w", err)
		return
	}
	addTo(anchors.Grad, gq)
	addTo(coef.Grad, gp)
}

// addTo adds v to the gradient t, if there is one.
func addTo(t *ad.Tensor[float64], v []float64) {
	if t == nil {
		return
	}
	for i, x := range v {
		t.Data[i] += x
	}
}

// normOp is |f|²_H of the trajectory its main op solved last. Its
// inputs are those of the anchors' solve (their ψ and the
// coefficients), but its backward pass only hands its weight to the
// main op's.
type normOp struct{ main *anchorState }

func (o *normOp) Forward(out *ad.Node[float64]) {
	if o.main.tr == nil {
		out.Value.Data[0] = math.NaN()
		return
	}
	out.Value.Data[0] = o.main.tr.Norm()
}

func (o *normOp) Backward(out *ad.Node[float64]) { o.main.normWeight = out.Grad.Data[0] }

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
	m, n        int
	gamma       float64
	coef        []float64
	anchors     *Trajectory
	c, basis, x []float64
	cache       coefByTime
}

func newBatchKernel(tr *Trajectory) *batchKernel {
	s := tr.s
	k := &batchKernel{m: s.Anchors, n: s.Dim, gamma: s.gamma(), coef: tr.coef, anchors: tr,
		c: make([]float64, s.Anchors*s.Dim), basis: make([]float64, s.Basis()), x: make([]float64, s.Anchors*s.Dim)}
	k.cache = newCoefByTime(func(dst []float64, t float64) { matVecCoef(dst, k.c, k.coef, k.m, k.n, s.basisAt(k.basis, t)) })
	return k
}

func (k *batchKernel) Dim() int                  { return k.n }
func (k *batchKernel) Terms() int                { return k.m }
func (k *batchKernel) TermDim() int              { return 1 }
func (k *batchKernel) Product() volterra.Product { return volterra.MatVec }
func (k *batchKernel) NumParams() int            { return len(k.coef) + len(k.anchors.U) }

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

func (k *batchKernel) Phi(dst []float64, s float64, v []float64) {
	x := k.anchors.at(k.x, s)
	for j := range k.m {
		dst[j] = gaussian(k.gamma, v, x[j*k.n:(j+1)*k.n])
	}
}

// Coef sets C(t)[r·m + j] = cⱼ(t)[r], as queryKernel's.
func (k *batchKernel) Coef(dst []float64, t float64) { k.cache.get(dst, t) }

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
