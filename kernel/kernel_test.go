package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func randomData(rnd *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.Float64()*2 - 1 }, x)
	return x
}

// TestObjectiveGradient checks the gradient of the training loss against
// central finite differences for each kind of problem.
func TestObjectiveGradient(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x := randomData(rnd, 9, 2)
	y := randomData(rnd, 9, 2)
	labels := []int{0, 1, 2, 2, 1, 0, 1, 1, 2}
	for _, tc := range []struct {
		name string
		arch Architecture
		p    Problem
	}{
		{"regression", Architecture{Dims: []int{2, 3, 2}}, Problem{X: x, Y: y, Cost: 0.01}},
		{"multiplicative", Architecture{Dims: []int{2, 2, 1, 2}, Kernel: Multiplicative, Bandwidth: 0.7}, Problem{X: x, Y: y, Cost: 0.1}},
		{"nystrom", Architecture{Dims: []int{3, 2, 2}}, Problem{X: x, Y: y, Cost: 0.05, Anchors: []int{1, 4, 6}}},
		{"classification", Architecture{Dims: []int{2, 2, 3}}, Problem{X: x, Labels: labels, Cost: 0.01}},
		{"no cost", Architecture{Dims: []int{1, 1, 1, 2}}, Problem{X: x, Y: y}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := NewObjective(tc.arch, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			params := o.Init(nil, rnd)
			grad := make([]float64, len(params))
			o.Func(params, grad)
			num := fd.Gradient(nil, func(p []float64) float64 { l, _ := o.Loss(p); return l }, params, &fd.Settings{Formula: fd.Central})
			var diff, scale float64
			for i := range grad {
				diff = math.Max(diff, math.Abs(grad[i]-num[i]))
				scale = math.Max(scale, math.Abs(num[i]))
			}
			if diff > 1e-7*scale {
				t.Errorf("gradient differs from finite differences by %.3g (scale %.3g)", diff, scale)
			}
		})
	}
}

// TestStableState checks that the forward pass is the stable state of the
// machine f = f_1 + ... + f_n, level i reading the blocks below it and
// writing block i, computed by plain iteration h = g + f(h) from g = A x:
// the layered computation of Corollary 1 agrees with the definition, and
// the machine has depth n.
func TestStableState(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 2))
	for _, kind := range []Combine{Additive, Multiplicative} {
		t.Run(kind.String(), func(t *testing.T) {
			arch := Architecture{Dims: []int{2, 3, 2, 1}, Kernel: kind, Bandwidth: 0.8}
			x := randomData(rnd, 7, 2)
			o, err := NewObjective(arch, Problem{X: x, Y: randomData(rnd, 7, 1)})
			if err != nil {
				t.Fatal(err)
			}
			m := o.Machine(o.Init(nil, rnd), x)
			queries := randomData(rnd, 5, 2)
			want := m.Predict(nil, queries)

			// The batch holds the anchors' states and the queries'.
			pts := mat.NewDense(12, 2, nil)
			pts.Stack(x, queries)
			var g mat.Dense
			g.Mul(pts, m.A.T())
			sigma := arch.Sigma()
			f := machines.Func(func(dst, h *mat.Dense) {
				dst.Zero()
				// Level i reads the blocks [0, start_i) and writes block i.
				start, crow := arch.Dims[0], 0
				for i, d := range arch.Dims[1:] {
					for p := range 12 {
						for a := range 7 {
							k := levelKernel(arch, h, p, a, i+1, sigma)
							for r := range d {
								dst.Set(p, start+r, dst.At(p, start+r)+k*m.C.At(crow+r, a))
							}
						}
					}
					start += d
					crow += d
				}
			})
			var h mat.Dense
			res, err := machines.Iterate(&h, f, &g, machines.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Depth != len(arch.Dims)-1 {
				t.Errorf("depth %d, want %d", res.Depth, len(arch.Dims)-1)
			}
			out := arch.Size() - arch.Outputs()
			for q := range 5 {
				if got := h.At(7+q, out); !scalar.EqualWithinAbsOrRel(got, want.At(q, 0), 1e-12, 1e-12) {
					t.Errorf("query %d: stable state %v, forward pass %v", q, got, want.At(q, 0))
				}
			}
		})
	}
}

// levelKernel evaluates K_level between rows p and a of the state h: a
// Gaussian per block below the level, added or multiplied.
func levelKernel(arch Architecture, h *mat.Dense, p, a, level int, sigma float64) float64 {
	k := 0.0
	if arch.Kernel == Multiplicative {
		k = 1
	}
	lo := 0
	for _, d := range arch.Dims[:level] {
		d2 := 0.0
		for c := lo; c < lo+d; c++ {
			diff := h.At(p, c) - h.At(a, c)
			d2 += diff * diff
		}
		gk := math.Exp(-d2 / (2 * sigma * sigma))
		if arch.Kernel == Multiplicative {
			k *= gk
		} else {
			k += gk
		}
		lo += d
	}
	return k
}
