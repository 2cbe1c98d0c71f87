package volterra

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/ode"
	"gonum.org/v1/gonum/floats/scalar"
)

// tanhDecay is the non-separable kernel
// φ(t, s, v) = p₀·e^{-p₁(t-s)}·tanh(v) + p₂·tanh(t·s)·v, written by hand.
type tanhDecay struct {
	n int
	p []float64
}

func (k *tanhDecay) Dim() int       { return k.n }
func (k *tanhDecay) NumParams() int { return 3 }
func (k *tanhDecay) Eval(dst []float64, t, s float64, u []float64) {
	e := k.p[0] * math.Exp(-k.p[1]*(t-s))
	a := k.p[2] * math.Tanh(t*s)
	for r, v := range u {
		dst[r] = e*math.Tanh(v) + a*v
	}
}
func (k *tanhDecay) VJP(du, dp []float64, t, s float64, u, w []float64) {
	ex := math.Exp(-k.p[1] * (t - s))
	ts := math.Tanh(t * s)
	clear(dp)
	for r, v := range u {
		th := math.Tanh(v)
		du[r] = w[r] * (k.p[0]*ex*(1-th*th) + k.p[2]*ts)
		dp[0] += w[r] * ex * th
		dp[1] -= w[r] * k.p[0] * ex * th * (t - s)
		dp[2] += w[r] * ts * v
	}
}

// tanhDecayGraph builds the same kernel with the operations of the
// engine.
func tanhDecayGraph(g *ad.Graph[float64], t, s, u, theta *ad.Node[float64]) *ad.Node[float64] {
	p0, p1, p2 := g.RowBlock(theta, 0, 1), g.RowBlock(theta, 1, 2), g.RowBlock(theta, 2, 3)
	e := g.Mul(p0, g.Exp(g.Scale(g.Mul(p1, g.Sub(t, s)), -1)))
	a := g.Mul(p2, g.Tanh(g.Mul(t, s)))
	return g.Add(g.MatMul(e, g.Tanh(u), false, false), g.MatMul(a, u, false, false))
}

// expCoefKernel is the separable kernel of tanhKernel with the
// coefficients cⱼ(t) = Pⱼ + Qⱼ·e⁻ᵗ, which the engine can express.
type expCoefKernel struct{ *tanhKernel }

func (k expCoefKernel) Coef(dst []float64, t float64) {
	_, _, p, q := k.parts()
	e := math.Exp(-t)
	for i := range dst {
		dst[i] = p[i] + q[i]*e
	}
}

func (k expCoefKernel) CoefVJP(dp []float64, t float64, w []float64) {
	clear(dp)
	off := k.m*k.n + k.m
	e := math.Exp(-t)
	for i, wi := range w {
		dp[off+i] = wi
		dp[off+len(w)+i] = wi * e
	}
}

// tanhTermsGraph describes, for the engine, the separable kernel with
// the terms tanh(A·v + b + s) ∈ ℝᵐᵈ and the coefficients P + Q·e⁻ᵗ, the
// parameters being A (m·d×n, row by row), b, P and Q (n×cols, cols = m·d
// for MatVec and m for Elementwise) in that order. With MatVec and d = 1
// it is expCoefKernel.
func tanhTermsGraph(n, m, d int, prod Product) SeparableGraph {
	md := m * d
	cols := md
	if prod == Elementwise {
		cols = m
	}
	return SeparableGraph{
		Dim: n, Terms: m, TermDim: d, Product: prod,
		Phi: func(g *ad.Graph[float64], s, v, theta *ad.Node[float64]) *ad.Node[float64] {
			a := g.Reshape(g.RowBlock(theta, 0, md*n), md, n)
			b := g.RowBlock(theta, md*n, md*n+md)
			ones := ad.NewTensor[float64](1, md)
			for i := range ones.Data {
				ones.Data[i] = 1
			}
			shift := g.MatMul(s, g.Input(ones), false, false)
			// The state is a row: A·v is v Aᵀ.
			return g.Tanh(g.Add(g.AddRow(g.MatMul(v, a, false, true), g.Reshape(b, 1, md)), shift))
		},
		Coef: func(g *ad.Graph[float64], t, theta *ad.Node[float64]) *ad.Node[float64] {
			off := md*n + md
			p := g.Reshape(g.RowBlock(theta, off, off+n*cols), n, cols)
			q := g.RowBlock(theta, off+n*cols, off+2*n*cols)
			e := g.Exp(g.Scale(t, -1))
			return g.Add(p, g.Reshape(g.MatMul(q, e, false, false), n, cols))
		},
	}
}

// tanhTermsParams returns the number of parameters of tanhTermsGraph.
func tanhTermsParams(n, m, d int, prod Product) int {
	cols := m * d
	if prod == Elementwise {
		cols = m
	}
	return m*d*n + m*d + 2*n*cols
}

// randVec returns k values drawn from N(0, scale²).
func randVec(rnd *rand.Rand, k int, scale float64) []float64 {
	p := make([]float64, k)
	for i := range p {
		p[i] = scale * rnd.NormFloat64()
	}
	return p
}

// checkClose reports the entries of got that differ from want by more
// than tol, absolutely or relatively.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], tol, tol) {
			t.Errorf("%s[%d] = %v, hand-written %v", what, i, got[i], want[i])
		}
	}
}

// TestGraphKernelMatchesHandWritten checks that the engine-derived
// kernel gives the values and VJPs of the hand-written one, and then the
// same solution and gradients: a mistake in recording, replaying or
// seeding the graph shows up here.
func TestGraphKernelMatchesHandWritten(t *testing.T) {
	const n = 3
	theta := []float64{0.8, 0.5, 0.3}
	hand := &tanhDecay{n: n, p: theta}
	graph := NewGraphKernel(n, theta, tanhDecayGraph)
	if graph.Dim() != n || graph.NumParams() != 3 {
		t.Fatalf("Dim %d, NumParams %d; want %d, 3", graph.Dim(), graph.NumParams(), n)
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	for range 5 {
		tt, s := 2*rnd.Float64(), 2*rnd.Float64()
		u, w := randVec(rnd, n, 1), randVec(rnd, n, 1)
		want, got := make([]float64, n), make([]float64, n)
		hand.Eval(want, tt, s, u)
		graph.Eval(got, tt, s, u)
		checkClose(t, "φ", got, want, 1e-12)
		wdu, wdp, gdu, gdp := make([]float64, n), make([]float64, 3), make([]float64, n), make([]float64, 3)
		hand.VJP(wdu, wdp, tt, s, u, w)
		graph.VJP(gdu, gdp, tt, s, u, w)
		checkClose(t, "du", gdu, wdu, 1e-12)
		checkClose(t, "dp", gdp, wdp, 1e-12)
	}

	psi := Const{0.2, -0.5, 1}
	want, err := Solve(&Equation{T0: 0, T: 2, Psi: psi, Kernel: hand}, 20, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Solve(&Equation{T0: 0, T: 2, Psi: psi, Kernel: graph}, 20, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "U", got.U, want.U, 1e-12)
	du := lossGrad(want.U, n)
	wdq, wdp, gdq, gdp := make([]float64, n), make([]float64, 3), make([]float64, n), make([]float64, 3)
	if err := want.Gradient(wdq, wdp, du); err != nil {
		t.Fatal(err)
	}
	if err := got.Gradient(gdq, gdp, du); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "dL/dψ", gdq, wdq, 1e-10)
	checkClose(t, "dL/dθ", gdp, wdp, 1e-10)
}

// TestGraphSeparableMatchesHandWritten does the same for a separable
// kernel, through the fast solver with both ODE methods and both
// gradient methods, and through the general solver.
func TestGraphSeparableMatchesHandWritten(t *testing.T) {
	const n, m = 3, 2
	hand := expCoefKernel{newTanhKernel(n, m, 3)}
	theta := hand.p
	graph := NewGraphSeparable(tanhTermsGraph(n, m, 1, MatVec), theta)
	if graph.Dim() != n || graph.Terms() != m || graph.TermDim() != 1 || graph.Product() != MatVec || graph.NumParams() != len(theta) {
		t.Fatalf("Dim %d, Terms %d, TermDim %d, Product %v, NumParams %d; want %d, %d, 1, matvec, %d",
			graph.Dim(), graph.Terms(), graph.TermDim(), graph.Product(), graph.NumParams(), n, m, len(theta))
	}
	rnd := rand.New(rand.NewPCG(2, 2))
	np := len(theta)
	for range 5 {
		tt := 2 * rnd.Float64()
		v, w, wc := randVec(rnd, n, 1), randVec(rnd, m, 1), randVec(rnd, n*m, 1)
		want, got := make([]float64, m), make([]float64, m)
		hand.Phi(want, tt, v)
		graph.Phi(got, tt, v)
		checkClose(t, "Φ", got, want, 1e-12)
		wantC, gotC := make([]float64, n*m), make([]float64, n*m)
		hand.Coef(wantC, tt)
		graph.Coef(gotC, tt)
		checkClose(t, "C", gotC, wantC, 1e-12)
		wdv, wdp, gdv, gdp := make([]float64, n), make([]float64, np), make([]float64, n), make([]float64, np)
		hand.PhiVJP(wdv, wdp, tt, v, w)
		graph.PhiVJP(gdv, gdp, tt, v, w)
		checkClose(t, "PhiVJP dv", gdv, wdv, 1e-12)
		checkClose(t, "PhiVJP dp", gdp, wdp, 1e-12)
		hand.CoefVJP(wdp, tt, wc)
		graph.CoefVJP(gdp, tt, wc)
		checkClose(t, "CoefVJP dp", gdp, wdp, 1e-12)
	}

	psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
	for _, tc := range []struct {
		name  string
		solve func(k Separable) (*Solution, error)
	}{
		{"general", func(k Separable) (*Solution, error) {
			return Solve(&Equation{T0: 0.5, T: 2, Psi: psi, Kernel: &SeparableKernel{Separable: k}}, 20, Settings{})
		}},
		{"fast/RK4/backprop", func(k Separable) (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}, 20, Settings{})
		}},
		{"fast/RK4/adjoint", func(k Separable) (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}, 20, Settings{Grad: ode.Adjoint})
		}},
		{"fast/DormandPrince/backprop", func(k Separable) (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}, 10, Settings{ODE: &ode.Settings{RTol: 1e-9}})
		}},
		{"fast/DormandPrince/adjoint", func(k Separable) (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}, 10, Settings{ODE: &ode.Settings{RTol: 1e-9}, Grad: ode.Adjoint})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.solve(hand)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.solve(graph)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "U", got.U, want.U, 1e-12)
			du := lossGrad(want.U, n)
			wdq, wdp := make([]float64, len(psi.q)), make([]float64, np)
			gdq, gdp := make([]float64, len(psi.q)), make([]float64, np)
			if err := want.Gradient(wdq, wdp, du); err != nil {
				t.Fatal(err)
			}
			if err := got.Gradient(gdq, gdp, du); err != nil {
				t.Fatal(err)
			}
			checkClose(t, "dL/dψ", gdq, wdq, 1e-10)
			checkClose(t, "dL/dθ", gdp, wdp, 1e-10)
		})
	}
}

// TestGraphGradient checks the gradients of a loss of the solution with
// respect to the engine-written kernels' parameters, and those of the
// free term, against central finite differences that change θ in place:
// a wrong derivative or a kernel that does not read the current θ fails.
// The elementwise case has no hand-written counterpart.
func TestGraphGradient(t *testing.T) {
	const n = 2
	rnd := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		name  string
		build func() (solve func() (*Solution, error), p []float64)
		tol   float64
	}{
		{"general/kernel", func() (func() (*Solution, error), []float64) {
			theta := []float64{0.8, 0.5, 0.3}
			eq := &Equation{T0: 0, T: 2, Psi: &linearForcing{q: []float64{0.2, -0.5, 0.3, 0.1}}, Kernel: NewGraphKernel(n, theta, tanhDecayGraph)}
			return func() (*Solution, error) { return Solve(eq, 20, Settings{}) }, theta
		}, 1e-7},
		{"general/separable", func() (func() (*Solution, error), []float64) {
			theta := randVec(rnd, tanhTermsParams(n, 3, 1, MatVec), 0.5)
			k := &SeparableKernel{Separable: NewGraphSeparable(tanhTermsGraph(n, 3, 1, MatVec), theta)}
			eq := &Equation{T0: 0, T: 1.5, Psi: &linearForcing{q: []float64{0.2, -0.5, 0.3, 0.1}}, Kernel: k}
			return func() (*Solution, error) { return Solve(eq, 20, Settings{}) }, theta
		}, 1e-7},
		{"fast/matvec/RK4/backprop", func() (func() (*Solution, error), []float64) {
			theta := randVec(rnd, tanhTermsParams(n, 2, 2, MatVec), 0.5)
			eq := &SeparableEquation{T0: 0, T: 1.5, Psi: &linearForcing{q: []float64{0.2, -0.5, 0.3, 0.1}}, Kernel: NewGraphSeparable(tanhTermsGraph(n, 2, 2, MatVec), theta)}
			return func() (*Solution, error) { return SolveSeparable(eq, 20, Settings{}) }, theta
		}, 1e-7},
		{"fast/elementwise/RK4/backprop", func() (func() (*Solution, error), []float64) {
			theta := randVec(rnd, tanhTermsParams(n, 2, n, Elementwise), 0.5)
			eq := &SeparableEquation{T0: 0, T: 1.5, Psi: &linearForcing{q: []float64{0.2, -0.5, 0.3, 0.1}}, Kernel: NewGraphSeparable(tanhTermsGraph(n, 2, n, Elementwise), theta)}
			return func() (*Solution, error) { return SolveSeparable(eq, 20, Settings{}) }, theta
		}, 1e-7},
		// The adjoint approximates the gradient of the exact solution.
		{"fast/elementwise/RK4/adjoint", func() (func() (*Solution, error), []float64) {
			theta := randVec(rnd, tanhTermsParams(n, 2, n, Elementwise), 0.5)
			eq := &SeparableEquation{T0: 0, T: 1.5, Psi: &linearForcing{q: []float64{0.2, -0.5, 0.3, 0.1}}, Kernel: NewGraphSeparable(tanhTermsGraph(n, 2, n, Elementwise), theta)}
			return func() (*Solution, error) { return SolveSeparable(eq, 200, Settings{Grad: ode.Adjoint}) }, theta
		}, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			solve, p := tc.build()
			sol, err := solve()
			if err != nil {
				t.Fatal(err)
			}
			dp := make([]float64, len(p))
			if err := sol.Gradient(nil, dp, lossGrad(sol.U, n)); err != nil {
				t.Fatal(err)
			}
			p0 := append([]float64(nil), p...)
			f := func(x []float64) float64 {
				copy(p, x)
				defer copy(p, p0)
				sol, err := solve()
				if err != nil {
					t.Fatal(err)
				}
				return loss(sol.U, n)
			}
			testutil.CheckGradient(t, dp, f, p0, tc.tol)
		})
	}
}

// TestGraphAllocs checks that replaying the graphs allocates nothing:
// Solve calls the kernel steps²/2 times.
func TestGraphAllocs(t *testing.T) {
	const n, m = 3, 2
	rnd := rand.New(rand.NewPCG(4, 4))
	k := NewGraphKernel(n, []float64{0.8, 0.5, 0.3}, tanhDecayGraph)
	sep := NewGraphSeparable(tanhTermsGraph(n, m, 1, MatVec), randVec(rnd, tanhTermsParams(n, m, 1, MatVec), 0.5))
	u, w := randVec(rnd, n, 1), randVec(rnd, n, 1)
	dst, du, dp := make([]float64, n), make([]float64, n), make([]float64, sep.NumParams())
	phi, c, wc := make([]float64, m), make([]float64, n*m), randVec(rnd, n*m, 1)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"GraphKernel.Eval", func() { k.Eval(dst, 0.7, 0.2, u) }},
		{"GraphKernel.VJP", func() { k.VJP(du, dp[:3], 0.7, 0.2, u, w) }},
		{"GraphSeparable.Phi", func() { sep.Phi(phi, 0.2, u) }},
		{"GraphSeparable.Coef", func() { sep.Coef(c, 0.7) }},
		{"GraphSeparable.PhiVJP", func() { sep.PhiVJP(du, dp, 0.2, u, w[:m]) }},
		{"GraphSeparable.CoefVJP", func() { sep.CoefVJP(dp, 0.7, wc) }},
	} {
		if a := testing.AllocsPerRun(100, tc.f); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", tc.name, a)
		}
	}
}

func TestGraphPanics(t *testing.T) {
	good := tanhTermsGraph(2, 2, 1, MatVec)
	theta := make([]float64, tanhTermsParams(2, 2, 1, MatVec))
	scalarOut := func(g *ad.Graph[float64], _, _, u, _ *ad.Node[float64]) *ad.Node[float64] { return g.Sum(u) }
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"kernel dimension", func() { NewGraphKernel(0, nil, scalarOut) }, "dimension 0"},
		{"kernel size", func() { NewGraphKernel(2, nil, scalarOut) }, "kernel of shape [1 1], want 2 elements"},
		{"kernel state", func() {
			NewGraphKernel(2, theta[:3], tanhDecayGraph).Eval(make([]float64, 2), 0, 0, make([]float64, 3))
		}, "state of length 3"},
		{"terms size", func() {
			k := good
			k.Terms = 3
			NewGraphSeparable(k, theta)
		}, "terms Φ of shape [1 2], want 3 elements"},
		{"coefficients size", func() {
			k := good
			k.Coef = func(g *ad.Graph[float64], t, _ *ad.Node[float64]) *ad.Node[float64] { return t }
			NewGraphSeparable(k, theta)
		}, "coefficients C(t) of shape [1 1], want 4 elements"},
		{"elementwise term dimension", func() {
			k := good
			k.Product = Elementwise
			NewGraphSeparable(k, theta)
		}, "elementwise product with TermDim 1"},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}

// BenchmarkGraphKernel compares the engine-derived kernels with the
// hand-written ones, per call and for a solve with its gradient.
func BenchmarkGraphKernel(b *testing.B) {
	const n = 4
	rnd := rand.New(rand.NewPCG(5, 5))
	u, w := randVec(rnd, n, 1), randVec(rnd, n, 1)
	du, dp := make([]float64, n), make([]float64, 3)
	psi := Const{0.2, -0.5, 1, 0.3}
	theta := []float64{0.8, 0.5, 0.3}
	for _, impl := range []struct {
		name string
		k    ParamKernel
	}{
		{"hand", &tanhDecay{n: n, p: theta}},
		{"graph", NewGraphKernel(n, theta, tanhDecayGraph)},
	} {
		b.Run("general/"+impl.name+"/VJP", func(b *testing.B) {
			for b.Loop() {
				impl.k.VJP(du, dp, 0.7, 0.2, u, w)
			}
		})
		b.Run("general/"+impl.name+"/solve+gradient/steps=100", func(b *testing.B) {
			eq := &Equation{T0: 0, T: 1, Psi: psi, Kernel: impl.k}
			for b.Loop() {
				sol, err := Solve(eq, 100, Settings{})
				if err != nil {
					b.Fatal(err)
				}
				if err := sol.Gradient(nil, dp, lossGrad(sol.U, n)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}

	const m = 4
	hand := expCoefKernel{newTanhKernel(n, m, 1)}
	sdp := make([]float64, len(hand.p))
	for _, impl := range []struct {
		name string
		k    ParamSeparable
	}{
		{"hand", hand},
		{"graph", NewGraphSeparable(tanhTermsGraph(n, m, 1, MatVec), hand.p)},
	} {
		b.Run("fast/"+impl.name+"/PhiVJP", func(b *testing.B) {
			for b.Loop() {
				impl.k.PhiVJP(du, sdp, 0.2, u, w)
			}
		})
		b.Run(fmt.Sprintf("fast/%s/solve+gradient/steps=1000", impl.name), func(b *testing.B) {
			eq := &SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: impl.k}
			for b.Loop() {
				sol, err := SolveSeparable(eq, 1000, Settings{})
				if err != nil {
					b.Fatal(err)
				}
				if err := sol.Gradient(nil, sdp, lossGrad(sol.U, n)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
