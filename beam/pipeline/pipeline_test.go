package pipeline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/parametric-machines/machines/dataset"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// writeShards writes rows of y = 1 + 2 x1 - x2 + noise as n CSV shards
// under dir and returns their paths and all their rows as one CSV text.
func writeShards(t *testing.T, dir string, n, rows int, seed uint64) ([]string, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	var all strings.Builder
	all.WriteString("x1,x2,y\n")
	paths := make([]string, n)
	for s := range n {
		var b strings.Builder
		b.WriteString("x1,x2,y\n")
		for range rows {
			x1, x2 := rng.NormFloat64(), rng.NormFloat64()
			line := fmt.Sprintf("%v,%v,%v\n", x1, x2, 1+2*x1-x2+0.1*rng.NormFloat64())
			b.WriteString(line)
			all.WriteString(line)
		}
		paths[s] = filepath.Join(dir, fmt.Sprintf("part-%d.csv", s))
		if err := os.WriteFile(paths[s], []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths, all.String()
}

func TestRunSumsShards(t *testing.T) {
	dir := t.TempDir()
	paths, all := writeShards(t, dir, 8, 500, 1)
	p := &plan{Target: "y", Inputs: []string{"x1", "x2"}}
	pb, err := encodePlan(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), paths, pb, filepath.Join(dir, "stats"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := dataset.ReadFrame(strings.NewReader(all), "all")
	if err != nil {
		t.Fatal(err)
	}
	want := p.newStats()
	if err := want.add(p, f); err != nil {
		t.Fatal(err)
	}
	if got.Rows != want.Rows {
		t.Fatalf("rows %d, want %d", got.Rows, want.Rows)
	}
	for i := range want.Gram {
		if d := math.Abs(got.Gram[i] - want.Gram[i]); d > 1e-9*math.Max(1, math.Abs(want.Gram[i])) {
			t.Errorf("Gram[%d] = %v, want %v", i, got.Gram[i], want.Gram[i])
		}
	}
}
