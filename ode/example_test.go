package ode_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/optim"
)

func ExampleDormandPrince() {
	// The harmonic oscillator y'' = -y as a first order system.
	sys := ode.Func{N: 2, F: func(dst []float64, _ float64, y []float64) {
		dst[0] = y[1]
		dst[1] = -y[0]
	}}
	sol, err := ode.DormandPrince(sys, []float64{1, 0}, []float64{0, 1, 2}, ode.Settings{RTol: 1e-10, ATol: 1e-10})
	if err != nil {
		log.Fatal(err)
	}
	for k, t := range sol.T {
		fmt.Printf("y(%g) = (%.6f, %.6f)\n", t, sol.Y[2*k], sol.Y[2*k+1])
	}
	// Between the output times, the continuous extension.
	y := sol.At(nil, math.Pi/3)
	fmt.Printf("y(π/3) = (%.6f, %.6f)\n", y[0], y[1])
	// Output:
	// y(0) = (1.000000, 0.000000)
	// y(1) = (0.540302, -0.841471)
	// y(2) = (-0.416147, -0.909297)
	// y(π/3) = (0.500000, -0.866025)
}

func ExampleRK4() {
	// Exponential decay on a grid of 100 steps.
	sys := ode.Func{N: 1, F: func(dst []float64, _ float64, y []float64) { dst[0] = -y[0] }}
	ts := make([]float64, 101)
	for i := range ts {
		ts[i] = float64(i) / 100
	}
	sol, err := ode.RK4(sys, []float64{1}, ts, ode.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("y(1) = %.8f, e⁻¹ = %.8f\n", sol.Y[100], math.Exp(-1))
	// Output:
	// y(1) = 0.36787944, e⁻¹ = 0.36787944
}

// decay is y' = -p·y with its single parameter p.
type decay struct{ p float64 }

func (d *decay) Dim() int                                    { return 1 }
func (d *decay) NumParams() int                              { return 1 }
func (d *decay) Deriv(dst []float64, _ float64, y []float64) { dst[0] = -d.p * y[0] }
func (d *decay) VJP(dy, dp []float64, _ float64, y, v []float64) {
	dy[0] = -d.p * v[0]
	dp[0] = -y[0] * v[0]
}

func ExampleSolution_Gradient() {
	// L = y(1) for y' = -p·y, y(0) = y₀, so that y(1) = y₀e⁻ᵖ,
	// dL/dy₀ = e⁻ᵖ and dL/dp = -y₀e⁻ᵖ.
	sys := &decay{p: 0.5}
	sol, err := ode.DormandPrince(sys, []float64{2}, []float64{0, 1}, ode.Settings{RTol: 1e-10})
	if err != nil {
		log.Fatal(err)
	}
	dY := []float64{0, 1} // ∂L/∂y(0), ∂L/∂y(1)
	for _, m := range []ode.GradMethod{ode.Backprop, ode.Adjoint} {
		dy0, dp := make([]float64, 1), make([]float64, 1)
		if err := sol.Gradient(dy0, dp, dY, m); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8s dL/dy0 = %.6f, dL/dp = %.6f\n", m, dy0[0], dp[0])
	}
	fmt.Printf("exact    dL/dy0 = %.6f, dL/dp = %.6f\n", math.Exp(-0.5), -2*math.Exp(-0.5))
	// Output:
	// backprop dL/dy0 = 0.606531, dL/dp = -1.213061
	// adjoint  dL/dy0 = 0.606531, dL/dp = -1.213061
	// exact    dL/dy0 = 0.606531, dL/dp = -1.213061
}

// A neural ODE y' = W₂·tanh(W₁·y + b₁) fitted to a trajectory of a damped
// rotation with L-BFGS. The right-hand side is written with the
// operations of package ad, which supplies the VJPs that Gradient needs.
func ExampleNewGraphSystem() {
	const n, h = 2, 8
	ts := make([]float64, 31)
	for i := range ts {
		ts[i] = float64(i) / 10
	}
	y0 := []float64{1, 0}
	truth, err := ode.RK4(ode.Func{N: n, F: func(dst []float64, _ float64, y []float64) {
		dst[0] = -0.1*y[0] + y[1]
		dst[1] = -y[0] - 0.1*y[1]
	}}, y0, ts, ode.Settings{})

	if err != nil {
		log.Fatal(err)
	}

	// θ holds W₁ (h×n, row by row), b₁ and W₂ (n×h).
	theta := make([]float64, h*n+h+n*h)
	rnd := rand.New(rand.NewPCG(1, 1))
	for i := range theta {
		theta[i] = 0.5 * rnd.NormFloat64()
	}
	sys := ode.NewGraphSystem(n, theta, func(g *ad.Graph[float64], _, y, theta *ad.Node[float64]) *ad.Node[float64] {
		w1 := g.Reshape(g.RowBlock(theta, 0, h*n), h, n)
		b1 := g.RowBlock(theta, h*n, h*n+h)
		w2 := g.Reshape(g.RowBlock(theta, h*n+h, h*n+h+n*h), n, h)
		// The state y is a row, so W₁y is y W₁ᵀ.
		hidden := g.Tanh(g.AddRow(g.MatMul(y, w1, false, true), g.Reshape(b1, 1, h)))
		return g.MatMul(hidden, w2, false, true)
	})

	// The loss is half the squared distance to the trajectory; the system
	// reads θ, so the loss writes the optimiser's x there.
	dY := make([]float64, len(truth.Y))
	loss := func(x, grad []float64) float64 {
		copy(theta, x)
		sol, err := ode.RK4(sys, y0, ts, ode.Settings{})
		if err != nil {
			return math.Inf(1)
		}
		var l float64
		for i, y := range sol.Y {
			dY[i] = y - truth.Y[i]
			l += dY[i] * dY[i] / 2
		}
		if err := sol.Gradient(nil, grad, dY, ode.Backprop); err != nil {
			return math.Inf(1)
		}
		return l
	}
	x0 := slices.Clone(theta)
	fmt.Printf("loss before: %.3f\n", loss(x0, make([]float64, len(x0))))
	res, err := optim.Minimize(loss, x0, optim.Settings{MaxIter: 100})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("loss after the fit below 1e-4: %v\n", res.Loss < 1e-4)
	copy(theta, res.X)
	fit, err := ode.RK4(sys, y0, ts, ode.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	var worst float64
	for i, y := range fit.Y {
		worst = max(worst, math.Abs(y-truth.Y[i]))
	}
	fmt.Printf("largest deviation from the trajectory below 0.01: %v\n", worst < 0.01)
	// Output:
	// loss before: 12.237
	// loss after the fit below 1e-4: true
	// largest deviation from the trajectory below 0.01: true
}
