package infinite

import (
	"math"

	"github.com/parametric-machines/machines/volterra"
)

// gaussian returns exp(-γ|u - v|²).
func gaussian(gamma float64, u, v []float64) float64 {
	var d float64
	for i, x := range u {
		e := x - v[i]
		d += e * e
	}
	return math.Exp(-gamma * d)
}

// coefAt sets dst[j*n+r] = cⱼ(t)[r] = Σₖ c_jk[r]·bₖ(t) for the
// coefficients coef laid out as in Machine.Coef, given the basis
// functions at t.
func coefAt(dst, coef []float64, m, n int, basis []float64) {
	nb := len(basis)
	for j := range m {
		cj := dst[j*n : (j+1)*n]
		clear(cj)
		for k, ck := range basis {
			row := coef[(j*nb+k)*n : (j*nb+k+1)*n]
			for r, v := range row {
				cj[r] += ck * v
			}
		}
	}
}

// coefByTime memoises the C(t) of a kernel, whose coefficients stay
// fixed while it lives: a solve and its gradient ask for C at the same
// few times over and over (RK4's stages fall on a grid of half steps,
// and backpropagation revisits every stage), and C(t), Σₖ c_jk·bₖ(t)
// for every anchor, costs about as much as the terms themselves. The
// times of an adaptive solve rarely repeat: past maxCoefTimes it stops
// keeping new ones.
type coefByTime struct {
	fill func(dst []float64, t float64)
	at   map[float64][]float64
}

const maxCoefTimes = 256

func newCoefByTime(fill func(dst []float64, t float64)) coefByTime {
	return coefByTime{fill: fill, at: make(map[float64][]float64)}
}

// get sets dst to C(t).
func (c *coefByTime) get(dst []float64, t float64) {
	if v, ok := c.at[t]; ok {
		copy(dst, v)
		return
	}
	c.fill(dst, t)
	if len(c.at) < maxCoefTimes {
		c.at[t] = append([]float64(nil), dst...)
	}
}

// anchorKernel is the kernel of eq. 10 of the paper for the anchors
// themselves: their trajectories x₁, …, xₘ evolve together as one state
// U = (x₁, …, xₘ) ∈ ℝᵐⁿ with
//
//	xᵢ(t) = ψᵢ + ∫₀ᵗ Σⱼ k(xᵢ(s), xⱼ(s))·cⱼ(t) ds.
//
// As a volterra.Separable it has m terms, one per anchor j, with the
// Elementwise product on ℝᵐⁿ: term j is φⱼ(s, U) = (k(x₁, xⱼ)·1ₙ, …,
// k(xₘ, xⱼ)·1ₙ) and its coefficient is cⱼ(t) repeated for each anchor i.
// The ODE state z then holds zᵢⱼ = ∫₀ᵗ k(xᵢ, xⱼ) ds, n times over: a
// redundancy that costs m²n entries but keeps every product O(m²n),
// where the MatVec form would be a dense block-diagonal mn×m² matrix.
// Its parameters are the Fourier coefficients of the machine.
type anchorKernel struct {
	s        Architecture
	m, n     int
	gamma    float64
	coef     []float64
	c, basis []float64
	cache    coefByTime
}

func newAnchorKernel(s Architecture, coef []float64) *anchorKernel {
	k := &anchorKernel{s: s, m: s.Anchors, n: s.Dim, gamma: s.gamma(), coef: coef,
		c: make([]float64, s.Anchors*s.Dim), basis: make([]float64, s.Basis())}
	k.cache = newCoefByTime(k.coefAt)
	return k
}

func (k *anchorKernel) Dim() int     { return k.m * k.n }
func (k *anchorKernel) Terms() int   { return k.m }
func (k *anchorKernel) TermDim() int { return k.m * k.n }

func (k *anchorKernel) Product() volterra.Product { return volterra.Elementwise }

func (k *anchorKernel) Phi(dst []float64, _ float64, u []float64) {
	m, n := k.m, k.n
	d := m * n
	for i := range m {
		xi := u[i*n : (i+1)*n]
		for j := i; j < m; j++ {
			v := 1.0
			if j != i {
				v = gaussian(k.gamma, xi, u[j*n:(j+1)*n])
			}
			fill(dst[j*d+i*n:j*d+(i+1)*n], v)
			fill(dst[i*d+j*n:i*d+(j+1)*n], v)
		}
	}
}

func fill(dst []float64, v float64) {
	for i := range dst {
		dst[i] = v
	}
}

func (k *anchorKernel) Coef(dst []float64, t float64) { k.cache.get(dst, t) }

// coefAt sets C(t), (mn)×m row by row: C[(i·n+r)·m + j] = cⱼ(t)[r].
func (k *anchorKernel) coefAt(dst []float64, t float64) {
	m, n := k.m, k.n
	coefAt(k.c, k.coef, m, n, k.s.basisAt(k.basis, t))
	for r := range n {
		row := dst[r*m : (r+1)*m]
		for j := range m {
			row[j] = k.c[j*n+r]
		}
	}
	for i := 1; i < m; i++ {
		copy(dst[i*n*m:(i+1)*n*m], dst[:n*m])
	}
}

func (k *anchorKernel) NumParams() int { return len(k.coef) }

// PhiVJP: the terms do not depend on the coefficients, so dp = 0; with
// Wᵢⱼ = Σᵣ w[j, i, r], ∂k(xᵢ, xⱼ)/∂xᵢ = -2γ·k·(xᵢ - xⱼ) = -∂k/∂xⱼ.
func (k *anchorKernel) PhiVJP(dv, dp []float64, _ float64, u, w []float64) {
	clear(dp)
	clear(dv)
	m, n := k.m, k.n
	d := m * n
	for i := range m {
		xi := u[i*n : (i+1)*n]
		for j := i + 1; j < m; j++ {
			xj := u[j*n : (j+1)*n]
			var wij float64
			for _, v := range w[j*d+i*n : j*d+(i+1)*n] {
				wij += v
			}
			for _, v := range w[i*d+j*n : i*d+(j+1)*n] {
				wij += v
			}
			g := -2 * k.gamma * gaussian(k.gamma, xi, xj) * wij
			dvi, dvj := dv[i*n:(i+1)*n], dv[j*n:(j+1)*n]
			for r, a := range xi {
				e := g * (a - xj[r])
				dvi[r] += e
				dvj[r] -= e
			}
		}
	}
}

// CoefVJP sets dp[j, k, r] = bₖ(t)·Σᵢ w[(i·n+r)·m + j].
func (k *anchorKernel) CoefVJP(dp []float64, t float64, w []float64) {
	m, n := k.m, k.n
	s := k.c // m·n scratch: s[j*n+r] = Σᵢ w[(i·n+r)·m + j]
	clear(s)
	for i := range m {
		for r := range n {
			row := w[(i*n+r)*m : (i*n+r+1)*m]
			for j, v := range row {
				s[j*n+r] += v
			}
		}
	}
	basis := k.s.basisAt(k.basis, t)
	nb := len(basis)
	for kk, ck := range basis {
		for j := range m {
			dst := dp[(j*nb+kk)*n : (j*nb+kk+1)*n]
			for r, v := range s[j*n : (j+1)*n] {
				dst[r] = ck * v
			}
		}
	}
}

// queryKernel is the kernel of eq. 10 for new inputs, one state u ∈ ℝⁿ
// per member of a batch, with the anchors' trajectories given:
// φ(t, s, v) = Σⱼ k(v, xⱼ(s))·cⱼ(t), m scalar terms with the MatVec
// product, C(t) = [c₁(t) … cₘ(t)] ∈ ℝⁿˣᵐ. It has no parameters: the
// gradient it serves is that with respect to the free term.
type queryKernel struct {
	m, n        int
	gamma       float64
	coef        []float64
	anchors     *Trajectory
	c, basis, x []float64
	cache       coefByTime
}

func newQueryKernel(tr *Trajectory) *queryKernel {
	s := tr.s
	k := &queryKernel{m: s.Anchors, n: s.Dim, gamma: s.gamma(), coef: tr.coef, anchors: tr,
		c: make([]float64, s.Anchors*s.Dim), basis: make([]float64, s.Basis()), x: make([]float64, s.Anchors*s.Dim)}
	k.cache = newCoefByTime(func(dst []float64, t float64) { matVecCoef(dst, k.c, k.coef, k.m, k.n, tr.s.basisAt(k.basis, t)) })
	return k
}

func (k *queryKernel) Dim() int                  { return k.n }
func (k *queryKernel) Terms() int                { return k.m }
func (k *queryKernel) TermDim() int              { return 1 }
func (k *queryKernel) Product() volterra.Product { return volterra.MatVec }

func (k *queryKernel) Phi(dst []float64, s float64, v []float64) {
	x := k.anchors.at(k.x, s)
	for j := range k.m {
		dst[j] = gaussian(k.gamma, v, x[j*k.n:(j+1)*k.n])
	}
}

func (k *queryKernel) Coef(dst []float64, t float64) { k.cache.get(dst, t) }

// matVecCoef sets the C(t) of the MatVec product, C[r·m + j] = cⱼ(t)[r],
// given the basis functions at t, with c (m·n entries) as scratch.
func matVecCoef(dst, c, coef []float64, m, n int, basis []float64) {
	coefAt(c, coef, m, n, basis)
	for r := range n {
		for j := range m {
			dst[r*m+j] = c[j*n+r]
		}
	}
}

func (k *queryKernel) NumParams() int { return 0 }

func (k *queryKernel) PhiVJP(dv, _ []float64, s float64, v, w []float64) {
	x := k.anchors.at(k.x, s)
	clear(dv)
	for j := range k.m {
		xj := x[j*k.n : (j+1)*k.n]
		g := -2 * k.gamma * gaussian(k.gamma, v, xj) * w[j]
		for r, a := range v {
			dv[r] += g * (a - xj[r])
		}
	}
}

func (k *queryKernel) CoefVJP([]float64, float64, []float64) {}
