package volterra

import (
	"math"
	"math/rand/v2"
)

// benchSolver returns a function solving the equation of
// TestBenchAccuracy and the benchmarks, of dimension 4 with 4 terms on
// [0, 1], with the chosen solver on a grid of the given size: Solve
// (the trapezoidal rule) or SolveSeparable (RK4 on the ODE of Theorem
// 5). The kernel has the shape of the infinite-depth kernel machine.
func benchSolver(fast bool) func(steps int) (*Solution, error) {
	k := newTanhKernel(4, 4, 1)
	psi := ForcingFunc(func(dst []float64, t float64) {
		for r := range dst {
			dst[r] = math.Sin(t + float64(r))
		}
	})
	if fast {
		eq := &SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: k}
		return func(steps int) (*Solution, error) { return SolveSeparable(eq, steps, Settings{}) }
	}
	eq := &Equation{T0: 0, T: 1, Psi: psi, Kernel: &SeparableKernel{Separable: k}}
	return func(steps int) (*Solution, error) { return Solve(eq, steps, Settings{}) }
}

// tanhKernel is the separable kernel with m scalar terms (MatVec, d = 1)
//
//	φⱼ(s, v) = tanh(Aⱼ·v + bⱼ + s),  cⱼ(t) = Pⱼ + Qⱼ·cos(πt),
//
// for A ∈ ℝᵐˣⁿ, b ∈ ℝᵐ and P, Q ∈ ℝⁿˣᵐ (column j being cⱼ's), with the
// parameters stored in that order in p.
type tanhKernel struct {
	n, m int
	p    []float64
}

func newTanhKernel(n, m int, seed uint64) *tanhKernel {
	rnd := rand.New(rand.NewPCG(seed, seed))
	k := &tanhKernel{n: n, m: m, p: make([]float64, m*n+m+2*n*m)}
	for i := range k.p {
		k.p[i] = 0.5 * rnd.NormFloat64()
	}
	return k
}

func (k *tanhKernel) parts() (a, b, p, q []float64) {
	n, m := k.n, k.m
	a = k.p[:m*n]
	b = k.p[m*n : m*n+m]
	p = k.p[m*n+m : m*n+m+n*m]
	q = k.p[m*n+m+n*m:]
	return a, b, p, q
}

func (k *tanhKernel) Dim() int         { return k.n }
func (k *tanhKernel) Terms() int       { return k.m }
func (k *tanhKernel) TermDim() int     { return 1 }
func (k *tanhKernel) Product() Product { return MatVec }
func (k *tanhKernel) NumParams() int   { return len(k.p) }

func (k *tanhKernel) Phi(dst []float64, s float64, v []float64) {
	a, b, _, _ := k.parts()
	for j := range k.m {
		x := b[j] + s
		for r, vr := range v {
			x += a[j*k.n+r] * vr
		}
		dst[j] = math.Tanh(x)
	}
}

func (k *tanhKernel) Coef(dst []float64, t float64) {
	_, _, p, q := k.parts()
	c := math.Cos(math.Pi * t)
	for i := range dst {
		dst[i] = p[i] + q[i]*c
	}
}

func (k *tanhKernel) PhiVJP(dv, dp []float64, s float64, v, w []float64) {
	a, b, _, _ := k.parts()
	n := k.n
	clear(dv)
	clear(dp)
	da, db := dp[:k.m*n], dp[k.m*n:k.m*n+k.m]
	for j := range k.m {
		x := b[j] + s
		for r, vr := range v {
			x += a[j*n+r] * vr
		}
		y := math.Tanh(x)
		g := w[j] * (1 - y*y)
		db[j] = g
		for r, vr := range v {
			dv[r] += g * a[j*n+r]
			da[j*n+r] = g * vr
		}
	}
}

func (k *tanhKernel) CoefVJP(dp []float64, t float64, w []float64) {
	clear(dp)
	off := k.m*k.n + k.m
	c := math.Cos(math.Pi * t)
	for i, wi := range w {
		dp[off+i] = wi
		dp[off+len(w)+i] = wi * c
	}
}
