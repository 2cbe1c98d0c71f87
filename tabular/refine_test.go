package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRefineCost checks that a shallow machine chosen on a shuffled
// subsample of the rows has its cost re-chosen by leave-one-out on all of
// them, among StreamCosts: on 1,500 rows of a smooth function with little
// noise, below the smallest cost the subsample could choose; and that it
// is calibrated on all the rows. Grouped folds, and a table the
// selection runs on whole whose count of anchors Settings.Anchors fixes,
// keep the selection's cost (TestGrowAnchors checks a whole table whose
// anchors grow).
func TestRefineCost(t *testing.T) {
	groups := func(n int) []int {
		g := make([]int, n)
		for i := range g {
			g[i] = i / 10
		}
		return g
	}
	for _, tc := range []struct {
		name    string
		n       int
		grouped bool
		anchors int
		refined bool
	}{
		{"subsample", 1500, false, 0, true},
		{"grouped", 1500, true, 0, false},
		{"whole", SelectionRows, false, ShallowAnchors, false},
	} {
		x, y := noisySine(rand.New(rand.NewPCG(4, 4)), tc.n, 0.01)
		s := Settings{Family: Shallow, Seed: 1, Anchors: tc.anchors}
		if tc.grouped {
			s.Groups = groups(tc.n)
		}
		_, res, err := FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		chosen := res.Selection.Candidates[res.Selection.Best].Cost
		kept := len(res.Calibration.Residuals[0])
		if !tc.refined {
			if res.CostRows != 0 || res.Cost != chosen {
				t.Errorf("%s: cost %g on %d rows, want the selection's %g, not re-chosen", tc.name, res.Cost, res.CostRows, chosen)
			}
			continue
		}
		if res.CostRows != tc.n || res.Cost >= slices.Min(shallowCosts()) || !slices.Contains(StreamCosts(), res.Cost) {
			t.Errorf("%s: cost %g re-chosen on %d rows (the selection's %g); want one of StreamCosts below %g, on %d rows",
				tc.name, res.Cost, res.CostRows, chosen, slices.Min(shallowCosts()), tc.n)
		}
		if kept != tc.n {
			t.Errorf("%s: %d held-out residuals kept, want all %d rows'", tc.name, kept, tc.n)
		}
	}
}

// TestRefineCostOnFitScale checks that the cost re-chosen by
// leave-one-out for a log target is at most one step of StreamCosts
// above the best on the scale the machine fits: on 1,200 rows fitted to
// the log of their targets, one row far beyond the others on an input
// of steep slope, whose target is small, has a held-out prediction far
// above its target. Mapped back, its error outweighs the others' and a
// cost thousands of times the selection's would shrink that prediction;
// capped, the cost falls below the selection's, as it does for tables of
// thousands of rows.
func TestRefineCostOnFitScale(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	n := 1200
	x, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		a, b := rnd.Float64(), rnd.Float64()
		x.SetRow(i, []float64{a, b})
		y.Set(i, 0, math.Exp(10+math.Sin(3*a)+2*b+0.1*rnd.NormFloat64()))
	}
	x.Set(0, 1, 5)
	y.Set(0, 0, math.Exp(10))
	_, res, err := FitRegression(x, y, Settings{Family: Shallow, Seed: 1, TargetScale: LogScale})
	if err != nil {
		t.Fatal(err)
	}
	chosen := res.Selection.Candidates[res.Selection.Best].Cost
	if !res.LogTarget || res.CostRows != n || res.Cost > chosen {
		t.Errorf("cost %g re-chosen on %d rows (log target %v), the selection's %g: want at most the selection's, on %d rows of a log target",
			res.Cost, res.CostRows, res.LogTarget, chosen, n)
	}
}

// TestUpToNext checks the costs a log target's re-choice may take: up to
// the best on the scale the machine fits and the one above it.
func TestUpToNext(t *testing.T) {
	costs := []float64{0.1, 0.3, 1, 3}
	for _, tc := range []struct {
		c    float64
		want []float64
	}{{0.1, []float64{0.1, 0.3}}, {1, []float64{0.1, 0.3, 1, 3}}, {3, costs}} {
		if got := upToNext(costs, tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("upToNext(%v, %g) = %v, want %v", costs, tc.c, got, tc.want)
		}
	}
}
