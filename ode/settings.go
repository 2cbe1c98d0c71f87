package ode

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
)

// Defaults used for the zero fields of Settings.
const (
	DefaultRTol     = 1e-6
	DefaultATol     = 1e-9
	DefaultMaxSteps = 100000
)

// Settings controls the adaptive Dormand–Prince solver. The zero value
// selects the defaults. RK4 reads only DropSteps.
type Settings struct {
	// RTol and ATol are the relative and absolute tolerances: a step is
	// accepted when the root mean square over the components of
	// errᵢ / (ATol + RTol·max(|yᵢ|, |yᵢ'|)) is at most 1, where err is the
	// difference of the embedded solutions and y, y' the states at the
	// two ends of the step. Zero means DefaultRTol and DefaultATol.
	RTol, ATol float64
	// H0 is the size of the first step. Zero selects it from the
	// derivative at the initial point and an explicit Euler step.
	H0 float64
	// MinStep is the smallest step size allowed before the solve fails
	// with a *StepSizeError. Steps are always at least 16 machine epsilons
	// of |t|, below which t + h cannot be told apart from t; zero means
	// only that limit. A step that ends on an output time may be shorter.
	MinStep float64
	// MaxSteps bounds the number of steps, accepted or rejected.
	// Zero means DefaultMaxSteps.
	MaxSteps int
	// DropSteps discards the record of the steps, keeping only the states
	// at the output times. This saves O(steps·stages·Dim) memory, but
	// Solution.At and the Backprop gradient are then unavailable.
	DropSteps bool
}

type values struct {
	rtol, atol, h0, minStep float64
	maxSteps                int
	drop                    bool
}

// values returns the effective settings, panicking on values no solver
// could honour.
func (s Settings) values() values {
	v := values{rtol: DefaultRTol, atol: DefaultATol, maxSteps: DefaultMaxSteps}
	for _, f := range []struct {
		name string
		x    float64
	}{{"RTol", s.RTol}, {"ATol", s.ATol}, {"H0", s.H0}, {"MinStep", s.MinStep}} {
		if f.x < 0 || math.IsNaN(f.x) || math.IsInf(f.x, 0) {
			panic(fmt.Errorf("%w: ode: invalid %s %v, want a finite value >= 0", ad.ErrValue, f.name, f.x))
		}
	}
	if s.MaxSteps < 0 {
		panic(fmt.Errorf("%w: ode: negative MaxSteps %d", ad.ErrValue, s.MaxSteps))
	}
	if s.RTol > 0 {
		v.rtol = s.RTol
	}
	if s.ATol > 0 {
		v.atol = s.ATol
	}
	if s.MaxSteps > 0 {
		v.maxSteps = s.MaxSteps
	}
	v.h0, v.minStep, v.drop = s.H0, s.MinStep, s.DropSteps
	return v
}

// StepSizeError reports an adaptive solve whose step size fell below the
// minimum: the error could not be controlled, as happens near a
// singularity or for a very stiff system.
type StepSizeError struct {
	// T is the time the solver could not advance from.
	T float64
	// H is the rejected step size and Min the smallest one allowed.
	H, Min float64
}

func (e *StepSizeError) Error() string {
	return fmt.Sprintf("ode: step size %g at t=%g fell below the minimum %g", e.H, e.T, e.Min)
}

// NonFiniteError reports a derivative or state that became NaN or
// infinite.
type NonFiniteError struct {
	// T is the time at the start of the step in which the non-finite
	// value appeared; for an adaptive solve, which first shrinks the step,
	// it is within the minimum step size of the point where the solution
	// ceases to be finite.
	T float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("ode: state or derivative became NaN or infinite at t=%g", e.T)
}

// MaxStepsError reports a solve that took MaxSteps steps without reaching
// the final time.
type MaxStepsError struct {
	// T is the time reached and Steps the number of steps taken.
	T     float64
	Steps int
}

func (e *MaxStepsError) Error() string {
	return fmt.Sprintf("ode: %d steps reached only t=%g", e.Steps, e.T)
}
