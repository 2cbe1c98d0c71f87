package infinite

import (
	"errors"
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/volterra"
)

// Defaults used for the zero fields of Architecture.
const (
	DefaultGamma = 0.5
	DefaultSteps = 16
)

// Architecture describes an infinite-depth kernel machine.
type Architecture struct {
	// Dim is n, the dimension of the state u(t) ∈ ℝⁿ. It must be at
	// least 1.
	Dim int
	// Anchors is m, the number of anchor trajectories xⱼ, at least 1.
	Anchors int
	// MaxFreq is the number of Fourier components of each cⱼ(t),
	// cos(2πkt) for k = 0, …, MaxFreq-1. It must be at least 1: there is
	// no default, it is the architecture.
	MaxFreq int
	// Gamma is the width of the Gaussian k(u, v) = exp(-Gamma·|u - v|²).
	// Zero means DefaultGamma, exp(-|u - v|²/2).
	Gamma float64
	// Steps is the number of RK4 steps on [0, 1] of a query; the anchors
	// are solved with 2·Steps, so that their states are known at every
	// stage of a query step. Zero means DefaultSteps. With Tol set, it is
	// the number of intervals of the output grid instead.
	Steps int
	// Sine adds the sines sin(2πkt), k = 1, …, MaxFreq-1, to the cosines
	// of the basis of the cⱼ: the paper's truncated Fourier series, where
	// the cosines alone (the default) span only the functions symmetric
	// about t = 1/2.
	Sine bool
	// Tol, if positive, solves by adaptive Dormand–Prince with relative
	// and absolute tolerance Tol (the authors' 1e-3) and differentiates
	// by the adjoint method, rather than by RK4 on a fixed grid with
	// backpropagation through its steps. A query then finds the anchors
	// at any time by linear interpolation on their grid.
	Tol float64
}

// Check reports an invalid architecture.
func (s Architecture) Check() error {
	switch {
	case s.Dim < 1:
		return fmt.Errorf("infinite: state dimension %d, want at least 1", s.Dim)
	case s.Anchors < 1:
		return fmt.Errorf("infinite: %d anchors, want at least 1", s.Anchors)
	case s.MaxFreq < 1:
		return fmt.Errorf("infinite: maxfreq %d, want at least 1 Fourier component", s.MaxFreq)
	case s.Gamma < 0 || math.IsNaN(s.Gamma) || math.IsInf(s.Gamma, 0):
		return fmt.Errorf("infinite: Gaussian width %v, want a finite value > 0 (or 0 for the default)", s.Gamma)
	case s.Steps < 0:
		return fmt.Errorf("infinite: %d steps, want at least 1 (or 0 for the default)", s.Steps)
	case s.Tol < 0 || math.IsNaN(s.Tol) || math.IsInf(s.Tol, 0):
		return fmt.Errorf("infinite: tolerance %v, want a finite value > 0 (or 0 for RK4)", s.Tol)
	}
	return nil
}

// WithDefaults returns the architecture with the values that a zero Gamma
// and a zero Steps stand for.
func (s Architecture) WithDefaults() Architecture {
	s.Gamma, s.Steps = s.gamma(), s.steps()
	return s
}

func (s Architecture) gamma() float64 {
	if s.Gamma == 0 {
		return DefaultGamma
	}
	return s.Gamma
}

func (s Architecture) steps() int {
	if s.Steps == 0 {
		return DefaultSteps
	}
	return s.Steps
}

// querySteps returns the intervals of the grid of a solve against the
// anchors: Steps, whose RK4 stages fall on the anchors' grid, or, for the
// adaptive solver, the anchors' own grid, so that no step crosses a kink
// of their linear interpolation, which the solver's error estimate,
// made for smooth solutions, would misjudge.
func (s Architecture) querySteps() int {
	if s.Tol > 0 {
		return 2 * s.steps()
	}
	return s.steps()
}

// Basis returns the number of basis functions of each cⱼ: MaxFreq
// cosines, and MaxFreq-1 sines with Sine.
func (s Architecture) Basis() int {
	if s.Sine {
		return 2*s.MaxFreq - 1
	}
	return s.MaxFreq
}

// basisAt sets dst (Basis entries) to the basis functions at t: the
// cosines cos(2πkt), k < MaxFreq, then with Sine the sines sin(2πkt),
// 0 < k < MaxFreq.
func (s Architecture) basisAt(dst []float64, t float64) []float64 {
	for k := range s.MaxFreq {
		dst[k] = math.Cos(2 * math.Pi * float64(k) * t)
		if s.Sine && k > 0 {
			dst[s.MaxFreq+k-1] = math.Sin(2 * math.Pi * float64(k) * t)
		}
	}
	return dst[:s.Basis()]
}

// solver returns the settings of the solves whose gradient is wanted:
// nil, RK4 with its steps recorded for backpropagation, or adaptive
// Dormand–Prince with the adjoint.
func (s Architecture) solver() volterra.Settings {
	if s.Tol == 0 {
		return volterra.Settings{}
	}
	return volterra.Settings{ODE: &ode.Settings{RTol: s.Tol, ATol: s.Tol}, Grad: ode.Adjoint}
}

// noGradSolver returns the settings of a solve whose gradient is not
// wanted, which need not record its steps.
func (s Architecture) noGradSolver() volterra.Settings {
	v := s.solver()
	v.Grad = ode.Adjoint
	return v
}

// Machine is an infinite-depth kernel machine f = Σⱼ K(·, xⱼ)cⱼ on
// L²([0, 1], ℝⁿ): its Fourier coefficients, the anchors being given to
// Forward as the initial conditions of their trajectories.
type Machine struct {
	Architecture
	// Coef holds the coefficients c_jk ∈ ℝⁿ of cⱼ(t) = Σₖ c_jk·bₖ(t),
	// bₖ the basis functions (Architecture.Basis): c_jk[r] is
	// Coef[(j·Basis + k)·Dim + r].
	Coef []float64
}

// New returns a machine with zero coefficients, or an error for invalid
// settings.
func New(s Architecture) (*Machine, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &Machine{Architecture: s, Coef: make([]float64, s.Anchors*s.Basis()*s.Dim)}, nil
}

// NumParams returns the number of coefficients, Anchors·Basis·Dim.
func (mc *Machine) NumParams() int { return mc.Anchors * mc.Basis() * mc.Dim }

func (mc *Machine) checkCoef() {
	if err := mc.Architecture.Check(); err != nil {
		panic(fmt.Errorf("%w: %w", ad.ErrValue, err))
	}
	if len(mc.Coef) != mc.NumParams() {
		panic(fmt.Errorf("%w: infinite: %d coefficients, want Anchors·Basis·Dim = %d", ad.ErrShape, len(mc.Coef), mc.NumParams()))
	}
}

// Trajectory is the stable state of the machine for its anchors: the
// trajectories x₁, …, xₘ on the grid of 2·Steps intervals of [0, 1],
// solved together. It fixes the machine as a function, so that new
// inputs can be queried against it, and differentiates losses of the
// anchors' states. It keeps a copy of the coefficients of Forward.
type Trajectory struct {
	// T is the grid and U the anchors' states on it: U[g·m·n + j·n + r]
	// is xⱼ(T[g])[r].
	T, U []float64

	s    Architecture
	coef []float64
	psi  []float64
	sol  *volterra.Solution
}

// Forward solves eq. 10 of the paper for the anchors,
//
//	xᵢ(t) = ψᵢ + ∫₀ᵗ Σⱼ k(xᵢ(s), xⱼ(s))·cⱼ(t) ds,  t ∈ [0, 1],
//
// with the anchors' own trajectories as the xⱼ of the kernel (the
// representer theorem: the machine that a loss of the anchors' stable
// states selects is a combination of K(·, xⱼ)). psi holds the constant
// initial conditions ψᵢ, m·n entries. The equation is separable and is
// solved through the ODE of Theorem 5 (volterra.SolveSeparable), with
// RK4 on 2·Steps intervals (or adaptively, with Tol).
//
// Forward panics on a psi of the wrong length; a solution that is not
// finite is an error.
func (mc *Machine) Forward(psi []float64) (*Trajectory, error) {
	mc.checkCoef()
	if len(psi) != mc.Anchors*mc.Dim {
		panic(fmt.Errorf("%w: infinite: len(psi) = %d, want Anchors·Dim = %d", ad.ErrShape, len(psi), mc.Anchors*mc.Dim))
	}
	tr := &Trajectory{s: mc.Architecture, coef: append([]float64(nil), mc.Coef...), psi: append([]float64(nil), psi...)}
	k := newAnchorKernel(tr.s, tr.coef)
	eq := &volterra.SeparableEquation{T0: 0, T: 1, Psi: volterra.Const(append([]float64(nil), psi...)), Kernel: k}
	sol, err := volterra.SolveSeparable(eq, 2*tr.s.steps(), tr.s.solver())
	if err != nil {
		return nil, fmt.Errorf("infinite: anchors: %w", err)
	}
	tr.sol, tr.T, tr.U = sol, sol.T, sol.U
	return tr, nil
}

// Architecture returns the architecture of the machine that computed tr.
func (tr *Trajectory) Architecture() Architecture { return tr.s }

// Final sets dst to the anchors' final states xⱼ(1), m·n entries, and
// returns it; a nil dst is allocated.
func (tr *Trajectory) Final(dst []float64) []float64 {
	mn := tr.s.Anchors * tr.s.Dim
	if dst == nil {
		dst = make([]float64, mn)
	}
	copy(dst, tr.U[len(tr.U)-mn:])
	return dst
}

// simpson returns the weights of Simpson's rule on the grid of an even
// number of equal intervals.
func simpson(ts []float64) []float64 {
	w := make([]float64, len(ts))
	h := ts[1] - ts[0]
	for g := range w {
		switch {
		case g == 0 || g == len(w)-1:
			w[g] = h / 3
		case g%2 == 1:
			w[g] = 4 * h / 3
		default:
			w[g] = 2 * h / 3
		}
	}
	return w
}

// Norm returns the squared RKHS norm of the machine f = Σⱼ K(·, xⱼ)cⱼ,
//
//	|f|²_H = Σᵢⱼ ⟨cᵢ, K(xᵢ, xⱼ)cⱼ⟩ = ∫₀¹ Σᵢ ⟨cᵢ(t), xᵢ(t) - ψᵢ⟩ dt,
//
// computed with Simpson's rule on the grid: (K(xᵢ, xⱼ)c)(t) is c(t) times
// zᵢⱼ(t) = ∫₀ᵗ k(xᵢ(s), xⱼ(s)) ds, and Σⱼ zᵢⱼ(t)cⱼ(t) = xᵢ(t) - ψᵢ is what
// the solver already holds.
func (tr *Trajectory) Norm() float64 {
	m, n := tr.s.Anchors, tr.s.Dim
	c, basis := make([]float64, m*n), make([]float64, tr.s.Basis())
	w := simpson(tr.T)
	var sum float64
	for g, t := range tr.T {
		coefAt(c, tr.coef, m, n, tr.s.basisAt(basis, t))
		u := tr.U[g*m*n : (g+1)*m*n]
		var acc float64
		for i, ci := range c {
			acc += ci * (u[i] - tr.psi[i])
		}
		sum += w[g] * acc
	}
	return sum
}

// Backward computes the gradient of
//
//	L = ⟨dfinal, (x₁(1), …, xₘ(1))⟩ + normWeight·Norm()
//
// with respect to the initial conditions ψ, into dpsi (m·n entries), and
// the coefficients, into dcoef (laid out as Machine.Coef): the
// vector-Jacobian product of the layer, for a loss whose gradient with
// respect to the final states is dfinal. Either destination may be nil.
// The gradient is that of the computed solution (backpropagation through
// the RK4 steps), or with Tol that of the exact one by the adjoint.
func (tr *Trajectory) Backward(dpsi, dcoef, dfinal []float64, normWeight float64) error {
	mn := tr.s.Anchors * tr.s.Dim
	if len(dfinal) != mn {
		panic(fmt.Errorf("%w: infinite: len(dfinal) = %d, want Anchors·Dim = %d", ad.ErrShape, len(dfinal), mn))
	}
	du := make([]float64, len(tr.U))
	copy(du[len(du)-mn:], dfinal)
	return tr.backward(dpsi, dcoef, du, normWeight)
}

// backward is Backward for a loss whose gradient with respect to the
// anchors' states on the whole grid is du (laid out as U), which it
// overwrites.
func (tr *Trajectory) backward(dpsi, dcoef, du []float64, normWeight float64) error {
	m, n, nb := tr.s.Anchors, tr.s.Dim, tr.s.Basis()
	mn := m * n
	if dpsi != nil && len(dpsi) != mn {
		panic(fmt.Errorf("%w: infinite: len(dpsi) = %d, want Anchors·Dim = %d", ad.ErrShape, len(dpsi), mn))
	}
	if dcoef != nil && len(dcoef) != len(tr.coef) {
		panic(fmt.Errorf("%w: infinite: len(dcoef) = %d, want %d", ad.ErrShape, len(dcoef), len(tr.coef)))
	}
	directPsi := make([]float64, mn)
	directCoef := make([]float64, len(tr.coef))
	if normWeight != 0 {
		c, basis := make([]float64, mn), make([]float64, nb)
		w := simpson(tr.T)
		for g, t := range tr.T {
			b := tr.s.basisAt(basis, t)
			coefAt(c, tr.coef, m, n, b)
			u := tr.U[g*mn : (g+1)*mn]
			dug := du[g*mn : (g+1)*mn]
			a := normWeight * w[g]
			for i, ci := range c {
				dug[i] += a * ci
				directPsi[i] -= a * ci
			}
			for j := range m {
				for k, bk := range b {
					row := directCoef[(j*nb+k)*n : (j*nb+k+1)*n]
					for r := range row {
						row[r] += a * bk * (u[j*n+r] - tr.psi[j*n+r])
					}
				}
			}
		}
	}
	gq, gp := make([]float64, mn), make([]float64, len(tr.coef))
	if err := tr.sol.Gradient(gq, gp, du); err != nil {
		return fmt.Errorf("infinite: anchors: %w", err)
	}
	for i := range dpsi {
		dpsi[i] = gq[i] + directPsi[i]
	}
	for i := range dcoef {
		dcoef[i] = gp[i] + directCoef[i]
	}
	return nil
}

// At sets dst (Anchors·Dim entries, nil to allocate) to the anchors'
// states at s, dst[j·Dim + r] = xⱼ(s)[r], and returns it. With CoefAt
// it is what a query reads at s, for code that repeats a query's solve
// elsewhere, as package onnx does.
func (tr *Trajectory) At(dst []float64, s float64) []float64 {
	if dst == nil {
		dst = make([]float64, tr.s.Anchors*tr.s.Dim)
	}
	return tr.at(dst, s)
}

// CoefAt sets dst (Anchors·Dim entries, nil to allocate) to the
// coefficients at t, dst[j·Dim + r] = cⱼ(t)[r], and returns it.
func (tr *Trajectory) CoefAt(dst []float64, t float64) []float64 {
	if dst == nil {
		dst = make([]float64, tr.s.Anchors*tr.s.Dim)
	}
	coefAt(dst, tr.coef, tr.s.Anchors, tr.s.Dim, tr.s.basisAt(make([]float64, tr.s.Basis()), t))
	return dst
}

// at sets dst to the anchors' states at s: a grid point of the anchors'
// solve, which every RK4 stage of a query is, or else the linear
// interpolation between the two around it.
func (tr *Trajectory) at(dst []float64, s float64) []float64 {
	mn := tr.s.Anchors * tr.s.Dim
	last := len(tr.T) - 1
	x := s * float64(last)
	g := math.Round(x)
	if math.Abs(x-g) <= 1e-9*float64(last) || x <= 0 || x >= float64(last) {
		g = min(max(g, 0), float64(last))
		i := int(g)
		copy(dst, tr.U[i*mn:(i+1)*mn])
		return dst
	}
	i := int(math.Floor(x))
	a := x - float64(i)
	u0, u1 := tr.U[i*mn:(i+1)*mn], tr.U[(i+1)*mn:(i+2)*mn]
	for r := range dst[:mn] {
		dst[r] = (1-a)*u0[r] + a*u1[r]
	}
	return dst
}

func (tr *Trajectory) queryEquation(psi []float64) *volterra.SeparableEquation {
	n := tr.s.Dim
	if len(psi) == 0 || len(psi)%n != 0 {
		panic(fmt.Errorf("%w: infinite: len(psi) = %d, want a positive multiple of Dim = %d", ad.ErrShape, len(psi), n))
	}
	return &volterra.SeparableEquation{T0: 0, T: 1, Psi: volterra.Const(append([]float64(nil), psi...)),
		Kernel: newQueryKernel(tr), Batch: len(psi) / n}
}

// Query computes the stable state of the machine for new inputs: for each
// initial condition ψ in psi (a batch of n-vectors) it solves
//
//	u(t) = ψ + ∫₀ᵗ Σⱼ k(u(s), xⱼ(s))·cⱼ(t) ds
//
// with the anchors' trajectories xⱼ of tr, by RK4 on Steps intervals (or
// adaptively, with Tol), and
// sets dst to the final states u(1), in the layout of psi. A nil dst is
// allocated. An anchor's own ψ gives back its trajectory, to the
// accuracy of the solvers. Query is safe for concurrent use.
func (tr *Trajectory) Query(dst, psi []float64) ([]float64, error) {
	eq := tr.queryEquation(psi)
	if dst == nil {
		dst = make([]float64, len(psi))
	} else if len(dst) != len(psi) {
		panic(fmt.Errorf("%w: infinite: len(dst) = %d, want len(psi) = %d", ad.ErrShape, len(dst), len(psi)))
	}
	sol, err := volterra.SolveSeparable(eq, tr.s.querySteps(), tr.s.noGradSolver())
	if err != nil {
		return nil, fmt.Errorf("infinite: query: %w", err)
	}
	copy(dst, sol.U[len(sol.U)-len(psi):])
	return dst, nil
}

// queryVJP sets dpsi to the gradient of ⟨dfinal, u(1)⟩ with respect to
// the initial conditions psi of a Query, the anchors and coefficients
// held fixed: the backward pass of the machine as a layer on new inputs.
// A nil dpsi is allocated.
func (tr *Trajectory) queryVJP(dpsi, psi, dfinal []float64) ([]float64, error) {
	eq := tr.queryEquation(psi)
	if len(dfinal) != len(psi) {
		panic(fmt.Errorf("%w: infinite: len(dfinal) = %d, want len(psi) = %d", ad.ErrShape, len(dfinal), len(psi)))
	}
	if dpsi == nil {
		dpsi = make([]float64, len(psi))
	} else if len(dpsi) != len(psi) {
		panic(fmt.Errorf("%w: infinite: len(dpsi) = %d, want len(psi) = %d", ad.ErrShape, len(dpsi), len(psi)))
	}
	sol, err := volterra.SolveSeparable(eq, tr.s.querySteps(), tr.s.solver())
	if err != nil {
		return nil, fmt.Errorf("infinite: query: %w", err)
	}
	du := make([]float64, len(sol.U))
	copy(du[len(du)-len(psi):], dfinal)
	if err := sol.Gradient(dpsi, nil, du); err != nil {
		return nil, fmt.Errorf("infinite: query: %w", err)
	}
	return dpsi, nil
}

var errNonFinite = errors.New("infinite: loss is not finite")
