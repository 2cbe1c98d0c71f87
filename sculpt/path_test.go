package sculpt

import (
	"math"
	"slices"
	"testing"
)

func TestChoosePoint(t *testing.T) {
	pts := func(acc ...float64) []PathPoint {
		var ps []PathPoint
		for i, a := range acc {
			ps = append(ps, PathPoint{Lambda: float64(i + 1), ValidationAccuracy: a, EdgesLive: 30 - 5*i, FLOPsLive: 1000 - 100*i})
		}
		return ps
	}
	const many = 1_000_000 // validation images enough for a standard error below any tolerance here
	for _, tc := range []struct {
		name   string
		points []PathPoint
		tol    float64
		budget int
		n      int
		want   int
	}{
		{"sparsest within tolerance", pts(0.90, 0.91, 0.907, 0.85), 0.005, 0, many, 2},
		{"the more accurate of equal FLOPs", []PathPoint{{ValidationAccuracy: 0.9, FLOPsLive: 9}, {ValidationAccuracy: 0.91, FLOPsLive: 5}, {ValidationAccuracy: 0.908, FLOPsLive: 5}}, 0.005, 0, many, 1},
		{"reference is the best point, not the first", pts(0.90, 0.91, 0.904), 0.005, 0, many, 1},
		{"beyond tolerance", pts(0.90, 0.89, 0.88), 0.005, 0, many, 0},
		{"wider tolerance", pts(0.90, 0.89, 0.88), 0.02, 0, many, 2},
		// sqrt(0.9·0.1/400) = 0.015: a noisier estimate tolerates more.
		{"standard error wider than tolerance", pts(0.90, 0.89, 0.88), 0.005, 0, 400, 1},
		{"budget met", pts(0.90, 0.80), 0.005, 25, many, 1},
		{"budget not met", pts(0.90, 0.899), 0.005, 10, many, 1},
	} {
		if got, _ := choosePoint(tc.points, tc.tol, tc.budget, tc.n); got != tc.want {
			t.Errorf("%s: chose %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestRefinement(t *testing.T) {
	pt := func(lambda, acc float64, edges int) PathPoint {
		return PathPoint{Lambda: lambda, ValidationAccuracy: acc, EdgesLive: edges, FLOPsLive: 100 * edges}
	}
	for _, tc := range []struct {
		name   string
		points []PathPoint
		budget int
		ok     bool
		from   int
		lambda float64
	}{
		{"between the kept point and the next", []PathPoint{pt(1, 0.9, 36), pt(2, 0.9, 26), pt(8, 0.8, 4), pt(16, 0.7, 4)}, 0, true, 1, 4},
		// A point beyond tolerance no sparser than the kept one narrows
		// the step, so that a refinement is not repeated.
		{"from the point before the next sparser", []PathPoint{pt(1, 0.9, 36), pt(2, 0.9, 22), pt(4, 0.85, 22), pt(16, 0.8, 4)}, 0, true, 1, 8},
		{"from no penalty", []PathPoint{pt(0, 0.9, 36), pt(2, 0.8, 4)}, 0, true, 0, 1},
		{"the kept point is the last", []PathPoint{pt(1, 0.9, 36), pt(2, 0.9, 20)}, 0, false, 0, 0},
		{"no sparser point", []PathPoint{pt(1, 0.9, 20), pt(2, 0.8, 20)}, 0, false, 0, 0},
		{"one edge apart", []PathPoint{pt(1, 0.9, 5), pt(2, 0.8, 4)}, 0, false, 0, 0},
		{"budget met", []PathPoint{pt(1, 0.9, 36), pt(2, 0.8, 4)}, 10, false, 0, 0},
	} {
		from, lambda, ok := refinement(tc.points, 0.005, tc.budget, 1_000_000)
		if ok != tc.ok || ok && (from != tc.from || math.Abs(lambda-tc.lambda) > 1e-12) {
			t.Errorf("%s: refinement from %d, lambda %g, %v; want %d, %g, %v", tc.name, from, lambda, ok, tc.from, tc.lambda, tc.ok)
		}
	}
}

// TestPath runs a short path: each point trains the penalty epochs of a
// run without a path, the grid's points warm-start, points are added
// between the kept one and the next sparser, the kept point is the one
// choosePoint keeps, and a budget ends the path
// early.
func TestPath(t *testing.T) {
	train, test := smallData()
	c := smallConfig(t.TempDir())
	c.Epochs, c.Finetune, c.Path = 4, 1, []float64{0.1, 1, 3}
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Path) <= len(c.Path) || rep.PathChosen < 0 || rep.PathChosen >= len(rep.Path) {
		t.Fatalf("path %+v, chosen %d; want points added to the grid's", rep.Path, rep.PathChosen)
	}
	grid := -1 // the last point of the grid so far
	for i, p := range rep.Path {
		if p.Epochs != c.Epochs-c.Finetune {
			t.Errorf("point %d trained %d epochs with its penalty, want %d", i, p.Epochs, c.Epochs-c.Finetune)
		}
		if i > 0 && p.Lambda <= rep.Path[i-1].Lambda {
			t.Errorf("point %d has penalty %g, not above the %g before it", i, p.Lambda, rep.Path[i-1].Lambda)
		}
		if p.Refined == slices.Contains(c.Path, p.Lambda) {
			t.Errorf("point %d at penalty %g of the grid %v marked refined %v", i, p.Lambda, c.Path, p.Refined)
		}
		if p.Refined {
			continue
		}
		if grid >= 0 && p.EdgesLive > rep.Path[grid].EdgesLive {
			t.Errorf("point %d has %d live edges, more than the %d of the grid's point before it: the path does not warm-start", i, p.EdgesLive, rep.Path[grid].EdgesLive)
		}
		grid = i
	}
	if kept, low := choosePoint(rep.Path, DefaultPathTolerance, 0, rep.Settings.ValidationImages); kept != rep.PathChosen || low != rep.PathThreshold {
		t.Errorf("kept point %d at threshold %g, choosePoint keeps %d at %g", rep.PathChosen, rep.PathThreshold, kept, low)
	}
	if kept := rep.Path[rep.PathChosen]; kept.EdgesLive != rep.EdgesLive {
		t.Errorf("kept point has %d live edges, the final machine %d", kept.EdgesLive, rep.EdgesLive)
	}

	c = smallConfig("")
	c.Epochs, c.Finetune, c.Path, c.Budget = 4, 1, []float64{0.1, 1, 3, 10}, rep.EdgesInitial
	rep, err = Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Path) != 1 || rep.PathChosen != 0 {
		t.Errorf("a budget of every edge: %d points, chose %d; want the first point", len(rep.Path), rep.PathChosen)
	}
	c.Resume, c.Out = true, t.TempDir()
	if _, err := Run(train, test, c); err == nil {
		t.Error("resuming a path did not fail")
	}
}
