package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/volterra"
)

// volterraWorkloads returns the workloads that compare the two solvers
// of package volterra on the same separable equation, of dimension 4
// with 4 terms on [0, 1], solved on grids of 100 and 1000 intervals:
// volterra-general-N by Solve (the trapezoidal rule, N²/2 kernel
// evaluations, error O(N⁻²)) and volterra-fast-N by SolveSeparable (RK4
// on the ODE of Theorem 5, 4N evaluations, error O(N⁻⁴)).
func volterraWorkloads() []Workload {
	var ws []Workload
	for _, fast := range []bool{false, true} {
		for _, steps := range []int{100, 1000} {
			name, unit := "volterra-general", "trapezoidal solve"
			if fast {
				name, unit = "volterra-fast", "RK4 solve of the Theorem 5 ODE"
			}
			ws = append(ws, Workload{
				Name: fmt.Sprintf("%s-%d", name, steps), Dtype: "float64",
				Unit: fmt.Sprintf("%s, %d steps", unit, steps),
				setup: func() (func(), error) {
					solve := volterraSolver(fast)
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

// volterraSolver returns a function solving the workloads' equation,
// u(t) = ψ(t) + ∫₀ᵗ Σⱼ cⱼ(t) φⱼ(s, u(s)) ds with ψᵣ(t) = sin(t + r), with
// the chosen solver on a grid of the given size.
func volterraSolver(fast bool) func(steps int) (*volterra.Solution, error) {
	k := newTanhTerms(4, 4, 1)
	psi := volterra.ForcingFunc(func(dst []float64, t float64) {
		for r := range dst {
			dst[r] = math.Sin(t + float64(r))
		}
	})
	if fast {
		eq := &volterra.SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: k}
		return func(steps int) (*volterra.Solution, error) {
			return volterra.SolveSeparable(eq, steps, volterra.Settings{})
		}
	}
	eq := &volterra.Equation{T0: 0, T: 1, Psi: psi, Kernel: &volterra.SeparableKernel{Separable: k}}
	return func(steps int) (*volterra.Solution, error) { return volterra.Solve(eq, steps, volterra.Settings{}) }
}

// tanhTerms is a separable kernel of the shape of the infinite-depth
// kernel machine's, with m scalar terms (MatVec, d = 1)
//
//	φⱼ(s, v) = tanh(Aⱼ·v + bⱼ + s),  cⱼ(t) = Pⱼ + Qⱼ·cos(πt),
//
// for A ∈ ℝᵐˣⁿ, b ∈ ℝᵐ and P, Q ∈ ℝⁿˣᵐ (column j being cⱼ's), drawn from
// a normal distribution of deviation 0.5 in that order.
type tanhTerms struct {
	n, m       int
	a, b, p, q []float64
}

func newTanhTerms(n, m int, seed uint64) *tanhTerms {
	rnd := rand.New(rand.NewPCG(seed, seed))
	draw := func(k int) []float64 {
		x := make([]float64, k)
		for i := range x {
			x[i] = 0.5 * rnd.NormFloat64()
		}
		return x
	}
	return &tanhTerms{n: n, m: m, a: draw(m * n), b: draw(m), p: draw(n * m), q: draw(n * m)}
}

func (k *tanhTerms) Dim() int                  { return k.n }
func (k *tanhTerms) Terms() int                { return k.m }
func (k *tanhTerms) TermDim() int              { return 1 }
func (k *tanhTerms) Product() volterra.Product { return volterra.MatVec }

func (k *tanhTerms) Phi(dst []float64, s float64, v []float64) {
	for j := range k.m {
		x := k.b[j] + s
		for r, vr := range v {
			x += k.a[j*k.n+r] * vr
		}
		dst[j] = math.Tanh(x)
	}
}

func (k *tanhTerms) Coef(dst []float64, t float64) {
	c := math.Cos(math.Pi * t)
	for i := range dst {
		dst[i] = k.p[i] + k.q[i]*c
	}
}
