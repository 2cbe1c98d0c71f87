package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/tabular"
)

// fitTestRun runs the command line args and returns its exit status and
// output.
func fitTestRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// fitTestReadCSV reads a whole CSV file, header included.
func fitTestReadCSV(t *testing.T, path string) [][]string {
	t.Helper()
	return testutil.ReadCSV(t, path)
}

func fitTestFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fitTestModel reads the header fields of a model file as other programs
// see them.
type fitTestModel struct {
	Format, Kind, Task, Target, ID string
	Version                        int
	Features, Classes              []string
	Fit                            struct {
		Rows            int
		Cost, Bandwidth float64
		Starts          int
		CycleLosses     []float64 `json:"cycle_losses"`
		Selection       *struct{}
	}
	Machine struct {
		Range [][]float64
	}
	Encoder struct {
		Columns []struct {
			Name, Kind, Order string
			Cycles            []string
		}
	}
}

func fitTestReadModel(t *testing.T, path string) fitTestModel {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m fitTestModel
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("model file is not JSON: %v", err)
	}
	return m
}

func TestFitPredictRegression(t *testing.T) {
	dir := t.TempDir()
	model, pred := filepath.Join(dir, "model.json"), filepath.Join(dir, "pred.csv")
	code, stdout, stderr := fitTestRun("fit", "-data", "testdata/fit_reg_train.csv", "-target", "y",
		"-task", "regression", "-seed", "2", "-model", model)
	if code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	for _, want := range []string{"fit: 36 rows, 2 columns encoded as 2 inputs\n", "chosen by 5-fold cross-validation repeated 3 times over 9 settings on 36 rows",
		" settings on 36 rows: r2 ", "fit: predictions bounded to [", " iterations (", "fit: training R² ", "wrote " + model} {
		if !strings.Contains(stdout, want) {
			t.Errorf("fit printed %q, want it to contain %q", stdout, want)
		}
	}
	// tabular's TestFitRecordsSelection checks the record in full.
	head := fitTestReadModel(t, model)
	if head.Format != "machines" || head.Version != tabular.Version || head.Kind != "kernel-machine" || head.Target != "y" || head.Fit.Selection == nil {
		t.Errorf("model file header is %+v", head)
	}

	code, stdout, stderr = fitTestRun("predict", "-model", model, "-data", "testdata/fit_reg_new.csv", "-out", pred)
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	if want := "predict: 6 rows; wrote " + pred + "\n"; stdout != want {
		t.Errorf("predict printed %q, want %q", stdout, want)
	}
	got := fitTestReadCSV(t, pred)
	in := fitTestReadCSV(t, "testdata/fit_reg_new.csv") // id,x2,x1
	if len(got) != len(in) || !slices.Equal(got[0], []string{"y"}) {
		t.Fatalf("pred.csv is %q", got)
	}
	for i := 1; i < len(in); i++ {
		x1, x2 := fitTestFloat(t, in[i][2]), fitTestFloat(t, in[i][1])
		want := math.Sin(3*x1) + x2*x2 - 0.5
		if y := fitTestFloat(t, got[i][0]); math.Abs(y-want) > 0.15 {
			t.Errorf("prediction at (%v, %v) is %v, want %v", x1, x2, y, want)
		}
	}
}

// TestFitFixedSettings checks that -cost, -bandwidth, -starts and
// -extrapolate reach the fit (tabular's TestFitFixedSettings checks what
// the fit makes of them).
func TestFitFixedSettings(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model.json")
	code, stdout, stderr := fitTestRun("fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-iters", "50", "-model", model,
		"-cost", "0.01", "-bandwidth", "2", "-starts", "3", "-extrapolate")
	if code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "(fixed by the flags)") {
		t.Errorf("fit printed %q", stdout)
	}
	head := fitTestReadModel(t, model)
	if head.Fit.Cost != 0.01 || head.Fit.Bandwidth != 2 || head.Fit.Starts != 3 || head.Machine.Range != nil || head.Fit.Selection != nil {
		t.Errorf("the model records %+v, range %v", head.Fit, head.Machine.Range)
	}
}

func TestFitPredictClassification(t *testing.T) {
	dir := t.TempDir()
	model, pred := filepath.Join(dir, "model.json"), filepath.Join(dir, "pred.csv")
	code, stdout, stderr := fitTestRun("fit", "-data", "testdata/fit_cls_train.csv", "-target", "color",
		"-kernel", "multiplicative", "-model", model)
	if code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	if want := "fit: 30 rows, 2 columns encoded as 2 inputs, 3 classes\n"; !strings.HasPrefix(stdout, want) {
		t.Errorf("fit printed %q, want it to start with %q", stdout, want)
	}
	if want := `-task not given: classification, since column "color" holds text`; !strings.Contains(stderr, want) {
		t.Errorf("fit's stderr %q does not contain %q", stderr, want)
	}
	if want := "fit: training accuracy 1, log-loss "; !strings.Contains(stdout, want) {
		t.Errorf("fit printed %q, want it to contain %q", stdout, want)
	}

	code, _, stderr = fitTestRun("predict", "-model", model, "-data", "testdata/fit_cls_new.csv", "-out", pred)
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	got := fitTestReadCSV(t, pred)
	in := fitTestReadCSV(t, "testdata/fit_cls_new.csv") // x2,x1,truth
	if len(got) != len(in) || !slices.Equal(got[0], []string{"color", "p_blue", "p_green", "p_red"}) {
		t.Fatalf("pred.csv is %q", got)
	}
	right := 0
	for i := 1; i < len(in); i++ {
		if got[i][0] == in[i][2] {
			right++
		}
		var sum, best float64
		likeliest := ""
		for j, s := range got[i][1:] {
			p := fitTestFloat(t, s)
			if p < 0 || p > 1 {
				t.Errorf("row %d: probability %v", i, p)
			}
			sum += p
			if p > best {
				best, likeliest = p, strings.TrimPrefix(got[0][j+1], "p_")
			}
		}
		if likeliest != got[i][0] {
			t.Errorf("row %d: predicted %s, but %s is the most probable", i, got[i][0], likeliest)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("row %d: probabilities add up to %v", i, sum)
		}
	}
	if right != len(in)-1 {
		t.Errorf("%d of %d test points classified right", right, len(in)-1)
	}

	// score's accuracy and log-loss, against the same figures computed
	// here from predict's probabilities on the labelled training file.
	scores := filepath.Join(dir, "scores.json")
	code, stdout, stderr = fitTestRun("predict", "-model", model, "-data", "testdata/fit_cls_train.csv", "-out", pred)
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	got = fitTestReadCSV(t, pred)
	in = fitTestReadCSV(t, "testdata/fit_cls_train.csv") // x1,x2,color
	var wantAcc, wantLoss float64
	for i := 1; i < len(in); i++ {
		if got[i][0] == in[i][2] {
			wantAcc++
		}
		wantLoss -= math.Log(fitTestFloat(t, got[i][1+slices.Index(got[0][1:], "p_"+in[i][2])]))
	}
	n := float64(len(in) - 1)
	wantAcc, wantLoss = wantAcc/n, wantLoss/n
	fig := filepath.Join(dir, "calibration")
	code, stdout, stderr = fitTestRun("score", "-model", model, "-data", "testdata/fit_cls_train.csv", "-json", scores, "-figure", fig)
	if code != 0 {
		t.Fatalf("score exited with %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "score: 30 rows: accuracy ") {
		t.Errorf("score printed %q", stdout)
	}
	var e struct {
		Task        string
		Rows        int
		Accuracy    float64
		LogLoss     float64 `json:"log_loss"`
		Calibration []tabular.Bin
	}
	fitTestReadJSON(t, scores, &e)
	if e.Task != "classification" || e.Rows != 30 || e.Accuracy != wantAcc || math.Abs(e.LogLoss-wantLoss) > 1e-9*wantLoss {
		t.Errorf("score wrote %+v, want accuracy %v and log-loss %v", e, wantAcc, wantLoss)
	}
	var binned, correct float64
	for _, b := range e.Calibration {
		binned += float64(b.Rows)
		correct += b.Observed * float64(b.Rows)
	}
	if binned != 30 || math.Abs(correct/binned-wantAcc) > 1e-12 {
		t.Errorf("calibration %+v: %v rows, %v right; want 30 rows, accuracy %v", e.Calibration, binned, correct/binned, wantAcc)
	}
	for _, ext := range []string{".png", ".svg"} {
		if fi, err := os.Stat(fig + ext); err != nil || fi.Size() == 0 {
			t.Errorf("score -figure: %s%s: %v", fig, ext, err)
		}
	}
	few := filepath.Join(dir, "few.csv")
	if err := os.WriteFile(few, []byte(strings.Join(fitTestLines(t, "testdata/fit_cls_train.csv")[:5], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = fitTestRun("score", "-model", model, "-data", few, "-figure", filepath.Join(dir, "few"))
	if want := "-figure: 4 rows with a target are too few to bin"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("score -figure on 4 rows: exit %d, %q; want 1 and %q", code, stderr, want)
	}
}

// fitTestLines returns the lines of a file.
func fitTestLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func fitTestReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestPredictID fits a table with an id column and checks that predict
// writes it first, beside the predictions, for new rows (tabular's
// TestFitMessyTable checks the fit and the predictions).
func TestPredictID(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model.json")
	code, _, stderr := fitTestRun(slices.Concat([]string{"fit", "-data", "testdata/fit_messy_train.csv", "-target", "y",
		"-id", "name", "-ignore", "note", "-model", model}, fixed)...)
	if code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	code, stdout, stderr := fitTestRun("predict", "-model", model, "-data", "testdata/fit_messy_new.csv", "-out", "-")
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 5 || !slices.Equal(recs[0], []string{"name", "y"}) {
		t.Fatalf("predict -out - printed %q (%v)", stdout, err)
	}
	for i, id := range []string{"n1", "n2", "n3", "n4"} {
		if recs[i+1][0] != id {
			t.Errorf("row %d has id %q, want %q", i+1, recs[i+1][0], id)
		}
	}
}

func TestPredictHandWrittenModel(t *testing.T) {
	// The machine of model_valid.json computes 0.5*x + 2*exp(-x^2/2).
	pred := filepath.Join(t.TempDir(), "pred.csv")
	code, _, stderr := fitTestRun("predict", "-model", "testdata/model_valid.json",
		"-data", "testdata/model_predict.csv", "-out", pred)
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	got := fitTestReadCSV(t, pred)
	want := [][]string{{"y"}, {"2"}, {strconv.FormatFloat(0.5+2*math.Exp(-0.5), 'g', -1, 64)}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pred.csv is %q, want %q", got, want)
	}
}

func TestFitErrors(t *testing.T) {
	reg := []string{"-target", "y", "-task", "regression", "-iters", "20"}
	cls := []string{"-data", "testdata/fit_cls_train.csv", "-target", "color", "-task", "classification", "-iters", "20"}
	train := []string{"-data", "testdata/fit_reg_train.csv"}
	join := func(parts ...[]string) []string { return slices.Concat(parts...) }
	for _, tc := range []struct {
		name string
		args []string // without -model
		code int
		want []string // in stderr
	}{
		{"Inf", join(reg, []string{"-data", "testdata/fit_inf.csv"}), 1,
			[]string{`testdata/fit_inf.csv: row 3, column "y": value is infinite`}},
		{"ragged", join(reg, []string{"-data", "testdata/fit_ragged.csv"}), 1,
			[]string{"testdata/fit_ragged.csv: row 3: wrong number of fields: 2, header has 3"}},
		{"empty", join(reg, []string{"-data", "testdata/fit_empty.csv"}), 1,
			[]string{"testdata/fit_empty.csv: empty file"}},
		{"no file", join(reg, []string{"-data", "testdata/no_such.csv"}), 2,
			[]string{"testdata/no_such.csv", "no such file"}},
		{"unknown target", join(train, []string{"-target", "z", "-task", "regression"}), 2,
			[]string{`testdata/fit_reg_train.csv: column "z": no such column; the file has "x1", "x2", "y"`}},
		{"regression dims", join(train, reg, []string{"-dims", "3,3,2"}), 2,
			[]string{"-dims 3,3,2: the last block is the output and must be 1 for regression", "machines fit -h"}},
		{"classification dims", join(cls, []string{"-dims", "4,4,1"}), 2,
			[]string{`-dims 4,4,1: the last block is the output and must be 3, one entry for each of the 3 classes of column "color"`}},
		{"dims syntax", join(train, reg, []string{"-dims", "3,x,1"}), 2,
			[]string{`-dims 3,x,1: entry 2 is "x", want a whole number >= 1`}},
		{"dims zero", join(train, reg, []string{"-dims", "3,0,1"}), 2,
			[]string{`-dims 3,0,1: entry 2 is "0"`}},
		{"one block", join(train, reg, []string{"-dims", "1"}), 2,
			[]string{"-dims 1: want at least two blocks"}},
		{"negative cost", join(train, reg, []string{"-cost", "-1"}), 2,
			[]string{"-cost -1: want a finite number >= 0"}},
		{"NaN cost", join(train, reg, []string{"-cost", "NaN"}), 2,
			[]string{"-cost NaN: want a finite number >= 0"}},
		{"zero bandwidth", join(train, reg, []string{"-bandwidth", "0"}), 2,
			[]string{"-bandwidth 0: want a finite number > 0"}},
		{"unknown task", join(train, []string{"-target", "y", "-task", "ranking"}), 2,
			[]string{`-task "ranking": want regression or classification`}},
		{"unknown kernel", join(train, reg, []string{"-kernel", "gaussian"}), 2,
			[]string{`-kernel "gaussian": want additive or multiplicative`}},
		{"too many anchors", join(train, reg, []string{"-anchors", "37"}), 2,
			[]string{"-anchors 37: testdata/fit_reg_train.csv has only 36 usable rows"}},
		{"negative anchors", join(train, reg, []string{"-anchors", "-1"}), 2,
			[]string{"-anchors -1: want 0 (automatic) or more"}},
		{"zero iterations", join(train, reg[:4], []string{"-iters", "0"}), 2,
			[]string{"-iters 0: want at least 1"}},
		{"no starts", join(train, reg, []string{"-starts", "0"}), 2,
			[]string{"-starts 0: want 1 to 1000"}},
		{"too many starts", join(train, reg, []string{"-starts", "1001"}), 2,
			[]string{"-starts 1001: want 1 to 1000"}},
		{"one fold", join(train, reg, []string{"-folds", "1"}), 2,
			[]string{"-folds 1: want at least 2"}},
		{"unknown ignored column", join(train, reg, []string{"-ignore", "x1,q"}), 2,
			[]string{`testdata/fit_reg_train.csv: column "q": no such column`}},
		{"unknown id column", join(train, reg, []string{"-id", "q"}), 2,
			[]string{`testdata/fit_reg_train.csv: column "q": no such column`}},
		{"nothing left", join(train, reg, []string{"-ignore", "x1", "-id", "x2"}), 1,
			[]string{`testdata/fit_reg_train.csv: no input columns left`}},
		{"no target values", join(reg, []string{"-data", "testdata/fit_no_target.csv"}), 1,
			[]string{"testdata/fit_no_target.csv", `"y"`}},
		{"one class", []string{"-data", "testdata/fit_one_class.csv", "-target", "y", "-task", "classification"}, 1,
			[]string{"testdata/fit_one_class.csv", `"y"`, "single class"}},
		{"unknown input scale", join(train, reg, []string{"-inputs", "log"}), 2,
			[]string{`-inputs "log": want auto, linear or quantile`}},
		{"unknown target scale", join(train, reg, []string{"-target-scale", "cube"}), 2,
			[]string{`-target-scale "cube": want auto, linear or log`}},
		{"log classes", join(cls, []string{"-target-scale", "log"}), 2,
			[]string{`-target-scale log: column "color" is a classification target`}},
		{"log negative", join(train, reg, []string{"-target-scale", "log"}), 1,
			[]string{`testdata/fit_reg_train.csv: row 2, column "y": -0.5 is negative, and -target-scale log needs nonnegative targets`}},
		{"unknown flag", join(train, reg, []string{"-bogus"}), 2,
			[]string{"flag provided but not defined: -bogus", "run 'machines fit -h' for usage"}},
		{"stray argument", join(train, reg, []string{"extra"}), 2,
			[]string{`unexpected arguments ["extra" `}},
		{"table without -data", []string{"testdata/fit_reg_train.csv", "-target", "y"}, 2,
			[]string{`unexpected arguments ["testdata/fit_reg_train.csv" "-target" "y" "-model" `, `]: the command takes its inputs as flags (-flag value)`}},
		{"diverges", join(train, reg, []string{"-cost", "0.001", "-bandwidth", "1e-200"}), 1,
			[]string{"fitting testdata/fit_reg_train.csv: the fit diverged: the loss is +Inf at the initial parameters",
				"try a larger -cost or another -bandwidth"}},
		{"diverges at a huge cost", join(train, reg, []string{"-cost", "1e308", "-bandwidth", "1"}), 1,
			[]string{"the fit diverged: the loss is +Inf at the initial parameters", "try a smaller -cost"}},
		{"diverges unstandardized", join(reg, []string{"-data", "testdata/fit_huge.csv", "-cost", "0.001", "-bandwidth", "1", "-standardize=false"}), 1,
			[]string{"the fit diverged", "try -standardize=true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "model.json")
			code, stdout, stderr := fitTestRun(join([]string{"fit"}, tc.args, []string{"-model", model})...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if !strings.HasPrefix(stderr, "machines fit: ") && !strings.Contains(stderr, "usage: machines fit") {
				t.Errorf("stderr does not name the command: %q", stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not contain %q", stderr, want)
				}
			}
			if stdout != "" {
				t.Errorf("failed fit printed %q", stdout)
			}
			if _, err := os.Stat(model); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("failed fit left a model file: %v", err)
			}
		})
	}
}

func TestMissingFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"fit -data", []string{"fit", "-target", "y", "-task", "regression", "-model", "m.json"}, "missing required flag -data\n"},
		{"fit -target", []string{"fit", "-data", "d.csv", "-task", "regression", "-model", "m.json"}, "missing required flag -target\n"},
		{"fit -model", []string{"fit", "-data", "d.csv", "-target", "y", "-task", "regression"}, "missing required flag -model\n"},
		{"fit -model=", []string{"fit", "-data", "d.csv", "-target", "y", "-task", "regression", "-model="}, "missing required flag -model\n"},
		{"fit all", []string{"fit"}, "missing required flags -data, -target, -model\n"},
		{"predict -model", []string{"predict", "-data", "d.csv", "-out", "p.csv"}, "missing required flag -model\n"},
		{"predict -data", []string{"predict", "-model", "m.json", "-out", "p.csv"}, "missing required flag -data\n"},
		{"predict -out", []string{"predict", "-model", "m.json", "-data", "d.csv"}, "missing required flag -out\n"},
		{"predict unknown flag", []string{"predict", "-x"}, "flag provided but not defined: -x"},
		{"unknown command", []string{"frobnicate"}, `machines: unknown command "frobnicate"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := fitTestRun(tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			if !strings.Contains(stderr, "run 'machines") {
				t.Errorf("stderr %q does not say where the usage is", stderr)
			}
		})
	}
}

// TestPredictErrors checks that predict says what keeps it from
// predicting, and writes nothing; tabular's TestLoadErrors checks each
// refusal of a model file.
func TestPredictErrors(t *testing.T) {
	for _, tc := range []struct {
		name, model, data string
		code              int
		want              string
	}{
		{"truncated", "model_truncated.json", "model_predict.csv", 1,
			"testdata/model_truncated.json: invalid JSON at byte 122: unexpected end of JSON input"},
		{"no model", "no_such.json", "model_predict.csv", 2, "open testdata/no_such.json: no such file"},
		{"missing feature", "model_valid.json", "predict_missing_feature.csv", 1,
			`testdata/predict_missing_feature.csv: column "x": no such column; the file has "x1", "y"`},
		{"empty data", "model_valid.json", "fit_empty.csv", 1, "testdata/fit_empty.csv: empty file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pred.csv")
			code, stdout, stderr := fitTestRun("predict", "-model", "testdata/"+tc.model,
				"-data", "testdata/"+tc.data, "-out", out)
			if code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			if want := "machines predict: " + tc.want; !strings.HasPrefix(stderr, want) {
				t.Errorf("stderr is %q, want it to start with %q", stderr, want)
			}
			if stdout != "" {
				t.Errorf("failed predict printed %q", stdout)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("failed predict left an output file: %v", err)
			}
		})
	}
}

// TestLabelledJSONWarnings checks that score's and explain's JSON keep
// the warnings about the data that standard error prints: a column of
// numbers given as text on most rows is as good as missing.
func TestLabelledJSONWarnings(t *testing.T) {
	dir := t.TempDir()
	var train, test strings.Builder
	train.WriteString("age,size,y\n")
	test.WriteString("age,size,y\n")
	for i := range 40 {
		fmt.Fprintf(&train, "%d,%d,%d\n", 20+i, i%7, 2*i+i%7)
		fmt.Fprintf(&test, "%d years,%d,%d\n", 20+i, i%7, 2*i+i%7)
	}
	trainPath, testPath := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	for path, text := range map[string]string{trainPath: train.String(), testPath: test.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "model.json")
	if code, _, stderr := fitTestRun("fit", "-data", trainPath, "-target", "y", "-model", model); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	for _, cmd := range []string{"score", "explain"} {
		out := filepath.Join(dir, cmd+".json")
		code, _, stderr := fitTestRun(cmd, "-model", model, "-data", testPath, "-json", out)
		if code != 0 {
			t.Fatalf("%s exited with %d: %s", cmd, code, stderr)
		}
		var got struct{ Warnings []dataset.Warning }
		fitTestReadJSON(t, out, &got)
		found := false
		for _, w := range got.Warnings {
			found = found || w.Column == "age" && strings.Contains(w.Message, "as good as missing") && strings.Contains(stderr, w.Message)
		}
		if !found {
			t.Errorf("%s -json wrote the warnings %+v; want age's, as standard error has it:\n%s", cmd, got.Warnings, stderr)
		}
	}
}
