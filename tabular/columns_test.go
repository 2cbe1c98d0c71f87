package tabular

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// TestReadTimes reads -time columns of numbers and of dates as the inputs'
// columns read them, ISO 8601 and year-last dates mixed as well, and
// names the row of a cell it cannot read.
func TestReadTimes(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader("num,iso,us,eu,amb,mix\n"+
		"3,2024-01-31,01/31/2024,31.01.2024,01/02/2024,2024-01-31\n"+
		"1.5,2024-02-01 12:00,2/1/2024 12:00,1.2.2024 12:00,03/04/2024,1/2/2024 12:00\n"+
		"0,2024-02-13,02/13/2024,13.02.2024,05/06/2024,13/02/2024\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		column  string
		want    []float64
		warning string // as an input column's
		err     string
	}{
		{"num", []float64{3, 1.5, 0}, "", ""},
		{"iso", []float64{19753, 19754.5, 19766}, "", ""},
		{"us", []float64{19753, 19754.5, 19766}, "", ""},
		{"eu", []float64{19753, 19754.5, 19766}, "", ""},
		{"mix", []float64{19753, 19754.5, 19766},
			`column "mix": it mixes dates written as 2024-01-31 (ISO 8601) with 2 rows of dates such as "1/2/2024 12:00", written as 31/01/2024: each is read in its own form; write them alike`, ""},
		{"amb", nil, "", `t.csv: row 2, column "amb": time "01/02/2024": want a number or a date such as 2024-01-31`},
	} {
		var logged []string
		run := &fitRun{f: f, t: &dataset.Target{Rows: []int{0, 1, 2}}, rep: new(Report),
			opts: Options{Log: func(line string) { logged = append(logged, line) }}}
		got, err := run.readTimes(tc.column)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %s", tc.column, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.column, got, err, tc.want)
		}
		var warned []string
		for _, w := range run.rep.Warnings {
			warned = append(warned, w.String())
		}
		if want := slices.DeleteFunc([]string{tc.warning}, func(s string) bool { return s == "" }); !slices.Equal(warned, want) || len(logged) != len(want) {
			t.Errorf("%s: warnings %q, logged %q; want %q", tc.column, warned, logged, want)
		}
	}
	// An input column mixing them so gives the same warning.
	_, warnings, err := dataset.FitEncoder(f, []string{"mix"}, nil)
	if err != nil || len(warnings) != 1 || !strings.HasPrefix(warnings[0].String(), `column "mix": it mixes dates written as 2024-01-31 (ISO 8601) with 2 rows`) {
		t.Errorf("input column: warnings %q, error %v; want the -time column's", warnings, err)
	}
}

// TestInferTask infers the task of target columns, and says why but of a
// column without values, whose reading fails.
func TestInferTask(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader("num,two,text,empty,inf\n1.5,0,a,NA,1\n2,1,b,,Inf\n3,1,a,NA,2\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ column, task, why string }{
		{"num", Regression, "holds numbers only"},
		{"two", Classification, "holds two values only, 0 and 1; -task regression fits them as numbers"},
		{"text", Classification, "holds text"},
		{"empty", Classification, ""},
		{"inf", Regression, "holds numbers only"},
	} {
		if task, why := inferTask(f, tc.column); task != tc.task || why != tc.why {
			t.Errorf("%s: %s, %q; want %s, %q", tc.column, task, why, tc.task, tc.why)
		}
	}
}

func TestAlikeClasses(t *testing.T) {
	for _, test := range []struct {
		classes []string
		want    string
	}{
		{[]string{"a", "b"}, ""},
		{[]string{"No", "Yes", "no", "yes"}, `"No" and "no"; "Yes" and "yes"`},
		{[]string{"A", "B", "C", "D", "a", "b", "c", "d"}, `"A" and "a"; "B" and "b"; "C" and "c"`},
		{[]string{"NO", "No", "no"}, `"NO" and "No" and "no"`},
		{[]string{"0", "1", "1.0", "2"}, `"1" and "1.0"`},
		{[]string{"1", "1.5", "2"}, ""},
		// A yes or a no written several ways, as rows from several
		// sources mix them.
		{[]string{"0", "1", "FALSE", "N", "TRUE", "Y", "no", "yes"}, `"0" and "FALSE" and "N" and "no"; "1" and "TRUE" and "Y" and "yes"`},
		{[]string{"0", "1"}, ""},
		{[]string{"N", "S", "E", "W"}, ""},
		// Letters are not a yes and a no among other letters.
		{[]string{"A", "B", "F", "N", "T", "Y"}, ""},
		{[]string{"F", "N", "T", "Y"}, `"F" and "N"; "T" and "Y"`},
	} {
		if got := alikeTexts(test.classes); got != test.want {
			t.Errorf("alikeTexts(%q) = %q, want %q", test.classes, got, test.want)
		}
	}
}

// columnarFrame returns f read back from a Parquet file.
func columnarFrame(t *testing.T, f *dataset.Frame) *dataset.Frame {
	t.Helper()
	var buf bytes.Buffer
	if err := dataset.WriteFrame(&buf, dataset.Parquet, f); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "table.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := dataset.LoadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFarTargets checks the warning of regression targets far from the
// others, on the target's scale and, for a nonnegative one, the log
// scale.
func TestFarTargets(t *testing.T) {
	const want = `line 9 holds 1e+06, 1.35e+05 robust standard deviations (1.4826 times the median absolute deviation) from the median 10: a typo?`
	for _, test := range []struct {
		name string
		y    func(i int) float64
		want string
	}{
		{"none far", func(i int) float64 { return float64(i % 20) }, ""},
		{"a typo", func(i int) float64 {
			if i == 7 {
				return 1e6
			}
			return float64(i % 20)
		}, want},
		{"two typos", func(i int) float64 {
			if i == 7 || i == 30 {
				return 1e6
			}
			return float64(i % 20)
		}, `2 rows hold values far from the others: ` + want},
		{"far below", func(i int) float64 {
			if i == 7 {
				return -1e6
			}
			return float64(i % 20)
		}, `line 9 holds -1e+06`},
		{"a tail", func(i int) float64 {
			if i%10 == 0 {
				return -1e6
			}
			return float64(i % 20)
		}, ""},
		{"far on its scale, not on the log scale", func(i int) float64 { return math.Exp(float64(i % 20)) }, ""},
		{"mostly zeros", func(i int) float64 { return float64(i%5/4) * float64(i) }, ""},
		{"all but two alike", func(i int) float64 {
			if i == 7 || i == 30 {
				return float64(i)
			}
			return 0
		}, ""},
		{"far on its scale, not on the log scale's", func(i int) float64 {
			if i == 7 {
				return 5000
			}
			return float64(i % 20)
		}, ""},
	} {
		t.Run(test.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("x,y\n")
			for i := range 60 {
				fmt.Fprintf(&b, "%d,%s\n", i%7, dataset.FormatFloat(test.y(i)))
			}
			f, err := dataset.ReadFrame(strings.NewReader(b.String()), "far.csv")
			if err != nil {
				t.Fatal(err)
			}
			// A Parquet file numbers the line 9 of a CSV file as its row 8.
			for _, in := range []struct {
				f    *dataset.Frame
				want string
			}{{f, test.want}, {columnarFrame(t, f), strings.Replace(test.want, "line 9", "row 8", 1)}} {
				_, rep, err := Fit(in.f, []string{"y"}, Options{Costs: []float64{0.1}, Bandwidths: []float64{1}, InputScale: LinearInputs, TargetScale: LinearScale})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, w := range rep.Warnings {
					if strings.Contains(w.Message, "robust standard deviations") {
						got = append(got, w.Message)
					}
				}
				if in.want == "" && len(got) != 0 || in.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], in.want)) {
					t.Errorf("%s: warnings %q, want one beginning %q", in.f.Name(), got, in.want)
				}
			}
		})
	}
}

// A streamed target's range is far from its sample's only beyond
// farSpreads robust standard deviations on every scale the sample has.
func TestFarWarnings(t *testing.T) {
	spaced := func(f func(i int) float64) []float64 {
		v := make([]float64, 200)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	tens := spaced(func(i int) float64 { return float64(i % 20) })
	for _, test := range []struct {
		name      string
		sample    []float64
		low, high float64
		want      string
	}{
		{"within", tens, 0, 100, ""},
		{"far above", tens, 0, 1e6, "holds 1e+06, 1.35e+05 robust standard deviations"},
		{"far below", tens, -1e6, 19, "holds -1e+06"},
		{"far on its scale, not on the log scale", spaced(func(i int) float64 { return math.Exp(float64(i % 20)) }), 0, math.Exp(25), ""},
		{"negative, the sample nonnegative", spaced(func(i int) float64 { return math.Exp(float64(i % 20)) }), -1e12, 1, "holds -1e+12"},
		{"a sample with a far value", append(tens[:199:199], 1e6), 0, 1e7, ""},
		{"a sample mostly alike", spaced(func(i int) float64 { return float64(i / 150) }), 0, 1e6, ""},
	} {
		bounds := sampleBounds(test.sample, 1)
		got := farWarnings(bounds, []float64{test.low}, []float64{test.high}, []string{"y"})
		if test.want == "" && len(got) > 0 || test.want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, test.want)) {
			t.Errorf("%s: %v, want %q", test.name, got, test.want)
		}
	}
	// Two targets, row by row: the second's sample holds a far value, so
	// it has no bound; the first's is far below 1e6.
	both := make([]float64, 0, 2*len(tens))
	for i, v := range tens {
		both = append(both, v, []float64{v, 1e6}[min(1, i/199)])
	}
	got := farWarnings(sampleBounds(both, 2), []float64{0, 0}, []float64{1e6, 1e7}, []string{"y", "z"})
	if len(got) != 1 || got[0].Column != "y" {
		t.Errorf("two targets: %v, want one of y", got)
	}
}

// A regression leaves out a last row of totals, with a warning, and fits
// the rows above as it fits them alone; a classification warns of it.
func TestFitDropsTotals(t *testing.T) {
	var b strings.Builder
	b.WriteString("name,x,y,c\n")
	sx, sy := 0.0, 0.0
	for i := range 30 {
		x, y := float64(i)/10, math.Sin(float64(i)/10)
		sx, sy = sx+x, sy+y
		fmt.Fprintf(&b, "r%d,%.1f,%.6f,%s\n", i, x, y, []string{"a", "b"}[i%2])
	}
	rows := b.String()
	withTotals := rows + fmt.Sprintf("Total,%.1f,%.6f,a\n", sx, sy)
	opts := Options{Seed: 1, Family: Shallow, Ignore: []string{"c"}}
	fit := func(text, target string, opts Options) (*Model, *Report) {
		f, err := dataset.ReadFrame(strings.NewReader(text), "t.csv")
		if err != nil {
			t.Fatal(err)
		}
		md, rep, err := Fit(f, []string{target}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return md, rep
	}
	want, _ := fit(rows, "y", opts)
	got, rep := fit(withTotals, "y", opts)
	const warning = `line 32 holds the totals of the rows above it ("Total"; its x is their sum)`
	if got.Fit.Rows != 30 || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0].Message, warning+": it is left out") {
		t.Errorf("fit of %d rows, warnings %v; want 30 and the totals'", got.Fit.Rows, rep.Warnings)
	}
	if !mat.Equal(got.Machine.Anchors, want.Machine.Anchors) {
		t.Error("the fit with the totals left out differs from the fit of the rows alone")
	}
	// A Parquet file numbers the line 32 of a CSV file as its row 31.
	f, err := dataset.ReadFrame(strings.NewReader(withTotals), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err = Fit(columnarFrame(t, f), []string{"y"}, opts)
	if err != nil || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0].Message, `row 31 holds the totals`) {
		t.Errorf("fit of a Parquet file: error %v, warnings %v; want the totals' of row 31", err, rep.Warnings)
	}
	opts.Ignore = []string{"y"}
	got, rep = fit(withTotals, "c", opts)
	if got.Fit.Rows != 31 || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[0].Message, warning+": it is fitted as a row of its class") {
		t.Errorf("classifier of %d rows, warnings %v; want 31 and the totals'", got.Fit.Rows, rep.Warnings)
	}
}

// TestAlikeLevels checks that Fit warns of an input whose levels differ
// only in case, and of no other input.
func TestAlikeLevels(t *testing.T) {
	sex := []string{"Male", "male", "MALE", "Female", "female"}
	f := tableOf(t, "sex,letter,y", 40, func(i int) string {
		return fmt.Sprintf("%s,%c,%g", sex[i%5], "ABFNTY"[i%6], float64(i%7)+float64(i%5))
	})
	var log []string
	_, rep, err := Fit(f, []string{"y"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, Log: func(line string) { log = append(log, line) }})
	if err != nil {
		t.Fatal(err)
	}
	want := `levels "Female" and "female"; "MALE" and "Male" and "male" differ only in case`
	if len(rep.Warnings) != 1 || rep.Warnings[0].Column != "sex" || !strings.HasPrefix(rep.Warnings[0].Message, want) {
		t.Errorf("warned %v, want one of column sex: %s", rep.Warnings, want)
	}
}

// TestSingleClassRow checks that the warning of a class of a single row
// names its line of a CSV file, and its row of a Parquet file.
func TestSingleClassRow(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,c\n")
	for i := range 20 {
		fmt.Fprintf(&b, "%d,%s\n", i%5, []string{"a", "b"}[i%2])
	}
	b.WriteString("2,z\n")
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []struct {
		f    *dataset.Frame
		want string
	}{{f, `class "z" (line 22) has a single row`}, {columnarFrame(t, f), `class "z" (row 21) has a single row`}} {
		_, rep, err := Fit(in.f, []string{"c"}, Options{Seed: 1, Family: Shallow})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(rep.Warnings, func(w dataset.Warning) bool { return strings.HasPrefix(w.Message, in.want) }) {
			t.Errorf("%s: warnings %v, want one beginning %q", in.f.Name(), rep.Warnings, in.want)
		}
	}
}
