package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// writeFriedman writes rows of Friedman's first problem, drawn with seed,
// as shards files of the given format under dir, and returns their glob.
func writeFriedman(t *testing.T, dir string, format dataset.TableFormat, shards, rows int, seed uint64) string {
	t.Helper()
	x, y := dataset.Friedman1(shards*rows, rand.New(rand.NewPCG(seed, 0)))
	columns := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "y"}
	numeric := make([]bool, len(columns))
	for j := range numeric {
		numeric[j] = true
	}
	ext := map[dataset.TableFormat]string{dataset.CSV: ".csv", dataset.Parquet: ".parquet", dataset.Arrow: ".arrow"}[format]
	for s := range shards {
		cells := make([][]string, rows)
		for i := range cells {
			for _, v := range x.RawRowView(s*rows + i) {
				cells[i] = append(cells[i], strconv.FormatFloat(v, 'f', 6, 64))
			}
			cells[i] = append(cells[i], strconv.FormatFloat(y[s*rows+i], 'f', 6, 64))
		}
		var b bytes.Buffer
		tw, err := dataset.NewTableWriter(&b, format, columns, numeric)
		if err == nil {
			err = tw.Write(cells)
		}
		if err == nil {
			err = tw.Close()
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%02d%s", s, ext)), b.Bytes(), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*"+ext)
}

// The model fitted on prism over 8 shards, CSV or Parquet, is the one
// machines fit writes of the same glob with the same seed: the same
// sample, plan and anchors, the same rows held out, and every row's
// stats summed in another order.
func TestFitEqualsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a plan of 20000 rows four times")
	}
	for _, format := range []dataset.TableFormat{dataset.CSV, dataset.Parquet} {
		t.Run(format.String(), func(t *testing.T) {
			dir := t.TempDir()
			glob := writeFriedman(t, dir, format, 8, 2520, 1)
			job := Job{Data: glob, Target: "y", Model: filepath.Join(dir, "beam.json"), Seed: 7}
			got, res, err := Fit(context.Background(), job)
			if err != nil {
				t.Fatal(err)
			}
			if res.Shards != 8 || got.Fit.Rows != 20160 {
				t.Fatalf("%d shards, %d rows; want 8 and 20160", res.Shards, got.Fit.Rows)
			}
			want, _, err := tabular.FitFile(glob, []string{"y"}, tabular.Options{Seed: 7})
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
		})
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

// plannedJob writes two shards of 150 rows in a temporary directory and
// returns it, the job of their glob, its plan, the shards with their
// columns and the rows.
func plannedJob(t *testing.T) (string, Job, *tabular.Plan, []shard, int) {
	t.Helper()
	dir := t.TempDir()
	glob := writeFriedman(t, dir, dataset.CSV, 2, 150, 1)
	job := Job{Data: glob, Target: "y", Model: filepath.Join(dir, "m.json")}
	shards, err := Shards(context.Background(), job.Data)
	if err != nil {
		t.Fatal(err)
	}
	plan, lines, rows, err := job.plan(context.Background(), shards, tabular.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, job, plan, lines, rows
}

// What the workers' rows hold that the sample's encoding never met
// travels with their sums to the solve, which warns of it.
func TestAddWarnsBeyondSample(t *testing.T) {
	dir, job, plan, lines, _ := plannedJob(t)
	other := filepath.Join(dir, "other.csv")
	text := "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y\n" + strings.Repeat("0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,1\n", 20) +
		",0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,2\n" + "0.5,oops,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,3\n"
	if err := os.WriteFile(other, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	acc, err := job.add(context.Background(), []shard{{Path: other, Columns: lines[0].Columns}}, plan, 22)
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err := plan.Solve(acc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`column "x1": in the rows beyond the sample, which the encoding was made on: line 22 has no value`,
		other + `: 1 stray cell, not of its column's kind, is read as missing: line 23, column "x2"`,
	} {
		if !slices.ContainsFunc(rep.Warnings, func(w dataset.Warning) bool { return strings.HasPrefix(w.String(), want) }) {
			t.Errorf("warnings %q, want one beginning %q", rep.Warnings, want)
		}
	}
}

// Shards whose rows differ from the sample's reading are an error, not a
// model of other rows.
func TestAddCountsRows(t *testing.T) {
	dir, job, plan, lines, rows := plannedJob(t)
	if _, err := job.add(context.Background(), lines, plan, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := job.add(context.Background(), lines, plan, rows+1); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("error %v, want one of shards that changed", err)
	}
	// A worker's error names its shard and the shard's own line.
	bad := filepath.Join(dir, "bad.csv")
	text := "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y\n" + strings.Repeat("0,0,0,0,0,0,0,0,0,0,1\n", 2) + "0,0,0,0,0,0,0,0,0\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := job.add(context.Background(), []shard{{Path: bad, Columns: lines[0].Columns}}, plan, 3); err == nil || !strings.Contains(err.Error(), bad+": row 4") {
		t.Errorf("error %v, want one naming %s: row 4", err, bad)
	}
}
