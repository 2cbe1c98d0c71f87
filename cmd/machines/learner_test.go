package main

import (
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/tabular"
)

// TestLearnerFlags checks that -weight, -balance, -group, -time, -family
// and -budget reach the learner's options (tabular's
// TestFitOptionsRecorded checks what the fit makes of them).
func TestLearnerFlags(t *testing.T) {
	fs := newFlagSet("fit", "")
	lf := addLearnerFlags(fs)
	if err := fs.Parse([]string{"-weight", "w", "-balance", "-group", "g", "-time", "when", "-family", "shallow", "-budget", "2s"}); err != nil {
		t.Fatal(err)
	}
	var opts tabular.Options
	if err := lf.apply(&opts); err != nil {
		t.Fatal(err)
	}
	want := tabular.Options{Weight: "w", Balance: true, Group: "g", Time: "when", Family: tabular.Shallow, Budget: 2 * time.Second}
	if !reflect.DeepEqual(opts, want) {
		t.Errorf("the flags give the options %+v, want %+v", opts, want)
	}
}

// TestLearnerFlagErrors checks that the learner's flags refuse what they
// cannot do, saying why, before or while reading the data.
func TestLearnerFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		code  int
		want  string
	}{
		{"family", []string{"-target", "y", "-family", "wide"}, 2, `-family "wide": want auto, shallow or deep`},
		{"shallow dims", []string{"-target", "y", "-family", "shallow", "-dims", "2,1"}, 2, "-family shallow: -dims, -cost and -bandwidth describe the deep machine"},
		{"weight deep", []string{"-target", "y", "-weight", "w", "-family", "deep"}, 2, "-weight and -balance need the shallow machine"},
		{"group and time", []string{"-target", "y", "-group", "g", "-time", "when"}, 2, "-group and -time"},
		{"weight is target", []string{"-target", "y", "-weight", "y"}, 2, `column "y" is the target`},
		{"balance regression", []string{"-target", "y", "-balance"}, 2, "-balance weighs the classes of a classification"},
		{"negative budget", []string{"-target", "y", "-budget", "-1s"}, 2, "-budget -1s"},
		{"no such column", []string{"-target", "y", "-group", "team"}, 2, `-group team: testdata/learner_train.csv: column "team": no such column`},
		{"bad time", []string{"-target", "y", "-time", "g"}, 1, `time "g0": want a number or a date`},
		{"negative weight", []string{"-target", "y", "-weight", "w", "-data", "testdata/learner_bad_weight.csv"}, 1,
			`learner_bad_weight.csv: row 6, column "w": weight "-1": want a finite number >= 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"fit", "-model", filepath.Join(t.TempDir(), "m.json")}
			if !slices.Contains(tc.flags, "-data") {
				args = append(args, "-data", "testdata/learner_train.csv")
			}
			code, _, stderr := fitTestRun(append(args, tc.flags...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestPredictInterval checks the columns of predict -interval and the
// coverage that score -interval reports, and the refusals.
func TestPredictInterval(t *testing.T) {
	dir := t.TempDir()
	model, cls := filepath.Join(dir, "model.json"), filepath.Join(dir, "cls.json")
	for _, args := range [][]string{
		{"fit", "-data", "testdata/learner_train.csv", "-target", "y", "-ignore", "cls", "-model", model},
		{"fit", "-data", "testdata/learner_train.csv", "-target", "cls", "-ignore", "y", "-model", cls},
	} {
		if code, _, stderr := fitTestRun(args...); code != 0 {
			t.Fatalf("fit exited with %d: %s", code, stderr)
		}
	}
	out := filepath.Join(dir, "pred.csv")
	if code, _, stderr := fitTestRun("predict", "-model", model, "-data", "testdata/learner_train.csv", "-out", out, "-interval", "0.9"); code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	recs := fitTestReadCSV(t, out)
	if !slices.Equal(recs[0], []string{"y", "lower", "upper"}) {
		t.Fatalf("header %q, want y, lower, upper", recs[0])
	}
	for _, r := range recs[1:] {
		pred, lo, hi := fitTestFloat(t, r[0]), fitTestFloat(t, r[1]), fitTestFloat(t, r[2])
		if !(lo < pred && pred < hi) {
			t.Errorf("interval [%v, %v] does not hold its prediction %v", lo, hi, pred)
		}
	}
	code, stdout, stderr := fitTestRun("score", "-model", model, "-data", "testdata/learner_train.csv", "-interval", "0.9")
	if code != 0 || !strings.Contains(stdout, "0.9 intervals: coverage ") {
		t.Errorf("score -interval: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = fitTestRun("score", "-model", cls, "-data", "testdata/learner_train.csv")
	if code != 0 || !strings.Contains(stdout, "Brier score ") {
		t.Errorf("score of a classifier: exit %d, %q; want a Brier score", code, stdout)
	}
	if code, _, stderr := fitTestRun("export", "-model", model, "-onnx", filepath.Join(dir, "m.onnx"), "-interval", "0.9"); code != 0 {
		t.Errorf("export -interval: exit %d: %s", code, stderr)
	}
	if code, _, stderr := fitTestRun("export", "-model", cls, "-onnx", filepath.Join(dir, "c.onnx"), "-interval", "0.9"); code != 2 || !strings.Contains(stderr, "is a classification model") {
		t.Errorf("export -interval of a classifier: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"level", []string{"-model", model, "-interval", "1.5"}, "-interval 1.5: want a level between 0 and 1"},
		{"too few rows", []string{"-model", model, "-interval", "0.999"}, "held-out residuals are too few for that level"},
	} {
		args := append([]string{"predict", "-data", "testdata/learner_train.csv", "-out", filepath.Join(dir, "x.csv")}, tc.args...)
		if code, _, stderr := fitTestRun(args...); code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error with %q", tc.name, code, stderr, tc.want)
		}
	}
}

// TestPredictSets checks a classifier's predict -interval: a column set
// of the classes in each row's conformal prediction set, whose coverage
// score -interval reports; the sets widen with the level.
func TestPredictSets(t *testing.T) {
	dir := t.TempDir()
	cls := filepath.Join(dir, "cls.json")
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/learner_train.csv", "-target", "cls", "-ignore", "y", "-model", cls); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	sizes := make([]int, 2)
	for k, level := range []string{"0.5", "0.95"} {
		out := filepath.Join(dir, "sets.csv")
		if code, _, stderr := fitTestRun("predict", "-model", cls, "-data", "testdata/learner_train.csv", "-out", out, "-interval", level); code != 0 {
			t.Fatalf("predict -interval %s exited with %d: %s", level, code, stderr)
		}
		recs := fitTestReadCSV(t, out)
		head := recs[0]
		if head[len(head)-1] != "set" {
			t.Fatalf("header %q, want the column set last", head)
		}
		for _, r := range recs[1:] {
			set := strings.Split(r[len(r)-1], "|")
			for _, c := range set {
				if c != "" && !slices.Contains(head, "p_"+c) {
					t.Errorf("set %q holds %q, not a class of the model", r[len(r)-1], c)
				}
			}
			if r[len(r)-1] != "" {
				sizes[k] += len(set)
			}
		}
		code, stdout, stderr := fitTestRun("score", "-model", cls, "-data", "testdata/learner_train.csv", "-interval", level)
		if code != 0 || !strings.Contains(stdout, level+" prediction sets: coverage ") {
			t.Errorf("score -interval %s: exit %d, %q %q", level, code, stdout, stderr)
		}
	}
	if sizes[1] <= sizes[0] {
		t.Errorf("the sets hold %d classes at 0.5 and %d at 0.95: want more at the higher level", sizes[0], sizes[1])
	}
}

// TestSeveralTargets checks a regression of two targets through fit,
// predict (with intervals) and score, and the refusals of -target lists.
func TestSeveralTargets(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/learner_train.csv", "-target", "y, w", "-ignore", "cls", "-model", model); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	var r struct {
		Target   string   `json:"target"`
		Targets  []string `json:"targets"`
		Features []string `json:"features"`
		Machine  struct {
			Dims []int `json:"dims"`
		} `json:"machine"`
	}
	fitTestReadJSON(t, model, &r)
	if r.Target != "y" || !slices.Equal(r.Targets, []string{"y", "w"}) || slices.Contains(r.Features, "w") || r.Machine.Dims[len(r.Machine.Dims)-1] != 2 {
		t.Errorf("model file records %+v", r)
	}
	out := filepath.Join(dir, "pred.csv")
	if code, _, stderr := fitTestRun("predict", "-model", model, "-data", "testdata/learner_train.csv", "-out", out, "-interval", "0.8"); code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	recs := fitTestReadCSV(t, out)
	if want := []string{"y", "w", "lower_y", "upper_y", "lower_w", "upper_w"}; !slices.Equal(recs[0], want) {
		t.Errorf("header %q, want %q", recs[0], want)
	}
	for _, rec := range recs[1:] {
		for j := range 2 {
			p, lo, hi := fitTestFloat(t, rec[j]), fitTestFloat(t, rec[2+2*j]), fitTestFloat(t, rec[3+2*j])
			if !(lo <= p && p <= hi) {
				t.Errorf("target %d: interval [%v, %v] does not hold %v", j, lo, hi, p)
			}
		}
	}
	if code, stdout, stderr := fitTestRun("score", "-model", model, "-data", "testdata/learner_train.csv", "-interval", "0.8"); code != 0 || !strings.Contains(stdout, "R² ") {
		t.Errorf("score: exit %d, %q %q", code, stdout, stderr)
	}
	scoreAndExplainAgree(t, model, "testdata/learner_train.csv", "R²")
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-target", "y,y"}, `column "y" is named twice`},
		{[]string{"-target", "y,"}, "entry 2 is empty"},
		{[]string{"-target", "y,w", "-task", "classification"}, "several targets make a regression"},
		{[]string{"-target", "y,w", "-dims", "3,1"}, "must be 2, one entry for each regression target"},
	} {
		args := append([]string{"fit", "-data", "testdata/learner_train.csv", "-ignore", "cls", "-model", filepath.Join(dir, "m.json")}, tc.flags...)
		if code, _, stderr := fitTestRun(args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want a usage error with %q", tc.flags, code, stderr, tc.want)
		}
	}
}

// scoreAndExplainAgree checks that explain runs on the model and reports
// the score (named by the word before it) that score reports on the same
// rows.
func scoreAndExplainAgree(t *testing.T, model, data, name string) {
	t.Helper()
	code, scored, stderr := fitTestRun("score", "-model", model, "-data", data)
	if code != 0 {
		t.Fatalf("score exited with %d: %s", code, stderr)
	}
	code, explained, stderr := fitTestRun("explain", "-model", model, "-data", data, "-repeats", "2")
	if code != 0 {
		t.Fatalf("explain exited with %d: %s", code, stderr)
	}
	value := func(out string) string {
		_, rest, _ := strings.Cut(out, name+" ")
		v, _, _ := strings.Cut(rest, ",")
		v, _, _ = strings.Cut(v, ";")
		return v
	}
	if a, b := value(scored), value(explained); a == "" || a != b {
		t.Errorf("score says %s %q, explain %q:\n%s\n%s", name, a, b, scored, explained)
	}
}

// TestGCPercent checks the garbage collector's target of fit for its live
// heap: the garbage between collections fitGarbage bytes, at most
// maxGCPercent percent of a small heap and at least fitGCPercent of a
// large one.
func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{1 << 20, maxGCPercent},
		{8 << 20, 200},
		{16 << 20, 100},
		{32 << 20, fitGCPercent},
		{1 << 30, fitGCPercent},
	} {
		if got := gcPercent(tc.live); got != tc.want {
			t.Errorf("live heap %d MB: target %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// TestFollowHeap checks that the target follows the live heap after
// every collection, not the first alone.
func TestFollowHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	followHeap()
	for round := range 3 {
		debug.SetGCPercent(7)
		set := false
		for range 100 {
			runtime.GC()
			runtime.Gosched()
			if got := debug.SetGCPercent(7); got != 7 {
				set = true
				break
			}
		}
		if !set {
			t.Fatalf("round %d: the target stays 7 after 100 collections", round)
		}
	}
}
