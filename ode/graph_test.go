package ode

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/floats/scalar"
)

// mlp is the right-hand side f(t, y) = W₂·tanh(W₁·y + b₁ + c·t) + b₂ of
// a neural ODE with h hidden units, written by hand. Its parameters are
// W₁ (h×n, row by row), b₁, c, W₂ (n×h) and b₂, in that order, in p.
type mlp struct {
	n, h int
	p    []float64
	a    []float64 // tanh of the hidden layer
	g    []float64 // its gradient
}

func newMLP(n, h int, p []float64) *mlp {
	return &mlp{n: n, h: h, p: p, a: make([]float64, h), g: make([]float64, h)}
}

func mlpParams(n, h int) int { return h*n + 2*h + n*h + n }

func (m *mlp) parts() (w1, b1, c, w2, b2 []float64) {
	n, h := m.n, m.h
	w1, p := m.p[:h*n], m.p[h*n:]
	b1, p = p[:h], p[h:]
	c, p = p[:h], p[h:]
	w2, b2 = p[:n*h], p[n*h:]
	return w1, b1, c, w2, b2
}

func (m *mlp) Dim() int       { return m.n }
func (m *mlp) NumParams() int { return len(m.p) }

// hidden sets m.a = tanh(W₁·y + b₁ + c·t).
func (m *mlp) hidden(t float64, y []float64) {
	w1, b1, c, _, _ := m.parts()
	for j := range m.h {
		z := b1[j] + c[j]*t
		for r, v := range y {
			z += w1[j*m.n+r] * v
		}
		m.a[j] = math.Tanh(z)
	}
}

func (m *mlp) Deriv(dst []float64, t float64, y []float64) {
	m.hidden(t, y)
	_, _, _, w2, b2 := m.parts()
	for r := range dst {
		s := b2[r]
		for j, a := range m.a {
			s += w2[r*m.h+j] * a
		}
		dst[r] = s
	}
}

func (m *mlp) VJP(dy, dp []float64, t float64, y, v []float64) {
	m.hidden(t, y)
	n, h := m.n, m.h
	_, _, _, w2, _ := m.parts()
	dw1, dp1 := dp[:h*n], dp[h*n:]
	db1, dp1 := dp1[:h], dp1[h:]
	dc, dp1 := dp1[:h], dp1[h:]
	dw2, db2 := dp1[:n*h], dp1[n*h:]
	copy(db2, v)
	for j, a := range m.a {
		var s float64
		for r, vr := range v {
			dw2[r*h+j] = vr * a
			s += w2[r*h+j] * vr
		}
		m.g[j] = s * (1 - a*a)
	}
	copy(db1, m.g)
	clear(dy)
	w1, _, _, _, _ := m.parts()
	for j, g := range m.g {
		dc[j] = g * t
		for r, yr := range y {
			dw1[j*n+r] = g * yr
			dy[r] += g * w1[j*n+r]
		}
	}
}

// mlpGraph is the right-hand side of mlp written with the engine: the
// field MLP of the layer, which the tests compare with the hand-written
// mlp.
func mlpGraph(n, h int) func(g *ad.Graph[float64], t, y, theta *ad.Node[float64]) *ad.Node[float64] {
	return func(g *ad.Graph[float64], t, y, theta *ad.Node[float64]) *ad.Node[float64] {
		return MLP{Hidden: h}.Build(g, n, t, y, theta)
	}
}

// randParams returns k parameters drawn from N(0, scale²).
func randParams(rnd *rand.Rand, k int, scale float64) []float64 {
	p := make([]float64, k)
	for i := range p {
		p[i] = scale * rnd.NormFloat64()
	}
	return p
}

// TestGraphSystemMatchesHandWritten checks that the engine-derived
// system gives the derivative and the VJPs of the hand-written one, and
// then the same solutions and gradients by every solver and gradient
// method: a mistake in recording, replaying or seeding the graph, or in
// copying the gradients out, shows up here.
func TestGraphSystemMatchesHandWritten(t *testing.T) {
	const n, h = 3, 5
	rnd := rand.New(rand.NewPCG(1, 1))
	theta := randParams(rnd, mlpParams(n, h), 0.7)
	hand := newMLP(n, h, theta)
	graph := NewGraphSystem(n, theta, mlpGraph(n, h))
	if graph.Dim() != n || graph.NumParams() != len(theta) {
		t.Fatalf("Dim %d, NumParams %d; want %d, %d", graph.Dim(), graph.NumParams(), n, len(theta))
	}

	const tol = 1e-12
	np := len(theta)
	for i := range 5 {
		tt := rnd.Float64()*4 - 2
		y, v := randParams(rnd, n, 1), randParams(rnd, n, 1)
		want, got := make([]float64, n), make([]float64, n)
		hand.Deriv(want, tt, y)
		graph.Deriv(got, tt, y)
		for r := range want {
			if !scalar.EqualWithinAbsOrRel(got[r], want[r], tol, tol) {
				t.Errorf("point %d: f[%d] = %v, hand-written %v", i, r, got[r], want[r])
			}
		}
		wdy, wdp := make([]float64, n), make([]float64, np)
		gdy, gdp := make([]float64, n), make([]float64, np)
		hand.VJP(wdy, wdp, tt, y, v)
		graph.VJP(gdy, gdp, tt, y, v)
		for r := range wdy {
			if !scalar.EqualWithinAbsOrRel(gdy[r], wdy[r], tol, tol) {
				t.Errorf("point %d: dy[%d] = %v, hand-written %v", i, r, gdy[r], wdy[r])
			}
		}
		for j := range wdp {
			if !scalar.EqualWithinAbsOrRel(gdp[j], wdp[j], tol, tol) {
				t.Errorf("point %d: dp[%d] = %v, hand-written %v", i, j, gdp[j], wdp[j])
			}
		}
	}

	y0 := []float64{0.5, -0.3, 0.8}
	ts := []float64{0, 0.4, 1, 1.5}
	for _, tc := range []struct {
		name  string
		solve func(System) (*Solution, error)
	}{
		{"RK4", func(s System) (*Solution, error) { return RK4(s, y0, linspace(0, 1.5, 30), Settings{}) }},
		{"DormandPrince", func(s System) (*Solution, error) {
			return DormandPrince(s, y0, ts, Settings{RTol: 1e-9, ATol: 1e-9})
		}},
	} {
		for _, m := range []GradMethod{Backprop, Adjoint} {
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				want, err := tc.solve(hand)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tc.solve(graph)
				if err != nil {
					t.Fatal(err)
				}
				if got.Steps != want.Steps {
					t.Errorf("%d steps, hand-written %d", got.Steps, want.Steps)
				}
				for i := range want.Y {
					if !scalar.EqualWithinAbsOrRel(got.Y[i], want.Y[i], tol, tol) {
						t.Errorf("Y[%d] = %v, hand-written %v", i, got.Y[i], want.Y[i])
					}
				}
				dY := lossGrad(want.Y)
				wdy0, wdp := make([]float64, n), make([]float64, np)
				gdy0, gdp := make([]float64, n), make([]float64, np)
				if err := want.Gradient(wdy0, wdp, dY, m); err != nil {
					t.Fatal(err)
				}
				if err := got.Gradient(gdy0, gdp, dY, m); err != nil {
					t.Fatal(err)
				}
				for r := range wdy0 {
					if !scalar.EqualWithinAbsOrRel(gdy0[r], wdy0[r], 1e-10, 1e-10) {
						t.Errorf("dL/dy0[%d] = %v, hand-written %v", r, gdy0[r], wdy0[r])
					}
				}
				for j := range wdp {
					if !scalar.EqualWithinAbsOrRel(gdp[j], wdp[j], 1e-10, 1e-10) {
						t.Errorf("dL/dθ[%d] = %v, hand-written %v", j, gdp[j], wdp[j])
					}
				}
			})
		}
	}
}

// TestGraphSystemGradient checks the gradient of a loss of the solution
// with respect to y₀ and θ against central finite differences, which
// change θ in place as an optimiser would: it catches a wrong
// derivative of an operation as well as a system that did not read the
// current θ.
func TestGraphSystemGradient(t *testing.T) {
	const n, h = 2, 4
	rnd := rand.New(rand.NewPCG(2, 2))
	theta := randParams(rnd, mlpParams(n, h), 0.8)
	sys := NewGraphSystem(n, theta, mlpGraph(n, h))
	y0 := []float64{0.4, -0.6}
	tight := Settings{RTol: 1e-11, ATol: 1e-11}
	for _, tc := range []struct {
		name   string
		ts     []float64
		method GradMethod
		solve  func([]float64, []float64) (*Solution, error)
		tol    float64
	}{
		{"RK4/backprop", linspace(0, 2, 20), Backprop, func(y0, ts []float64) (*Solution, error) { return RK4(sys, y0, ts, Settings{}) }, 1e-8},
		// The adjoint is the gradient of the exact solution, to O(h⁴).
		{"RK4/adjoint", linspace(0, 2, 100), Adjoint, func(y0, ts []float64) (*Solution, error) { return RK4(sys, y0, ts, Settings{}) }, 1e-6},
		{"DormandPrince/backprop", []float64{0, 0.5, 1.3, 2}, Backprop, func(y0, ts []float64) (*Solution, error) { return DormandPrince(sys, y0, ts, tight) }, 1e-7},
		{"DormandPrince/adjoint", []float64{0, 0.5, 1.3, 2}, Adjoint, func(y0, ts []float64) (*Solution, error) { return DormandPrince(sys, y0, ts, tight) }, 1e-7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := tc.solve(y0, tc.ts)
			if err != nil {
				t.Fatal(err)
			}
			dy0, dp := make([]float64, n), make([]float64, len(theta))
			if err := sol.Gradient(dy0, dp, lossGrad(sol.Y), tc.method); err != nil {
				t.Fatal(err)
			}
			x0 := append(append([]float64(nil), y0...), theta...)
			f := func(x []float64) float64 {
				copy(theta, x[n:])
				defer copy(theta, x0[n:])
				sol, err := tc.solve(x[:n], tc.ts)
				if err != nil {
					t.Fatal(err)
				}
				return loss(sol.Y)
			}
			testutil.CheckGradient(t, append(dy0, dp...), f, x0, tc.tol)
		})
	}
}

// TestGraphSystemAllocs checks that replaying the graph allocates
// nothing: the solvers call Deriv and VJP at every stage.
func TestGraphSystemAllocs(t *testing.T) {
	const n, h = 3, 8
	rnd := rand.New(rand.NewPCG(3, 3))
	theta := randParams(rnd, mlpParams(n, h), 0.5)
	sys := NewGraphSystem(n, theta, mlpGraph(n, h))
	y, v := randParams(rnd, n, 1), randParams(rnd, n, 1)
	dst, dy, dp := make([]float64, n), make([]float64, n), make([]float64, len(theta))
	if a := testing.AllocsPerRun(100, func() { sys.Deriv(dst, 0.3, y) }); a != 0 {
		t.Errorf("Deriv: %v allocations per call, want 0", a)
	}
	if a := testing.AllocsPerRun(100, func() { sys.VJP(dy, dp, 0.3, y, v) }); a != 0 {
		t.Errorf("VJP: %v allocations per call, want 0", a)
	}
}

func TestGraphSystemPanics(t *testing.T) {
	identity := func(_ *ad.Graph[float64], _, y, _ *ad.Node[float64]) *ad.Node[float64] { return y }
	sys := NewGraphSystem(2, nil, identity)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"dimension", func() { NewGraphSystem(0, nil, identity) }, "dimension 0"},
		{"output size", func() {
			NewGraphSystem(2, nil, func(g *ad.Graph[float64], _, y, _ *ad.Node[float64]) *ad.Node[float64] { return g.Sum(y) })
		}, "want 2 elements"},
		{"state length", func() { sys.Deriv(make([]float64, 2), 0, make([]float64, 3)) }, "state of length 3"},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}

// BenchmarkGraphSystem compares the engine-derived right-hand side with
// the hand-written one, per call and for a solve with its gradient.
func BenchmarkGraphSystem(b *testing.B) {
	for _, size := range []struct{ n, h int }{{2, 16}, {8, 64}} {
		n, h := size.n, size.h
		rnd := rand.New(rand.NewPCG(4, 4))
		theta := randParams(rnd, mlpParams(n, h), 1/math.Sqrt(float64(h)))
		y, v := randParams(rnd, n, 1), randParams(rnd, n, 1)
		dst, dy, dp := make([]float64, n), make([]float64, n), make([]float64, len(theta))
		ts := linspace(0, 1, 50)
		dY := make([]float64, len(ts)*n)
		for i := range dY {
			dY[i] = 1
		}
		for _, impl := range []struct {
			name string
			sys  ParamSystem
		}{
			{"hand", newMLP(n, h, theta)},
			{"graph", NewGraphSystem(n, theta, mlpGraph(n, h))},
		} {
			prefix := fmt.Sprintf("n=%d,h=%d/%s/", n, h, impl.name)
			b.Run(prefix+"Deriv", func(b *testing.B) {
				for b.Loop() {
					impl.sys.Deriv(dst, 0.3, y)
				}
			})
			b.Run(prefix+"VJP", func(b *testing.B) {
				for b.Loop() {
					impl.sys.VJP(dy, dp, 0.3, y, v)
				}
			})
			b.Run(prefix+"solve+gradient", func(b *testing.B) {
				for b.Loop() {
					sol, err := RK4(impl.sys, y, ts, Settings{})
					if err != nil {
						b.Fatal(err)
					}
					if err := sol.Gradient(nil, dp, dY, Backprop); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
