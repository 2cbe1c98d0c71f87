package ode

import (
	"fmt"
	"math"
	"sort"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
)

// Solution is the result of a solve: the states at the output times and,
// unless Settings.DropSteps was set, the record of every accepted step,
// from which At interpolates and Gradient backpropagates.
type Solution struct {
	// T holds the output times, a copy of those given to the solver.
	T []float64
	// Y holds the states at the output times: row k, Y[k*n:(k+1)*n] for
	// a state of length n, is the solution at T[k]. Row 0 is y0.
	Y []float64
	// Steps, Rejected and Evals count the accepted steps, the rejected
	// ones and the evaluations of the derivative.
	Steps, Rejected, Evals int

	sys      System
	tab      *tableau
	adaptive bool
	set      values
	n        int

	// The record of the steps. Step i goes from stepT[i] to stepT[i+1]
	// with size stepH[i], starts at stepY[i*n:(i+1)*n] and has the stages
	// stepK[i*s*n:(i+1)*s*n] for s stages; outAt[k] is the index in stepT
	// of output time k.
	stepT, stepH, stepY, stepK []float64
	outAt                      []int
}

// Dim returns the length of the state.
func (sol *Solution) Dim() int { return sol.n }

// DormandPrince solves y' = f(t, y), y(ts[0]) = y0 with the adaptive
// Dormand–Prince 5(4) method and returns the solution at the output times
// ts. The steps end exactly on the output times; between them the step
// size follows the error estimate.
//
// ts must have at least two entries, finite and strictly increasing, and
// len(y0) must be sys.Dim(); otherwise DormandPrince panics, as it does
// for invalid settings. A step size falling below the minimum gives a
// *StepSizeError, a non-finite state or derivative a *NonFiniteError and
// too many steps a *MaxStepsError; the solution is then nil.
func DormandPrince(sys System, y0, ts []float64, s Settings) (*Solution, error) {
	return solve(sys, y0, ts, s, dp5, true)
}

// RK4 solves y' = f(t, y), y(ts[0]) = y0 with the classical fourth order
// Runge–Kutta method, taking one step from each output time to the next:
// ts is the grid. Of the settings only DropSteps is used. The conditions
// on the arguments are those of DormandPrince; a non-finite state or
// derivative gives a *NonFiniteError.
func RK4(sys System, y0, ts []float64, s Settings) (*Solution, error) {
	return solve(sys, y0, ts, s, rk4, false)
}

func solve(sys System, y0, ts []float64, s Settings, tab *tableau, adaptive bool) (*Solution, error) {
	n := sys.Dim()
	checkProblem(n, y0, ts)
	v := s.values()
	sol := &Solution{
		T:        append([]float64(nil), ts...),
		Y:        make([]float64, len(ts)*n),
		sys:      sys,
		tab:      tab,
		adaptive: adaptive,
		set:      v,
		n:        n,
	}
	copy(sol.Y, y0)
	if !numeric.AllFinite(y0) {
		return nil, &NonFiniteError{T: ts[0]}
	}
	in := newIntegrator(sys, tab, v, adaptive, ts[0], y0)
	if !v.drop {
		// RK4 takes exactly one step per interval and an adaptive solve
		// at least as many: the record is sized for that, so that it
		// grows, copying what it holds, only for the extra adaptive
		// steps.
		steps, st := len(ts)-1, tab.stages()
		sol.stepT = append(make([]float64, 0, steps+1), ts[0])
		sol.stepH = make([]float64, 0, steps)
		sol.stepY = append(make([]float64, 0, (steps+1)*n), y0...)
		sol.stepK = make([]float64, 0, steps*st*n)
		sol.outAt = append(make([]int, 0, len(ts)), 0)
		in.rec = sol
	}
	for k := 1; k < len(ts); k++ {
		err := in.advance(ts[k])
		sol.Steps, sol.Rejected, sol.Evals = in.steps, in.rejected, in.evals
		if err != nil {
			return nil, err
		}
		copy(sol.Y[k*n:(k+1)*n], in.y)
		if !v.drop {
			sol.outAt = append(sol.outAt, len(sol.stepT)-1)
		}
	}
	return sol, nil
}

// checkProblem panics unless y0 has length n and ts is a valid grid.
func checkProblem(n int, y0, ts []float64) {
	if n < 1 {
		panic(fmt.Errorf("%w: ode: system dimension %d, want at least 1", ad.ErrShape, n))
	}
	if len(y0) != n {
		panic(fmt.Errorf("%w: ode: len(y0) = %d, want the system dimension %d", ad.ErrShape, len(y0), n))
	}
	if len(ts) < 2 {
		panic(fmt.Errorf("%w: ode: %d output times, want at least 2 (start and end)", ad.ErrShape, len(ts)))
	}
	for i, t := range ts {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			panic(fmt.Errorf("%w: ode: output time ts[%d] = %v is not finite", ad.ErrValue, i, t))
		}
		if i > 0 && t <= ts[i-1] {
			panic(fmt.Errorf("%w: ode: output times not strictly increasing: ts[%d] = %v <= ts[%d] = %v", ad.ErrValue, i, t, i-1, ts[i-1]))
		}
	}
}

// At returns the solution at t, interpolated with the continuous extension
// of the method: fourth order for Dormand–Prince, third order for RK4. It
// is exact (the stored state) at the ends of the steps. If dst is nil a
// new slice is allocated; otherwise it must have length Dim.
//
// At panics if t lies outside [T[0], T[len(T)-1]] or if the steps were
// dropped.
func (sol *Solution) At(dst []float64, t float64) []float64 {
	if sol.stepT == nil {
		panic(fmt.Errorf("%w: ode: At needs the steps, which Settings.DropSteps discarded", ad.ErrValue))
	}
	if !(t >= sol.T[0] && t <= sol.T[len(sol.T)-1]) {
		panic(fmt.Errorf("%w: ode: At(%v) outside the solved interval [%v, %v]", ad.ErrShape, t, sol.T[0], sol.T[len(sol.T)-1]))
	}
	n := sol.n
	if dst == nil {
		dst = make([]float64, n)
	} else if len(dst) != n {
		panic(fmt.Errorf("%w: ode: len(dst) = %d, want %d", ad.ErrShape, len(dst), n))
	}
	i := sort.SearchFloat64s(sol.stepT, t)
	if sol.stepT[i] == t {
		copy(dst, sol.stepY[i*n:(i+1)*n])
		return dst
	}
	i--
	s := sol.tab.stages()
	h := sol.stepH[i]
	var w [8]float64
	sol.tab.dense(w[:s], (t-sol.stepT[i])/h)
	y := sol.stepY[i*n : (i+1)*n]
	k := sol.stepK[i*s*n : (i+1)*s*n]
	for r := range dst {
		var acc float64
		for j := range s {
			acc += w[j] * k[j*n+r]
		}
		dst[r] = y[r] + h*acc
	}
	return dst
}

// integrator advances one state with one method, adaptively or by single
// steps, and optionally records the accepted steps in a Solution.
type integrator struct {
	sys      System
	tab      *tableau
	v        values
	adaptive bool

	t float64
	y []float64
	// h is the size proposed for the next adaptive step (0: not chosen
	// yet) and rejectedLast reports that the last trial was rejected.
	h            float64
	rejectedLast bool
	// k holds the stages; k[0] is f(t, y) when fresh.
	k          [][]float64
	fresh      bool
	ytmp, ynew []float64

	steps, rejected, evals int
	rec                    *Solution
}

func newIntegrator(sys System, tab *tableau, v values, adaptive bool, t0 float64, y0 []float64) *integrator {
	n := sys.Dim()
	in := &integrator{sys: sys, tab: tab, v: v, adaptive: adaptive, t: t0, h: v.h0}
	in.y = append(make([]float64, 0, n), y0...)
	in.ytmp = make([]float64, n)
	in.ynew = make([]float64, n)
	in.k = make([][]float64, tab.stages())
	for i := range in.k {
		in.k[i] = make([]float64, n)
	}
	return in
}

// combine sets dst = y + h·Σ_j coef[j]·k[j], skipping zero coefficients.
// The forward pass and the backpropagation rebuild the stage inputs with
// it, so that both see the same values bit for bit.
func combine(dst, y []float64, h float64, coef []float64, k [][]float64) {
	for r := range dst {
		var acc float64
		for j, c := range coef {
			if c != 0 {
				acc += c * k[j][r]
			}
		}
		dst[r] = y[r] + h*acc
	}
}

// trial computes the stages of a step of size h from (t, y), k[0] being
// f(t, y) already, and the new state in ynew.
func (in *integrator) trial(h float64) {
	tab := in.tab
	for i := 1; i < tab.stages(); i++ {
		combine(in.ytmp, in.y, h, tab.a[i], in.k)
		in.sys.Deriv(in.k[i], in.t+tab.c[i]*h, in.ytmp)
		in.evals++
	}
	combine(in.ynew, in.y, h, tab.b[:tab.used()], in.k)
}

// errNorm returns the scaled root mean square of the error estimate of
// the last trial; NaN if anything in it is NaN.
func (in *integrator) errNorm(h float64) float64 {
	var sum float64
	for r, y := range in.y {
		var e float64
		for j, c := range in.tab.e {
			if c != 0 {
				e += c * in.k[j][r]
			}
		}
		sc := in.v.atol + in.v.rtol*max(math.Abs(y), math.Abs(in.ynew[r]))
		q := h * e / sc
		sum += q * q
	}
	return math.Sqrt(sum / float64(len(in.y)))
}

// accept moves to the end of the trial step of size h, which ends at tNew.
func (in *integrator) accept(h, tNew float64) error {
	if in.rec != nil {
		in.rec.record(h, tNew, in.k, in.ynew)
	}
	in.y, in.ynew = in.ynew, in.y
	in.t = tNew
	in.steps++
	if in.tab.fsal {
		last := len(in.k) - 1
		in.k[0], in.k[last] = in.k[last], in.k[0]
		if !numeric.AllFinite(in.k[0]) {
			return &NonFiniteError{T: in.t}
		}
	} else {
		in.fresh = false
	}
	return nil
}

// record appends an accepted step to the solution.
func (sol *Solution) record(h, tNew float64, k [][]float64, ynew []float64) {
	for _, ki := range k {
		sol.stepK = append(sol.stepK, ki...)
	}
	sol.stepH = append(sol.stepH, h)
	sol.stepT = append(sol.stepT, tNew)
	sol.stepY = append(sol.stepY, ynew...)
}

// advance integrates up to tEnd > t.
func (in *integrator) advance(tEnd float64) error {
	if err := in.refresh(); err != nil {
		return err
	}
	if !in.adaptive {
		h := tEnd - in.t
		in.trial(h)
		if !numeric.AllFinite(in.ynew) || !stagesFinite(in.k) {
			return &NonFiniteError{T: in.t}
		}
		return in.accept(h, tEnd)
	}
	if in.h == 0 {
		in.h = max(in.initialStep(tEnd), in.v.minStep)
	}
	for in.t < tEnd {
		if in.steps+in.rejected >= in.v.maxSteps {
			return &MaxStepsError{T: in.t, Steps: in.steps + in.rejected}
		}
		if err := in.refresh(); err != nil {
			return err
		}
		hMin := max(in.v.minStep, 16*eps*max(math.Abs(in.t), math.Abs(tEnd)))
		h, last := in.h, false
		if in.t+1.01*h >= tEnd {
			h, last = tEnd-in.t, true
		}
		in.trial(h)
		err := in.errNorm(h)
		if !(err <= 1) {
			if err := in.reject(h, err, hMin); err != nil {
				return err
			}
			continue
		}
		next := in.grown(h, err, last)
		tNew := in.t + h
		if last {
			tNew = tEnd
		}
		if err := in.accept(h, tNew); err != nil {
			return err
		}
		in.h = max(next, in.v.minStep)
		in.rejectedLast = false
	}
	return nil
}

// The step size control of the adaptive solves: a new step size is the
// old one times safety·err^(-1/order), kept within [facMin, facMax].
const (
	safety = 0.9
	facMin = 0.2
	facMax = 10
)

// refresh sets k[0] = f(t, y) unless it is fresh.
func (in *integrator) refresh() error {
	if in.fresh {
		return nil
	}
	in.sys.Deriv(in.k[0], in.t, in.y)
	in.evals++
	if !numeric.AllFinite(in.k[0]) {
		return &NonFiniteError{T: in.t}
	}
	in.fresh = true
	return nil
}

// reject counts a trial step of size h with the error norm err > 1, or
// NaN, and shrinks the next trial's size, failing if it falls below hMin.
func (in *integrator) reject(h, err, hMin float64) error {
	in.rejected++
	bad := math.IsNaN(err) || math.IsInf(err, 0)
	fac := facMin
	if !bad {
		fac = max(facMin, safety*math.Pow(err, -1/float64(in.tab.order)))
	}
	in.h = h * fac
	in.rejectedLast = true
	if in.h < hMin {
		if bad {
			return &NonFiniteError{T: in.t}
		}
		return &StepSizeError{T: in.t, H: in.h, Min: hMin}
	}
	return nil
}

// grown returns the size of the step after an accepted one of size h
// with the error norm err <= 1; last says that h was shortened to land
// on the end of the interval.
func (in *integrator) grown(h, err float64, last bool) float64 {
	fac := float64(facMax)
	if in.rejectedLast {
		fac = 1
	}
	if err > 0 {
		fac = min(fac, max(facMin, safety*math.Pow(err, -1/float64(in.tab.order))))
	}
	next := h * fac
	if last {
		// A step shortened to land on tEnd says little about the
		// step size the solution allows.
		next = max(next, in.h)
	}
	return next
}

const eps = 0x1p-52

// initialStep chooses the first step size from the size of the state, of
// its derivative and of the change of the derivative over an explicit
// Euler step, so that the leading error term of a step is about 1% of the
// tolerance. It uses k[1] as scratch.
func (in *integrator) initialStep(tEnd float64) float64 {
	span := tEnd - in.t
	if in.v.h0 > 0 {
		return in.v.h0
	}
	n := float64(len(in.y))
	var d0, d1 float64
	for r, y := range in.y {
		sc := in.v.atol + in.v.rtol*math.Abs(y)
		d0 += (y / sc) * (y / sc)
		d1 += (in.k[0][r] / sc) * (in.k[0][r] / sc)
	}
	d0, d1 = math.Sqrt(d0/n), math.Sqrt(d1/n)
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = min(h0, span)
	for r, y := range in.y {
		in.ytmp[r] = y + h0*in.k[0][r]
	}
	in.sys.Deriv(in.k[1], in.t+h0, in.ytmp)
	in.evals++
	var d2 float64
	for r, y := range in.y {
		sc := in.v.atol + in.v.rtol*math.Abs(y)
		q := (in.k[1][r] - in.k[0][r]) / sc
		d2 += q * q
	}
	d2 = math.Sqrt(d2/n) / h0
	h1 := max(1e-6, h0*1e-3)
	if dm := max(d1, d2); dm > 1e-15 {
		h1 = math.Pow(0.01/dm, 1/float64(in.tab.order))
	}
	h := min(100*h0, h1, span)
	if !(h > 0) {
		// A non-finite trial derivative; let the step control shrink h.
		h = h0
	}
	return h
}

func stagesFinite(k [][]float64) bool {
	for _, ki := range k {
		if !numeric.AllFinite(ki) {
			return false
		}
	}
	return true
}
