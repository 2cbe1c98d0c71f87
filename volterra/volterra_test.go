package volterra

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/ode"
)

// sepFunc is a Separable kernel made of functions.
type sepFunc struct {
	n, m, d int
	prod    Product
	phi     func(dst []float64, s float64, v []float64)
	coef    func(dst []float64, t float64)
}

func (k sepFunc) Dim() int                                  { return k.n }
func (k sepFunc) Terms() int                                { return k.m }
func (k sepFunc) TermDim() int                              { return k.d }
func (k sepFunc) Product() Product                          { return k.prod }
func (k sepFunc) Phi(dst []float64, s float64, v []float64) { k.phi(dst, s, v) }
func (k sepFunc) Coef(dst []float64, t float64)             { k.coef(dst, t) }

// closedForm is a Volterra equation with a known solution, in general and
// in separable form.
type closedForm struct {
	name   string
	t0, t1 float64
	psi    Forcing
	kernel Kernel
	sep    Separable
	exact  func(dst []float64, t float64)
}

func closedForms() []closedForm {
	return []closedForm{
		{
			// u = 1 + ∫u: u = eᵗ.
			name: "exp", t0: 0, t1: 1,
			psi:    Const{1},
			kernel: KernelFunc{N: 1, F: func(dst []float64, _, _ float64, u []float64) { dst[0] = u[0] }},
			sep: sepFunc{n: 1, m: 1, d: 1,
				phi:  func(dst []float64, _ float64, v []float64) { dst[0] = v[0] },
				coef: func(dst []float64, _ float64) { dst[0] = 1 }},
			exact: func(dst []float64, t float64) { dst[0] = math.Exp(t) },
		},
		{
			// u = 1 - ∫(t - s)u: u'' = -u, u(0) = 1, u'(0) = 0, so
			// u = cos t. Separably, -(t - s)v = (-t)·v + 1·(s·v).
			name: "cos", t0: 0, t1: 2,
			psi:    Const{1},
			kernel: KernelFunc{N: 1, F: func(dst []float64, t, s float64, u []float64) { dst[0] = -(t - s) * u[0] }},
			sep: sepFunc{n: 1, m: 2, d: 1,
				phi: func(dst []float64, s float64, v []float64) {
					dst[0] = v[0]
					dst[1] = s * v[0]
				},
				coef: func(dst []float64, t float64) {
					dst[0] = -t
					dst[1] = 1
				}},
			exact: func(dst []float64, t float64) { dst[0] = math.Cos(t) },
		},
		{
			// A coupled nonlinear equation built from its solution
			// u = (e^{-t/2}, cos t): with φ(t, s, v) = e^{s-t}(v₁², v₁²v₂),
			// ∫₀ᵗ φ(t, s, u(s)) ds = e^{-t}∫₀ᵗ (1, cos s) ds
			// = e^{-t}(t, sin t), hence ψ(t) = u(t) - e^{-t}(t, sin t).
			// Separably it is one term e^s(v₁², v₁²v₂) times c(t) = e^{-t}
			// elementwise.
			name: "nonlinear", t0: 0, t1: 2,
			psi: ForcingFunc(func(dst []float64, t float64) {
				dst[0] = math.Exp(-t/2) - t*math.Exp(-t)
				dst[1] = math.Cos(t) - math.Sin(t)*math.Exp(-t)
			}),
			kernel: KernelFunc{N: 2, F: func(dst []float64, t, s float64, u []float64) {
				e := math.Exp(s - t)
				dst[0] = e * u[0] * u[0]
				dst[1] = e * u[0] * u[0] * u[1]
			}},
			sep: sepFunc{n: 2, m: 1, d: 2, prod: Elementwise,
				phi: func(dst []float64, s float64, v []float64) {
					e := math.Exp(s)
					dst[0] = e * v[0] * v[0]
					dst[1] = e * v[0] * v[0] * v[1]
				},
				coef: func(dst []float64, t float64) {
					dst[0] = math.Exp(-t)
					dst[1] = math.Exp(-t)
				}},
			exact: func(dst []float64, t float64) {
				dst[0] = math.Exp(-t / 2)
				dst[1] = math.Cos(t)
			},
		},
	}
}

type solver struct {
	name  string
	order float64
	solve func(c closedForm, steps int) (*Solution, error)
}

func solvers() []solver {
	return []solver{
		{"general", 2, func(c closedForm, steps int) (*Solution, error) {
			return Solve(&Equation{T0: c.t0, T: c.t1, Psi: c.psi, Kernel: c.kernel}, steps, Settings{})
		}},
		{"general/separable kernel", 2, func(c closedForm, steps int) (*Solution, error) {
			return Solve(&Equation{T0: c.t0, T: c.t1, Psi: c.psi, Kernel: &SeparableKernel{Separable: c.sep}}, steps, Settings{})
		}},
		{"fast", 4, func(c closedForm, steps int) (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: c.t0, T: c.t1, Psi: c.psi, Kernel: c.sep}, steps, Settings{})
		}},
	}
}

func TestClosedForm(t *testing.T) {
	for _, c := range closedForms() {
		for _, s := range solvers() {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				sol, err := s.solve(c, 200)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-4
				if s.order == 4 {
					tol = 1e-9
				}
				e := testutil.MaxErr(sol.T, sol.U, c.exact)
				t.Logf("max error %.3g with 200 steps", e)
				if e > tol {
					t.Errorf("max error %g, want <= %g", e, tol)
				}
			})
		}
	}
	// Dormand–Prince on the ODE of Theorem 5 meets its tolerance.
	for _, c := range closedForms() {
		sol, err := SolveSeparable(&SeparableEquation{T0: c.t0, T: c.t1, Psi: c.psi, Kernel: c.sep}, 10,
			Settings{ODE: &ode.Settings{RTol: 1e-10, ATol: 1e-10}})
		if err != nil {
			t.Fatal(err)
		}
		if e := testutil.MaxErr(sol.T, sol.U, c.exact); e > 1e-8 {
			t.Errorf("%s/Dormand-Prince: max error %g, want <= 1e-8", c.name, e)
		}
	}
}

// TestOrder measures the order of convergence from the errors with 10,
// 20, 40 and 80 steps: 2 for the trapezoidal rule, 4 for RK4 on the ODE.
func TestOrder(t *testing.T) {
	for _, c := range closedForms() {
		for _, s := range solvers() {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				var hs, errs []float64
				for _, steps := range []int{10, 20, 40, 80} {
					sol, err := s.solve(c, steps)
					if err != nil {
						t.Fatal(err)
					}
					hs = append(hs, (c.t1-c.t0)/float64(steps))
					errs = append(errs, testutil.MaxErr(sol.T, sol.U, c.exact))
				}
				got := testutil.Order(hs, errs)
				t.Logf("errors %.3g: order %.3f", errs, got)
				if math.Abs(got-s.order) > 0.3 {
					t.Errorf("empirical order %.3f, want %v ± 0.3", got, s.order)
				}
			})
		}
	}
}

// TestSeparableAgrees solves the benchmark equation, which has the shape of
// the infinite-depth kernel machine, with both solvers.
func TestSeparableAgrees(t *testing.T) {
	const steps = 1000
	general, err := benchSolver(false)(steps)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := benchSolver(true)(steps)
	if err != nil {
		t.Fatal(err)
	}
	var d float64
	for i, u := range general.U {
		d = max(d, math.Abs(u-fast.U[i]))
	}
	t.Logf("%d steps: largest difference %.3g, %d and %d evaluations", steps, d, general.Evals, fast.Evals)
	if d > 1e-6 {
		t.Errorf("general and fast solutions differ by %g, want <= 1e-6", d)
	}
}

// linearForcing is ψ(t) = a + b·t with parameters q = (a, b).
type linearForcing struct{ q []float64 }

func (f *linearForcing) NumParams() int { return len(f.q) }
func (f *linearForcing) Eval(dst []float64, t float64) {
	n := len(dst)
	for r := range dst {
		dst[r] = f.q[r] + f.q[n+r]*t
	}
}
func (f *linearForcing) VJP(dq []float64, t float64, w []float64) {
	n := len(w)
	for r, v := range w {
		dq[r] = v
		dq[n+r] = v * t
	}
}

// decayKernel is the non-separable kernel
// φ(t, s, v) = p₀·e^{-p₁(t-s)}·tanh(v) + p₂·sin(t·s)·v.
type decayKernel struct {
	n int
	p []float64
}

func (k *decayKernel) Dim() int       { return k.n }
func (k *decayKernel) NumParams() int { return 3 }
func (k *decayKernel) Eval(dst []float64, t, s float64, u []float64) {
	e := k.p[0] * math.Exp(-k.p[1]*(t-s))
	for r, v := range u {
		dst[r] = e*math.Tanh(v) + k.p[2]*math.Sin(t*s)*v
	}
}
func (k *decayKernel) VJP(du, dp []float64, t, s float64, u, w []float64) {
	ex := math.Exp(-k.p[1] * (t - s))
	sn := math.Sin(t * s)
	clear(dp)
	for r, v := range u {
		th := math.Tanh(v)
		du[r] = w[r] * (k.p[0]*ex*(1-th*th) + k.p[2]*sn)
		dp[0] += w[r] * ex * th
		dp[1] -= w[r] * k.p[0] * ex * th * (t - s)
		dp[2] += w[r] * sn * v
	}
}

// loss is a fixed linear functional of the solution plus half the squared
// norm of its last point; lossGrad is its gradient.
func loss(U []float64, n int) float64 {
	var l float64
	for i, u := range U {
		l += math.Sin(float64(i)+1) * u
	}
	for _, u := range U[len(U)-n:] {
		l += 0.5 * u * u
	}
	return l
}

func lossGrad(U []float64, n int) []float64 {
	g := make([]float64, len(U))
	for i := range U {
		g[i] = math.Sin(float64(i) + 1)
	}
	for i := len(U) - n; i < len(U); i++ {
		g[i] += U[i]
	}
	return g
}

func TestGradient(t *testing.T) {
	const n = 3
	for _, tc := range []struct {
		name  string
		steps int
		// build returns the solve and the parameter slices of the free
		// term and of the kernel, which the finite differences perturb.
		build func() (solve func() (*Solution, error), q, p []float64)
		tol   float64
	}{
		{"general/separable kernel", 20, func() (func() (*Solution, error), []float64, []float64) {
			k := newTanhKernel(n, 2, 3)
			psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
			eq := &Equation{T0: 0.5, T: 2, Psi: psi, Kernel: &SeparableKernel{Separable: k}}
			return func() (*Solution, error) { return Solve(eq, 20, Settings{}) }, psi.q, k.p
		}, 1e-7},
		{"general/decay kernel", 20, func() (func() (*Solution, error), []float64, []float64) {
			k := &decayKernel{n: n, p: []float64{0.8, 0.5, 0.3}}
			psi := Const{0.2, -0.5, 1}
			eq := &Equation{T0: 0, T: 2, Psi: psi, Kernel: k}
			return func() (*Solution, error) { return Solve(eq, 20, Settings{}) }, psi, k.p
		}, 1e-7},
		// Backprop through RK4 is the gradient of the computed solution.
		{"fast/RK4/backprop", 20, func() (func() (*Solution, error), []float64, []float64) {
			k := newTanhKernel(n, 2, 3)
			psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
			eq := &SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}
			return func() (*Solution, error) { return SolveSeparable(eq, 20, Settings{}) }, psi.q, k.p
		}, 1e-7},
		// The adjoint approximates the gradient of the exact solution.
		{"fast/RK4/adjoint", 200, func() (func() (*Solution, error), []float64, []float64) {
			k := newTanhKernel(n, 2, 3)
			psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
			eq := &SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}
			return func() (*Solution, error) {
				return SolveSeparable(eq, 200, Settings{Grad: ode.Adjoint})
			}, psi.q, k.p
		}, 1e-6},
		{"fast/DormandPrince/backprop", 10, func() (func() (*Solution, error), []float64, []float64) {
			k := newTanhKernel(n, 2, 3)
			psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
			eq := &SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}
			s := Settings{ODE: &ode.Settings{RTol: 1e-11, ATol: 1e-11}}
			return func() (*Solution, error) { return SolveSeparable(eq, 10, s) }, psi.q, k.p
		}, 1e-7},
		{"fast/DormandPrince/adjoint", 10, func() (func() (*Solution, error), []float64, []float64) {
			k := newTanhKernel(n, 2, 3)
			psi := &linearForcing{q: []float64{0.1, -0.2, 0.3, 0.5, 0, -0.4}}
			eq := &SeparableEquation{T0: 0.5, T: 2, Psi: psi, Kernel: k}
			s := Settings{ODE: &ode.Settings{RTol: 1e-11, ATol: 1e-11, DropSteps: true}, Grad: ode.Adjoint}
			return func() (*Solution, error) { return SolveSeparable(eq, 10, s) }, psi.q, k.p
		}, 1e-7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			solve, q, p := tc.build()
			sol, err := solve()
			if err != nil {
				t.Fatal(err)
			}
			dq, dp := make([]float64, len(q)), make([]float64, len(p))
			if err := sol.Gradient(dq, dp, lossGrad(sol.U, n)); err != nil {
				t.Fatal(err)
			}
			x0 := append(append([]float64(nil), q...), p...)
			f := func(x []float64) float64 {
				copy(q, x[:len(q)])
				copy(p, x[len(q):])
				defer func() {
					copy(q, x0[:len(q)])
					copy(p, x0[len(q):])
				}()
				sol, err := solve()
				if err != nil {
					t.Fatal(err)
				}
				return loss(sol.U, n)
			}
			testutil.CheckGradient(t, append(dq, dp...), f, x0, tc.tol)
		})
	}
}

// oscillator is u₀' = p₀u₁, u₁' = -p₁u₀ - p₂u₁³ + sin t.
type oscillator struct{ p []float64 }

func (o *oscillator) Dim() int       { return 2 }
func (o *oscillator) NumParams() int { return 3 }
func (o *oscillator) Deriv(dst []float64, t float64, y []float64) {
	dst[0] = o.p[0] * y[1]
	dst[1] = -o.p[1]*y[0] - o.p[2]*y[1]*y[1]*y[1] + math.Sin(t)
}
func (o *oscillator) VJP(dy, dp []float64, _ float64, y, v []float64) {
	dy[0] = -o.p[1] * v[1]
	dy[1] = o.p[0]*v[0] - 3*o.p[2]*y[1]*y[1]*v[1]
	dp[0] = v[0] * y[1]
	dp[1] = -v[1] * y[0]
	dp[2] = -v[1] * y[1] * y[1] * y[1]
}

// TestNeuralODE checks that the Volterra form of a neural ODE gives the
// solution of the ODE and its gradients with respect to the initial state
// and the parameters.
func TestNeuralODE(t *testing.T) {
	sys := &oscillator{p: []float64{1.1, 0.9, 0.4}}
	u0 := []float64{0.7, -0.2}
	const steps = 50
	for _, m := range []ode.GradMethod{ode.Backprop, ode.Adjoint} {
		t.Run(m.String(), func(t *testing.T) {
			sol, err := SolveSeparable(&SeparableEquation{T0: 0, T: 3, Psi: Const(u0), Kernel: NeuralODE{F: sys}}, steps, Settings{Grad: m})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := ode.RK4(sys, u0, sol.T, ode.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range sol.U {
				if math.Abs(u-ref.Y[i]) > 1e-12 {
					t.Fatalf("U[%d] = %v, the ODE solution is %v", i, u, ref.Y[i])
				}
			}
			du := lossGrad(sol.U, 2)
			dq, dp := make([]float64, 2), make([]float64, 3)
			if err := sol.Gradient(dq, dp, du); err != nil {
				t.Fatal(err)
			}
			dy0, dpRef := make([]float64, 2), make([]float64, 3)
			if err := ref.Gradient(dy0, dpRef, du, m); err != nil {
				t.Fatal(err)
			}
			for i := range dq {
				if math.Abs(dq[i]-dy0[i]) > 1e-10 {
					t.Errorf("dL/du0[%d] = %v, the ODE gives %v", i, dq[i], dy0[i])
				}
			}
			for i := range dp {
				if math.Abs(dp[i]-dpRef[i]) > 1e-10 {
					t.Errorf("dL/dp[%d] = %v, the ODE gives %v", i, dp[i], dpRef[i])
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	// λ = 100 with h = 0.1: λh/2 = 5, the iteration diverges.
	stiff := KernelFunc{N: 1, F: func(dst []float64, _, _ float64, u []float64) { dst[0] = 100 * u[0] }}
	// NaN for s > 0.5.
	nan := KernelFunc{N: 1, F: func(dst []float64, _, s float64, u []float64) { dst[0] = math.Sqrt(0.5-s) * u[0] }}
	nanSep := sepFunc{n: 1, m: 1, d: 1,
		phi:  func(dst []float64, s float64, v []float64) { dst[0] = math.Sqrt(0.5-s) * v[0] },
		coef: func(dst []float64, _ float64) { dst[0] = 1 }}
	// A pole at t = 1 for Dormand–Prince: u = 1 + ∫u² is 1/(1 - t).
	pole := sepFunc{n: 1, m: 1, d: 1,
		phi:  func(dst []float64, _ float64, v []float64) { dst[0] = v[0] * v[0] },
		coef: func(dst []float64, _ float64) { dst[0] = 1 }}
	for _, tc := range []struct {
		name  string
		solve func() (*Solution, error)
		check func(error) bool
	}{
		{"no contraction", func() (*Solution, error) {
			return Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: stiff}, 10, Settings{})
		}, func(err error) bool {
			var e *ContractionError
			return errors.As(err, &e) && math.Abs(e.T-0.1) < 1e-12 && !e.Gradient
		}},
		{"max iterations", func() (*Solution, error) {
			return Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: stiff}, 60, Settings{Settings: machines.Settings{MaxIter: 3}})
		}, func(err error) bool {
			var e *ContractionError
			return errors.As(err, &e) && e.Iterations == 3
		}},
		{"nan general", func() (*Solution, error) {
			return Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: nan}, 10, Settings{})
		}, func(err error) bool {
			var e *NonFiniteError
			return errors.As(err, &e) && math.Abs(e.T-0.6) < 1e-12
		}},
		{"nan psi", func() (*Solution, error) {
			return Solve(&Equation{T0: 0, T: 1, Psi: Const{math.NaN()}, Kernel: stiff}, 10, Settings{})
		}, func(err error) bool {
			var e *NonFiniteError
			return errors.As(err, &e) && e.T == 0
		}},
		{"nan fast", func() (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1}, Kernel: nanSep}, 10, Settings{})
		}, func(err error) bool {
			var e *NonFiniteError
			return errors.As(err, &e) && math.Abs(e.T-0.5) < 1e-12
		}},
		{"step size fast", func() (*Solution, error) {
			return SolveSeparable(&SeparableEquation{T0: 0, T: 2, Psi: Const{1}, Kernel: pole}, 4, Settings{ODE: &ode.Settings{}})
		}, func(err error) bool {
			var e *ode.StepSizeError
			return errors.As(err, &e) && math.Abs(e.T-1) < 1e-3
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := tc.solve()
			if err == nil || sol != nil {
				t.Fatalf("got solution and error %v, want an error", err)
			}
			if !tc.check(err) {
				t.Errorf("wrong error %T: %v", err, err)
			}
			t.Log(err)
		})
	}
}

func TestPanics(t *testing.T) {
	one := KernelFunc{N: 1, F: func(dst []float64, _, _ float64, u []float64) { dst[0] = u[0] }}
	k := newTanhKernel(2, 2, 1)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"T0 = T", func() { Solve(&Equation{T0: 1, T: 1, Psi: Const{1}, Kernel: one}, 10, Settings{}) }, "want finite T0 < T"},
		{"T0 > T", func() { SolveSeparable(&SeparableEquation{T0: 2, T: 1, Psi: Const{1, 1}, Kernel: k}, 10, Settings{}) }, "want finite T0 < T"},
		{"no steps", func() { Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: one}, 0, Settings{}) }, "want at least 1"},
		{"negative tol", func() {
			Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: one}, 10, Settings{Settings: machines.Settings{Tol: -1}})
		}, "invalid tolerance"},
		{"negative MaxIter", func() {
			SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: k}, 10, Settings{Settings: machines.Settings{MaxIter: -1}})
		}, "negative MaxIter"},
		{"negative ODE tol", func() {
			SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: k}, 10, Settings{ODE: &ode.Settings{RTol: -1}})
		}, "invalid RTol"},
		{"psi length", func() { Solve(&Equation{T0: 0, T: 1, Psi: Const{1, 2}, Kernel: one}, 10, Settings{}) }, "Const free term of length 2"},
		{"negative batch", func() { Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: one, Batch: -1}, 10, Settings{}) }, "negative Batch"},
		{"batch psi length", func() {
			SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: k, Batch: 2}, 10, Settings{})
		}, "Const free term of length 2"},
		{"nil kernel", func() { Solve(&Equation{T0: 0, T: 1, Psi: Const{1}}, 10, Settings{}) }, "nil Kernel"},
		{"elementwise shape", func() {
			bad := sepFunc{n: 2, m: 1, d: 1, prod: Elementwise}
			SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: bad}, 10, Settings{})
		}, "elementwise product with TermDim 1"},
		{"du length", func() {
			sol, _ := SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: k}, 10, Settings{})
			sol.Gradient(nil, nil, make([]float64, 3))
		}, "len(du) = 3"},
		{"dp length", func() {
			sol, _ := SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: Const{1, 1}, Kernel: k}, 10, Settings{})
			sol.Gradient(nil, make([]float64, 1), make([]float64, len(sol.U)))
		}, "len(dp) = 1"},
		{"kernel without VJP", func() {
			sol, _ := Solve(&Equation{T0: 0, T: 1, Psi: Const{1}, Kernel: one}, 10, Settings{})
			sol.Gradient(nil, nil, make([]float64, len(sol.U)))
		}, "not a ParamKernel"},
		{"forcing without VJP", func() {
			psi := ForcingFunc(func(dst []float64, _ float64) { dst[0], dst[1] = 1, 1 })
			sol, _ := SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: k}, 10, Settings{})
			sol.Gradient(make([]float64, 2), nil, make([]float64, len(sol.U)))
		}, "not a ParamForcing"},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}

// TestBenchAccuracy checks the error of each workload against a
// Dormand–Prince reference: second order for the general solver, fourth
// for the fast one, at 100 and 1000 points.
func TestBenchAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	k := newTanhKernel(4, 4, 1)
	psi := ForcingFunc(func(dst []float64, t float64) {
		for r := range dst {
			dst[r] = math.Sin(t + float64(r))
		}
	})
	for _, steps := range []int{100, 1000} {
		ref, err := SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: k}, steps,
			Settings{ODE: &ode.Settings{RTol: 1e-13, ATol: 1e-13}})
		if err != nil {
			t.Fatal(err)
		}
		for _, fast := range []bool{false, true} {
			sol, err := benchSolver(fast)(steps)
			if err != nil {
				t.Fatal(err)
			}
			var e float64
			for i, u := range sol.U {
				e = max(e, math.Abs(u-ref.U[i]))
			}
			// Measured: general 1.8e-5 and 1.8e-7, fast 2.3e-10 and
			// 2.3e-14; the bounds leave a factor of ten.
			bound := 2 / float64(steps*steps)
			if fast {
				bound = 3e-1 / math.Pow(float64(steps), 4)
			}
			if e > max(bound, 1e-13) {
				t.Errorf("fast=%v, %d steps: max error %.3g, want <= %.3g", fast, steps, e, bound)
			}
		}
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, fast := range []bool{false, true} {
		name := "general"
		if fast {
			name = "fast"
		}
		for _, steps := range []int{100, 300, 1000} {
			b.Run(fmt.Sprintf("%s/n=%d", name, steps), func(b *testing.B) {
				solve := benchSolver(fast)
				for b.Loop() {
					if _, err := solve(steps); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkGradient(b *testing.B) {
	for _, fast := range []bool{false, true} {
		name := "general"
		if fast {
			name = "fast"
		}
		for _, steps := range []int{100, 1000} {
			b.Run(fmt.Sprintf("%s/n=%d", name, steps), func(b *testing.B) {
				sol, err := benchSolver(fast)(steps)
				if err != nil {
					b.Fatal(err)
				}
				du := lossGrad(sol.U, 4)
				dp := make([]float64, 4*4+4+2*4*4)
				for b.Loop() {
					if err := sol.Gradient(nil, dp, du); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestBatch checks that a batch solves its members independently and
// that its gradients are the members' gradients, summed for the kernel.
func TestBatch(t *testing.T) {
	const n, batch = 2, 3
	members := [][]float64{{0.5, -1}, {0, 0.3}, {1.2, 0.1}}
	var all Const
	for _, m := range members {
		all = append(all, m...)
	}
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			k := newTanhKernel(n, 3, 5)
			solve := func(psi Const, b int) *Solution {
				var sol *Solution
				var err error
				if fast {
					sol, err = SolveSeparable(&SeparableEquation{T0: 0, T: 1, Psi: psi, Kernel: k, Batch: b}, 30, Settings{})
				} else {
					sol, err = Solve(&Equation{T0: 0, T: 1, Psi: psi, Kernel: &SeparableKernel{Separable: k}, Batch: b}, 30, Settings{})
				}
				if err != nil {
					t.Fatal(err)
				}
				return sol
			}
			bsol := solve(all, batch)
			bdu := lossGrad(bsol.U, batch*n)
			bdq, bdp := make([]float64, batch*n), make([]float64, k.NumParams())
			if err := bsol.Gradient(bdq, bdp, bdu); err != nil {
				t.Fatal(err)
			}
			sum := make([]float64, len(bdp))
			for j, psi := range members {
				sol := solve(psi, 0)
				du := make([]float64, len(sol.U))
				for i := range sol.T {
					for r := range n {
						if got, want := bsol.U[(i*batch+j)*n+r], sol.U[i*n+r]; math.Abs(got-want) > 1e-10 {
							t.Fatalf("member %d at t=%v: %v, alone %v", j, sol.T[i], got, want)
						}
						du[i*n+r] = bdu[(i*batch+j)*n+r]
					}
				}
				dq, dp := make([]float64, n), make([]float64, len(bdp))
				if err := sol.Gradient(dq, dp, du); err != nil {
					t.Fatal(err)
				}
				for r := range n {
					if math.Abs(dq[r]-bdq[j*n+r]) > 1e-9 {
						t.Errorf("member %d: dψ[%d] = %v in the batch, %v alone", j, r, bdq[j*n+r], dq[r])
					}
				}
				for i, g := range dp {
					sum[i] += g
				}
			}
			for i := range sum {
				if math.Abs(sum[i]-bdp[i]) > 1e-9 {
					t.Errorf("dp[%d] = %v in the batch, %v summed over the members", i, bdp[i], sum[i])
				}
			}
		})
	}
}
