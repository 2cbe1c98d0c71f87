package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/tabular"
)

// fixed skips the selection of fits that test the command rather than
// the learner.
var fixed = []string{"-cost", "0.01", "-bandwidth", "1", "-iters", "30"}

// withStdin runs f with standard input reading data.
func withStdin(t *testing.T, data string, f func()) {
	t.Helper()
	saved := stdin
	stdin = strings.NewReader(data)
	defer func() { stdin = saved }()
	f()
}

// TestFitAsUsersMeetIt runs fit on the tables and command lines that new
// users met (issue 23, item 5), each with what fit must say or do.
func TestFitAsUsersMeetIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string // without -model
		code int
		// stdout and stderr hold these; beforeFit says the error must come
		// before any fitting, of which the kernel reports progress.
		stdout, stderr []string
		beforeFit      bool
		check          func(t *testing.T, model fitTestModel)
	}{
		{name: "constant target", args: []string{"-data", "testdata/fit_constant.csv", "-target", "y"}, code: 1,
			stderr: []string{`testdata/fit_constant.csv: column "y": every one of the 20 rows holds 3: there is nothing to learn`}, beforeFit: true},
		{name: "id is the target", args: []string{"-data", "testdata/no_such.csv", "-target", "y", "-id", "y"}, code: 2,
			stderr: []string{"-id y: the id column cannot also be the target"}, beforeFit: true},
		{name: "R's write.csv", args: slices.Concat([]string{"-data", "testdata/fit_rownames.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs"},
			stderr: []string{`the first column has no name: it holds row names, as R's write.csv and pandas' to_csv write them, and is the id column "row.names"`},
			check: func(t *testing.T, m fitTestModel) {
				if m.ID != "row.names" || !slices.Equal(m.Features, []string{"x"}) {
					t.Errorf("model id %q, features %q; want row.names and [x]", m.ID, m.Features)
				}
			}},
		// A first column without a name whose values repeat is data, not
		// row names, more likely: it was read as row names in silence.
		{name: "unnamed data", args: slices.Concat([]string{"-data", "testdata/fit_unnamed_data.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs"},
			stderr: []string{`warning: testdata/fit_unnamed_data.csv: the first column has no name, as a column of row names has none, but its values repeat (line 10 holds line 2's "0.0"), as row names do not: it is read as the id column "row.names", not an input; if it holds data, name it in the header`}},
		// Row names are no input, also beside another id column.
		{name: "R's write.csv with -id", args: []string{"-data", "testdata/fit_rownames.csv", "-target", "y", "-id", "x"}, code: 1,
			stderr: []string{"no input columns left"}},
		{name: "semicolons and decimal commas", args: slices.Concat([]string{"-data", "testdata/fit_semicolon.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 2 columns encoded as 2 inputs"},
			stderr: []string{"testdata/fit_semicolon.csv: fields separated by semicolons, numbers with decimal commas",
				`regression, since column "y" holds numbers only`}},
		// Google Sheets and LibreOffice of much of Europe separate by
		// commas and quote the numbers.
		{name: "commas and quoted decimal commas", args: slices.Concat([]string{"-data", "testdata/fit_quoted_decimal.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 2 columns encoded as 2 inputs"},
			stderr: []string{"machines fit: testdata/fit_quoted_decimal.csv: numbers with decimal commas\n",
				`regression, since column "y" holds numbers only`}},
		{name: "-sep", args: slices.Concat([]string{"-data", "testdata/fit_semicolon.csv", "-target", "y", "-sep", ";"}, fixed),
			stdout: []string{"fit: 24 rows, 2 columns encoded as 2 inputs"}},
		{name: "-sep wrong", args: []string{"-data", "testdata/fit_semicolon.csv", "-target", "y", "-sep", "tab"}, code: 2,
			stderr: []string{`column "y": no such column; the file has "x;share;y"`}},
		{name: "-sep bad", args: []string{"-data", "testdata/fit_semicolon.csv", "-target", "y", "-sep", `""`}, code: 2,
			stderr: []string{`-sep "\"\"": want one character other than a quote or a line break`}},
		{name: "tabs", args: slices.Concat([]string{"-data", "testdata/fit_tab.tsv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs"}, stderr: []string{"fields separated by tabs"}},
		{name: "thousands separators", args: slices.Concat([]string{"-data", "testdata/fit_thousands.csv", "-target", "price"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs\n"},
			stderr: []string{`regression, since column "price" holds numbers only`}},
		{name: "thousands as an input", args: slices.Concat([]string{"-data", "testdata/fit_thousands.csv", "-target", "size"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs\n"}},
		{name: "infinite target", args: []string{"-data", "testdata/fit_inf.csv", "-target", "y"}, code: 1,
			stderr: []string{`regression, since column "y" holds numbers only`, `testdata/fit_inf.csv: row 3, column "y": value is infinite: "Inf"`}, beforeFit: true},
		{name: "currency", args: slices.Concat([]string{"-data", "testdata/fit_currency.csv", "-target", "size"}, fixed),
			stdout: []string{"fit: 24 rows, 1 columns encoded as 1 inputs\n"}},
		{name: "currency target", args: slices.Concat([]string{"-data", "testdata/fit_currency.csv", "-target", "price"}, fixed),
			stderr: []string{`regression, since column "price" holds numbers only`}},
		{name: "dates", args: slices.Concat([]string{"-data", "testdata/fit_dates.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 24 rows, 2 columns encoded as 3 inputs\n"},
			check: func(t *testing.T, m fitTestModel) {
				if c := m.Encoder.Columns; len(c) != 2 || c[0].Name != "day" || c[0].Kind != "date" {
					t.Errorf("encoder columns %+v, want the date column day first", c)
				}
			}},
		{name: "dates with the month first", args: slices.Concat([]string{"-data", "testdata/fit_us_dates.csv", "-target", "units"}, fixed),
			check: func(t *testing.T, m fitTestModel) {
				if c := m.Encoder.Columns[0]; c.Kind != "date" || c.Order != "mdy" {
					t.Errorf("encoder column %+v, want dates in the order month, day, year", c)
				}
			}},
		// The dates' phases stay when the season moves the target, and
		// are left out when it does not.
		{name: "seasons", args: slices.Concat([]string{"-data", "testdata/fit_seasons.csv", "-target", "season", "-ignore", "other"}, fixed),
			stdout: []string{"fit: 90 rows, 2 columns encoded as 6 inputs\n", "fit: dates followed by their phases in the cycles (day: year, week)"},
			check: func(t *testing.T, m fitTestModel) {
				if c := m.Encoder.Columns[0]; !slices.Equal(c.Cycles, []string{"year", "week"}) || len(m.Fit.CycleLosses) != 2 || m.Fit.CycleLosses[0] >= m.Fit.CycleLosses[1] {
					t.Errorf("date column %+v, cycle losses %v; want the year and the week, chosen by the lower loss", c, m.Fit.CycleLosses)
				}
			}},
		{name: "no seasons", args: slices.Concat([]string{"-data", "testdata/fit_seasons.csv", "-target", "other", "-ignore", "season"}, fixed),
			stdout: []string{"fit: 90 rows, 2 columns encoded as 2 inputs\n", "fit: dates as their days alone"},
			check: func(t *testing.T, m fitTestModel) {
				if c := m.Encoder.Columns[0]; c.Cycles != nil || len(m.Fit.CycleLosses) != 2 || m.Fit.CycleLosses[0] <= m.Fit.CycleLosses[1] {
					t.Errorf("date column %+v, cycle losses %v; want no cycles, chosen by the lower loss", c, m.Fit.CycleLosses)
				}
			}},
		// A column empty in every row with a target is left out, with a
		// warning; with no other input, the fit stops.
		{name: "empty column", args: slices.Concat([]string{"-data", "testdata/fit_empty_column.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 20 rows, 1 columns encoded as 1 inputs\n"},
			stderr: []string{`warning: column "notes": no row with a target has a value here; the column is left out`},
			check: func(t *testing.T, m fitTestModel) {
				if !slices.Equal(m.Features, []string{"x"}) {
					t.Errorf("features %q, want x alone", m.Features)
				}
			}},
		{name: "no filled column", args: []string{"-data", "testdata/fit_empty_column.csv", "-target", "y", "-ignore", "x"}, code: 1,
			stderr: []string{"testdata/fit_empty_column.csv: no input column has a value in a row with a target"}, beforeFit: true},
		{name: "0/1 target", args: slices.Concat([]string{"-data", "testdata/fit_binary.csv", "-target", "y"}, fixed),
			stdout: []string{"2 classes"},
			stderr: []string{`-task not given: classification, since column "y" holds two values only, 0 and 1; -task regression fits them as numbers`},
			check: func(t *testing.T, m fitTestModel) {
				if m.Task != "classification" || !slices.Equal(m.Classes, []string{"0", "1"}) {
					t.Errorf("task %s, classes %q", m.Task, m.Classes)
				}
			}},
		{name: "0/1 target as numbers", args: slices.Concat([]string{"-data", "testdata/fit_binary.csv", "-target", "y", "-task", "regression"}, fixed),
			stdout: []string{"fit: training R²"}},
		{name: "class of a single row", args: slices.Concat([]string{"-data", "testdata/fit_single_class.csv", "-target", "y"}, fixed),
			stderr: []string{`warning: column "y": class "c" (line 22) has a single row; the model can hardly learn such a class`}},
		{name: "classes that differ in case", args: slices.Concat([]string{"-data", "testdata/fit_cased_classes.csv", "-target", "y"}, fixed),
			stderr: []string{`warning: column "y": classes "No" and "no"; "Yes" and "yes" differ only in case or in how they write a number, or a yes or a no: they are different classes to the model`}},
		// Fewer rows than the default folds: leave-one-out.
		{name: "four rows", args: []string{"-data", "testdata/fit_four_rows.csv", "-target", "y"},
			stdout: []string{"chosen by leave-one-out cross-validation over 15 settings on 4 rows"}},
		{name: "percentages", args: slices.Concat([]string{"-data", "testdata/fit_percent.csv", "-target", "y"}, fixed),
			stdout: []string{"fit: 20 rows, 1 columns encoded as 1 inputs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "model.json")
			code, stdout, stderr := fitTestRun(slices.Concat([]string{"fit"}, tc.args, []string{"-model", model})...)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			checkContains(t, "stdout", stdout, tc.stdout)
			checkContains(t, "stderr", stderr, tc.stderr)
			if tc.beforeFit && strings.Contains(stderr, "tabular:") {
				t.Errorf("the error came after fitting: %s", stderr)
			}
			if tc.check != nil {
				tc.check(t, fitTestReadModel(t, model))
			}
		})
	}
}

// TestFitStandardInput fits a table read from standard input, and
// predicts for rows read from it.
func TestFitStandardInput(t *testing.T) {
	data, err := os.ReadFile("testdata/fit_rownames.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	var code int
	var stdout, stderr string
	withStdin(t, string(data), func() {
		code, stdout, stderr = fitTestRun(slices.Concat([]string{"fit", "-data", "-", "-target", "y", "-model", model}, fixed)...)
	})
	if code != 0 || !strings.Contains(stdout, "fit: 24 rows") {
		t.Fatalf("fit -data - exited with %d: %s%s", code, stdout, stderr)
	}
	var head struct{ Fit struct{ Data string } }
	fitTestReadJSON(t, model, &head)
	if head.Fit.Data != "standard input" {
		t.Errorf("the model records the data %q, want standard input", head.Fit.Data)
	}
	withStdin(t, "\"\",x\n\"a\",0.5\n\"b\",1\n", func() {
		code, stdout, stderr = fitTestRun("predict", "-model", model, "-data", "-", "-out", "-")
	})
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != 0 || err != nil || len(recs) != 3 || !slices.Equal(recs[0], []string{"row.names", "y"}) || recs[2][0] != "b" {
		t.Fatalf("predict -data - exited with %d and printed %q (%v); stderr %s", code, stdout, err, stderr)
	}
	if y := fitTestFloat(t, recs[2][1]); math.Abs(y-math.Sin(1)) > 0.1 {
		t.Errorf("predicted %v at 1, want about sin(1)", y)
	}
}

// TestOutputChecked gives each command an output path it cannot write,
// and checks that it says so before any work: the model and data are
// missing, so that any work would fail otherwise.
func TestOutputChecked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"fit -model DIR", []string{"fit", "-data", "no.csv", "-target", "y", "-model", dir}, 2,
			"-model " + dir + ": is a directory; name a file in it, such as " + filepath.Join(dir, "model.json")},
		{"fit -model in no directory", []string{"fit", "-data", "no.csv", "-target", "y", "-model", filepath.Join(dir, "no", "m.json")}, 2,
			"-model " + filepath.Join(dir, "no", "m.json") + ": cannot write there: no such file or directory"},
		{"fit -model in a file", []string{"fit", "-data", "no.csv", "-target", "y", "-model", filepath.Join(file, "m.json")}, 2,
			"cannot write there: not a directory"},
		{"predict -out DIR", []string{"predict", "-model", "no.json", "-data", "no.csv", "-out", dir}, 2,
			"-out " + dir + ": is a directory; name a file in it, such as " + filepath.Join(dir, "predictions.csv")},
		{"predict -out device", []string{"predict", "-model", "no.json", "-data", "no.csv", "-out", os.DevNull}, 2,
			"-out " + os.DevNull + ": is not a regular file"},
		{"score -json DIR", []string{"score", "-model", "no.json", "-data", "no.csv", "-json", dir}, 2,
			"-json " + dir + ": is a directory"},
		{"export -onnx DIR", []string{"export", "-model", "no.json", "-onnx", dir}, 2,
			"-onnx " + dir + ": is a directory; name a file in it, such as " + filepath.Join(dir, "model.onnx")},
		{"explain -json DIR", []string{"explain", "-model", "no.json", "-data", "no.csv", "-json", dir}, 2,
			"-json " + dir + ": is a directory; name a file in it, such as " + filepath.Join(dir, "importance.json")},
		{"explain -figure in no directory", []string{"explain", "-model", "no.json", "-data", "no.csv", "-figure", filepath.Join(dir, "no", "f")}, 2,
			"-figure " + filepath.Join(dir, "no", "f.png") + ": cannot write there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := fitTestRun(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the checks left %d files in %s", len(entries)-1, dir)
	}
}

// TestNonFinitePredictions uses a model whose output overflows on one
// row: predict leaves it empty and warns, score and explain refuse.
func TestNonFinitePredictions(t *testing.T) {
	code, stdout, stderr := fitTestRun("predict", "-model", "testdata/model_overflow.json", "-data", "testdata/model_overflow.csv", "-out", "-")
	if code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	if want := "y\n1e+306\n\n2e+306\n"; stdout != want {
		t.Errorf("predict printed %q, want %q", stdout, want)
	}
	if want := "warning: 1 of 3 predictions are not finite numbers (row 3): their cells are left empty"; !strings.Contains(stderr, want) {
		t.Errorf("predict's stderr %q does not contain %q", stderr, want)
	}
	// Two overflowing rows, in two parts of the table.
	var b strings.Builder
	b.WriteString("x\n")
	for i := range predictRows + 10 {
		x := 1
		if i == 0 || i == predictRows+5 {
			x = 1000
		}
		fmt.Fprintf(&b, "%d\n", x)
	}
	withStdin(t, b.String(), func() {
		code, _, stderr = fitTestRun("predict", "-model", "testdata/model_overflow.json", "-data", "-", "-out", "-")
	})
	if want := fmt.Sprintf("warning: 2 of %d predictions are not finite numbers (rows 2, %d)", predictRows+10, predictRows+7); code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("predict exited with %d, stderr %q; want %q", code, stderr, want)
	}
	for _, cmd := range []string{"score", "explain"} {
		code, stdout, stderr = fitTestRun(cmd, "-model", "testdata/model_overflow.json", "-data", "testdata/model_overflow.csv")
		if want := "testdata/model_overflow.csv: 1 of 3 predictions are not finite numbers (row 3)"; code != 1 || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit status %d, stdout %q, stderr %q; want 1, nothing and %q", cmd, code, stdout, stderr, want)
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// firstWrite records how much of in had been read when something was
// first written to it.
type firstWrite struct {
	strings.Builder
	in      *countingReader
	readYet int
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if w.Len() == 0 {
		w.readYet = w.in.read
	}
	return w.Builder.Write(p)
}

// TestPredictStreams predicts for a table of several parts read from
// standard input: the first predictions are written before the table is
// read whole, they are those of the whole table, and the warnings about
// unseen levels add up over the parts.
func TestPredictStreams(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.json")
	if code, _, stderr := fitTestRun(slices.Concat([]string{"fit", "-data", "testdata/fit_messy_train.csv", "-target", "y",
		"-id", "name", "-ignore", "note", "-model", model}, fixed)...); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	rows := 3*predictRows + 5
	var b strings.Builder
	b.WriteString("name,group,flag,x\n")
	groups := []string{"A", "B", "C", "D"} // D was not seen in training
	for i := range rows {
		fmt.Fprintf(&b, "n%d,%s,%v,%v\n", i, groups[i%4], i%3 == 0, float64(i%50)/10)
	}
	in := &countingReader{r: strings.NewReader(b.String())}
	saved := stdin
	stdin = in
	defer func() { stdin = saved }()
	out := &firstWrite{in: in}
	var errOut strings.Builder
	if code := run([]string{"predict", "-model", model, "-data", "-", "-out", "-"}, out, &errOut); code != 0 {
		t.Fatalf("predict exited with %d: %s", code, errOut.String())
	}
	if out.readYet >= b.Len() {
		t.Errorf("predict wrote its first predictions after reading all %d bytes of its input", b.Len())
	}
	whole := filepath.Join(dir, "whole.csv")
	if err := os.WriteFile(whole, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pred := filepath.Join(dir, "pred.csv")
	if code, _, stderr := fitTestRun("predict", "-model", model, "-data", whole, "-out", pred); code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(pred); err != nil || string(got) != out.String() {
		t.Errorf("the predictions from standard input differ from those of the file (%v)", err)
	}
	if n := strings.Count(out.String(), "\n"); n != rows+1 {
		t.Errorf("%d lines of predictions for %d rows", n, rows)
	}
	want := fmt.Sprintf("machines predict: warning: column \"group\": %d rows hold levels not seen in training, such as \"D\"", rows/4)
	if strings.Count(errOut.String(), "warning") != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("predict's stderr %q, want one warning: %q", errOut.String(), want)
	}
}

// TestExplain explains a model whose predictions depend on x only:
// explain prints the importance of each column, writes it as JSON and
// draws its figure (tabular's TestImportance checks the figures).
func TestExplain(t *testing.T) {
	dir := t.TempDir()
	jsonPath, fig := filepath.Join(dir, "importance.json"), filepath.Join(dir, "importance")
	code, stdout, stderr := fitTestRun("explain", "-model", "testdata/model_two.json", "-data", "testdata/model_two.csv",
		"-json", jsonPath, "-figure", fig)
	if code != 0 {
		t.Fatalf("explain exited with %d: %s", code, stderr)
	}
	var ex tabular.Explanation
	fitTestReadJSON(t, jsonPath, &ex)
	if ex.Score != "r2" || ex.Rows != 40 || ex.Repeats != 10 || len(ex.Columns) != 2 {
		t.Fatalf("importance.json holds %+v", ex)
	}
	x := ex.Columns[0]
	for _, want := range []string{"explain: 40 rows of testdata/model_two.csv: R² 0.99",
		fmt.Sprintf("x       %.4f      [%.4f, %.4f]\n", x.Importance, x.Lower, x.Upper), "z       0.0000      [0.0000, 0.0000]\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explain printed\n%s\nwant it to contain %q", stdout, want)
		}
	}
	for _, ext := range []string{".png", ".svg"} {
		if fi, err := os.Stat(fig + ext); err != nil || fi.Size() == 0 {
			t.Errorf("figure %s: %v", fig+ext, err)
		}
	}
}

// TestExplainClassifier explains a fitted classifier: the accuracy drops
// when the informative column is shuffled.
func TestExplainClassifier(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model.json")
	if code, _, stderr := fitTestRun(slices.Concat([]string{"fit", "-data", "testdata/fit_cls_train.csv", "-target", "color", "-model", model}, fixed)...); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	code, stdout, stderr := fitTestRun("explain", "-model", model, "-data", "testdata/fit_cls_train.csv", "-repeats", "5", "-seed", "3")
	if code != 0 {
		t.Fatalf("explain exited with %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "the drop in accuracy when a column is shuffled, 5 times") {
		t.Errorf("explain printed %q", stdout)
	}
}

func TestExplainErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no repeats", []string{"-model", "testdata/model_two.json", "-data", "testdata/model_two.csv", "-repeats", "0"}, 2, "-repeats 0: want 1 to 1000"},
		{"too many repeats", []string{"-model", "testdata/model_two.json", "-data", "testdata/model_two.csv", "-repeats", "100000"}, 2, "-repeats 100000: want 1 to 1000"},
		{"no target", []string{"-model", "testdata/model_two.json", "-data", "testdata/model_predict.csv"}, 1, `column "y"`},
		{"constant target", []string{"-model", "testdata/model_valid.json", "-data", "testdata/fit_constant.csv"}, 1,
			"R² is undefined: the target does not vary over the 20 rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := fitTestRun(slices.Concat([]string{"explain"}, tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestFitSize checks that fit sizes what it is asked for before it
// starts, and refuses what cannot be done.
func TestFitSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"huge blocks", []string{"-dims", "100000,100000,1"}, 2,
			"-dims 100000,100000,1: block 1 has 100000 dimensions, but its states span at most 38, the 2 inputs as encoded plus the 36 anchors"},
		{"a billion starts", []string{"-starts", "1000000000"}, 2, "-starts 1000000000: want 1 to 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "model.json")
			code, _, stderr := fitTestRun(slices.Concat([]string{"fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-model", model}, tc.args)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "tabular:") {
				t.Errorf("exit status %d, stderr %q; want %d and %q before any fitting", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(model); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused fit left a model file: %v", err)
			}
		})
	}
}

// explain says when it measured on a sample of a large table, and of how
// many rows.
func TestReportImportanceSample(t *testing.T) {
	for _, tc := range []struct {
		ex   tabular.Explanation
		want string
	}{
		{tabular.Explanation{Data: "t.csv", Rows: 40, Repeats: 3, Score: "r2", Baseline: 0.9}, "explain: 40 rows of t.csv: R² 0.9;"},
		{tabular.Explanation{Data: "big.csv", Rows: 20000, TableRows: 1000000, Repeats: 3, Score: "accuracy", Baseline: 0.9},
			"explain: 20000 rows of a seeded sample of big.csv's 1000000: accuracy 0.9;"},
	} {
		var b strings.Builder
		reportImportance(&b, &tc.ex)
		if !strings.HasPrefix(b.String(), tc.want) {
			t.Errorf("explain printed %q, want it to begin with %q", b.String(), tc.want)
		}
	}
}

// score streams a large table on standard input as it streams a file,
// but for a model of version 1, for which it reads standard input whole.
func TestScoreStdinLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("scores 20,001 rows twice")
	}
	dir := t.TempDir()
	encoded := filepath.Join(dir, "model.json")
	if code, _, stderr := fitTestRun(slices.Concat([]string{"fit", "-data", "testdata/model_two.csv", "-target", "y", "-model", encoded}, fixed)...); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := range tabular.StreamRows + 1 {
		x := float64(i%97)/16 - 3
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f\n", x, float64(i%13)/6-1, math.Sin(x))
	}
	table := filepath.Join(dir, "large.csv")
	if err := os.WriteFile(table, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"testdata/model_two.json", encoded} {
		code, want, stderr := fitTestRun("score", "-model", model, "-data", table)
		if code != 0 {
			t.Fatalf("%s: score of the file exited with %d: %s", model, code, stderr)
		}
		var got string
		withStdin(t, b.String(), func() {
			code, got, stderr = fitTestRun("score", "-model", model, "-data", "-")
		})
		if code != 0 || got != want {
			t.Errorf("%s: score of standard input exited with %d, printed %q (%s); want %q", model, code, got, stderr, want)
		}
	}
}

// TestStdinTerminal checks that -data - says it reads standard input
// when that is a terminal (a character device such as /dev/null), and
// says nothing when it is a file.
func TestStdinTerminal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(file, []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "machines fit: -data -: reading the table from standard input, a terminal"
	for _, tc := range []struct {
		path string
		note bool
	}{{os.DevNull, true}, {file, false}} {
		in, err := os.Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		saved := stdin
		stdin = in
		var stdout, stderr strings.Builder
		code := run([]string{"fit", "-data", "-", "-target", "y", "-model", filepath.Join(dir, "m.json")}, &stdout, &stderr)
		stdin = saved
		in.Close()
		if code != 1 || strings.Contains(stderr.String(), note) != tc.note {
			t.Errorf("standard input %s: exit %d, stderr %q; want 1 and the note %v", tc.path, code, stderr.String(), tc.note)
		}
	}
}
