package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCellsAsPeopleWriteThem runs the commands on tables as people write
// them (issue 39): a stray cell in a numeric target and in a numeric
// input, read as missing with one warning or refused by -strict; a file
// in Windows-1252 whose class labels hold accents, names in single
// quotes, and spaces between thousands, fitted and then scored on the
// same file.
func TestCellsAsPeopleWriteThem(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "strays.json")
	const strayWarning = `fit_strays.csv: 2 stray cells, not of their columns' kinds, are read as missing: line 10, column "y": "-" is not a number; line 18, column "x": "4.2.1" is not a number`
	banks := filepath.Join(dir, "banks.json")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
		check  func(t *testing.T, stderr string)
	}{
		{name: "strays", args: slices.Concat([]string{"fit", "-data", "testdata/fit_strays.csv", "-target", "y", "-model", model}, fixed),
			stdout: []string{"fit: 29 rows, 2 columns encoded as 3 inputs"},
			stderr: []string{`regression, since column "y" holds numbers only`, "dropped 1 of 30 rows", strayWarning},
			check: func(t *testing.T, stderr string) {
				if n := strings.Count(stderr, "read as missing"); n != 1 {
					t.Errorf("%d warnings of strays, want 1", n)
				}
				if m := fitTestReadModel(t, model); m.Task != "regression" || m.Encoder.Columns[0].Kind != "numeric" {
					t.Errorf("task %s, column x %s; want regression and numeric", m.Task, m.Encoder.Columns[0].Kind)
				}
			}},
		{name: "strays refused", args: []string{"fit", "-data", "testdata/fit_strays.csv", "-target", "y", "-strict", "-model", filepath.Join(dir, "no.json")}, code: 1,
			stderr: []string{`regression, since column "y" holds numbers only`, `testdata/fit_strays.csv: row 10, column "y": stray cell "-": not a number in a column of numbers`},
			check: func(t *testing.T, stderr string) {
				if strings.Contains(stderr, "tabular:") {
					t.Errorf("the error came after fitting: %s", stderr)
				}
			}},
		{name: "predict", args: []string{"predict", "-model", model, "-data", "testdata/fit_strays_new.csv", "-out", filepath.Join(dir, "p.csv")},
			stdout: []string{"predict: 6 rows"},
			stderr: []string{`fit_strays_new.csv: 1 stray cell, not of its column's kind, is read as missing: line 4, column "x": "1..5" is not a number`}},
		{name: "predict refused", args: []string{"predict", "-model", model, "-data", "testdata/fit_strays_new.csv", "-strict", "-out", "-"}, code: 1,
			stderr: []string{`testdata/fit_strays_new.csv: row 4, column "x": not a number: "1..5"`}},
		{name: "score", args: []string{"score", "-model", model, "-data", "testdata/fit_strays.csv"},
			stdout: []string{"score: 29 rows"}, stderr: []string{strayWarning}},
		{name: "score refused", args: []string{"score", "-model", model, "-data", "testdata/fit_strays.csv", "-strict"}, code: 1,
			stderr: []string{`row 10, column "y": stray cell "-": not a number in a column of numbers`}},
		{name: "explain refused", args: []string{"explain", "-model", model, "-data", "testdata/fit_strays.csv", "-strict"}, code: 1,
			stderr: []string{`row 10, column "y": stray cell "-": not a number in a column of numbers`}},
		{name: "windows-1252", args: slices.Concat([]string{"fit", "-data", "testdata/fit_banks.csv", "-target", "bank", "-model", banks}, fixed),
			stdout: []string{"fit: 30 rows, 2 columns encoded as 2 inputs, 3 classes"},
			stderr: []string{"fit_banks.csv: not UTF-8: bytes that are not, first on line 2, are read as Windows-1252 (Latin-1) characters"},
			check: func(t *testing.T, stderr string) {
				m := fitTestReadModel(t, banks)
				if !slices.Equal(m.Classes, []string{"BNP", "Crédit Agricole", "Société Générale"}) || !slices.Equal(m.Features, []string{"size", "assets"}) || m.Encoder.Columns[1].Kind != "numeric" {
					t.Errorf("classes %q, features %q, encoder %+v", m.Classes, m.Features, m.Encoder.Columns)
				}
			}},
		{name: "windows-1252 scored", args: []string{"score", "-model", banks, "-data", "testdata/fit_banks.csv"},
			stdout: []string{"score: 30 rows: accuracy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := fitTestRun(tc.args...)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			checkContains(t, "stdout", stdout, tc.stdout)
			checkContains(t, "stderr", stderr, tc.stderr)
			if tc.check != nil {
				tc.check(t, stderr)
			}
		})
	}
}

// checkContains reports each of want that the output named what does not
// contain.
func checkContains(t *testing.T, what, output string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(output, w) {
			t.Errorf("%s %q does not contain %q", what, output, w)
		}
	}
}
