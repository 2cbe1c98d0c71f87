package ode

import (
	"errors"
	"math"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

func linspace(a, b float64, n int) []float64 {
	ts := make([]float64, n+1)
	for i := range ts {
		ts[i] = a + (b-a)*float64(i)/float64(n)
	}
	ts[n] = b
	return ts
}

// problem is an initial value problem with a known solution.
type problem struct {
	name  string
	sys   System
	y0    []float64
	t0, T float64
	exact func(dst []float64, t float64)
}

func problems() []problem {
	const (
		lambda = -1.5
		omega  = 2.0
		r, K   = 3.0, 2.0
		l0     = 0.1
	)
	return []problem{
		{
			name: "exponential",
			sys:  Func{N: 1, F: func(dst []float64, _ float64, y []float64) { dst[0] = lambda * y[0] }},
			y0:   []float64{2}, t0: 0, T: 2,
			exact: func(dst []float64, t float64) { dst[0] = 2 * math.Exp(lambda*t) },
		},
		{
			name: "harmonic oscillator",
			sys: Func{N: 2, F: func(dst []float64, _ float64, y []float64) {
				dst[0] = y[1]
				dst[1] = -omega * omega * y[0]
			}},
			y0: []float64{1, 0}, t0: 0, T: 3,
			exact: func(dst []float64, t float64) {
				dst[0] = math.Cos(omega * t)
				dst[1] = -omega * math.Sin(omega*t)
			},
		},
		{
			name: "logistic",
			sys:  Func{N: 1, F: func(dst []float64, _ float64, y []float64) { dst[0] = r * y[0] * (1 - y[0]/K) }},
			y0:   []float64{l0}, t0: 1, T: 4,
			exact: func(dst []float64, t float64) {
				dst[0] = K / (1 + (K/l0-1)*math.Exp(-r*(t-1)))
			},
		},
	}
}

func TestKnownSolutions(t *testing.T) {
	for _, p := range problems() {
		ts := linspace(p.t0, p.T, 4)
		t.Run(p.name+"/DormandPrince", func(t *testing.T) {
			sol, err := DormandPrince(p.sys, p.y0, ts, Settings{RTol: 1e-10, ATol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			if e := testutil.MaxErr(sol.T, sol.Y, p.exact); e > 1e-8 {
				t.Errorf("max error %g at the outputs, want <= 1e-8", e)
			}
			// Dense output is fourth order: a few orders above the
			// tolerance at worst.
			want, got := make([]float64, len(p.y0)), make([]float64, len(p.y0))
			for i := range 97 {
				tt := p.t0 + (p.T-p.t0)*float64(i)/96
				p.exact(want, tt)
				sol.At(got, tt)
				for r := range want {
					if math.Abs(got[r]-want[r]) > 1e-7 {
						t.Fatalf("At(%v)[%d] = %v, want %v", tt, r, got[r], want[r])
					}
				}
			}
		})
		t.Run(p.name+"/RK4", func(t *testing.T) {
			sol, err := RK4(p.sys, p.y0, linspace(p.t0, p.T, 1000), Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if e := testutil.MaxErr(sol.T, sol.Y, p.exact); e > 1e-9 {
				t.Errorf("max error %g, want <= 1e-9", e)
			}
			want, got := make([]float64, len(p.y0)), make([]float64, len(p.y0))
			tt := p.t0 + 0.3337*(p.T-p.t0)
			p.exact(want, tt)
			sol.At(got, tt)
			for r := range want {
				if math.Abs(got[r]-want[r]) > 1e-8 {
					t.Errorf("At(%v)[%d] = %v, want %v", tt, r, got[r], want[r])
				}
			}
		})
	}
}

// TestOrder measures the order of each method from its error at the end
// of the interval with 20, 40, 80 and 160 fixed steps.
func TestOrder(t *testing.T) {
	for _, tab := range []*tableau{dp5, rk4} {
		for _, p := range problems() {
			t.Run(tab.name+"/"+p.name, func(t *testing.T) {
				var hs, errs []float64
				want := make([]float64, len(p.y0))
				p.exact(want, p.T)
				for _, n := range []int{20, 40, 80, 160} {
					sol, err := solve(p.sys, p.y0, linspace(p.t0, p.T, n), Settings{}, tab, false)
					if err != nil {
						t.Fatal(err)
					}
					var e float64
					for r := range want {
						e = max(e, math.Abs(sol.Y[n*len(want)+r]-want[r]))
					}
					hs = append(hs, (p.T-p.t0)/float64(n))
					errs = append(errs, e)
				}
				got := testutil.Order(hs, errs)
				t.Logf("errors %.3g: order %.3f", errs, got)
				if math.Abs(got-float64(tab.order)) > 0.3 {
					t.Errorf("empirical order %.3f, want %d ± 0.3", got, tab.order)
				}
			})
		}
	}
}

// TestTolerance checks that the adaptive error follows the tolerance and
// that tighter tolerances take more steps.
func TestTolerance(t *testing.T) {
	p := problems()[1]
	prevSteps := 0
	for _, tol := range []float64{1e-4, 1e-6, 1e-8, 1e-10} {
		sol, err := DormandPrince(p.sys, p.y0, []float64{p.t0, p.T}, Settings{RTol: tol, ATol: tol})
		if err != nil {
			t.Fatal(err)
		}
		e := testutil.MaxErr(sol.T, sol.Y, p.exact)
		if e > 100*tol || e < tol/1e4 {
			t.Errorf("tol %g: error %g out of [tol/1e4, 100·tol]", tol, e)
		}
		if sol.Steps <= prevSteps {
			t.Errorf("tol %g: %d steps, not more than %d at the looser tolerance", tol, sol.Steps, prevSteps)
		}
		prevSteps = sol.Steps
	}
}

func TestFirstStep(t *testing.T) {
	p := problems()[0]
	sol, err := DormandPrince(p.sys, p.y0, []float64{p.t0, p.T}, Settings{H0: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if sol.stepH[0] != 1e-3 {
		t.Errorf("first step %v, want H0 = 1e-3", sol.stepH[0])
	}
	sol, err = DormandPrince(p.sys, p.y0, []float64{p.t0, p.T}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// The automatic first step should be accepted and not absurdly small.
	if sol.stepH[0] < 1e-3 || sol.Rejected > 1 {
		t.Errorf("automatic first step %v with %d rejections", sol.stepH[0], sol.Rejected)
	}
}

func TestErrors(t *testing.T) {
	// A pole at t = 1.
	pole := Func{N: 1, F: func(dst []float64, t float64, _ []float64) { dst[0] = 1 / (1 - t) }}
	// NaN beyond t = 0.5.
	nan := Func{N: 1, F: func(dst []float64, t float64, _ []float64) { dst[0] = math.Sqrt(0.5 - t) }}
	// Fast oscillation that needs many steps.
	fast := Func{N: 2, F: func(dst []float64, _ float64, y []float64) {
		dst[0] = 1000 * y[1]
		dst[1] = -1000 * y[0]
	}}
	for _, tc := range []struct {
		name  string
		sys   System
		y0    []float64
		s     Settings
		check func(error) bool
		t     float64 // expected error time
	}{
		{"pole", pole, []float64{0}, Settings{}, func(err error) bool {
			var e *StepSizeError
			return errors.As(err, &e) && math.Abs(e.T-1) < 1e-6
		}, 1},
		{"nan", nan, []float64{0}, Settings{}, func(err error) bool {
			var e *NonFiniteError
			return errors.As(err, &e) && math.Abs(e.T-0.5) < 1e-6
		}, 0.5},
		{"min step", fast, []float64{1, 0}, Settings{MinStep: 0.1}, func(err error) bool {
			var e *StepSizeError
			return errors.As(err, &e) && e.Min == 0.1 && e.T == 0
		}, 0},
		{"max steps", fast, []float64{1, 0}, Settings{MaxSteps: 50}, func(err error) bool {
			var e *MaxStepsError
			return errors.As(err, &e) && e.Steps == 50 && e.T > 0 && e.T < 2
		}, 0},
		{"nan y0", pole, []float64{math.NaN()}, Settings{}, func(err error) bool {
			var e *NonFiniteError
			return errors.As(err, &e) && e.T == 0
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := DormandPrince(tc.sys, tc.y0, []float64{0, 2}, tc.s)
			if err == nil || sol != nil {
				t.Fatalf("got solution %v and error %v, want an error", sol, err)
			}
			if !tc.check(err) {
				t.Errorf("wrong error %T: %v", err, err)
			}
			t.Log(err)
		})
	}
	t.Run("RK4 nan", func(t *testing.T) {
		_, err := RK4(nan, []float64{0}, linspace(0, 2, 20), Settings{})
		var e *NonFiniteError
		if !errors.As(err, &e) || e.T != 0.5 {
			t.Errorf("got %v, want a NonFiniteError at t=0.5", err)
		}
	})
}

func TestPanics(t *testing.T) {
	p := problems()[1]
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"short y0", func() { DormandPrince(p.sys, []float64{1}, []float64{0, 1}, Settings{}) }, "len(y0) = 1"},
		{"one time", func() { RK4(p.sys, p.y0, []float64{0}, Settings{}) }, "at least 2"},
		{"decreasing", func() { DormandPrince(p.sys, p.y0, []float64{0, 1, 1}, Settings{}) }, "not strictly increasing"},
		{"reversed", func() { DormandPrince(p.sys, p.y0, []float64{1, 0}, Settings{}) }, "not strictly increasing"},
		{"nan time", func() { DormandPrince(p.sys, p.y0, []float64{0, math.NaN()}, Settings{}) }, "not finite"},
		{"negative rtol", func() { DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{RTol: -1}) }, "invalid RTol"},
		{"negative atol", func() { DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{ATol: -1e-9}) }, "invalid ATol"},
		{"negative min step", func() { DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{MinStep: -1}) }, "invalid MinStep"},
		{"negative max steps", func() { DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{MaxSteps: -1}) }, "negative MaxSteps"},
		{"At outside", func() {
			sol, _ := DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{})
			sol.At(nil, 1.5)
		}, "outside"},
		{"At dropped", func() {
			sol, _ := DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{DropSteps: true})
			sol.At(nil, 0.5)
		}, "DropSteps"},
		{"gradient of a plain system", func() {
			sol, _ := DormandPrince(p.sys, p.y0, []float64{0, 1}, Settings{})
			sol.Gradient(nil, nil, make([]float64, 4), Backprop)
		}, "ParamSystem"},
		{"gradient short dY", func() {
			sol, _ := DormandPrince(&duffing{p: make([]float64, 4)}, p.y0, []float64{0, 1}, Settings{})
			sol.Gradient(nil, nil, make([]float64, 3), Backprop)
		}, "len(dY) = 3"},
		{"backprop dropped", func() {
			sol, _ := DormandPrince(&duffing{p: make([]float64, 4)}, p.y0, []float64{0, 1}, Settings{DropSteps: true})
			sol.Gradient(nil, nil, make([]float64, 4), Backprop)
		}, "DropSteps"},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}

// duffing is a forced nonlinear oscillator with four parameters:
//
//	y₀' = p₀y₁ + sin t,  y₁' = -p₁y₀ - p₂y₁³ + p₃.
type duffing struct{ p []float64 }

func (d *duffing) Dim() int       { return 2 }
func (d *duffing) NumParams() int { return 4 }
func (d *duffing) Deriv(dst []float64, t float64, y []float64) {
	p := d.p
	dst[0] = p[0]*y[1] + math.Sin(t)
	dst[1] = -p[1]*y[0] - p[2]*y[1]*y[1]*y[1] + p[3]
}
func (d *duffing) VJP(dy, dp []float64, _ float64, y, v []float64) {
	p := d.p
	dy[0] = -p[1] * v[1]
	dy[1] = p[0]*v[0] - 3*p[2]*y[1]*y[1]*v[1]
	dp[0] = v[0] * y[1]
	dp[1] = -v[1] * y[0]
	dp[2] = -v[1] * y[1] * y[1] * y[1]
	dp[3] = v[1]
}

// loss is a fixed linear functional of all outputs plus half the squared
// norm of the last one; lossGrad is its gradient.
func loss(Y []float64) float64 {
	var l float64
	for i, y := range Y {
		l += math.Sin(float64(i)+1) * y
	}
	for _, y := range Y[len(Y)-2:] {
		l += 0.5 * y * y
	}
	return l
}

func lossGrad(Y []float64) []float64 {
	g := make([]float64, len(Y))
	for i := range Y {
		g[i] = math.Sin(float64(i) + 1)
	}
	for i := len(Y) - 2; i < len(Y); i++ {
		g[i] += Y[i]
	}
	return g
}

func TestGradient(t *testing.T) {
	y0 := []float64{0.5, -0.3}
	p0 := []float64{1.2, 0.8, 0.3, 0.1}
	tight := Settings{RTol: 1e-11, ATol: 1e-11}
	// The adjoint needs no record of the steps.
	tightDrop := Settings{RTol: 1e-11, ATol: 1e-11, DropSteps: true}
	for _, tc := range []struct {
		name   string
		ts     []float64
		method GradMethod
		solve  func(System, []float64, []float64) (*Solution, error)
		tol    float64
	}{
		// The numerical solution is differentiated exactly by Backprop
		// through RK4; finite differences see the same function.
		{"RK4/backprop", linspace(0, 2, 20), Backprop, func(s System, y0, ts []float64) (*Solution, error) { return RK4(s, y0, ts, Settings{}) }, 1e-8},
		// The continuous adjoint approximates the gradient of the exact
		// solution, here to O(h⁴) with h = 0.02.
		{"RK4/adjoint", linspace(0, 2, 100), Adjoint, func(s System, y0, ts []float64) (*Solution, error) { return RK4(s, y0, ts, Settings{}) }, 1e-6},
		{"DormandPrince/backprop", []float64{0, 0.5, 1.3, 2}, Backprop, func(s System, y0, ts []float64) (*Solution, error) { return DormandPrince(s, y0, ts, tight) }, 1e-7},
		{"DormandPrince/adjoint", []float64{0, 0.5, 1.3, 2}, Adjoint, func(s System, y0, ts []float64) (*Solution, error) { return DormandPrince(s, y0, ts, tightDrop) }, 1e-7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := &duffing{p: append([]float64(nil), p0...)}
			sol, err := tc.solve(sys, y0, tc.ts)
			if err != nil {
				t.Fatal(err)
			}
			dy0, dp := make([]float64, 2), make([]float64, 4)
			if err := sol.Gradient(dy0, dp, lossGrad(sol.Y), tc.method); err != nil {
				t.Fatal(err)
			}
			f := func(x []float64) float64 {
				s := &duffing{p: x[2:]}
				sol, err := tc.solve(s, x[:2], tc.ts)
				if err != nil {
					t.Fatal(err)
				}
				return loss(sol.Y)
			}
			x := append(append([]float64(nil), y0...), p0...)
			testutil.CheckGradient(t, append(dy0, dp...), f, x, tc.tol)
		})
	}
}

func TestBatch(t *testing.T) {
	sys := &duffing{p: []float64{1.2, 0.8, 0.3, 0.1}}
	y0s := [][]float64{{0.5, -0.3}, {0, 1}, {-1, 0.2}}
	b := &Batch{System: sys, N: len(y0s)}
	var by0 []float64
	for _, y := range y0s {
		by0 = append(by0, y...)
	}
	ts := []float64{0, 1, 2}
	s := Settings{RTol: 1e-10, ATol: 1e-10}
	bsol, err := DormandPrince(b, by0, ts, s)
	if err != nil {
		t.Fatal(err)
	}
	bdY := make([]float64, len(bsol.Y))
	bdY[len(bdY)-1] = 1 // d/d(last coordinate of the last member at t=2)
	bdp := make([]float64, 4)
	if err := bsol.Gradient(nil, bdp, bdY, Backprop); err != nil {
		t.Fatal(err)
	}
	for i, y := range y0s {
		sol, err := DormandPrince(sys, y, ts, s)
		if err != nil {
			t.Fatal(err)
		}
		for k := range ts {
			for r := range 2 {
				got, want := bsol.Y[k*6+2*i+r], sol.Y[k*2+r]
				if math.Abs(got-want) > 1e-8 {
					t.Errorf("member %d at t=%v: %v, alone %v", i, ts[k], got, want)
				}
			}
		}
		if i == len(y0s)-1 {
			dY := make([]float64, len(sol.Y))
			dY[len(dY)-1] = 1
			dp := make([]float64, 4)
			if err := sol.Gradient(nil, dp, dY, Backprop); err != nil {
				t.Fatal(err)
			}
			for j := range dp {
				if math.Abs(dp[j]-bdp[j]) > 1e-7 {
					t.Errorf("dp[%d] = %v in the batch, %v alone", j, bdp[j], dp[j])
				}
			}
		}
	}
}
