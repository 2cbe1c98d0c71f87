package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTable writes a CSV table of n rows, whose cells row(i) returns,
// under header, to a file in a temporary directory, and returns its path.
func writeTable(t *testing.T, header string, n int, row func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		b.WriteString(row(i) + "\n")
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFitLeavesOutIdentifiers checks that fit leaves out of the inputs a
// text column of a different value in every row and a column counting
// the rows, with a warning naming each, unless -keep names it.
func TestFitLeavesOutIdentifiers(t *testing.T) {
	data := writeTable(t, "name,n,x,g,y", 60, func(i int) string {
		x := float64(i%17) / 4
		return fmt.Sprintf("p%d,%d,%g,g%d,%g", i, i+1, x, i%3, math.Sin(x))
	})
	for _, tc := range []struct {
		name     string
		keep     []string
		code     int
		features []string
		warned   []string
		want     string // in stderr
	}{
		{"left out", nil, 0, []string{"x", "g"}, []string{"name", "n"}, ""},
		{"kept", []string{"-keep", "name, n"}, 0, []string{"name", "n", "x", "g"}, nil, ""},
		{"keep one", []string{"-keep", "n"}, 0, []string{"n", "x", "g"}, []string{"name"}, ""},
		{"keep no column", []string{"-keep", "z"}, 2, nil, nil, `-keep z: `},
		{"keep the target", []string{"-keep", "y"}, 2, nil, nil, `-keep y: column "y" is not an input`},
		{"nothing left", []string{"-ignore", "x,g"}, 1, nil, nil, "t.csv: every input column identifies the rows and is left out; -keep keeps one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "m.json")
			args := append([]string{"fit", "-data", data, "-target", "y", "-cost", "0.01", "-bandwidth", "1", "-model", model}, tc.keep...)
			code, _, stderr := fitTestRun(args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit status %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if code != 0 {
				return
			}
			if got := fitTestReadModel(t, model).Features; !slices.Equal(got, tc.features) {
				t.Errorf("features %q, want %q", got, tc.features)
			}
			for _, c := range []string{"name", "n"} {
				warning := fmt.Sprintf("warning: column %q: it identifies the rows", c)
				if strings.Contains(stderr, warning) != slices.Contains(tc.warned, c) {
					t.Errorf("stderr %q: warned of column %s: %v, want %v", stderr, c, !slices.Contains(tc.warned, c), slices.Contains(tc.warned, c))
				}
			}
		})
	}
}

// TestFitRefusesSpreadWeights checks that fit refuses, before any work,
// weights that are all 0 or that rest the fit on a row or two, naming
// the column and the row of the largest weight, and fits weights spread
// less.
func TestFitRefusesSpreadWeights(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name   string
		weight func(i int) string
		code   int
		want   string
	}{
		{"all zero", func(int) string { return "0" }, 1, `t.csv: column "w": every weight is 0 in the 40 rows with a target`},
		{"one huge", func(i int) string { return map[bool]string{true: "1e300", false: "1"}[i == 7] }, 1,
			`t.csv: row 9, column "w": the weights are so spread that the fit would rest on a few rows: Kish's effective sample size, (Σw)²/Σw², is 1,`},
		{"all but one zero", func(i int) string { return map[bool]string{true: "3", false: "0"}[i == 20] }, 1,
			`t.csv: row 22, column "w": the weights are so spread that the fit would rest on a few rows: Kish's effective sample size, (Σw)²/Σw², is 1, the largest weight 3 here; want at least 5`},
		{"four heavy rows", func(i int) string { return map[bool]string{true: "1e6", false: "1"}[i%10 == 0] }, 1,
			`(Σw)²/Σw², is 4,`},
		{"spread", func(i int) string { return fmt.Sprint(1 + i%5) }, 0, ""},
		{"huge and even", func(int) string { return "1e308" }, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := writeTable(t, "x,w,y", n, func(i int) string {
				x := float64(i) / 8
				return fmt.Sprintf("%g,%s,%g", x, tc.weight(i), math.Sin(x))
			})
			code, _, stderr := fitTestRun("fit", "-data", data, "-target", "y", "-weight", "w", "-model", filepath.Join(t.TempDir(), "m.json"))
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if tc.code != 0 && strings.Contains(stderr, "tabular:") {
				t.Errorf("stderr %q: the fit started", stderr)
			}
		})
	}
}
