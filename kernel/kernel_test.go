package kernel

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/dataset"
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
			m := o.machine(o.Init(nil, rnd), x)
			queries := randomData(rnd, 5, 2)
			want := m.Predict(nil, queries)

			// The batch holds the anchors' states and the queries'.
			pts := mat.NewDense(12, 2, nil)
			pts.Stack(x, queries)
			var g mat.Dense
			g.Mul(pts, m.A.T())
			sigma := arch.sigma()
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
			res, err := machines.Iterate(&h, f, &g, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Depth != len(arch.Dims)-1 {
				t.Errorf("depth %d, want %d", res.Depth, len(arch.Dims)-1)
			}
			out := arch.size() - arch.Outputs()
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

// TestPredictMatchesTraining checks that predicting on the training
// inputs reproduces the fit's data loss: the prediction graph and the
// training graph compute the same machine.
func TestPredictMatchesTraining(t *testing.T) {
	x, y := dataset.PolynomialGrid(4)
	for _, tc := range []struct {
		name string
		s    Settings
	}{
		{"all anchors", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Raw: true, MaxIter: 50}},
		{"nystrom", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Raw: true, Anchors: 6, MaxIter: 50}},
		{"standardized", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, MaxIter: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, r, err := FitRegression(x, mat.NewDense(16, 1, y), tc.s)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Predict(nil, x)
			got := 0.0
			for i, v := range y {
				got += (p.At(i, 0) - v) * (p.At(i, 0) - v) / 16
			}
			want := r.DataLoss
			if !tc.s.Raw {
				want *= m.Output.Scale[0] * m.Output.Scale[0]
			}
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-9) {
				t.Errorf("MSE of Predict on the training set %v, fit's data loss %v", got, want)
			}
			if na, _ := m.Anchors.Dims(); tc.s.Anchors > 0 && na != tc.s.Anchors {
				t.Errorf("%d anchors, want %d", na, tc.s.Anchors)
			}
		})
	}
}

func TestFitPolynomial(t *testing.T) {
	x, y := dataset.PolynomialGrid(6)
	xt, yt := dataset.PolynomialGrid(21)
	m, _, err := FitRegression(x, mat.NewDense(36, 1, y), Settings{
		Dims: []int{2, 3, 3, 2, 1}, Costs: []float64{1e-4}, Bandwidths: []float64{1}, Seed: 1, MaxIter: 1000})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(nil, xt)
	mse := 0.0
	for i, v := range yt {
		mse += (p.At(i, 0) - v) * (p.At(i, 0) - v) / float64(len(yt))
	}
	if mse > 1e-3 {
		t.Errorf("test MSE %.3g, want <= 1e-3", mse)
	}
}

func TestFitClassifier(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	x := randomData(rnd, 30, 2)
	labels := make([]int, 30)
	for i := range labels {
		if x.At(i, 0)+x.At(i, 1) > 0 {
			labels[i] = 1
		}
	}
	m, _, err := FitClassifier(x, labels, 2, Settings{Dims: []int{2, 2, 2}, Costs: []float64{1e-3}, Bandwidths: []float64{1}, Raw: true, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(nil, x)
	for i, l := range labels {
		if got := mat.Row(nil, i, p); (got[1] > got[0]) != (l == 1) {
			t.Errorf("sample %d: scores %v for class %d", i, got, l)
		}
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0, 1, 2})
	y := mat.NewDense(3, 1, []float64{0, 1, 4})
	nan := mat.NewDense(3, 1, []float64{0, math.NaN(), 2})
	dims := []int{2, 1}
	for _, tc := range []struct {
		name, want string
		fit        func() error
	}{
		{"short dims", "at least two blocks", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1}})
			return err
		}},
		{"zero dim", "block 1 has size 0", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 0, 1}})
			return err
		}},
		{"negative cost", "cost -1", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Costs: []float64{-1}}); return err }},
		{"negative loss tolerance", "loss tolerance -1", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: dims, LossTol: -1})
			return err
		}},
		{"NaN input", "input row 1, column 0 is NaN", func() error { _, _, err := FitRegression(nan, y, Settings{Dims: dims}); return err }},
		{"NaN target", "target row 1, column 0 is NaN", func() error { _, _, err := FitRegression(x, nan, Settings{Dims: dims}); return err }},
		{"outputs", "want 3x2", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"anchors", "4 anchors for 3", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Anchors: 4}); return err }},
		{"label range", "label 2 of row 1", func() error {
			_, _, err := FitClassifier(x, []int{0, 2, 1}, 2, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"labels count", "2 labels for 3", func() error {
			_, _, err := FitClassifier(x, []int{0, 1}, 2, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"starts", "-1 starts", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Starts: -1}); return err }},
		{"bandwidth", "bandwidth -1", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 1}, Bandwidths: []float64{-1}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fit()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFinalStop checks the final fit's stopping rule: the default loss
// tolerance, one given, and none with UntilStall.
func TestFinalStop(t *testing.T) {
	for _, c := range []struct {
		s       Settings
		maxIter int
		lossTol float64
	}{
		{Settings{}, DefaultMaxIter, DefaultLossTol},
		{Settings{MaxIter: 7, LossTol: 0.5}, 7, 0.5},
		{Settings{LossTol: 0.5, UntilStall: true}, DefaultMaxIter, 0},
	} {
		if maxIter, lossTol := c.s.finalStop(); maxIter != c.maxIter || lossTol != c.lossTol {
			t.Errorf("%+v: %d iterations, loss tolerance %v; want %d, %v", c.s, maxIter, lossTol, c.maxIter, c.lossTol)
		}
	}
}
