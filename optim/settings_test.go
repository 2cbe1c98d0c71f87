package optim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/optimize"
)

// TestSettingsDefaults pins the zero fields of Settings to the Default
// constants and checks that given fields reach gonum as they are.
func TestSettingsDefaults(t *testing.T) {
	for _, c := range []struct {
		s       Settings
		maxIter int
		gradTol float64
		memory  int
	}{
		{Settings{}, DefaultMaxIter, DefaultGradTol, DefaultMemory},
		{Settings{MaxIter: 7, GradTol: 1e-3, Memory: 3}, 7, 1e-3, 3},
	} {
		settings, method := c.s.gonum()
		lbfgs, ok := method.(*optimize.LBFGS)
		if !ok || settings.MajorIterations != c.maxIter || settings.GradientThreshold != c.gradTol || lbfgs.Store != c.memory {
			t.Errorf("%+v: %d iterations, gradient threshold %v, method %#v; want %d, %v, L-BFGS storing %d",
				c.s, settings.MajorIterations, settings.GradientThreshold, method, c.maxIter, c.gradTol, c.memory)
		}
	}
}

// checkPanic fails t unless f panics with an error of kind that
// mentions want.
func checkPanic(t *testing.T, what string, f func(), kind error, want string) {
	t.Helper()
	if err := testutil.PanicError(f); !errors.Is(err, kind) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("%s: panic %v, want %v mentioning %q", what, err, kind, want)
	}
}

// TestSettingsInvalid checks that settings no fit could honour are
// programmer errors, refused before the loss is evaluated.
func TestSettingsInvalid(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		kind error
		want string
	}{
		{Settings{MaxIter: -1}, ad.ErrValue, "MaxIter -1"},
		{Settings{GradTol: -1}, ad.ErrValue, "GradTol -1"},
		{Settings{GradTol: math.NaN()}, ad.ErrValue, "GradTol NaN"},
		{Settings{LossTol: -1e-3}, ad.ErrValue, "LossTol -0.001"},
		{Settings{LossTol: math.Inf(1)}, ad.ErrValue, "LossTol +Inf"},
		{Settings{Memory: -1}, ad.ErrValue, "Memory -1"},
		{Settings{Method: 7}, ad.ErrName, "unknown method Method(7)"},
	} {
		evaluated := false
		f := func(x, grad []float64) float64 { evaluated = true; return rosenbrock(x, grad) }
		checkPanic(t, fmt.Sprintf("%+v", c.s), func() { _, _ = Minimize(f, []float64{-1.2, 1}, c.s) }, c.kind, c.want)
		if evaluated {
			t.Errorf("%+v: the loss was evaluated before the settings were checked", c.s)
		}
	}
}

// steps applies three steps of s to a fixed start and returns the
// parameters.
func steps(s Stepper) []float64 {
	x := []float64{1, -2, 0.5}
	for i := range 3 {
		s.Step(x, []float64{0.3 * float64(i+1), -1, 2})
	}
	return x
}

// TestStepperDefaults pins the zero fields of Adam and SGD to the Default
// constants.
func TestStepperDefaults(t *testing.T) {
	for _, c := range []struct {
		zero, explicit Stepper
	}{
		{&Adam{}, &Adam{LR: DefaultAdamLR, Beta1: DefaultBeta1, Beta2: DefaultBeta2, Eps: DefaultEps}},
		{&SGD{}, &SGD{LR: DefaultSGDLR}},
		{&SGD{Momentum: 0.9}, &SGD{LR: DefaultSGDLR, Momentum: 0.9}},
	} {
		if got, want := steps(c.zero), steps(c.explicit); !slices.Equal(got, want) {
			t.Errorf("%T zero value: %v after three steps, with the defaults given %v", c.zero, got, want)
		}
	}
}

// TestStepperInvalid checks that a setting no step could honour panics
// with ad.ErrValue naming it, in float64 and float32, and that a
// checkpoint holding one is refused with an error.
func TestStepperInvalid(t *testing.T) {
	for _, c := range []struct {
		s     interface{ Step32(x, grad []float32) }
		state string
		want  string
	}{
		{&Adam{LR: -1}, `{"lr": -1}`, "LR -1"},
		{&Adam{Beta1: 1}, `{"beta1": 1}`, "Beta1 1"},
		{&Adam{Beta2: math.NaN()}, `{"beta2": 1.5}`, "Beta2"},
		{&Adam{Eps: -1e-9}, `{"eps": -1e-9}`, "Eps -1e-09"},
		{&Adam{WeightDecay: math.Inf(1)}, `{"weight_decay": -1}`, "WeightDecay"},
		{&SGD{LR: -0.1}, `{"lr": -0.1}`, "LR -0.1"},
		{&SGD{Momentum: 1}, `{"momentum": 1}`, "Momentum 1"},
		{&SGD{WeightDecay: -1}, `{"weight_decay": -1}`, "WeightDecay -1"},
	} {
		what := fmt.Sprintf("%T%+v", c.s, c.s)
		checkPanic(t, what, func() { c.s.(Stepper).Step([]float64{1}, []float64{1}) }, ad.ErrValue, c.want)
		checkPanic(t, what+" Step32", func() { c.s.Step32([]float32{1}, []float32{1}) }, ad.ErrValue, c.want)
		var err error
		switch c.s.(type) {
		case *Adam:
			err = new(Adam).UnmarshalJSON([]byte(c.state))
		case *SGD:
			err = new(SGD).UnmarshalJSON([]byte(c.state))
		}
		if err == nil || !strings.Contains(err.Error(), strings.Fields(c.want)[0]) {
			t.Errorf("state %s: error %v, want one naming %s", c.state, err, strings.Fields(c.want)[0])
		}
	}
}
