package bench

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

func TestWorkloadsSetUp(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name+"/"+w.Dtype, func(t *testing.T) {
			if testing.Short() && (w.Name == "W4fit" || strings.HasSuffix(w.Name, "-1000")) {
				t.Skip("a full fit")
			}
			// setup checks the W4 gradients against finite differences.
			unit, err := w.setup()
			if err != nil {
				t.Fatal(err)
			}
			unit()
		})
	}
}

func TestRun(t *testing.T) {
	var w Workload
	for _, w = range Workloads() {
		if w.Name == "W4" { // fast
			break
		}
	}
	r, err := Run(w, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "W4" || r.Runs != 3 || r.Reps < 1 || r.MedianNS <= 0 || r.TargetNS != int64(w.Target) {
		t.Errorf("Run(W4, 3) = %+v", r)
	}
	for _, runs := range []int{0, MaxRuns + 1} {
		if _, err := Run(w, runs); err == nil {
			t.Errorf("Run with %d runs: no error", runs)
		}
	}
}

// BenchmarkWorkloads runs the workloads under go test -bench.
func BenchmarkWorkloads(b *testing.B) {
	for _, w := range Workloads() {
		b.Run(w.Name+"/"+w.Dtype, func(b *testing.B) {
			unit, err := w.setup()
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				unit()
			}
		})
	}
}

// TestVolterraSolver pins the end of the Volterra workloads' solution on
// 100 intervals for both solvers, so that the workloads keep timing the
// same equation.
func TestVolterraSolver(t *testing.T) {
	for _, c := range []struct {
		fast bool
		want []float64
	}{
		{false, []float64{-0.24531372388086403, 0.48885297825391988, 0.74567514727391659, -0.52719382970576989}},
		{true, []float64{-0.2453191233491947, 0.48885557186314083, 0.74568724415565024, -0.52719232015831308}},
	} {
		sol, err := volterraSolver(c.fast)(100)
		if err != nil {
			t.Fatal(err)
		}
		if got := sol.U[len(sol.U)-4:]; !floats.EqualApprox(got, c.want, 1e-12) {
			t.Errorf("fast %v: u(1) = %v, want %v", c.fast, got, c.want)
		}
	}
}
