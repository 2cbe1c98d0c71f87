package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// writeFriedman writes rows of Friedman's first problem, drawn with seed,
// as shards CSV files under dir, and all of them as one file, whose path
// it returns after the shards'.
func writeFriedman(t *testing.T, dir string, shards, rows int, seed uint64) ([]string, string) {
	t.Helper()
	x, y := dataset.Friedman1(shards*rows, rand.New(rand.NewPCG(seed, 0)))
	header := "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y\n"
	var all strings.Builder
	all.WriteString(header)
	paths := make([]string, shards)
	for s := range shards {
		var b strings.Builder
		b.WriteString(header)
		for i := s * rows; i < (s+1)*rows; i++ {
			for _, v := range x.RawRowView(i) {
				fmt.Fprintf(&b, "%.6f,", v)
			}
			fmt.Fprintf(&b, "%.6f\n", y[i])
		}
		all.WriteString(b.String()[len(header):])
		paths[s] = filepath.Join(dir, fmt.Sprintf("part-%02d.csv", s))
		if err := os.WriteFile(paths[s], []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole := filepath.Join(dir, "all.csv")
	if err := os.WriteFile(whole, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return paths, whole
}

// The model fitted on prism over 8 shards is the one machines fit
// writes of their concatenation with the same seed: the same sample,
// plan and anchors, and every row's stats summed in another order.
func TestFitEqualsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a plan of 20000 rows twice")
	}
	dir := t.TempDir()
	_, whole := writeFriedman(t, dir, 8, 3000, 1)
	job := Job{Data: filepath.Join(dir, "part-*.csv"), Target: "y", Model: filepath.Join(dir, "beam.json"), Seed: 7}
	got, res, err := Fit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if res.Shards != 8 || got.Fit.Rows != 24000 {
		t.Fatalf("%d shards, %d rows; want 8 and 24000", res.Shards, got.Fit.Rows)
	}
	want, _, err := tabular.FitFile(whole, []string{"y"}, tabular.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := tabular.Load(job.Model)
	if err != nil {
		t.Fatal(err)
	}
	if d := modelDiff(t, loaded, want); d != "" {
		t.Errorf("the model of the pipeline differs from the in-process fit's: %s", d)
	}
}

// modelDiff returns where a and b differ, as JSON, beyond a relative
// 1e-9 in a number, leaving out what names the data and times the fit.
func modelDiff(t *testing.T, a, b *tabular.Model) string {
	t.Helper()
	var va, vb any
	for _, p := range []struct {
		md *tabular.Model
		v  *any
	}{{a, &va}, {b, &vb}} {
		fr := *p.md.Fit
		fr.Data, fr.Seconds, fr.Phases = "", 0, nil
		md := *p.md
		md.Fit = &fr
		data, err := json.Marshal(&md)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, p.v); err != nil {
			t.Fatal(err)
		}
	}
	return jsonDiff("", va, vb)
}

// jsonDiff returns the first path at which the decoded JSON values a
// and b differ, numbers by more than a relative 1e-9.
func jsonDiff(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			return path + ": different fields"
		}
		for k, v := range a {
			if d := jsonDiff(path+"."+k, v, bm[k]); d != "" {
				return d
			}
		}
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return path + ": different lengths"
		}
		for i, v := range a {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), v, bs[i]); d != "" {
				return d
			}
		}
	case float64:
		bf, ok := b.(float64)
		if !ok || math.Abs(a-bf) > 1e-9*math.Max(1, math.Abs(bf)) {
			return fmt.Sprintf("%s: %v and %v", path, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v and %v", path, a, b)
		}
	}
	return ""
}

// Shards whose rows differ from the sample's reading are an error, not a
// model of other rows.
func TestAddCountsRows(t *testing.T) {
	dir := t.TempDir()
	writeFriedman(t, dir, 2, 150, 1)
	job := Job{Data: filepath.Join(dir, "part-*.csv"), Target: "y", Model: filepath.Join(dir, "m.json")}
	shards, err := Shards(context.Background(), job.Data)
	if err != nil {
		t.Fatal(err)
	}
	plan, lines, rows, err := job.plan(context.Background(), shards, tabular.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.add(context.Background(), lines, plan, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := job.add(context.Background(), lines, plan, rows+1); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("error %v, want one of shards that changed", err)
	}
	// A worker's error names its shard's own line, not the table's.
	bad := filepath.Join(dir, "bad.csv")
	text := "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y\n" + strings.Repeat("0,0,0,0,0,0,0,0,0,0,1\n", 2) + "0,0,0,0,0,0,0,0,0,0,abc\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := job.add(context.Background(), []shard{{Path: bad, Line: 500}}, plan, 3); err == nil || !strings.Contains(err.Error(), bad+": row 4") {
		t.Errorf("error %v, want one naming %s: row 4", err, bad)
	}
}
