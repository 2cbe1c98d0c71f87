package volterra

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Workload is a timed unit of work for the machines bench command.
type Workload struct {
	// Name identifies the workload, for example "volterra-fast-1000".
	Name string
	// Unit names what one timing measures.
	Unit string
	// Setup prepares the data and returns the function that does one
	// unit of work.
	Setup func() (func(), error)
}

// BenchWorkloads returns the workloads that compare the two solvers on the
// same separable equation, of dimension 4 with 4 terms on [0, 1], solved
// on grids of 100 and 1000 intervals: volterra-general-N by Solve (the
// trapezoidal rule, N²/2 kernel evaluations, error O(N⁻²)) and
// volterra-fast-N by SolveSeparable (RK4 on the ODE of Theorem 5, 4N
// evaluations, error O(N⁻⁴)). The kernel has the shape of the
// infinite-depth kernel machine: scalar terms tanh(aⱼ·v + bⱼ + s) times
// vector coefficients cⱼ(t) given by two Fourier modes.
func BenchWorkloads() []Workload {
	var ws []Workload
	for _, fast := range []bool{false, true} {
		for _, steps := range []int{100, 1000} {
			name, unit := "volterra-general", "trapezoidal solve"
			if fast {
				name, unit = "volterra-fast", "RK4 solve of the Theorem 5 ODE"
			}
			ws = append(ws, Workload{
				Name: fmt.Sprintf("%s-%d", name, steps),
				Unit: fmt.Sprintf("%s, %d steps", unit, steps),
				Setup: func() (func(), error) {
					solve := benchSolver(fast)
					if _, err := solve(steps); err != nil {
						return nil, err
					}
					// The solve succeeded once on the same input; a later
					// failure would be a bug, not data.
					return func() {
						if _, err := solve(steps); err != nil {
							panic(err)
						}
					}, nil
				},
			})
		}
	}
	return ws
}

// benchSolver returns a function solving the benchmark equation with the
// chosen solver on a grid of the given size.
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
