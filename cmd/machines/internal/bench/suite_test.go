package bench

import (
	"math"
	"strings"
	"testing"
)

func TestSuite(t *testing.T) {
	ws, err := Suite("default")
	if err != nil || len(ws) != len(Workloads()) {
		t.Errorf("Suite(default) = %d workloads, %v", len(ws), err)
	}
	if _, err := Suite("nope"); err == nil || !strings.Contains(err.Error(), `unknown suite "nope"`) {
		t.Errorf("Suite(nope): %v", err)
	}
	ws, err = Suite("machines")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, w := range ws {
		names[w.Name] = true
	}
	for _, kind := range []string{"dense", "conv", "recur"} {
		for _, size := range []string{"small", "medium"} {
			for _, pass := range []string{"forward", "backward", "gradient"} {
				if !names[kind+"-"+size+"-"+pass] {
					t.Errorf("no workload %s-%s-%s", kind, size, pass)
				}
			}
		}
	}
	if !names["dense-medium-reference"] || !names["conv-medium-reference"] {
		t.Error("no reference workloads")
	}
}

func TestMachineWorkloadsSetUp(t *testing.T) {
	ws, _ := Suite("machines")
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			unit, err := w.setup()
			if err != nil {
				t.Fatal(err)
			}
			unit()
		})
	}
}

func TestRatios(t *testing.T) {
	rs := []Result{
		{Name: "conv-medium-forward", MedianNS: 100},
		{Name: "conv-medium-backward", MedianNS: 90},
		{Name: "conv-medium-gradient", MedianNS: 210},
		{Name: "conv-medium-reference", MedianNS: 40},
		{Name: "recur-small-forward", MedianNS: 10},
		{Name: "W1", MedianNS: 5},
	}
	want := []struct {
		name  string
		value float64
		met   bool
	}{
		{"conv-medium backward/forward", 0.9, true},
		{"conv-medium gradient/forward", 2.1, false},
		{"conv-medium forward/reference", 2.5, false},
	}
	got := Ratios(rs)
	if len(got) != len(want) {
		t.Fatalf("Ratios = %+v, want %d ratios", got, len(want))
	}
	for i, w := range want {
		if g := got[i]; g.Name != w.name || math.Abs(g.Value-w.value) > 1e-12 || g.Met() != w.met {
			t.Errorf("ratio %d = %+v, want %s = %g (met %v)", i, g, w.name, w.value, w.met)
		}
	}
}

// BenchmarkMachines runs the machines suite under go test -bench.
func BenchmarkMachines(b *testing.B) {
	for _, w := range MachineWorkloads() {
		b.Run(w.Name, func(b *testing.B) {
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
