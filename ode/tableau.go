package ode

// tableau is an explicit Runge–Kutta method: stage i evaluates f at
// t + c[i]·h and y + h·Σ_{j<i} a[i][j]·k[j], and the step is
// y + h·Σ b[i]·k[i].
type tableau struct {
	name  string
	order int
	c     []float64
	a     [][]float64
	b     []float64
	// e holds the weights of the error estimate (the difference of the
	// two solutions of an embedded pair); nil for fixed-step methods.
	e []float64
	// fsal (first same as last) means the last stage is evaluated at the
	// new state, so that it is the first stage of the next step. Such a
	// stage does not enter the step itself.
	fsal bool
	// dense sets w[i] to the weight of k[i] in the continuous extension
	// y(t + θh) = y + h·Σ w[i]·k[i], for θ in [0, 1].
	dense func(w []float64, theta float64)
}

// stages returns the number of stages.
func (tab *tableau) stages() int { return len(tab.c) }

// used returns the number of stages that enter the new state: all of them
// except a last FSAL stage.
func (tab *tableau) used() int {
	if tab.fsal {
		return len(tab.c) - 1
	}
	return len(tab.c)
}

// dp5 is the Dormand–Prince 5(4) pair (Dormand and Prince 1980): a fifth
// order solution with an embedded fourth order one for error control, and
// the fourth order continuous extension of Shampine (1986).
var dp5 = &tableau{
	name:  "Dormand-Prince 5(4)",
	order: 5,
	c:     []float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1},
	a: [][]float64{
		nil,
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	},
	b: dp5B,
	// b minus the fourth order weights
	// 5179/57600, 0, 7571/16695, 393/640, -92097/339200, 187/2100, 1/40.
	e:     []float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40},
	fsal:  true,
	dense: dp5Dense,
}

var dp5B = []float64{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0}

// dp5D are the coefficients of the quartic correction in Shampine's
// continuous extension of the Dormand–Prince pair.
var dp5D = [7]float64{
	-12715105075.0 / 11282082432,
	0,
	87487479700.0 / 32700410799,
	-10690763975.0 / 1880347072,
	701980252875.0 / 199316789632,
	-1453857185.0 / 822651844,
	69997945.0 / 29380423,
}

// dp5Dense writes the interpolant as weights on the stages. With
// Δ = y₁ - y₀ = h·Σ bᵢkᵢ, the interpolant
//
//	y₀ + θΔ + θ(1-θ)(hk₁ - Δ) + θ²(1-θ)(2Δ - hk₁ - hk₇) + θ²(1-θ)²·h·Σ dᵢkᵢ
//
// matches y and its derivative at both ends of the step (k₇ = f(t₁, y₁))
// and is fourth order inside it.
func dp5Dense(w []float64, theta float64) {
	s := 1 - theta
	p1 := theta * s
	p2 := theta * theta * s
	p3 := theta * theta * s * s
	for i, bi := range dp5B {
		w[i] = theta*bi - p1*bi + 2*p2*bi + p3*dp5D[i]
	}
	w[0] += p1 - p2
	w[6] -= p2
}

// rk4 is the classical fourth order Runge–Kutta method, with the third
// order continuous extension
//
//	w₁ = θ - 3θ²/2 + 2θ³/3, w₂ = w₃ = θ² - 2θ³/3, w₄ = -θ²/2 + 2θ³/3,
//
// the cubic in θ that satisfies the order conditions up to order three.
var rk4 = &tableau{
	name:  "RK4",
	order: 4,
	c:     []float64{0, 0.5, 0.5, 1},
	a: [][]float64{
		nil,
		{0.5},
		{0, 0.5},
		{0, 0, 1},
	},
	b: []float64{1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
	dense: func(w []float64, theta float64) {
		t2, t3 := theta*theta, theta*theta*theta
		w[0] = theta - 1.5*t2 + 2*t3/3
		w[1] = t2 - 2*t3/3
		w[2] = w[1]
		w[3] = -0.5*t2 + 2*t3/3
	},
}
