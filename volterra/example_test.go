package volterra_test

import (
	"fmt"
	"log"
	"math"

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
		sol, err := volterra.Solve(eq, steps, nil)
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
	sol, err := volterra.SolveSeparable(eq, 100, nil)
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
