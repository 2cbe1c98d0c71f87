package volterra

import (
	"math"
	"testing"

	"github.com/parametric-machines/machines"
	"gonum.org/v1/gonum/mat"
)

// TestStableStateOfFramework checks that Solve computes the stable state,
// in the sense of the root package, of the Volterra machine on the grid:
// the space holds the states at every grid point side by side, g is the
// forcing ψ there, and f(U)ᵢ is the trapezoidal integral
// h·[½φ(tᵢ, t₀, u₀) + Σ_{0<k<i} φ(tᵢ, tₖ, uₖ) + ½φ(tᵢ, tᵢ, uᵢ)], with
// f(U)₀ = 0. The machine is a contraction, whose stable state the root
// package's plain iteration finds without knowing anything of the
// solver's point-by-point fixed points.
func TestStableStateOfFramework(t *testing.T) {
	const n, steps, t1 = 2, 20, 1.5
	phi := func(dst []float64, t, s float64, u []float64) {
		dst[0] = math.Exp(s-t) * math.Tanh(u[1])
		dst[1] = -0.8*u[0] + 0.3*math.Sin(t*s)
	}
	psi := func(dst []float64, t float64) { dst[0], dst[1] = 1+0.5*t, math.Cos(t) }
	eq := &Equation{T0: 0, T: t1, Psi: ForcingFunc(psi), Kernel: KernelFunc{N: n, F: phi}}
	sol, err := Solve(eq, steps, Settings{})
	if err != nil {
		t.Fatal(err)
	}

	ts := sol.T
	h := ts[1] - ts[0]
	size := n * len(ts)
	g := mat.NewDense(1, size, nil) // one sample: the whole trajectory
	for i, ti := range ts {
		psi(g.RawRowView(0)[i*n:(i+1)*n], ti)
	}
	f := machines.Func(func(dst, u *mat.Dense) {
		dst.Zero()
		v, out := u.RawRowView(0), dst.RawRowView(0)
		val := make([]float64, n)
		for i := 1; i < len(ts); i++ {
			for k := 0; k <= i; k++ {
				phi(val, ts[i], ts[k], v[k*n:(k+1)*n])
				w := h
				if k == 0 || k == i {
					w = h / 2
				}
				for r := range n {
					out[i*n+r] += w * val[r]
				}
			}
		}
	})
	var u mat.Dense
	res, err := machines.Iterate(&u, f, g, machines.Settings{Tol: 1e-13, MaxIter: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth < 2 {
		t.Errorf("depth %d: the machine should need several iterations", res.Depth)
	}
	for i := range size {
		if got, want := sol.U[i], u.At(0, i); math.Abs(got-want) > 1e-10 {
			t.Errorf("point %d coordinate %d: Solve %v, stable state %v", i/n, i%n, got, want)
		}
	}
}
