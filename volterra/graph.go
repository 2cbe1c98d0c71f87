package volterra

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
)

// GraphKernel is a ParamKernel φ(t, s, u; θ) written with the operations
// of package ad, which derives its vector-Jacobian products. The
// hand-written kernels remain the fast path; see BenchmarkGraphKernel.
//
// The graph is recorded once, by NewGraphKernel. Eval replays its forward
// pass and VJP its forward and backward passes, into buffers the graph
// owns, so that neither allocates. The parameters are the caller's slice
// θ, which the graph reads at every call: changing θ in place changes
// the kernel. A GraphKernel must not be used concurrently.
type GraphKernel struct {
	f recorded
	n int
}

// NewGraphKernel records the kernel φ of an equation of dimension n with
// parameters theta. build receives the graph and four nodes: t and s,
// 1×1 inputs; u, the 1×n state (a row, as every sample of the library); and theta, a len(theta)×1 parameter node
// that reads theta itself. It returns the node of φ(t, s, u; θ), whose n
// elements are the value in row-major order. build is called once, at
// zero times and state; NewGraphKernel panics if n < 1 or if the node
// returned does not have n elements.
func NewGraphKernel(n int, theta []float64, build func(g *ad.Graph[float64], t, s, u, theta *ad.Node[float64]) *ad.Node[float64]) *GraphKernel {
	if n < 1 {
		panic(fmt.Errorf("%w: volterra: graph kernel of dimension %d, want at least 1", ad.ErrShape, n))
	}
	k := &GraphKernel{n: n}
	k.f.record(n, 2, theta, n, "kernel", func(g *ad.Graph[float64], times []*ad.Node[float64], u, theta *ad.Node[float64]) *ad.Node[float64] {
		return build(g, times[0], times[1], u, theta)
	})
	return k
}

// Dim returns the dimension of the state.
func (k *GraphKernel) Dim() int { return k.n }

// NumParams returns len(θ).
func (k *GraphKernel) NumParams() int { return k.f.theta.Value.Len() }

// Eval replays the forward pass and sets dst = φ(t, s, u; θ).
func (k *GraphKernel) Eval(dst []float64, t, s float64, u []float64) {
	k.f.forward(u, t, s)
	copy(dst, k.f.out.Value.Data)
}

// VJP replays the forward and backward passes and sets du = wᵀ·∂φ/∂u
// and dp = wᵀ·∂φ/∂θ.
func (k *GraphKernel) VJP(du, dp []float64, t, s float64, u, w []float64) {
	k.f.forward(u, t, s)
	k.f.vjp(du, dp, w)
}

// SeparableGraph describes a separable kernel, in the sense of
// Separable, written with the operations of package ad.
type SeparableGraph struct {
	// Dim, Terms, TermDim and Product are n, m, d and the bilinear map
	// B, as the methods of Separable report them.
	Dim, Terms, TermDim int
	Product             Product
	// Phi builds Φ(s, v) = (φ₁(s, v), …, φₘ(s, v)) from s, a 1×1 input,
	// the 1×n state v and the parameters θ, a node whose m·d elements
	// hold φⱼ in elements j·d to (j+1)·d - 1 in row-major order: an m×d
	// matrix, for example, or a 1×m·d row.
	Phi func(g *ad.Graph[float64], s, v, theta *ad.Node[float64]) *ad.Node[float64]
	// Coef builds C(t) from t, a 1×1 input, and θ, in the layout of
	// Separable.Coef: the n×m·d matrix for MatVec, n×m for Elementwise.
	Coef func(g *ad.Graph[float64], t, theta *ad.Node[float64]) *ad.Node[float64]
}

// GraphSeparable is a ParamSeparable kernel whose terms Φ and
// coefficients C are written with the operations of package ad, which
// derives PhiVJP and CoefVJP. Φ and C are recorded once each, on graphs
// of their own that read the same parameters θ, the caller's slice:
// changing θ in place changes the kernel. Like GraphKernel, its methods
// do not allocate, and it must not be used concurrently.
type GraphSeparable struct {
	phi, coef   recorded
	n, terms, d int
	prod        Product
}

// NewGraphSeparable records the terms and coefficients that k describes,
// with parameters theta. Phi and Coef are called once, at zero time and
// state. NewGraphSeparable panics if the dimensions of k are
// inconsistent, as for any Separable, or if Phi or Coef returns a node of
// the wrong size.
func NewGraphSeparable(k SeparableGraph, theta []float64) *GraphSeparable {
	s := &GraphSeparable{n: k.Dim, terms: k.Terms, d: k.TermDim, prod: k.Product}
	checkSeparable(s)
	s.phi.record(s.n, 1, theta, k.Terms*k.TermDim, "terms Φ", func(g *ad.Graph[float64], times []*ad.Node[float64], v, theta *ad.Node[float64]) *ad.Node[float64] {
		return k.Phi(g, times[0], v, theta)
	})
	s.coef.record(0, 1, theta, coefLen(s), "coefficients C(t)", func(g *ad.Graph[float64], times []*ad.Node[float64], _, theta *ad.Node[float64]) *ad.Node[float64] {
		return k.Coef(g, times[0], theta)
	})
	return s
}

// Dim returns n.
func (k *GraphSeparable) Dim() int { return k.n }

// Terms returns m.
func (k *GraphSeparable) Terms() int { return k.terms }

// TermDim returns d.
func (k *GraphSeparable) TermDim() int { return k.d }

// Product returns the bilinear map B.
func (k *GraphSeparable) Product() Product { return k.prod }

// NumParams returns len(θ).
func (k *GraphSeparable) NumParams() int { return k.phi.theta.Value.Len() }

// Phi replays the forward pass of the terms and sets dst = Φ(s, v; θ).
func (k *GraphSeparable) Phi(dst []float64, s float64, v []float64) {
	k.phi.forward(v, s)
	copy(dst, k.phi.out.Value.Data)
}

// Coef replays the forward pass of the coefficients and sets dst = C(t).
func (k *GraphSeparable) Coef(dst []float64, t float64) {
	k.coef.forward(nil, t)
	copy(dst, k.coef.out.Value.Data)
}

// PhiVJP sets dv = wᵀ·∂Φ/∂v and dp = wᵀ·∂Φ/∂θ at (s, v).
func (k *GraphSeparable) PhiVJP(dv, dp []float64, s float64, v, w []float64) {
	k.phi.forward(v, s)
	k.phi.vjp(dv, dp, w)
}

// CoefVJP sets dp = Σ w[i]·∂C(t)[i]/∂θ.
func (k *GraphSeparable) CoefVJP(dp []float64, t float64, w []float64) {
	k.coef.forward(nil, t)
	k.coef.vjp(nil, dp, w)
}

// recorded is a function of some scalar times, a state x ∈ ℝⁿ and the
// parameters θ, recorded on a graph for replay.
type recorded struct {
	g     ad.Graph[float64]
	times []*ad.Node[float64] // 1×1 inputs
	x     *ad.Node[float64]   // 1×n, a parameter so that it gets a gradient; nil for n = 0
	theta *ad.Node[float64]   // len(θ)×1, a view of θ
	out   *ad.Node[float64]
}

// record builds the graph of f on nt times, a state of dimension n (0 for
// none) and theta, and panics unless the output has size elements.
func (r *recorded) record(n, nt int, theta []float64, size int, what string, f func(g *ad.Graph[float64], times []*ad.Node[float64], x, theta *ad.Node[float64]) *ad.Node[float64]) {
	for range nt {
		r.times = append(r.times, r.g.Input(ad.NewTensor[float64](1, 1)))
	}
	if n > 0 {
		r.x = r.g.Param(ad.NewTensor[float64](1, n), nil)
	}
	r.theta = r.g.Param(ad.View(theta, len(theta), 1), nil)
	r.out = f(&r.g, r.times, r.x, r.theta)
	if r.out.Value.Len() != size {
		panic(fmt.Errorf("%w: volterra: %s of shape %v, want %d elements", ad.ErrShape, what, r.out.Value.Shape, size))
	}
}

// forward replays the graph at the state x and the times.
func (r *recorded) forward(x []float64, times ...float64) {
	if r.x != nil {
		if len(x) != r.x.Value.Len() {
			panic(fmt.Errorf("%w: volterra: state of length %d for a graph kernel of dimension %d", ad.ErrShape, len(x), r.x.Value.Len()))
		}
		copy(r.x.Value.Data, x)
	}
	for i, t := range times {
		r.times[i].Value.Data[0] = t
	}
	r.g.Forward()
}

// vjp replays the backward pass seeded with w, after forward, and sets dx
// and dp to the gradients with respect to the state (if there is one)
// and θ.
func (r *recorded) vjp(dx, dp, w []float64) {
	r.g.VJP(r.out, w)
	if r.x != nil {
		copy(dx, r.x.Grad.Data)
	}
	copy(dp, r.theta.Grad.Data)
}
