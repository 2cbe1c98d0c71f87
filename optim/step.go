package optim

import (
	"fmt"
	"math"
)

// Stepper updates parameters in place from a gradient, one minibatch at a
// time.
type Stepper interface {
	Step(x, grad []float64)
}

// Adam is the adaptive-moment method of Kingma and Ba, with decoupled
// weight decay (AdamW) when WeightDecay is set. Zero fields mean the usual
// defaults: LR 1e-3, Beta1 0.9, Beta2 0.999, Eps 1e-8.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	m, v []float64
	t    int
}

// Step applies one Adam update.
func (a *Adam) Step(x, grad []float64) {
	checkLen(x, grad)
	if a.m == nil {
		a.m, a.v = make([]float64, len(x)), make([]float64, len(x))
	}
	lr, b1, b2, eps := orDefault(a.LR, 1e-3), orDefault(a.Beta1, 0.9), orDefault(a.Beta2, 0.999), orDefault(a.Eps, 1e-8)
	a.t++
	c1 := 1 - math.Pow(b1, float64(a.t))
	c2 := 1 - math.Pow(b2, float64(a.t))
	for i, g := range grad {
		a.m[i] = b1*a.m[i] + (1-b1)*g
		a.v[i] = b2*a.v[i] + (1-b2)*g*g
		x[i] -= lr * (a.m[i]/c1/(math.Sqrt(a.v[i]/c2)+eps) + a.WeightDecay*x[i])
	}
}

// SGD is stochastic gradient descent with optional momentum and weight
// decay. A zero LR means 1e-2.
type SGD struct {
	LR, Momentum, WeightDecay float64

	vel []float64
}

// Step applies one SGD update.
func (s *SGD) Step(x, grad []float64) {
	checkLen(x, grad)
	lr := orDefault(s.LR, 1e-2)
	if s.Momentum == 0 {
		for i, g := range grad {
			x[i] -= lr * (g + s.WeightDecay*x[i])
		}
		return
	}
	if s.vel == nil {
		s.vel = make([]float64, len(x))
	}
	for i, g := range grad {
		s.vel[i] = s.Momentum*s.vel[i] + g + s.WeightDecay*x[i]
		x[i] -= lr * s.vel[i]
	}
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func checkLen(x, grad []float64) {
	if len(x) != len(grad) {
		panic(fmt.Sprintf("optim: %d parameters and %d gradient entries", len(x), len(grad)))
	}
}
