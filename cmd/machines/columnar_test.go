package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// writeColumnar writes the CSV table text to path in the given format.
func writeColumnar(t *testing.T, path string, format dataset.TableFormat, text string) {
	t.Helper()
	f, err := dataset.ReadFrame(strings.NewReader(text), path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteFrame(&buf, format, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadCells reads the table at path as text: its header and cells.
func loadCells(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := dataset.LoadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	cells := [][]string{f.Columns()}
	for r := range f.Len() {
		var row []string
		for j := range f.Columns() {
			row = append(row, f.Cell(r, j))
		}
		cells = append(cells, row)
	}
	return cells
}

// TestColumnarData fits a table split into a Parquet and an Arrow file,
// read through a glob pattern, and predicts from an Arrow stream on
// standard input into CSV, Parquet and Arrow files: the same
// predictions as those of the CSV file.
func TestColumnarData(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/fit_messy_train.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	writeColumnar(t, filepath.Join(dir, "part-1.parquet"), dataset.Parquet, strings.Join(lines[:20], ""))
	writeColumnar(t, filepath.Join(dir, "part-2.arrow"), dataset.Arrow, lines[0]+strings.Join(lines[20:], ""))
	fitArgs := slices.Concat([]string{"-target", "y", "-id", "name", "-ignore", "note"}, fixed)
	csvModel, partsModel := filepath.Join(dir, "csv.json"), filepath.Join(dir, "parts.json")
	for _, fit := range [][]string{{"-data", "testdata/fit_messy_train.csv", "-model", csvModel}, {"-data", filepath.Join(dir, "part-*"), "-model", partsModel}} {
		if code, _, stderr := fitTestRun(slices.Concat([]string{"fit"}, fit, fitArgs)...); code != 0 {
			t.Fatalf("fit %v exited with %d: %s", fit, code, stderr)
		}
	}
	want := filepath.Join(dir, "want.csv")
	if code, _, stderr := fitTestRun("predict", "-model", csvModel, "-data", "testdata/fit_messy_train.csv", "-out", want); code != 0 {
		t.Fatalf("predict exited with %d: %s", code, stderr)
	}
	piped := filepath.Join(dir, "piped.arrow")
	writeColumnar(t, piped, dataset.Arrow, string(data))
	arrowData, err := os.ReadFile(piped)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"pred.csv", "pred.parquet", "pred.arrow"} {
		path := filepath.Join(dir, out)
		withStdin(t, string(arrowData), func() {
			if code, _, stderr := fitTestRun("predict", "-model", partsModel, "-data", "-", "-out", path); code != 0 {
				t.Fatalf("predict -out %s exited with %d: %s", out, code, stderr)
			}
		})
		if got, w := loadCells(t, path), loadCells(t, want); !slices.EqualFunc(got, w, slices.Equal) {
			t.Errorf("%s holds\n%q\nwant\n%q", out, got, w)
		}
		if format := map[string]dataset.TableFormat{".csv": dataset.CSV, ".parquet": dataset.Parquet, ".arrow": dataset.Arrow}[filepath.Ext(out)]; sniff(t, path) != format {
			t.Errorf("%s is %s", out, sniff(t, path))
		}
	}
}

// sniff returns the format of the file at path by its first bytes.
func sniff(t *testing.T, path string) dataset.TableFormat {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case bytes.HasPrefix(data, []byte("PAR1")):
		return dataset.Parquet
	case bytes.HasPrefix(data, []byte("ARROW1")):
		return dataset.Arrow
	}
	return dataset.CSV
}

// TestColumnarErrors checks the errors of tables of several files, and
// of outputs that would overwrite one of them, before any fitting.
func TestColumnarErrors(t *testing.T) {
	dir := t.TempDir()
	writeColumnar(t, filepath.Join(dir, "part-1.parquet"), dataset.Parquet, "x,y\n1,2\n3,4\n")
	writeColumnar(t, filepath.Join(dir, "part-2.parquet"), dataset.Parquet, "x,z\n1,2\n3,4\n")
	if err := os.WriteFile(filepath.Join(dir, "text.parquet"), []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(dir, "part-*.parquet")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"fit", "-data", pattern, "-target", "y", "-model", filepath.Join(dir, "m.json")}, 1,
			filepath.Join(dir, "part-2.parquet") + `: columns differ from the first file's: it lacks "y" and has "z" besides: the columns of the first file of ` + pattern + ` are "x", "y"`},
		{[]string{"fit", "-data", pattern, "-target", "y", "-model", filepath.Join(dir, "part-2.parquet")}, 2,
			"-model " + filepath.Join(dir, "part-2.parquet") + ": is the file of -data"},
		{[]string{"fit", "-data", filepath.Join(dir, "none-*.parquet"), "-target", "y", "-model", filepath.Join(dir, "m.json")}, 2,
			"no file matches the pattern"},
		{[]string{"fit", "-data", filepath.Join(dir, "text.parquet"), "-target", "y", "-model", filepath.Join(dir, "m.json")}, 1,
			"text.parquet: wrong file format: its name says Parquet, but it does not begin with Parquet's magic bytes"},
	} {
		code, _, stderr := fitTestRun(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
	withStdin(t, "PAR1....", func() {
		code, _, stderr := fitTestRun("fit", "-data", "-", "-target", "y", "-model", filepath.Join(dir, "m.json"))
		if want := "standard input: wrong file format: a Parquet file cannot be read from a stream"; code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("Parquet on standard input: exit %d, stderr %q; want 1 and %q", code, stderr, want)
		}
	})
}
