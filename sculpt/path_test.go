package sculpt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestChoosePoint(t *testing.T) {
	pts := func(acc ...float64) []PathPoint {
		var ps []PathPoint
		for i, a := range acc {
			ps = append(ps, PathPoint{ValidationAccuracy: a, EdgesLive: 30 - 5*i, FLOPsLive: 1000 - 100*i})
		}
		return ps
	}
	for _, tc := range []struct {
		name   string
		points []PathPoint
		tol    float64
		budget int
		want   int
	}{
		{"sparsest within tolerance", pts(0.90, 0.91, 0.897, 0.85), 0.005, 0, 2},
		{"beyond tolerance", pts(0.90, 0.89, 0.88), 0.005, 0, 0},
		{"wider tolerance", pts(0.90, 0.89, 0.88), 0.02, 0, 2},
		{"budget met", pts(0.90, 0.80), 0.005, 25, 1},
		{"budget not met", pts(0.90, 0.899), 0.005, 10, 1},
	} {
		if got := choosePoint(tc.points, tc.tol, tc.budget); got != tc.want {
			t.Errorf("%s: chose %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPath runs a short path: one point per penalty, the kept point is
// one of them, the figure is written, and a budget ends the path early.
func TestPath(t *testing.T) {
	train, test := smallData()
	c := smallConfig(t.TempDir())
	c.Epochs, c.Finetune, c.Path = 4, 1, []float64{0.1, 1, 3}
	rep, err := Run(c, train, test)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Path) == 0 || rep.PathChosen < 0 || rep.PathChosen >= len(rep.Path) {
		t.Fatalf("path %+v, chosen %d", rep.Path, rep.PathChosen)
	}
	for i := 1; i < len(rep.Path); i++ {
		if rep.Path[i].EdgesLive > rep.Path[i-1].EdgesLive {
			t.Errorf("point %d has %d live edges, more than the %d before it: the path does not warm-start", i, rep.Path[i].EdgesLive, rep.Path[i-1].EdgesLive)
		}
	}
	if kept := rep.Path[rep.PathChosen]; kept.EdgesLive != rep.EdgesLive {
		t.Errorf("kept point has %d live edges, the final machine %d", kept.EdgesLive, rep.EdgesLive)
	}
	for _, f := range []string{"sculpt-path.png", "sculpt-path.svg"} {
		if _, err := os.Stat(filepath.Join(c.Out, f)); err != nil {
			t.Error(err)
		}
	}

	c = smallConfig("")
	c.Epochs, c.Finetune, c.Path, c.Budget = 4, 1, []float64{0.1, 1, 3, 10}, rep.EdgesInitial
	rep, err = Run(c, train, test)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Path) != 1 || rep.PathChosen != 0 {
		t.Errorf("a budget of every edge: %d points, chose %d; want the first point", len(rep.Path), rep.PathChosen)
	}
	c.Resume, c.Out = true, t.TempDir()
	if _, err := Run(c, train, test); err == nil {
		t.Error("resuming a path did not fail")
	}
}
