package tabular

import (
	"math/rand/v2"
	"slices"
	"testing"
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
