package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestGroupLassoProx(t *testing.T) {
	l := GroupLasso{Lambda: 2, Groups: [][2]int{{0, 2}, {2, 5}, {5, 6}}}
	x := []float32{3, 4, 0.1, -0.2, 0.2, -7}
	norms := l.Norms(nil, x)
	if !scalar.EqualWithinAbs(l.Value(x), 2*(5+0.3+7), 1e-6) {
		t.Errorf("Value = %v, want %v", l.Value(x), 2*(5+0.3+7))
	}
	l.Prox(x, 0.5) // threshold 1
	after := l.Norms(nil, x)
	for i, want := range []float64{norms[0] - 1, 0, norms[2] - 1} {
		if !scalar.EqualWithinAbs(after[i], want, 1e-6) {
			t.Errorf("group %d: norm %v after the step, want %v", i, after[i], want)
		}
	}
	for _, v := range x[2:5] {
		if v != 0 {
			t.Errorf("small group not exactly zero: %v", x[2:5])
		}
	}
	// The direction of a surviving group is kept.
	if !scalar.EqualWithinAbs(float64(x[0]/x[1]), 0.75, 1e-6) {
		t.Errorf("group 0 turned: %v", x[:2])
	}
}

// TestGroupLassoProxMinimises checks the defining property of the
// proximal step: it minimises step*penalty(y) + |y - x|^2/2.
func TestGroupLassoProxMinimises(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	l := GroupLasso{Lambda: 0.7, Groups: [][2]int{{0, 3}, {3, 4}, {4, 8}}}
	x := make([]float32, 8)
	for i := range x {
		x[i] = float32(rnd.NormFloat64())
	}
	const step = 0.9
	y := append([]float32(nil), x...)
	l.Prox(y, step)
	objective := func(z []float32) float64 {
		s := step * l.Value(z)
		for i := range z {
			d := float64(z[i] - x[i])
			s += d * d / 2
		}
		return s
	}
	best := objective(y)
	for range 2000 {
		z := append([]float32(nil), y...)
		for i := range z {
			z[i] += float32(0.05 * rnd.NormFloat64())
		}
		if v := objective(z); v < best-1e-6 {
			t.Fatalf("a perturbation lowers the objective: %v < %v", v, best)
		}
	}
}

func TestStep32(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s64    Stepper
		step32 func(x, g []float32)
	}{
		{"Adam", &Adam{LR: 0.1, WeightDecay: 0.01}, (&Adam{LR: 0.1, WeightDecay: 0.01}).Step32},
		{"SGD", &SGD{LR: 0.1, Momentum: 0.9}, (&SGD{LR: 0.1, Momentum: 0.9}).Step32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x64, x32 := []float64{1, -2, 3}, []float32{1, -2, 3}
			for range 10 {
				g64, g32 := make([]float64, 3), make([]float32, 3)
				for i := range x64 {
					g64[i], g32[i] = math.Sin(x64[i]), float32(math.Sin(float64(x32[i])))
				}
				tc.s64.Step(x64, g64)
				tc.step32(x32, g32)
			}
			for i := range x64 {
				if !scalar.EqualWithinAbsOrRel(float64(x32[i]), x64[i], 1e-5, 1e-5) {
					t.Errorf("x[%d]: float32 %v, float64 %v", i, x32[i], x64[i])
				}
			}
		})
	}
}
