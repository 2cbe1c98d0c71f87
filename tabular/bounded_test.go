package tabular

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// tableOf returns the frame of a CSV table called t.csv of n rows, whose
// cells row(i) returns, under header.
func tableOf(t *testing.T, header string, n int, row func(i int) string) *dataset.Frame {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		b.WriteString(row(i) + "\n")
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFitLeavesOutIdentifiers checks that Fit leaves out of the inputs a
// text column of a different value in every row and a column counting
// the rows, with a warning naming each, unless Options.Keep names it.
func TestFitLeavesOutIdentifiers(t *testing.T) {
	f := tableOf(t, "name,n,x,g,y", 60, func(i int) string {
		x := float64(i%17) / 4
		return fmt.Sprintf("p%d,%d,%g,g%d,%g", i, i+1, x, i%3, math.Sin(x))
	})
	for _, tc := range []struct {
		name     string
		keep     []string
		ignore   []string
		features []string
		warned   []string
		err      string
		option   bool // the error is an OptionError
	}{
		{name: "left out", features: []string{"x", "g"}, warned: []string{"name", "n"}},
		{name: "kept", keep: []string{"name", "n"}, features: []string{"name", "n", "x", "g"}},
		{name: "keep one", keep: []string{"n"}, features: []string{"n", "x", "g"}, warned: []string{"name"}},
		{name: "keep no column", keep: []string{"z"}, err: "-keep z: ", option: true},
		{name: "keep the target", keep: []string{"y"}, err: `-keep y: column "y" is not an input`, option: true},
		{name: "nothing left", ignore: []string{"x", "g"}, err: "t.csv: every input column identifies the rows and is left out; -keep keeps one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			opts := Options{Keep: tc.keep, Ignore: tc.ignore, Costs: []float64{0.01}, Bandwidths: []float64{1}, Log: func(line string) { log = append(log, line) }}
			md, _, err := Fit(f, []string{"y"}, opts)
			if tc.err != "" {
				var oe *OptionError
				if err == nil || !strings.Contains(err.Error(), tc.err) || errors.As(err, &oe) != tc.option {
					t.Fatalf("error %v, want one containing %q (an OptionError: %v)", err, tc.err, tc.option)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(md.Features, tc.features) {
				t.Errorf("features %q, want %q", md.Features, tc.features)
			}
			all := strings.Join(log, "\n")
			for _, c := range []string{"name", "n"} {
				warning := fmt.Sprintf("column %q: it identifies the rows", c)
				if strings.Contains(all, warning) != slices.Contains(tc.warned, c) {
					t.Errorf("log %q: warned of column %s: %v, want %v", all, c, !slices.Contains(tc.warned, c), slices.Contains(tc.warned, c))
				}
			}
		})
	}
}

// TestFitRefusesSpreadWeights checks that Fit refuses, before any work,
// weights that are all 0 or that rest the fit on a row or two, naming
// the column and the row of the largest weight, and fits weights spread
// less.
func TestFitRefusesSpreadWeights(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name   string
		weight func(i int) string
		want   string
	}{
		{"all zero", func(int) string { return "0" }, `t.csv: column "w": every weight is 0 in the 40 rows with a target`},
		{"one huge", func(i int) string { return map[bool]string{true: "1e300", false: "1"}[i == 7] },
			`t.csv: row 9, column "w": the weights are so spread that the fit would rest on a few rows: Kish's effective sample size, (Σw)²/Σw², is 1,`},
		{"all but one zero", func(i int) string { return map[bool]string{true: "3", false: "0"}[i == 20] },
			`t.csv: row 22, column "w": the weights are so spread that the fit would rest on a few rows: Kish's effective sample size, (Σw)²/Σw², is 1, the largest weight 3 here; want at least 5`},
		{"four heavy rows", func(i int) string { return map[bool]string{true: "1e6", false: "1"}[i%10 == 0] }, `(Σw)²/Σw², is 4,`},
		{"spread", func(i int) string { return fmt.Sprint(1 + i%5) }, ""},
		{"huge and even", func(int) string { return "1e308" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tableOf(t, "x,w,y", n, func(i int) string {
				x := float64(i) / 8
				return fmt.Sprintf("%g,%s,%g", x, tc.weight(i), math.Sin(x))
			})
			var progress strings.Builder
			_, _, err := Fit(f, []string{"y"}, Options{Weight: "w", Progress: &progress})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			case tc.want != "" && progress.Len() > 0:
				t.Errorf("the fit started before the refusal: %q", progress.String())
			}
		})
	}
}

// TestWarnOptimism warns of the optimism of a regression whose relevance
// weights are kept and whose held-out scores were not measured again with
// each fold's weights: the deep machine's of -family deep (noise, 30 rows
// of 40 inputs). The default fit's are measured again (the same table,
// and 60 rows of 8 inputs, one of which matters), and -inputs linear
// keeps no weights.
func TestWarnOptimism(t *testing.T) {
	rnd := rand.New(rand.NewPCG(30, 1))
	table := func(rows, inputs int, signal float64) *dataset.Frame {
		var b strings.Builder
		for j := range inputs {
			fmt.Fprintf(&b, "x%d,", j)
		}
		b.WriteString("y\n")
		for range rows {
			x0 := rnd.NormFloat64()
			fmt.Fprintf(&b, "%.4f,", x0)
			for range inputs - 1 {
				fmt.Fprintf(&b, "%.4f,", rnd.NormFloat64())
			}
			fmt.Fprintf(&b, "%.4f\n", signal*x0+rnd.NormFloat64())
		}
		f, err := dataset.ReadFrame(strings.NewReader(b.String()), "t.csv")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const want = "the held-out score and the prediction intervals are those of inputs weighed by their relevance"
	for _, test := range []struct {
		name         string
		rows, inputs int
		signal       float64
		opts         Options
		warned       bool
	}{
		{"wide, deep", 30, 40, 0, Options{Family: Deep}, true},
		{"wide", 30, 40, 0, Options{}, false},
		{"wide, inputs as they are", 30, 40, 0, Options{InputScale: LinearInputs}, false},
		{"narrow", 60, 8, 2, Options{}, false},
	} {
		_, rep, err := Fit(table(test.rows, test.inputs, test.signal), []string{"y"}, test.opts)
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range rep.Warnings {
			warned = warned || strings.HasPrefix(w.Message, want)
		}
		if warned != test.warned || test.name != "wide, inputs as they are" && rep.Result.Relevance == nil {
			t.Errorf("%s: warnings %v, relevance kept %v; want the warning %v", test.name, rep.Warnings, rep.Result.Relevance != nil, test.warned)
		}
	}
}

// TestFitWarnsOfIdentifierTarget checks that Fit warns of a target that
// identifies the rows, whole numbers counting them or a text a row, and
// of no other.
func TestFitWarnsOfIdentifierTarget(t *testing.T) {
	f := tableOf(t, "n,name,x,y", 60, func(i int) string {
		return fmt.Sprintf("%d,p%d,%g,%g", i+1, i, float64(i%7), math.Sin(float64(i%7)))
	})
	const warning = "as the target, a model of it learns nothing that holds for other rows"
	for _, tc := range []struct {
		target string
		warned bool
	}{{"n", true}, {"name", true}, {"y", false}} {
		var log []string
		opts := Options{Ignore: []string{"n", "name"}, Costs: []float64{0.01}, Bandwidths: []float64{1}, Log: func(line string) { log = append(log, line) }}
		opts.Ignore = slices.DeleteFunc(opts.Ignore, func(c string) bool { return c == tc.target })
		if _, _, err := Fit(f, []string{tc.target}, opts); err != nil {
			t.Fatal(err)
		}
		all := strings.Join(log, "\n")
		if strings.Contains(all, fmt.Sprintf("column %q: it identifies the rows", tc.target)) != tc.warned || strings.Contains(all, warning) != tc.warned {
			t.Errorf("target %s: log %q, want the warning: %v", tc.target, all, tc.warned)
		}
	}
}

// TestNamedColumnsChecked checks that a column that an option names and
// the table lacks is an OptionError naming the option's flag, found
// before any work.
func TestNamedColumnsChecked(t *testing.T) {
	f := tableOf(t, "x,g,y", 20, func(i int) string { return fmt.Sprintf("%d,g%d,%d", i%7, i%3, i%5) })
	for _, tc := range []struct {
		targets []string
		opts    Options
		want    string
	}{
		{[]string{"z"}, Options{}, "-target z: "},
		{[]string{"y", "z"}, Options{}, "-target y,z: "},
		{[]string{"y"}, Options{ID: "z"}, "-id z: "},
		{[]string{"y"}, Options{Ignore: []string{"x", " z"}}, "-ignore x, z: "},
		{[]string{"y"}, Options{Keep: []string{"z"}}, "-keep z: "},
		{[]string{"y"}, Options{Weight: "z"}, "-weight z: "},
		{[]string{"y"}, Options{Group: "z"}, "-group z: "},
		{[]string{"y"}, Options{Time: "z"}, "-time z: "},
	} {
		_, _, err := Fit(f, tc.targets, tc.opts)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), `t.csv: column "z": no such column; the file has "x", "g", "y"`) {
			t.Errorf("targets %q: error %v, want an OptionError %q... naming column z", tc.targets, err, tc.want)
		}
	}
}
