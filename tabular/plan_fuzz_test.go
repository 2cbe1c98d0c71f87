package tabular

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// housesPlan returns the plan of testdata/houses.csv and the stats of
// its rows.
func housesPlan(tb testing.TB) (*Plan, *Stats) {
	f, err := dataset.LoadFrame("testdata/houses.csv")
	if err != nil {
		tb.Fatal(err)
	}
	p, err := NewPlan(f, []string{"price"}, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	acc := p.NewStats()
	if err := acc.Add(f); err != nil {
		tb.Fatal(err)
	}
	return p, acc
}

// The seed corpus of FuzzPlanJSON and FuzzStatsJSON, written by
// TestWriteSeeds when the environment asks for it.
const (
	planSeed  = "testdata/plan_houses.json"
	statsSeed = "testdata/stats_houses.json"
)

// TestWriteSeeds rewrites the fuzz targets' seeds when
// MACHINES_WRITE_SEEDS is set.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("MACHINES_WRITE_SEEDS") == "" {
		t.Skip("MACHINES_WRITE_SEEDS not set")
	}
	p, acc := housesPlan(t)
	for path, v := range map[string]any{planSeed: p, statsSeed: acc} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A plan decoded from any bytes either is an error or makes stats and
// solves them without panicking.
func FuzzPlanJSON(f *testing.F) {
	data, err := os.ReadFile(planSeed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	rows, err := dataset.LoadFrame("testdata/houses.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Plan
		if json.Unmarshal(data, &p) != nil {
			return
		}
		acc := p.NewStats()
		if acc.Add(rows) != nil {
			return
		}
		p.Solve(acc)
		if _, err := json.Marshal(&p); err != nil {
			t.Fatalf("a decoded plan does not encode: %v", err)
		}
	})
}

// Stats decoded from any bytes either solve or are an error, never a
// panic.
func FuzzStatsJSON(f *testing.F) {
	data, err := os.ReadFile(statsSeed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	p, _ := housesPlan(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Stats
		if json.Unmarshal(data, &s) != nil {
			return
		}
		p.Solve(&s)
		p.NewStats().Merge(&s)
	})
}
