package volterra_test

import (
	"fmt"
	"log"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/volterra"
)

func ExampleSolve() {
	// u(t) = 1 + ∫₀ᵗ u(s) ds, whose solution is eᵗ.
	eq := &volterra.Equation{
		T0: 0, T: 1,
		Psi:    volterra.Const{1},
		Kernel: volterra.KernelFunc{N: 1, F: func(dst []float64, _, _ float64, u []float64) { dst[0] = u[0] }},
	}
	for _, steps := range []int{10, 100, 1000} {
		sol, err := volterra.Solve(eq, steps, volterra.Settings{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("steps=%d: u(1) = %.7f, error %.1e\n", steps, sol.U[steps], math.Abs(sol.U[steps]-math.E))
	}
	// Output:
	// steps=10: u(1) = 2.7205514, error 2.3e-03
	// steps=100: u(1) = 2.7183045, error 2.3e-05
	// steps=1000: u(1) = 2.7182821, error 2.3e-07
}

// cosKernel is -(t - s)·v written separably as (-t)·v + 1·(s·v): two scalar
// terms φ₁ = v, φ₂ = s·v with coefficients c₁(t) = -t, c₂(t) = 1.
type cosKernel struct{}

func (cosKernel) Dim() int                  { return 1 }
func (cosKernel) Terms() int                { return 2 }
func (cosKernel) TermDim() int              { return 1 }
func (cosKernel) Product() volterra.Product { return volterra.MatVec }
func (cosKernel) Phi(dst []float64, s float64, v []float64) {
	dst[0] = v[0]
	dst[1] = s * v[0]
}
func (cosKernel) Coef(dst []float64, t float64) {
	dst[0] = -t // row 0, column 0: c₁(t)
	dst[1] = 1  // row 0, column 1: c₂(t)
}

func ExampleSolveSeparable() {
	// u(t) = 1 - ∫₀ᵗ (t - s)·u(s) ds, whose solution is cos t, through
	// the ODE of Theorem 5.
	eq := &volterra.SeparableEquation{T0: 0, T: 2, Psi: volterra.Const{1}, Kernel: cosKernel{}}
	sol, err := volterra.SolveSeparable(eq, 100, volterra.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i <= 100; i += 25 {
		fmt.Printf("u(%.1f) = %.6f, cos = %.6f\n", sol.T[i], sol.U[i], math.Cos(sol.T[i]))
	}
	// Output:
	// u(0.0) = 1.000000, cos = 1.000000
	// u(0.5) = 0.877583, cos = 0.877583
	// u(1.0) = 0.540302, cos = 0.540302
	// u(1.5) = 0.070737, cos = 0.070737
	// u(2.0) = -0.416147, cos = -0.416147
}

// Fitting the kernel φ(t, s, u) = -θ·(t - s)·u of
// u(t) = 1 - ∫₀ᵗ θ·(t - s)·u(s) ds, whose solution is cos(√θ·t), to samples
// of cos t. The kernel is written with the operations of package ad,
// which supplies the VJPs that Gradient needs.
func ExampleNewGraphKernel() {
	const steps = 100
	theta := []float64{0.5}
	eq := &volterra.Equation{
		T0: 0, T: 3,
		Psi: volterra.Const{1},
		Kernel: volterra.NewGraphKernel(1, theta, func(g *ad.Graph[float64], t, s, u, theta *ad.Node[float64]) *ad.Node[float64] {
			return g.Scale(g.Mul(g.Mul(theta, g.Sub(t, s)), u), -1)
		}),
	}
	du := make([]float64, steps+1)
	loss := func(x, grad []float64) float64 {
		copy(theta, x)
		sol, err := volterra.Solve(eq, steps, volterra.Settings{})
		if err != nil {
			return math.Inf(1)
		}
		var l float64
		for i, u := range sol.U {
			du[i] = u - math.Cos(sol.T[i])
			l += du[i] * du[i] / 2
		}
		if err := sol.Gradient(nil, grad, du); err != nil {
			return math.Inf(1)
		}
		return l
	}
	fmt.Printf("θ = 0.5: loss %.4f\n", loss([]float64{0.5}, make([]float64, 1)))
	res, err := optim.Minimize(loss, []float64{0.5}, optim.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fitted θ = %.3f, loss below 1e-4: %v\n", res.X[0], res.Loss < 1e-4)
	// Output:
	// θ = 0.5: loss 8.7828
	// fitted θ = 1.000, loss below 1e-4: true
}

// The separable kernel φ(t, s, v) = θ·e^{-(t-s)}·v = e⁻ᵗ·(θ·eˢ·v), one
// term Φ(s, v) = θ·eˢ·v with the coefficient C(t) = e⁻ᵗ, written with the
// operations of package ad. For θ = 2 the solution of
// u(t) = 1 + ∫₀ᵗ φ(t, s, u(s)) ds is 2eᵗ - 1, and du(1)/dθ = e + 1.
func ExampleNewGraphSeparable() {
	theta := []float64{2}
	k := volterra.NewGraphSeparable(volterra.SeparableGraph{
		Dim: 1, Terms: 1, TermDim: 1, Product: volterra.MatVec,
		Phi: func(g *ad.Graph[float64], s, v, theta *ad.Node[float64]) *ad.Node[float64] {
			return g.Mul(g.Mul(theta, g.Exp(s)), v)
		},
		Coef: func(g *ad.Graph[float64], t, _ *ad.Node[float64]) *ad.Node[float64] {
			return g.Exp(g.Scale(t, -1))
		},
	}, theta)
	sol, err := volterra.SolveSeparable(&volterra.SeparableEquation{T0: 0, T: 1, Psi: volterra.Const{1}, Kernel: k}, 100, volterra.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	du := make([]float64, len(sol.U))
	du[100] = 1 // L = u(1)
	dp := make([]float64, 1)
	if err := sol.Gradient(nil, dp, du); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("u(1) = %.6f, 2e - 1 = %.6f\n", sol.U[100], 2*math.E-1)
	fmt.Printf("du(1)/dθ = %.6f, e + 1 = %.6f\n", dp[0], math.E+1)
	// Output:
	// u(1) = 4.436564, 2e - 1 = 4.436564
	// du(1)/dθ = 3.718282, e + 1 = 3.718282
}
