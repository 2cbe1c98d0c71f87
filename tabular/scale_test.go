package tabular

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// countData returns n amounts y = exp(3x₁ + 1.5x₂ + noise) - 1, floored at
// zero: nonnegative, right-skewed and multiplicative in the inputs, with an
// error that grows with the value, the shape AutoScale is for. On the log
// scale they are nearly linear; on their own scale the tail is hard to fit.
func countData(rnd *rand.Rand, n int) (x, y *mat.Dense) {
	x = randomData(rnd, n, 2)
	y = mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Max(0, math.Exp(3*x.At(i, 0)+1.5*x.At(i, 1)+0.1*rnd.NormFloat64())-1))
	}
	return x, y
}

// TestTargetScaleCandidates checks which scales the selection tries: the
// log scale joins only for nonnegative skewed targets, never for
// classifiers, and a fixed scale is the only one tried.
func TestTargetScaleCandidates(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	counts, cy := countData(rnd, 60)
	if sk := stat.Skew(cy.RawMatrix().Data, nil); sk <= skewedTarget {
		t.Fatalf("test data skewness %.2f, want above %v", sk, skewedTarget)
	}
	sine, sy := noisySine(rnd, 60, 0.05)
	shifted := mat.NewDense(60, 1, nil) // skewed but with a negative value
	shifted.Apply(func(i, _ int, v float64) float64 { return v - 0.5 }, cy)
	// Which candidates the selection tries does not depend on how far
	// each fit runs: a few iterations each.
	grid := Settings{Costs: []float64{1e-3, 1}, Bandwidths: []float64{1}, Seed: 1, MaxIter: 10}
	for _, tc := range []struct {
		name       string
		x, y       *mat.Dense
		scale      TargetScale
		linear, lg int // candidates on each scale
	}{
		{"counts", counts, cy, AutoScale, 2, 2},
		{"counts fixed linear", counts, cy, LinearScale, 2, 0},
		{"counts fixed log", counts, cy, LogScale, 0, 2},
		{"symmetric", sine, sy, AutoScale, 2, 0},
		{"negative", counts, shifted, AutoScale, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := grid
			s.TargetScale = tc.scale
			m, res, err := FitRegression(tc.x, tc.y, s)
			if err != nil {
				t.Fatal(err)
			}
			var linear, lg int
			for _, c := range res.Selection.Candidates {
				if c.LogTarget {
					lg++
				} else {
					linear++
				}
			}
			if linear != tc.linear || lg != tc.lg {
				t.Errorf("%d linear and %d log candidates, want %d and %d", linear, lg, tc.linear, tc.lg)
			}
			if best := res.Selection.Candidates[res.Selection.Best]; m.LogTarget != best.LogTarget || res.LogTarget != best.LogTarget {
				t.Errorf("machine LogTarget %v, result %v, chosen candidate %v", m.LogTarget, res.LogTarget, best.LogTarget)
			}
		})
	}
	labels := make([]int, 60)
	for i := range labels {
		labels[i] = int(cy.At(i, 0)) % 2
	}
	_, res, err := FitClassifier(counts, labels, 2, grid)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Selection.Candidates {
		if c.LogTarget {
			t.Fatal("a classifier's selection tried a log target")
		}
	}
}

// TestLogTargetChosen checks that on counts whose error grows with the
// value the log scale wins the cross-validation, and that it is judged on
// its predictions of y itself: its held-out R² must match the R² of the
// refitted machine's predictions on new counts, which mapping back to y
// wrongly (or not at all) would spoil.
func TestLogTargetChosen(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	x, y := countData(rnd, 120)
	m, res, err := FitRegression(x, y, Settings{Costs: []float64{1e-3, 1e-1}, Bandwidths: []float64{1}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	best := sel.Candidates[sel.Best]
	if !best.LogTarget || !m.LogTarget {
		for _, c := range sel.Candidates {
			t.Logf("%s: %s", c.setting(), c.scores(sel))
		}
		t.Fatalf("chose %s, want a log target", best.setting())
	}
	var linear float64 = math.Inf(-1)
	for _, c := range sel.Candidates {
		if !c.LogTarget {
			linear = math.Max(linear, c.Score)
		}
	}
	if best.Score <= linear {
		t.Errorf("log target R² %.3f, not above the best linear %.3f", best.Score, linear)
	}
	xt, yt := countData(rnd, 400)
	pred := m.Predict(nil, xt)
	r2 := stat.RSquaredFrom(pred.RawMatrix().Data, yt.RawMatrix().Data, nil)
	if math.Abs(r2-best.Score) > 0.1 {
		t.Errorf("held-out R² %.3f on new counts, cross-validated %.3f", r2, best.Score)
	}
	// Predict undoes the log: the same machine without it predicts
	// log(1 + y). The bounds aside: they apply after the log is undone.
	m.Range = nil
	pred = m.Predict(nil, xt)
	m.LogTarget = false
	raw := m.Predict(nil, xt)
	for i := range 400 {
		if got, want := pred.At(i, 0), math.Expm1(raw.At(i, 0)); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("row %d: predicted %v, want exp(%v) - 1 = %v", i, got, raw.At(i, 0), want)
		}
	}
}

// TestLogScaleNegative checks that a forced log scale refuses negative
// targets, naming the row.
func TestLogScaleNegative(t *testing.T) {
	x := randomData(rand.New(rand.NewPCG(1, 1)), 10, 1)
	y := mat.NewDense(10, 1, []float64{1, 2, 3, -4, 5, 6, 7, 8, 9, 10})
	_, _, err := FitRegression(x, y, Settings{TargetScale: LogScale, Costs: []float64{1}, Bandwidths: []float64{1}})
	if err == nil || !strings.Contains(err.Error(), "row 3") {
		t.Errorf("error %v, want one naming row 3", err)
	}
}
