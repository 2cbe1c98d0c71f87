package tabular

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// nearlyLinear returns n rows of d standard normal inputs and a target
// that is linear in them, with a slight curve and noise: a table that
// wants its linear part free and its kernel part held down.
func nearlyLinear(rnd *rand.Rand, n, d int) (x, y *mat.Dense) {
	x = mat.NewDense(n, d, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
	y = mat.NewDense(n, 1, nil)
	for i := range n {
		v := 0.1 * math.Sin(3*x.At(i, 0))
		for j := range d {
			v += x.At(i, j) / float64(j+1)
		}
		y.Set(i, 0, v+0.7*rnd.NormFloat64())
	}
	return x, y
}

// bestLeaveOneOut returns the lowest leave-one-out mean squared error of
// the shallow machine of bandwidth sigma and kernel weight weight over
// the costs of shallowCosts.
func bestLeaveOneOut(t *testing.T, x, y *mat.Dense, sigma, weight float64) float64 {
	t.Helper()
	b, err := newShallowBasis(newShallowInputs(x, x), sigma, weight)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ridge(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := x.Dims()
	best := math.Inf(1)
	for _, cost := range shallowCosts() {
		loo := mat.NewDense(n, 1, nil)
		if !r.leaveOneOut(y, r.project(y)).predictions(loo, cost) {
			t.Fatalf("weight %v, cost %v: leverage 1", weight, cost)
		}
		loo.Sub(loo, y)
		best = math.Min(best, mat.Norm(loo, 2)*mat.Norm(loo, 2)/float64(n))
	}
	return best
}

// TestKernelPenalty checks that on a nearly linear table the kernel
// features weighed down (their penalty 100 times the linear part's)
// predict left-out rows better than the one penalty, over the same
// costs, at bandwidths that are not wide: a wide one is nearly linear
// already.
func TestKernelPenalty(t *testing.T) {
	rnd := rand.New(rand.NewPCG(42, 1))
	x, y := nearlyLinear(rnd, 50, 6)
	med := medianDistance(x)
	for _, bw := range []float64{0.5, 1} {
		one := bestLeaveOneOut(t, x, y, bw*med, 1)
		down := bestLeaveOneOut(t, x, y, bw*med, 1/math.Sqrt(100))
		if !(down < 0.98*one) {
			t.Errorf("bandwidth %v times the median distance: leave-one-out mse %v with the kernel's penalty 100 times, %v with one penalty; want 2%% lower", bw, down, one)
		}
	}
}

// TestKernelPenaltyChosen checks that the selection of a nearly linear
// table chooses a kernel penalty above the linear part's, says so in its
// summary, and fits the machine at it.
func TestKernelPenaltyChosen(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 2))
	x, y := nearlyLinear(rnd, 50, 4)
	m, res, err := FitRegression(x, y, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	best := res.Selection.Candidates[res.Selection.Best]
	if !best.Shallow || best.KernelPenalty <= 1 || m.Sum != nil {
		t.Fatalf("chose %s, %d machines averaged; want the shallow machine alone with its kernel penalised more", best.setting(), len(m.Sum)+1)
	}
	if note := "the kernel part's penalty"; !strings.Contains(describeSettings(res), note) {
		t.Errorf("the summary %q does not say %q", describeSettings(res), note)
	}
	// The machine is the fit of its chosen setting: refitted here on its
	// inputs and targets as it saw them, calibrated alike.
	z := mat.DenseCopyOf(x)
	if m.Quantiles != nil {
		z = m.Quantiles.Transform(z)
	}
	z = m.Input.Transform(z)
	b, err := newShallowBasis(newShallowInputs(z, m.Anchors), best.Bandwidth, 1/math.Sqrt(best.KernelPenalty))
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ridge(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	scaled := mat.DenseCopyOf(y)
	scaled.Scale(1/m.Output.Scale[0], scaled)
	want, _ := b.machine(r, r.project(scaled), best.Cost, m.Anchors, calibration{factor: res.Calibration.Shrinkage, residuals: [][]float64{}})
	if !mat.EqualApprox(m.C, want.C, 1e-8) || !mat.EqualApprox(m.A, want.A, 1e-8) {
		t.Errorf("the machine's coefficients\n%v\n%v\nare not its setting's\n%v\n%v", mat.Formatted(m.A), mat.Formatted(m.C), mat.Formatted(want.A), mat.Formatted(want.C))
	}
}

// TestReweightedBasis checks that a basis reweighted from the basis of
// weight 1 predicts left-out rows as the basis built at that weight, on
// the features themselves (anchors fewer than the rows) and on their
// coordinates in the rows' span (every row an anchor).
func TestReweightedBasis(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 4))
	x, y := nearlyLinear(rnd, 40, 3)
	for _, tc := range []struct {
		name    string
		anchors *mat.Dense
	}{
		{"features", mat.DenseCopyOf(x.Slice(0, 12, 0, 3))},
		{"span", x},
	} {
		in := newShallowInputs(x, tc.anchors)
		sigma := medianDistance(tc.anchors)
		one, err := newShallowBasis(in, sigma, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range kernelPenalties() {
			want, err := newShallowBasis(in, sigma, kernelWeight(r))
			if err != nil {
				t.Fatal(err)
			}
			got, err := one.reweighted(in, kernelWeight(r))
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got.toC, want.toC, 1e-12) {
				t.Errorf("%s, ratio %v: anchors' map differs", tc.name, r)
			}
			for _, cost := range []float64{1e-3, 0.1, 10} {
				p := [2]*mat.Dense{mat.NewDense(40, 1, nil), mat.NewDense(40, 1, nil)}
				for i, b := range []*shallowBasis{got, want} {
					rr, err := b.ridge(nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					rr.leaveOneOut(y, rr.project(y)).predictions(p[i], cost)
				}
				// The span at ratio 100 amplifies rounding to about 1e-8.
				if !mat.EqualApprox(p[0], p[1], 1e-7) {
					t.Errorf("%s, ratio %v, cost %v: leave-one-out predictions %v, built at the weight %v", tc.name, r, cost, mat.Formatted(p[0].T()), mat.Formatted(p[1].T()))
				}
			}
		}
	}
}
