package optim

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Float is an element type of parameter vectors: float64 for full-batch
// fits, float32 for image models.
type Float interface {
	~float32 | ~float64
}

// Stepper updates float64 parameters in place from a gradient, one
// minibatch at a time. Adam and SGD also update float32 parameters
// through Step32.
type Stepper interface {
	Step(x, grad []float64)
}

// Defaults used for the zero fields of Adam and SGD: Kingma and Ba's for
// Adam.
const (
	DefaultAdamLR = 1e-3
	DefaultBeta1  = 0.9
	DefaultBeta2  = 0.999
	DefaultEps    = 1e-8
	DefaultSGDLR  = 1e-2
)

// Adam is the adaptive-moment method of Kingma and Ba, with decoupled
// weight decay (AdamW) when WeightDecay is set. Zero fields mean the
// defaults: LR DefaultAdamLR, Beta1 DefaultBeta1, Beta2 DefaultBeta2,
// Eps DefaultEps. A step with a negative or non-finite field, or a beta
// of 1 or more, panics with ad.ErrValue. Its moments are kept in float64
// whatever the parameters' type. One Adam serves one parameter vector.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	m, v []float64
	t    int
}

// StateLen returns the number of parameters whose moments a holds: zero
// before its first step or restore, else the length of the vector it
// steps. A caller that restores a checkpoint compares it with its own.
func (a *Adam) StateLen() int { return len(a.m) }

// Step applies one Adam update.
func (a *Adam) Step(x, grad []float64) { adamStep(a, x, grad) }

// Step32 applies one Adam update to float32 parameters.
func (a *Adam) Step32(x, grad []float32) { adamStep(a, x, grad) }

func adamStep[T Float](a *Adam, x, grad []T) {
	checkLen(len(x), len(grad))
	if a.m == nil {
		a.m, a.v = make([]float64, len(x)), make([]float64, len(x))
	} else if len(a.m) != len(x) {
		panic(fmt.Errorf("%w: optim: Adam has moments for %d parameters, given %d", ad.ErrShape, len(a.m), len(x)))
	}
	if err := a.check(); err != nil {
		panic(fmt.Errorf("%w: optim: Adam: %v", ad.ErrValue, err))
	}
	lr, b1, b2, eps := cmp.Or(a.LR, DefaultAdamLR), cmp.Or(a.Beta1, DefaultBeta1), cmp.Or(a.Beta2, DefaultBeta2), cmp.Or(a.Eps, DefaultEps)
	a.t++
	c1 := 1 - math.Pow(b1, float64(a.t))
	c2 := 1 - math.Pow(b2, float64(a.t))
	for i, gi := range grad {
		g := float64(gi)
		a.m[i] = b1*a.m[i] + (1-b1)*g
		a.v[i] = b2*a.v[i] + (1-b2)*g*g
		xi := float64(x[i])
		x[i] = T(xi - lr*(a.m[i]/c1/(math.Sqrt(a.v[i]/c2)+eps)+a.WeightDecay*xi))
	}
}

// SGD is stochastic gradient descent with optional momentum and weight
// decay. A zero LR means DefaultSGDLR. A step with a negative or
// non-finite field, or a momentum of 1 or more, panics with ad.ErrValue.
type SGD struct {
	LR, Momentum, WeightDecay float64

	vel []float64
}

// StateLen returns the number of parameters whose velocity s holds: zero
// without momentum, before its first step or restore, else the length of
// the vector it steps.
func (s *SGD) StateLen() int { return len(s.vel) }

// Step applies one SGD update.
func (s *SGD) Step(x, grad []float64) { sgdStep(s, x, grad) }

// Step32 applies one SGD update to float32 parameters.
func (s *SGD) Step32(x, grad []float32) { sgdStep(s, x, grad) }

func sgdStep[T Float](s *SGD, x, grad []T) {
	checkLen(len(x), len(grad))
	if err := s.check(); err != nil {
		panic(fmt.Errorf("%w: optim: SGD: %v", ad.ErrValue, err))
	}
	lr := cmp.Or(s.LR, DefaultSGDLR)
	if s.Momentum == 0 {
		for i, g := range grad {
			x[i] = T(float64(x[i]) - lr*(float64(g)+s.WeightDecay*float64(x[i])))
		}
		return
	}
	if s.vel == nil {
		s.vel = make([]float64, len(x))
	} else if len(s.vel) != len(x) {
		panic(fmt.Errorf("%w: optim: SGD has a velocity for %d parameters, given %d", ad.ErrShape, len(s.vel), len(x)))
	}
	for i, g := range grad {
		s.vel[i] = s.Momentum*s.vel[i] + float64(g) + s.WeightDecay*float64(x[i])
		x[i] = T(float64(x[i]) - lr*s.vel[i])
	}
}

// field is a named setting of a stepper, for inRange.
type field struct {
	name  string
	value float64
}

// inRange reports the first field not in [0, below): a finite value
// >= 0 for below = +Inf, a decay rate that forgets for below = 1.
func inRange(below float64, fields ...field) error {
	for _, f := range fields {
		if !(f.value >= 0 && f.value < below) {
			return fmt.Errorf("%s %v, want a value in [0, %v)", f.name, f.value, below)
		}
	}
	return nil
}

// check reports a setting no step could honour.
func (a *Adam) check() error {
	return errors.Join(inRange(math.Inf(1), field{"LR", a.LR}, field{"Eps", a.Eps}, field{"WeightDecay", a.WeightDecay}),
		inRange(1, field{"Beta1", a.Beta1}, field{"Beta2", a.Beta2}))
}

// check reports a setting no step could honour.
func (s *SGD) check() error {
	return errors.Join(inRange(math.Inf(1), field{"LR", s.LR}, field{"WeightDecay", s.WeightDecay}),
		inRange(1, field{"Momentum", s.Momentum}))
}

func checkLen(x, grad int) {
	if x != grad {
		panic(fmt.Errorf("%w: optim: %d parameters and %d gradient entries", ad.ErrShape, x, grad))
	}
}

// adamJSON is Adam's state in a checkpoint: its settings, step count and
// moments.
type adamJSON struct {
	LR          float64   `json:"lr"`
	Beta1       float64   `json:"beta1"`
	Beta2       float64   `json:"beta2"`
	Eps         float64   `json:"eps"`
	WeightDecay float64   `json:"weight_decay"`
	T           int       `json:"t"`
	M           []float64 `json:"m"`
	V           []float64 `json:"v"`
}

// MarshalJSON encodes the settings and the state of a, so that a
// training run can be checkpointed and resumed exactly.
func (a *Adam) MarshalJSON() ([]byte, error) {
	return json.Marshal(adamJSON{a.LR, a.Beta1, a.Beta2, a.Eps, a.WeightDecay, a.t, a.m, a.v})
}

// UnmarshalJSON restores what MarshalJSON encoded.
func (a *Adam) UnmarshalJSON(data []byte) error {
	var w adamJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("optim: Adam state: %w", err)
	}
	if len(w.M) != len(w.V) || w.T < 0 {
		return fmt.Errorf("optim: Adam state with %d first and %d second moments at step %d", len(w.M), len(w.V), w.T)
	}
	if i := slices.IndexFunc(w.V, func(v float64) bool { return v < 0 }); i >= 0 {
		return fmt.Errorf("optim: Adam state: second moment %d is %v, want at least 0 (a mean of squares)", i, w.V[i])
	}
	restored := Adam{LR: w.LR, Beta1: w.Beta1, Beta2: w.Beta2, Eps: w.Eps, WeightDecay: w.WeightDecay, t: w.T, m: w.M, v: w.V}
	if err := restored.check(); err != nil {
		return fmt.Errorf("optim: Adam state: %v", err)
	}
	*a = restored
	return nil
}

// sgdJSON is SGD's state in a checkpoint.
type sgdJSON struct {
	LR          float64   `json:"lr"`
	Momentum    float64   `json:"momentum"`
	WeightDecay float64   `json:"weight_decay"`
	Velocity    []float64 `json:"velocity"`
}

// MarshalJSON encodes the settings and the velocity of s.
func (s *SGD) MarshalJSON() ([]byte, error) {
	return json.Marshal(sgdJSON{s.LR, s.Momentum, s.WeightDecay, s.vel})
}

// UnmarshalJSON restores what MarshalJSON encoded.
func (s *SGD) UnmarshalJSON(data []byte) error {
	var w sgdJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("optim: SGD state: %w", err)
	}
	restored := SGD{LR: w.LR, Momentum: w.Momentum, WeightDecay: w.WeightDecay, vel: w.Velocity}
	if err := restored.check(); err != nil {
		return fmt.Errorf("optim: SGD state: %v", err)
	}
	*s = restored
	return nil
}
