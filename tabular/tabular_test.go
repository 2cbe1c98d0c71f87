package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// loadFrame reads a table of the tests.
func loadFrame(t *testing.T, path string) *dataset.Frame {
	t.Helper()
	f, err := dataset.LoadFrame(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fitText fits the CSV table text, whose target column is y, with Fit's
// defaults.
func fitText(t *testing.T, text string) (*Model, *Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	md, rep, err := Fit(loadFrame(t, path), []string{"y"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return md, rep
}

// tableText returns the rows of x and y as a CSV table of columns x0,
// x1, ... and y.
func tableText(x, y mat.Matrix) string {
	n, d := x.Dims()
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for i := range n {
		for j := range d {
			fmt.Fprintf(&b, "%v,", x.At(i, j))
		}
		fmt.Fprintf(&b, "%v\n", y.At(i, 0))
	}
	return b.String()
}

// TestLoadEarlierVersions loads model files that machines fit wrote
// before this package, of versions 2 to 5, each by the program of its
// version, and checks that they predict what that program's predict
// wrote, to the last digit: a regression with its 0.8 intervals (from
// version 3) and a classifier with its probabilities. So too a file of
// version 11 whose machine is averaged with the training mean
// (Machine.Mean), as the fits of 2026-11-30 wrote and the fit no longer
// does (v11_train.csv, of 16 rows, its training table).
func TestLoadEarlierVersions(t *testing.T) {
	for _, tc := range []struct {
		model, data, want string
		level             float64
	}{
		{"testdata/v2_regression.json", "testdata/new_houses.csv", "testdata/v2_regression.csv", 0},
		{"testdata/v2_classifier.json", "testdata/cls_train.csv", "testdata/v2_classifier.csv", 0},
		{"testdata/v3_regression.json", "testdata/new_houses.csv", "testdata/v3_regression.csv", 0.8},
		{"testdata/v3_classifier.json", "testdata/cls_train.csv", "testdata/v3_classifier.csv", 0},
		{"testdata/v4_regression.json", "testdata/new_houses.csv", "testdata/v4_regression.csv", 0.8},
		{"testdata/v4_classifier.json", "testdata/cls_train.csv", "testdata/v4_classifier.csv", 0},
		{"testdata/v5_regression.json", "testdata/reg_train.csv", "testdata/v5_regression.csv", 0.8},
		{"testdata/v5_classifier.json", "testdata/cls_train.csv", "testdata/v5_classifier.csv", 0},
		{"testdata/v11_regression.json", "testdata/v11_new.csv", "testdata/v11_regression.csv", 0.8},
	} {
		t.Run(filepath.Base(tc.model), func(t *testing.T) {
			md, err := Load(tc.model)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := md.PredictInterval(loadFrame(t, tc.data), tc.level)
			if err != nil {
				t.Fatal(err)
			}
			want := testutil.ReadCSV(t, tc.want)[1:]
			for i, rec := range want {
				var got []string
				if md.Task == Classification {
					got = append(got, p.Labels[i])
				}
				for j := range p.Values.RawMatrix().Cols {
					got = append(got, dataset.FormatFloat(p.Values.At(i, j)))
					if p.Lower != nil {
						got = append(got, dataset.FormatFloat(p.Lower.At(i, j)), dataset.FormatFloat(p.Upper.At(i, j)))
					}
				}
				if !slices.Equal(got, rec) {
					t.Fatalf("row %d: %q, want %q", i+1, got, rec)
				}
			}
		})
	}
	// The first version: numeric features and no encoder.
	md, err := Load("../cmd/machines/testdata/model_valid.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := dataset.ReadFrame(strings.NewReader("x\n0\n1\n"), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := md.Predict(f)
	if err != nil {
		t.Fatal(err)
	}
	// Its machine computes 0.5*x + 2*exp(-x^2/2).
	for i, x := range []float64{0, 1} {
		if want := 0.5*x + 2*math.Exp(-x*x/2); math.Abs(p.Values.At(i, 0)-want) > 1e-12 {
			t.Errorf("x = %v: %v, want %v", x, p.Values.At(i, 0), want)
		}
	}
}

// TestLoadErrors checks each refusal of a model file, by the model files
// of machines predict's tests.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"model_truncated.json", "invalid JSON at byte 122: unexpected end of JSON input"},
		{"model_v5.json", "machines-model version 5 is newer than this program reads (versions 1 to 4): upgrade the program"},
		{"model_not_model.json", "not a model file of machines fit"},
		{"fit_reg_train.csv", "invalid JSON at byte 1: invalid character"},
		{"model_bad_kind.json", `unknown model kind "neural-net"; this machines knows "kernel-machine"`},
		{"model_bad_task.json", `unknown task "ranking", want "regression" or "classification"`},
		{"model_bad_class_scaler.json", "a classification machine has an output scaler of scales other than 1"},
		{"model_bad_class_range.json", "a classification machine has a range: it bounds a regression's predictions"},
		{"model_bad_machine.json", "kernel: decoding machine: c is 1x2, want 1x1"},
	} {
		path := "../cmd/machines/testdata/" + tc.file
		if _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), path+": "+tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
}

// classTable returns a table of n rows of two inputs and three classes
// that overlap: the class is the sector of (x, y) with noise.
func classTable(t *testing.T, n int, seed uint64) *dataset.Frame {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("x,y,c\n")
	for range n {
		x, y := rnd.NormFloat64(), rnd.NormFloat64()
		c := int(math.Floor((math.Atan2(y, x)+math.Pi)/(2*math.Pi/3)+0.6*rnd.NormFloat64())) % 3
		if c < 0 {
			c += 3
		}
		b.WriteString(strconv.FormatFloat(x, 'g', 6, 64) + "," + strconv.FormatFloat(y, 'g', 6, 64) + "," + "abc"[c:c+1] + "\n")
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "classes.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPredictionSetsCover checks the conformal rule of a classifier's
// prediction sets on new rows of the same law: at each level, the true
// class falls in its set at least that often, within three standard
// errors, and a higher level's sets hold the lower's.
func TestPredictionSetsCover(t *testing.T) {
	md, _, err := Fit(classTable(t, 200, 1), []string{"c"}, Options{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	fresh := classTable(t, 1000, 2)
	truth, err := fresh.Target("c", true)
	if err != nil {
		t.Fatal(err)
	}
	var last [][]string
	for _, level := range []float64{0.5, 0.8, 0.95} {
		p, _, err := md.PredictInterval(fresh, level)
		if err != nil {
			t.Fatal(err)
		}
		in := 0
		for i, l := range truth.Labels {
			if slices.Contains(p.Sets[i], truth.Classes[l]) {
				in++
			}
			if last != nil && !subset(last[i], p.Sets[i]) {
				t.Fatalf("level %v, row %d: set %q lacks some of the lower level's %q", level, i, p.Sets[i], last[i])
			}
		}
		cov, se := float64(in)/1000, math.Sqrt(level*(1-level)/1000)
		if cov < level-3*se {
			t.Errorf("level %v: coverage %v, want at least %v", level, cov, level-3*se)
		}
		e, err := md.Score(fresh, level)
		if err != nil {
			t.Fatal(err)
		}
		if *e.Coverage != cov {
			t.Errorf("level %v: Score's coverage %v, the sets' %v", level, *e.Coverage, cov)
		}
		last = p.Sets
	}
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// TestSaveLoad saves a model fitted in Go and loads it: the same
// predictions, probabilities and scores.
func TestSaveLoad(t *testing.T) {
	f := loadFrame(t, "testdata/cls_train.csv")
	md, rep, err := Fit(f, []string{"color"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.json")
	if err := md.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := md.Probabilities(f)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.Probabilities(f)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(p1, p2) {
		t.Error("the loaded model's probabilities differ")
	}
	e, err := back.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if *e.Accuracy != *rep.Training.Accuracy {
		t.Errorf("accuracy %v after loading, %v in the report", *e.Accuracy, *rep.Training.Accuracy)
	}
}

// TestImportanceSeveralTargets measures the importance of a regression
// of two targets: its baseline is Score's R², the mean of the targets'.
func TestImportanceSeveralTargets(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader(twoTargets()), "two.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"u", "v"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := md.Importance(f, ImportanceOptions{Repeats: 3})
	if err != nil {
		t.Fatal(err)
	}
	e, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ex.Baseline-*e.R2) > 1e-12 || ex.Columns[0].Column != "a" || ex.Columns[1].Column != "b" {
		t.Errorf("baseline %v (Score's R² %v), columns %+v: want the same R², then a before b", ex.Baseline, *e.R2, ex.Columns)
	}
}

// twoTargets returns a table whose targets u and v depend on a, and on b
// far less.
func twoTargets() string {
	var b strings.Builder
	b.WriteString("a,b,u,v\n")
	for i := range 40 {
		a, c := float64(i)/10, float64((i*7)%40)/40
		b.WriteString(strconv.FormatFloat(a, 'g', -1, 64) + "," + strconv.FormatFloat(c, 'g', -1, 64) + "," +
			strconv.FormatFloat(math.Sin(a)+0.1*c, 'g', -1, 64) + "," + strconv.FormatFloat(a*a-0.1*c, 'g', -1, 64) + "\n")
	}
	return b.String()
}

// TestOptionsCheck checks each refusal of Options.Check.
func TestOptionsCheck(t *testing.T) {
	y := []string{"y"}
	for _, tc := range []struct {
		name    string
		o       Options
		targets []string
		want    string
	}{
		{"task", Options{Task: "ranking"}, y, `-task "ranking"`},
		{"no target", Options{}, nil, "no target column"},
		{"classify several", Options{Task: Classification}, []string{"a", "b"}, "several targets make a regression"},
		{"id is the target", Options{ID: "y"}, y, "-id y: the id column cannot also be the target"},
		{"anchors", Options{Anchors: -1}, y, "-anchors -1"},
		{"folds", Options{Folds: 1}, y, "-folds 1: want at least 2"},
		{"iters", Options{MaxIter: -1}, y, "-iters -1"},
		{"starts", Options{Starts: MaxStarts + 1}, y, "-starts 1001"},
		{"dims", Options{Dims: []int{3}}, y, "want at least two blocks"},
		{"dims entry", Options{Dims: []int{3, 0, 1}}, y, "entry 2 is 0"},
		{"cost", Options{Costs: []float64{-1}}, y, "-cost -1"},
		{"bandwidth", Options{Bandwidths: []float64{0}}, y, "-bandwidth 0"},
		{"shallow and dims", Options{Family: Shallow, Dims: []int{3, 1}}, y, "-family shallow"},
		{"weight and deep", Options{Weight: "w", Family: Deep}, y, "-weight and -balance need the shallow machine"},
		{"group and time", Options{Group: "g", Time: "t"}, y, "-group and -time"},
		{"budget", Options{Budget: -1}, y, "-budget"},
		{"weight is the target", Options{Weight: "y"}, y, `column "y" is the target`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Check(tc.targets)
			if _, ok := err.(*OptionError); !ok || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an *OptionError with %q", err, tc.want)
			}
		})
	}
	if err := (&Options{}).Check(y); err != nil {
		t.Errorf("the zero options: %v", err)
	}
}

// FuzzDecode feeds the model file decoder arbitrary bytes: it must
// refuse them or return a model that predicts a row of missing cells and
// saves. The seed corpus is model files of testdata, of every version,
// and testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, path := range []string{"testdata/v2_classifier.json", "testdata/v4_regression.json", "testdata/v5_regression.json",
		"testdata/v5_classifier.json", "testdata/v6_classifier.json", "testdata/v11_regression.json", "../cmd/machines/testdata/model_valid.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := Decode(data)
		if err != nil {
			return
		}
		if md.Encoder != nil {
			table := strings.Join(md.Features, ",") + "\n" + strings.Repeat(",", len(md.Features)-1) + "\n"
			if fr, err := dataset.ReadFrame(strings.NewReader(table), "row.csv"); err == nil {
				md.Predict(fr)
			}
		}
		if err := md.Save(filepath.Join(dir, "m.json")); err != nil {
			t.Fatalf("a decoded model does not save: %v", err)
		}
	})
}

// TestClassifierIntervals checks the rules of a classifier's intervals:
// one list of scores, each at most 1, and only from version 6.
func TestClassifierIntervals(t *testing.T) {
	md, _, err := Fit(loadFrame(t, "testdata/cls_train.csv"), []string{"color"}, Options{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	if md.Intervals == nil || len(md.Intervals.Residuals) != 1 {
		t.Fatalf("intervals %+v, want one list of scores", md.Intervals)
	}
	if err := md.check(); err != nil {
		t.Fatal(err)
	}
	scores := md.Intervals.Residuals[0]
	for _, tc := range []struct {
		name   string
		change func()
		want   string
	}{
		{"before version 6", func() { md.Version = 5 }, "a classification model has intervals"},
		{"a score above 1", func() { md.Intervals.Residuals[0] = append(slices.Clone(scores), 1.5) }, "interval residual"},
		{"two lists", func() { md.Intervals.Residuals = [][]float64{scores, scores} }, "residuals of 2 targets, the model has 1"},
	} {
		md.Version, md.Intervals.Residuals = Version, [][]float64{scores}
		tc.change()
		if err := md.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestImportanceBaselineIsScore checks that the importance's baseline
// accuracy is the score's on a tiny classifier whose calibrated
// probabilities tie: one rule of the predicted class, the most probable
// one, in both.
func TestImportanceBaselineIsScore(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader("x,c\n1,a\n2,b\n3,a\n4,b\n5,a\n6,b\n"), "tiny.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"c"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := md.Importance(f, ImportanceOptions{Repeats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Score != "accuracy" || ex.Baseline != *ev.Accuracy {
		t.Errorf("importance's baseline %s %v, score's accuracy %v", ex.Score, ex.Baseline, *ev.Accuracy)
	}
}

// TestImportance measures the importance of the two inputs of a model
// whose predictions depend on x only: z's importance is 0, exactly, x's
// large, with an interval around it and the mean of its drops.
func TestImportance(t *testing.T) {
	md, err := Load("testdata/model_two.json")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := md.Importance(loadFrame(t, "testdata/model_two.csv"), ImportanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Score != "r2" || ex.Rows != 40 || ex.Repeats != 10 || len(ex.Columns) != 2 || !(ex.Baseline > 0.99) {
		t.Fatalf("the explanation is %+v", ex)
	}
	x, z := ex.Columns[0], ex.Columns[1]
	if x.Column != "x" || !(x.Lower > 0.5) || !(x.Lower < x.Importance && x.Importance < x.Upper) || len(x.Drops) != 10 {
		t.Errorf("x: %+v, want the first, with an interval above 0.5 around its importance and 10 drops", x)
	}
	var mean float64
	for _, d := range x.Drops {
		mean += d / float64(len(x.Drops))
	}
	if math.Abs(mean-x.Importance) > 1e-12 {
		t.Errorf("x's importance %v is not the mean %v of its drops", x.Importance, mean)
	}
	if z.Column != "z" || z.Importance != 0 || z.Lower != 0 || z.Upper != 0 {
		t.Errorf("z: %+v, want importance 0 in [0, 0]", z)
	}
}

// TestValuesNear1e308 fits, predicts and scores values near the largest
// float64, which overflowed the standardisation.
func TestValuesNear1e308(t *testing.T) {
	f := tableOf(t, "x,y", 24, func(i int) string {
		x := float64(i) / 24
		return fmt.Sprintf("%v,%v", x*1.7e308, math.Sin(3*x)*1e308)
	})
	md, rep, err := Fit(f, []string{"y"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	if r2 := rep.Training.R2; r2 == nil || !(*r2 > 0.9) {
		t.Errorf("training R² %v, want above 0.9", r2)
	}
	p, warnings, err := md.Predict(f)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("predict: %v, warnings %v", err, warnings)
	}
	for i := range 24 {
		if v := p.Values.At(i, 0); math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1.5e308 {
			t.Errorf("row %d: prediction %v", i, v)
		}
	}
	ev, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ev.R2 == nil || !(*ev.R2 > 0.9) || ev.MSE != nil && !math.IsNaN(*ev.MSE) || !strings.Contains(strings.Join(ev.Notes, "; "), "the MSE exceeds the largest float64 (root mean squared error") {
		t.Errorf("score: R² %v, MSE %v, notes %q", ev.R2, ev.MSE, ev.Notes)
	}
}

// TestPredictPercent predicts for a percentage that training did not
// see: it is a number, not an unseen level.
func TestPredictPercent(t *testing.T) {
	md, _, err := Fit(loadFrame(t, "testdata/percent.csv"), []string{"y"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	p, warnings, err := md.Predict(loadFrame(t, "testdata/percent_new.csv"))
	if err != nil || len(warnings) > 0 {
		t.Fatalf("predict: %v, warnings %v", err, warnings)
	}
	// y is the rate over 10: 17.5% was in training, 52.5% beyond it.
	for i, want := range []float64{1.75, 5.25} {
		if y := p.Values.At(i, 0); math.Abs(y-want) > 0.5 {
			t.Errorf("row %d: predicted %v, want about %v", i+1, y, want)
		}
	}
}

// TestFitOneRow refuses a regression on a single row, and Score says R²
// is undefined there rather than giving -Inf.
func TestFitOneRow(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader("x,y\n1,2\n"), "one.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Fit(f, []string{"y"}, Options{})
	if want := `column "y": only row 2 has a value: a fit needs rows with different values`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fit on one row: error %v, want %q", err, want)
	}
	md, err := Load("../cmd/machines/testdata/model_valid.json")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	e2 := 2 - (0.5 + 2*math.Exp(-0.5)) // the model's error at x = 1
	if want := fmt.Sprintf("MSE %.4g, R² undefined on a single row", e2*e2); ev.String() != want || ev.R2 != nil || ev.Notes == nil {
		t.Errorf("score %q (R² %v, notes %q), want %q and a note", ev, ev.R2, ev.Notes, want)
	}
}

// TestFitMessyTable fits a table as users have them (quoted numbers,
// factors, TRUE/FALSE, empty and NA cells, an id column, a column to
// leave out, a row without a target), predicts for new rows with an
// unseen category and a gap, and scores the training rows as their
// predictions do. The command's TestPredictID checks the id column of
// predict's output.
func TestFitMessyTable(t *testing.T) {
	train := loadFrame(t, "../cmd/machines/testdata/fit_messy_train.csv")
	var log []string
	md, rep, err := Fit(train, []string{"y"}, Options{ID: "name", Ignore: []string{"note"}, Log: func(line string) { log = append(log, line) }})
	if err != nil {
		t.Fatal(err)
	}
	if want := `dropped 1 of 48 rows with no value in column "y"`; !strings.Contains(strings.Join(log, "\n"), want) {
		t.Errorf("the log %q does not say %q", log, want)
	}
	// group: 3 levels; flag: 1; x: value and gap indicator.
	if rep.Rows != 47 || rep.Dropped != 1 || md.ID != "name" || !slices.Equal(md.Features, []string{"group", "flag", "x"}) ||
		len(md.Encoder.Names()) != 6 || md.Fit.Dropped != 1 {
		t.Errorf("%d rows, %d dropped, id %q, features %q, %d inputs, record %+v", rep.Rows, rep.Dropped, md.ID, md.Features, len(md.Encoder.Names()), md.Fit)
	}
	p, warnings, err := md.Predict(loadFrame(t, "../cmd/machines/testdata/fit_messy_new.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Column != "group" || warnings[0].Value != "D" {
		t.Errorf("warnings %v, want one about the unseen level \"D\" of \"group\"", warnings)
	}
	// y = 2x + 3[group B] + [flag]; rows n1 and n2 are fully known.
	for i, want := range []float64{3, 2} {
		if y := p.Values.At(i, 0); math.Abs(y-want) > 0.5 {
			t.Errorf("row n%d: predicted %v, want about %v", i+1, y, want)
		}
	}
	ev, err := md.Score(train, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err = md.Predict(train)
	if err != nil {
		t.Fatal(err)
	}
	col, err := train.Column("y")
	if err != nil {
		t.Fatal(err)
	}
	var ys, ps []float64
	for i := range train.Len() {
		if v, err := train.Number(i, col); err == nil && !math.IsNaN(v) {
			ys, ps = append(ys, v), append(ps, p.Values.At(i, 0))
		}
	}
	var mean, sse, sst float64
	for _, y := range ys {
		mean += y / float64(len(ys))
	}
	for i, y := range ys {
		sse += (ps[i] - y) * (ps[i] - y)
		sst += (y - mean) * (y - mean)
	}
	if wantMSE, wantR2 := sse/float64(len(ys)), 1-sse/sst; ev.Rows != 47 || ev.Dropped != 1 ||
		math.Abs(*ev.MSE-wantMSE) > 1e-9*wantMSE || math.Abs(*ev.R2-wantR2) > 1e-9 {
		t.Errorf("score %+v, want MSE %v and R² %v on 47 rows", ev, wantMSE, wantR2)
	}
}

// fitScored fits a classifier of y on the table text and returns it
// with its score on that table.
func fitScored(t *testing.T, text string) (*Model, *Evaluation) {
	t.Helper()
	f, err := dataset.ReadFrame(strings.NewReader(text), "train.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"y"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return md, want
}

// TestScoreClassesInCase scores a classifier of classes High and Low on
// labels written in other cases, in memory and streamed: each is the one
// class it matches, with a warning; a label that matches two classes in
// another case, or none, is refused.
func TestScoreClassesInCase(t *testing.T) {
	var train, test strings.Builder
	train.WriteString("x,y\n")
	test.WriteString("x,y\n")
	for i := range 40 {
		x := float64(i) / 4
		fmt.Fprintf(&train, "%g,%s\n", x, []string{"Low", "High"}[i%10/5])
		fmt.Fprintf(&test, "%g,%s\n", x, []string{"low", "Low", "HIGH", "High"}[i%10/5*2+i%2])
	}
	md, want := fitScored(t, train.String())
	const warning = `column "y": 20 rows hold classes seen in training only in another case, such as "low" for "Low"; they are scored as those classes`
	check := func(how string, got *Evaluation, err error) {
		t.Helper()
		if err != nil || *got.Accuracy != *want.Accuracy || len(got.Warnings) != 1 || got.Warnings[0].String() != warning {
			t.Errorf("%s: %v, error %v; want accuracy %v and the warning %s", how, got, err, *want.Accuracy, warning)
		}
	}
	g, err := dataset.ReadFrame(strings.NewReader(test.String()), "test.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := md.Score(g, 0)
	check("Score", got, err)
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 10
	got, err = md.ScoreSource(textSource(test.String()), 0)
	check("ScoreSource", got, err)
	for _, tc := range []struct {
		classes []string
		label   string
		want    int
		inCase  int // the rows noted in another case
	}{
		{[]string{"High", "Low"}, "HIGH", 0, 1},
		{[]string{"Blue", "blue"}, "BLUE", -1, 0},
		{[]string{"Blue", "blue"}, "blue", 1, 0},
		{[]string{"a", "b"}, "c", -1, 0},
	} {
		var alike inCase
		if got := (&Model{Classes: tc.classes}).scoredClass(tc.label, &alike); got != tc.want || alike.rows != tc.inCase {
			t.Errorf("scoredClass(%q) among %q = %d, %d rows in another case; want %d", tc.label, tc.classes, got, alike.rows, tc.want)
		}
		if got := (&Model{Classes: tc.classes}).scoredClass(tc.label, nil); tc.label == "HIGH" && got >= 0 {
			t.Errorf("scoredClass(%q) without alike = %d, want -1, as a fit's chunks read it", tc.label, got)
		}
	}
}

// TestScoreNumericClasses scores a classifier of classes written 0.0 and
// 1.0 on labels written 0 and 1, in memory and streamed: each label is
// the class of its number.
func TestScoreNumericClasses(t *testing.T) {
	var train, test strings.Builder
	train.WriteString("x,y\n")
	test.WriteString("x,y\n")
	for i := range 40 {
		x := float64(i) / 4
		fmt.Fprintf(&train, "%g,%d.0\n", x, i%10/5)
		fmt.Fprintf(&test, "%g,%d\n", x, i%10/5)
	}
	md, want := fitScored(t, train.String())
	g, err := dataset.ReadFrame(strings.NewReader(test.String()), "test.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := md.Score(g, 0)
	if err != nil || *got.Accuracy != *want.Accuracy {
		t.Errorf("Score on labels 0 and 1: %v, error %v; want accuracy %v", got, err, *want.Accuracy)
	}
	// Streamed in chunks of 10 rows.
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 10
	streamed, err := md.ScoreSource(textSource(test.String()), 0)
	if err != nil || *streamed.Accuracy != *want.Accuracy {
		t.Errorf("ScoreSource on labels 0 and 1: %v, error %v; want accuracy %v", streamed, err, *want.Accuracy)
	}
	for _, tc := range []struct {
		classes []string
		label   string
		want    int
	}{
		{[]string{"0.0", "1.0"}, "1", 1},
		{[]string{"0.0", "1.0"}, "1e0", 1},
		{[]string{"0.0", "1.0"}, "2", -1},
		{[]string{"0.0", "1.0"}, "one", -1},
		{[]string{"1", "1.0"}, "1.0", 1},
		{[]string{"1", "1.0"}, "1.00", -1},
		{[]string{"a", "b"}, "b", 1},
	} {
		if got := (&Model{Classes: tc.classes}).classOf(tc.label); got != tc.want {
			t.Errorf("classOf(%q) among %q = %d, want %d", tc.label, tc.classes, got, tc.want)
		}
	}
}
