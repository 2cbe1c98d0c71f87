package dataset

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadCSVErrors(t *testing.T) {
	regression := CSVOptions{Target: "y"}
	classify := CSVOptions{Target: "label", Classify: true}
	for _, test := range []struct {
		name    string
		data    string
		opts    CSVOptions
		row     int
		column  string
		err     error  // wrapped sentinel, if any
		message string // expected Error() text
	}{
		{
			name:    "empty file",
			data:    "",
			err:     ErrEmpty,
			message: `t.csv: empty file`,
		},
		{
			name:    "blank lines only",
			data:    "\n\n",
			err:     ErrEmpty,
			message: `t.csv: empty file`,
		},
		{
			name:    "header only",
			data:    "x1,x2,y\n",
			opts:    regression,
			err:     ErrNoRows,
			message: `t.csv: no data rows after the header`,
		},
		{
			name:    "NaN feature",
			data:    "x1,x2,y\n1,2,3\n4,5,6\n7,8,9\n8,7,6\n5,4,3\n1,NaN,3\n",
			opts:    regression,
			row:     7,
			column:  "x2",
			err:     ErrNaN,
			message: `t.csv: row 7, column "x2": value is NaN`,
		},
		{
			name:    "lower-case nan target",
			data:    "x1,x2,y\n1,2,nan\n",
			opts:    regression,
			row:     2,
			column:  "y",
			err:     ErrNaN,
			message: `t.csv: row 2, column "y": value is NaN`,
		},
		{
			name:    "Inf",
			data:    "x1,x2,y\n1,-Inf,3\n",
			opts:    regression,
			row:     2,
			column:  "x2",
			err:     ErrInf,
			message: `t.csv: row 2, column "x2": value is infinite: "-Inf"`,
		},
		{
			name:    "overflow",
			data:    "x1,x2,y\n1,2,3\n1e999,2,3\n",
			opts:    regression,
			row:     3,
			column:  "x1",
			err:     ErrInf,
			message: `t.csv: row 3, column "x1": value is infinite: "1e999"`,
		},
		{
			name:    "not a number",
			data:    "x1,x2,y\n1,2,3\n1,2,3\n1,2,abc\n",
			opts:    regression,
			row:     4,
			column:  "y",
			err:     ErrNumber,
			message: `t.csv: row 4, column "y": not a number: "abc"`,
		},
		{
			name:    "decimal comma",
			data:    "x1,x2,y\n1,\"2,5\",3\n",
			opts:    regression,
			row:     2,
			column:  "x2",
			err:     ErrNumber,
			message: `t.csv: row 2, column "x2": not a number: "2,5"`,
		},
		{
			name:    "empty field",
			data:    "x1,x2,y\n1, ,3\n",
			opts:    regression,
			row:     2,
			column:  "x2",
			err:     ErrMissing,
			message: `t.csv: row 2, column "x2": missing value`,
		},
		{
			name:    "too few fields",
			data:    "x1,x2,y\n1,2,3\n1,2\n",
			opts:    regression,
			row:     3,
			err:     ErrFieldCount,
			message: `t.csv: row 3: wrong number of fields: 2, header has 3`,
		},
		{
			name:    "too many fields",
			data:    "x1,x2,y\n1,2,3,4\n",
			row:     2,
			err:     ErrFieldCount,
			message: `t.csv: row 2: wrong number of fields: 4, header has 3`,
		},
		{
			name:    "row numbers count blank lines",
			data:    "\n\nx1,x2,y\n\n1,2,3\n4,NaN,6\n",
			opts:    regression,
			row:     6,
			column:  "x2",
			err:     ErrNaN,
			message: `t.csv: row 6, column "x2": value is NaN`,
		},
		{
			name:    "row numbers count lines inside quotes",
			data:    "x,label\n1,\"two\nlines\"\nInf,b\n",
			opts:    classify,
			row:     4,
			column:  "x",
			err:     ErrInf,
			message: `t.csv: row 4, column "x": value is infinite: "Inf"`,
		},
		{
			name:    "malformed quotes",
			data:    "x1,x2,y\n1,2,3\n1,2\"x,3\n",
			row:     3,
			message: `t.csv: row 3: bare " in non-quoted-field`,
		},
		{
			name:    "duplicate column",
			data:    "x1,x2,x1,y\n1,2,3,4\n",
			opts:    regression,
			row:     1,
			column:  "x1",
			err:     ErrDuplicate,
			message: `t.csv: row 1, column "x1": duplicate column name`,
		},
		{
			name:    "duplicate target",
			data:    "y,x,y\n1,2,3\n",
			opts:    regression,
			row:     1,
			column:  "y",
			err:     ErrDuplicate,
			message: `t.csv: row 1, column "y": duplicate column name`,
		},
		{
			name:    "empty column name",
			data:    "x1,,y\n1,2,3\n",
			opts:    regression,
			row:     1,
			message: `t.csv: row 1: field 2 of the header is empty`,
		},
		{
			name:    "unknown target",
			data:    "x1,x2,y\n1,2,3\n",
			opts:    CSVOptions{Target: "z"},
			column:  "z",
			err:     ErrNoColumn,
			message: `t.csv: column "z": no such column; the file has "x1", "x2", "y"`,
		},
		{
			name:    "missing feature",
			data:    "x1,y\n1,3\n",
			opts:    CSVOptions{Features: []string{"x1", "x2"}},
			column:  "x2",
			err:     ErrNoColumn,
			message: `t.csv: column "x2": no such column; the file has "x1", "y"`,
		},
		{
			name:    "target only",
			data:    "y\n1\n",
			opts:    regression,
			row:     1,
			message: `t.csv: row 1: no feature columns`,
		},
		{
			name:    "single class",
			data:    "x,label\n1,a\n2, a\n3,a \n",
			opts:    classify,
			column:  "label",
			err:     ErrOneClass,
			message: `t.csv: column "label": target has a single class "a"`,
		},
		{
			name:    "missing label",
			data:    "x,label\n1,a\n2,\n",
			opts:    classify,
			row:     3,
			column:  "label",
			err:     ErrMissing,
			message: `t.csv: row 3, column "label": missing value`,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			tab, err := ReadCSV(strings.NewReader(test.data), "t.csv", test.opts)
			if err == nil {
				t.Fatalf("expected an error, got table %+v", tab)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, not *ParseError: %v", err, err)
			}
			if pe.File != "t.csv" || pe.Row != test.row || pe.Column != test.column {
				t.Errorf("unexpected location: got file %q row %d column %q, want file %q row %d column %q",
					pe.File, pe.Row, pe.Column, "t.csv", test.row, test.column)
			}
			if test.err != nil && !errors.Is(err, test.err) {
				t.Errorf("error does not wrap %v: %v", test.err, err)
			}
			if got := err.Error(); got != test.message {
				t.Errorf("unexpected message:\ngot  %s\nwant %s", got, test.message)
			}
		})
	}
}

func TestLoadCSVErrorNamesFile(t *testing.T) {
	path := filepath.Join("testdata", "nan.csv")
	_, err := LoadCSV(path, CSVOptions{Target: "y"})
	want := path + `: row 4, column "x2": value is NaN`
	if err == nil || err.Error() != want {
		t.Errorf("unexpected error:\ngot  %v\nwant %s", err, want)
	}

	_, err = LoadCSV(filepath.Join("testdata", "no-such-file.csv"), CSVOptions{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unexpected error for a missing file: %v", err)
	}
}

func TestReadCSV(t *testing.T) {
	for _, test := range []struct {
		name string
		path string
		opts CSVOptions
		want Table
	}{
		{
			name: "regression",
			path: "train.csv",
			opts: CSVOptions{Target: "y"},
			want: Table{
				Features: []string{"x1", "x2"},
				X:        mat.NewDense(4, 2, []float64{0, 0, 0.5, 0.25, 1, 1, 0.1, 0.0025}),
				Target:   "y",
				Y:        []float64{-2, -2.375, 1, -2.35475},
			},
		},
		{
			name: "no target",
			path: "train.csv",
			want: Table{
				Features: []string{"x1", "x2", "y"},
				X:        mat.NewDense(4, 3, []float64{0, 0, -2, 0.5, 0.25, -2.375, 1, 1, 1, 0.1, 0.0025, -2.35475}),
			},
		},
		{
			name: "classification",
			path: "flowers.csv",
			opts: CSVOptions{Target: "species", Classify: true},
			want: Table{
				Features: []string{"sepal length", "petal length"},
				X:        mat.NewDense(5, 2, []float64{5.1, 1.4, 7.0, 4.7, 6.3, 6.0, 4.9, 1.4, 5.9, 4.2}),
				Target:   "species",
				Classes:  []string{"setosa", "versicolor", "virginica"},
				Labels:   []int{0, 1, 2, 0, 1},
			},
		},
		{
			name: "classes sorted, not in order of appearance",
			path: "flowers.csv",
			opts: CSVOptions{Target: "species", Classify: true, Features: []string{"petal length"}},
			want: Table{
				Features: []string{"petal length"},
				X:        mat.NewDense(5, 1, []float64{1.4, 4.7, 6.0, 1.4, 4.2}),
				Target:   "species",
				Classes:  []string{"setosa", "versicolor", "virginica"},
				Labels:   []int{0, 1, 2, 0, 1},
			},
		},
		{
			// The model's features come in another order, and the
			// target and id columns, which are not numbers, are
			// not read.
			name: "features by name",
			path: "predict.csv",
			opts: CSVOptions{Features: []string{"x1", "x2"}},
			want: Table{
				Features: []string{"x1", "x2"},
				X:        mat.NewDense(2, 2, []float64{0.5, 0.25, 1, 1}),
			},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := LoadCSV(filepath.Join("testdata", test.path), test.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, got, &test.want)
		})
	}
}

func checkTable(t *testing.T, got, want *Table) {
	t.Helper()
	if !reflect.DeepEqual(got.Features, want.Features) {
		t.Errorf("unexpected features: got %q, want %q", got.Features, want.Features)
	}
	if !mat.Equal(got.X, want.X) {
		t.Errorf("unexpected X:\ngot\n%v\nwant\n%v", mat.Formatted(got.X), mat.Formatted(want.X))
	}
	if got.Target != want.Target {
		t.Errorf("unexpected target: got %q, want %q", got.Target, want.Target)
	}
	if !reflect.DeepEqual(got.Y, want.Y) {
		t.Errorf("unexpected Y: got %v, want %v", got.Y, want.Y)
	}
	if !reflect.DeepEqual(got.Classes, want.Classes) {
		t.Errorf("unexpected classes: got %q, want %q", got.Classes, want.Classes)
	}
	if !reflect.DeepEqual(got.Labels, want.Labels) {
		t.Errorf("unexpected labels: got %v, want %v", got.Labels, want.Labels)
	}
}

func TestReadCSVLenient(t *testing.T) {
	// A byte order mark, spaces around fields, CRLF line ends and columns
	// with empty or repeated names that are not read are all accepted.
	const data = "\ufeff x , id,y ,id,\r\n 1.5 ,a, 2 ,b,\r\n0x1p-2,c,-1e-3,d,e\r\n"
	got, err := ReadCSV(strings.NewReader(data), "t.csv", CSVOptions{Target: "y", Features: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, got, &Table{
		Features: []string{"x"},
		X:        mat.NewDense(2, 1, []float64{1.5, 0.25}),
		Target:   "y",
		Y:        []float64{2, -1e-3},
	})
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, test := range []struct {
		name string
		opts CSVOptions
		tab  Table
	}{
		{
			name: "regression",
			opts: CSVOptions{Target: "p(x,y)"},
			tab: Table{
				Features: []string{"x", `y "quoted"`},
				X:        mat.NewDense(3, 2, []float64{0.1, math.Pi, math.Copysign(0, -1), 1e-300, math.MaxFloat64, 1.0 / 3}),
				Target:   "p(x,y)",
				Y:        []float64{math.SmallestNonzeroFloat64, -2, 123456789.125},
			},
		},
		{
			name: "classification",
			opts: CSVOptions{Target: "class", Classify: true},
			tab: Table{
				Features: []string{"a"},
				X:        mat.NewDense(3, 1, []float64{1, 2, 3}),
				Target:   "class",
				Classes:  []string{"cat, black", "dog"},
				Labels:   []int{1, 0, 1},
			},
		},
		{
			name: "features only",
			tab: Table{
				Features: []string{"a", "b"},
				X:        mat.NewDense(1, 2, []float64{1, 2}),
			},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			path := filepath.Join(dir, test.name+".csv")
			if err := test.tab.Save(path); err != nil {
				t.Fatal(err)
			}
			got, err := LoadCSV(path, test.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, got, &test.tab)
		})
	}
}

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pred.csv")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteCSV(path, []string{"id", "label"}, [][]string{{"1", "a,b"}, {"2", `say "c"`}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = "id,label\n1,\"a,b\"\n2,\"say \"\"c\"\"\"\n"
	if string(got) != want {
		t.Errorf("unexpected content:\ngot  %q\nwant %q", got, want)
	}

	err = WriteCSV(filepath.Join(t.TempDir(), "missing", "pred.csv"), []string{"a"}, nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unexpected error for a missing directory: %v", err)
	}
}

func TestTargetMatrix(t *testing.T) {
	reg := Table{Y: []float64{1, 2, 3}}
	if got, want := reg.TargetMatrix(), mat.NewDense(3, 1, []float64{1, 2, 3}); !mat.Equal(got, want) {
		t.Errorf("unexpected regression target:\n%v", mat.Formatted(got))
	}
	cls := Table{Classes: []string{"a", "b", "c"}, Labels: []int{2, 0, 1, 2}}
	want := mat.NewDense(4, 3, []float64{
		0, 0, 1,
		1, 0, 0,
		0, 1, 0,
		0, 0, 1,
	})
	if got := cls.TargetMatrix(); !mat.Equal(got, want) {
		t.Errorf("unexpected one-hot target:\n%v", mat.Formatted(got))
	}
}

func TestPanics(t *testing.T) {
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"Classify without Target", func() {
			ReadCSV(strings.NewReader("x\n1\n"), "t.csv", CSVOptions{Classify: true})
		}},
		{"target among features", func() {
			ReadCSV(strings.NewReader("x,y\n1,2\n"), "t.csv", CSVOptions{Target: "y", Features: []string{"x", "y"}})
		}},
		{"repeated feature", func() {
			ReadCSV(strings.NewReader("x,y\n1,2\n"), "t.csv", CSVOptions{Features: []string{"x", "x"}})
		}},
		{"ragged record", func() {
			WriteCSV(filepath.Join(t.TempDir(), "out.csv"), []string{"a", "b"}, [][]string{{"1"}})
		}},
		{"no target", func() { (&Table{}).TargetMatrix() }},
		{"tiny polynomial grid", func() { PolynomialGrid(1) }},
		{"tiny sine grid", func() { SineGrid(1) }},
		{"no sine samples", func() { NoisySine(0, nil) }},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("expected a panic")
				}
			}()
			test.f()
		})
	}
}
