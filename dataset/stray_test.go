package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestStrayLimit(t *testing.T) {
	for _, test := range []struct{ n, want int }{
		{0, 0}, {10, 0}, {11, 1}, {99, 1}, {100, 2}, {149, 2}, {150, 3}, {1000, 20},
	} {
		if got := strayLimit(test.n); got != test.want {
			t.Errorf("strayLimit(%d) = %d, want %d", test.n, got, test.want)
		}
	}
}

// strayTable returns a CSV table of columns x and y, x holding the numbers
// 1 to numbers, and then the strays, and y the same numbers, each row's
// number written as 1.5 times it.
func strayTable(numbers int, strays ...string) string {
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range numbers {
		fmt.Fprintf(&b, "%d,%g\n", i+1, 1.5*float64(i+1))
	}
	for i, s := range strays {
		fmt.Fprintf(&b, "%s,%g\n", s, 1.5*float64(numbers+i+1))
	}
	return b.String()
}

// TestInferKindStrays reads columns of numbers with a few cells that are
// not numbers: up to the limit the column stays numeric and the strays
// are missing, encoded as the mean of the numbers; beyond it the column is
// read as text, as before.
func TestInferKindStrays(t *testing.T) {
	for _, test := range []struct {
		name    string
		numbers int
		strays  []string
		kind    string
	}{
		{"no stray", 20, nil, "numeric"},
		{"typo among 60", 60, []string{"4.2.1"}, "numeric"},
		{"NUL byte", 60, []string{"\x00"}, "numeric"},
		{"dash", 30, []string{"-"}, "numeric"},
		{"one among ten", 10, []string{"abc"}, "numeric"},
		{"one among nine", 9, []string{"abc"}, "categorical"},
		{"two among 98", 98, []string{"x", "4.2.1"}, "numeric"},
		{"two among 97", 97, []string{"x", "4.2.1"}, "categorical"},
		{"three among 97", 97, []string{"x", "y", "z"}, "categorical"},
		{"three among 147", 147, []string{"x", "y", "z"}, "numeric"},
		// Beyond the limit, at most two texts without a digit are
		// missing codes beside ten distinct numbers or more.
		{"a dash for missing", 30, slices.Repeat([]string{"-"}, 8), "numeric"},
		{"two missing codes", 30, slices.Repeat([]string{"-", "."}, 15), "numeric"},
		{"three missing codes", 30, slices.Repeat([]string{"-", ".", "none"}, 3), "categorical"},
		{"codes in more than half", 30, slices.Repeat([]string{"-"}, 31), "categorical"},
		{"codes beside nine numbers", 9, slices.Repeat([]string{"none"}, 3), "categorical"},
		// A text with a digit may be a bin of the quantity.
		{"a code with a digit", 30, slices.Repeat([]string{"90+"}, 8), "ordinal"},
		{"a code and a typo", 30, append(slices.Repeat([]string{"-"}, 8), "4.2.1"), "categorical"},
		// Spreadsheets' error values are missing codes whatever their
		// digits and number.
		{"spreadsheet errors", 30, slices.Repeat([]string{"#DIV/0!", "#N/A", "#value!", "#REF!"}, 2), "numeric"},
		{"spreadsheet errors and two codes", 30, []string{"#DIV/0!", "-", "#NUM!", ".", "#DIV/0!"}, "numeric"},
		{"spreadsheet errors in more than half", 30, slices.Repeat([]string{"#DIV/0!"}, 31), "categorical"},
		{"a spreadsheet error and a typo", 30, append(slices.Repeat([]string{"#DIV/0!"}, 8), "4.2.1"), "categorical"},
		// Missing cells do not count: 97 numbers and three strays are
		// 100 cells with a value, of 150.
		{"three among 97 and 50 missing", 97, append([]string{"x", "y", "z"}, slices.Repeat([]string{""}, 50)...), "categorical"},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := readFrameString(t, strayTable(test.numbers, test.strays...))
			e, _, err := FitEncoder(f, []string{"x"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := e.Rules()[0]
			if r.Kind != test.kind {
				t.Fatalf("column x is %s, want %s", r.Kind, test.kind)
			}
			x, warnings, err := e.Transform(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != "numeric" {
				return
			}
			mean := float64(test.numbers+1) / 2
			if r.Fill != mean || r.Indicator != (len(test.strays) > 0) {
				t.Errorf("fill %v, indicator %v; want %v, %v", r.Fill, r.Indicator, mean, len(test.strays) > 0)
			}
			for i := range test.strays {
				if got := x.At(test.numbers+i, 0); got != mean {
					t.Errorf("stray %d encoded as %v, want %v", i, got, mean)
				}
			}
			if len(test.strays) == 0 {
				if len(warnings) != 0 {
					t.Errorf("warnings %v, want none", warnings)
				}
				return
			}
			if len(warnings) != 1 || warnings[0].Rows != len(test.strays) || !strings.Contains(warnings[0].Message, fmt.Sprintf("line %d, column \"x\": %q is not a number", test.numbers+2, test.strays[0])) {
				t.Errorf("warnings %v, want one of %d cells naming line %d", warnings, len(test.strays), test.numbers+2)
			}
		})
	}
}

// TestTargetStrays reads a regression target with a stray: its row is
// dropped, with one warning, and read strictly it is an error that
// locates it.
func TestTargetStrays(t *testing.T) {
	data := "q" + strings.TrimPrefix(strayTable(220, "-"), "x")
	f := readFrameString(t, data)
	target, err := f.Target("q", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(target.Values) != 220 || target.Dropped != 1 || slices.Contains(target.Rows, 220) {
		t.Errorf("%d values, %d dropped, rows end %v; want 220, 1, without row 220", len(target.Values), target.Dropped, target.Rows[len(target.Rows)-3:])
	}
	if w := f.Warnings(); len(w) != 1 || w[0].Rows != 1 || !strings.Contains(w[0].String(), `line 222, column "q": "-" is not a number`) {
		t.Errorf("warnings %v, want one naming line 222", w)
	}
	if w := f.Warnings(); w != nil {
		t.Errorf("warnings again: %v", w)
	}
	strict := readStrict(t, data)
	_, err = strict.Target("q", false)
	const want = `test.csv: row 222, column "q": stray cell "-": not a number in a column of numbers (1 such cells beside 220 numbers: reading strictly refuses them, and otherwise reads them as missing)`
	if !errors.Is(err, ErrStray) || err.Error() != want {
		t.Errorf("read strictly: error\n%v\nwant\n%s", err, want)
	}
	// One stray in a small target, and two, which are too many.
	f = readFrameString(t, "q\n1\n2\nx\n4\n")
	if target, err := f.Target("q", false); err != nil || !slices.Equal(target.Values, []float64{1, 2, 4}) || target.Dropped != 1 {
		t.Errorf("one stray among three numbers: %+v, %v", target, err)
	}
	for _, data := range []string{"q\n1\nx\n", "q\n1\n2\nx\ny\n"} {
		if _, err := readFrameString(t, data).Target("q", false); !errors.Is(err, ErrNumber) {
			t.Errorf("target %q: error %v, want not a number", data, err)
		}
	}
	// Too many strays: an error as before, on the first.
	f = readFrameString(t, "q"+strings.TrimPrefix(strayTable(20, "a", "b", "c"), "x"))
	if _, err := f.Target("q", false); !errors.Is(err, ErrNumber) || !strings.Contains(err.Error(), `row 22, column "q"`) {
		t.Errorf("three strays among 20: error %v, want not a number at row 22", err)
	}
	// Missing codes: their rows are dropped, however many.
	f = readFrameString(t, "q"+strings.TrimPrefix(strayTable(20, slices.Repeat([]string{"-", "n.d."}, 4)...), "x"))
	if target, err := f.Target("q", false); err != nil || len(target.Values) != 20 || target.Dropped != 8 {
		t.Errorf("8 missing codes among 20: %+v, %v; want 20 values, 8 dropped", target, err)
	}
}

// readStrict reads data as a CSV file named test.csv, strictly.
func readStrict(t *testing.T, data string) *Frame {
	t.Helper()
	r, err := NewFrameReader(strings.NewReader(data), "test.csv", FrameOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestStraysStrict refuses a stray of an input column when the frame is
// read strictly, and reads a column of many texts as text all the same.
func TestStraysStrict(t *testing.T) {
	f := readStrict(t, strayTable(60, "4.2.1"))
	_, _, err := FitEncoder(f, []string{"x"}, nil)
	if !errors.Is(err, ErrStray) || !strings.Contains(err.Error(), `test.csv: row 62, column "x"`) {
		t.Errorf("error %v, want a stray at row 62 of column x", err)
	}
	f = readStrict(t, strayTable(9, "a", "b"))
	if e, _, err := FitEncoder(f, []string{"x"}, nil); err != nil || e.Rules()[0].Kind != "categorical" {
		t.Errorf("a column of text read strictly: %v", err)
	}
}

// TestStraysOneWarning reads strays in a target and in two inputs and
// warns of them once, in the warnings of the first Transform.
func TestStraysOneWarning(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,a,b\n")
	for i := range 30 {
		cells := []string{fmt.Sprint(i), fmt.Sprint(i % 7), fmt.Sprint(i * i)}
		switch i {
		case 3:
			cells[0] = "?!"
		case 5:
			cells[1] = "1..2"
		case 8:
			cells[2] = "n.a."
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	f := readFrameString(t, b.String())
	target, err := f.Target("t", false)
	if err != nil {
		t.Fatal(err)
	}
	e, fitWarnings, err := FitEncoder(f, []string{"a", "b"}, target.Rows)
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, err := e.Transform(f, target.Rows)
	if err != nil {
		t.Fatal(err)
	}
	const want = `test.csv: 3 stray cells, not of their columns' kinds, are read as missing: line 5, column "t": "?!" is not a number; line 7, column "a": "1..2" is not a number; line 10, column "b": "n.a." is not a number; correct such cells, or read strictly to refuse them`
	if len(fitWarnings) != 0 || len(warnings) != 1 || warnings[0].String() != want {
		t.Errorf("warnings %v then %v, want none then\n%s", fitWarnings, warnings, want)
	}
	if _, again, _ := e.Transform(f, target.Rows); len(again) != 0 {
		t.Errorf("warnings of a second Transform: %v", again)
	}
}

// TestTransformStrays encodes new rows with strays in a numeric column as
// missing cells, with a warning, in one frame, in parts and cell by cell.
func TestTransformStrays(t *testing.T) {
	train := readFrameString(t, "n,c\n1,u\n3,v\n")
	e, _, err := FitEncoder(train, []string{"n", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const data = "n,c\n1,u\nabc,v\n5,u\n4.2.1,u\n"
	want := []float64{1, 2, 5, 2}
	f := readFrameString(t, data)
	x, warnings, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mat.Col(nil, 0, x); !slices.Equal(got, want) || len(warnings) != 1 || warnings[0].Rows != 2 {
		t.Errorf("encoded %v, warnings %v; want %v and one warning of 2 cells", got, warnings, want)
	}
	r, err := NewFrameReader(strings.NewReader(data), "test.csv", FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	warnings, err = e.TransformEach(func() (*Frame, error) { return r.Read(1) }, func(f *Frame, x *mat.Dense) error {
		got = append(got, x.At(0, 0))
		return nil
	})
	if err != nil || !slices.Equal(got, want) || len(warnings) != 1 || warnings[0].Rows != 2 {
		t.Errorf("in parts: encoded %v, warnings %v, error %v; want %v and one warning of 2 cells", got, warnings, err, want)
	}
	dst := mat.NewDense(4, e.Width(), nil)
	w, err := e.EncodeColumn(dst, 0, nil, []string{"1", "abc", "5", "4.2.1"})
	const wantW = `column "n": 2 cells are not numbers and are read as missing: row 2: "abc"; row 4: "4.2.1"`
	if got := mat.Col(nil, 0, dst); err != nil || !slices.Equal(got, want) || w == nil || w.String() != wantW {
		t.Errorf("cell by cell: encoded %v, warning %v, error %v; want %v and\n%s", got, w, err, want, wantW)
	}
}

// TestPercentScales warns once of a column of numbers that mixes
// percentages with numbers above 1, which may be percentages too, and not
// of one that mixes them with fractions.
func TestPercentScales(t *testing.T) {
	for _, test := range []struct {
		name, data string
		warn       bool
	}{
		{"fractions", "x\n50%\n0.5\n-0.25\n150%\n", false},
		{"percentages alone", "x\n50%\n120%\n", false},
		{"numbers alone", "x\n50\n120\n", false},
		{"points", "x\n50%\n0.5\n50\n", true},
		{"negative points", "x\n5%\n-3\n", true},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := readFrameString(t, test.data)
			e, _, err := FitEncoder(f, []string{"x"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := FitEncoder(f, []string{"x"}, nil); err != nil {
				t.Fatal(err)
			}
			_, warnings, err := e.Transform(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(warnings) == 1 && strings.Contains(warnings[0].String(), `column "x": it mixes percentages such as `); got != test.warn || len(warnings) > 1 {
				t.Errorf("warnings %v, want a warning of mixed scales: %v", warnings, test.warn)
			}
			if _, again, _ := e.Transform(f, nil); len(again) != 0 {
				t.Errorf("warnings again: %v", again)
			}
		})
	}
}

// TestDateStrays reads a column of dates with a typo as dates, the typo
// missing, and a column with more typos than the limit as text.
func TestDateStrays(t *testing.T) {
	for _, test := range []struct {
		name   string
		strays []string
		kind   string
	}{
		{"typo", []string{"2024-13-45"}, "date"},
		{"number", []string{"5"}, "date"},
		{"two", []string{"2024-13-45", "x"}, "categorical"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("day\n")
			for i := range 30 {
				fmt.Fprintf(&b, "2024-01-%02d\n", i+1)
			}
			b.WriteString(strings.Join(test.strays, "\n") + "\n")
			f := readFrameString(t, b.String())
			e, _, err := FitEncoder(f, []string{"day"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := e.Rules()[0]; r.Kind != test.kind {
				t.Fatalf("column day is %s, want %s", r.Kind, test.kind)
			}
			x, warnings, err := e.Transform(f, nil)
			if test.kind != "date" {
				return
			}
			fill := e.Rules()[0].Fill
			if err != nil || x.At(30, 0) != fill || len(warnings) != 1 || !strings.Contains(warnings[0].Message, fmt.Sprintf(`line 32, column "day": %q is not a date`, test.strays[0])) {
				t.Errorf("stray encoded as %v (fill %v), warnings %v, error %v", x.At(30, 0), fill, warnings, err)
			}
			dst := mat.NewDense(2, e.Width(), nil)
			w, err := e.EncodeColumn(dst, 0, nil, []string{"2024-01-05", "soon"})
			if want := `column "day": 1 cells are not dates and are read as missing: row 2: "soon"`; err != nil || dst.At(1, 0) != fill || w == nil || w.String() != want {
				t.Errorf("cell by cell: encoded %v, warning %v, error %v; want %v and\n%s", dst.At(1, 0), w, err, fill, want)
			}
		})
	}
}

// TestStrayWarningLists lists the first five strays of a warning and
// counts the others, and a later warning lists the strays met since.
func TestStrayWarningLists(t *testing.T) {
	var l readLog
	for i := range 7 {
		l.stray(strayCell{line: i + 2, column: "x", text: "?" + fmt.Sprint(i), what: "number"})
	}
	w := l.warnings("t.csv")
	const want = `t.csv: 7 stray cells, not of their columns' kinds, are read as missing: line 2, column "x": "?0" is not a number; line 3, column "x": "?1" is not a number; line 4, column "x": "?2" is not a number; line 5, column "x": "?3" is not a number; line 6, column "x": "?4" is not a number; and 2 more; correct such cells, or read strictly to refuse them`
	if len(w) != 1 || w[0].String() != want || w[0].Rows != 7 {
		t.Errorf("warnings %v, want\n%s", w, want)
	}
	if w := l.warnings("t.csv"); w != nil {
		t.Errorf("warnings again: %v", w)
	}
	l.stray(strayCell{line: 40, column: "d", text: "soon", what: "date"})
	const later = `t.csv: 1 stray cell, not of its column's kind, is read as missing: line 40, column "d": "soon" is not a date; correct such cells, or read strictly to refuse them`
	if w := l.warnings("t.csv"); len(w) != 1 || w[0].String() != later {
		t.Errorf("later warnings %v, want\n%s", w, later)
	}
}

// TestNumbersAsTextWarning warns, once, of a column read as text although
// most of its cells are numbers, naming its other texts; and not of a
// column of text, of a few numbers and words, or of amounts in two
// currencies (12 dollars, then euros), which the Encoder warns of.
func TestNumbersAsTextWarning(t *testing.T) {
	const want = `column "x": it holds numbers in 30 of its 39 cells with a value, and other texts in 9, such as "-", ".", "none": ` +
		`too many or too varied to be read as missing, so it is read as text, each number a level; write its missing cells as NA, or correct the others, to have it read as numbers`
	for _, test := range []struct {
		name    string
		numbers int
		strays  []string
		want    string
	}{
		{"three codes", 30, slices.Repeat([]string{"-", ".", "none"}, 3), want},
		{"codes in more than half", 30, slices.Repeat([]string{"-"}, 31), ""},
		{"codes beside nine numbers", 9, slices.Repeat([]string{"none"}, 3), ""},
		{"missing codes read as missing", 30, slices.Repeat([]string{"-"}, 8), "stray"},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := readFrameString(t, strayTable(test.numbers, test.strays...))
			if _, err := Identifiers(f, []string{"x"}, nil); err != nil {
				t.Fatal(err)
			}
			e, _, err := FitEncoder(f, []string{"x"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := transformWarnings(t, e, f)
			switch {
			case test.want == "" && len(got) != 0:
				t.Errorf("warnings %q, want none", got)
			case test.want == "stray" && (len(got) != 1 || !strings.Contains(got[0], "stray cells")):
				t.Errorf("warnings %q, want one of stray cells", got)
			case test.want != "" && test.want != "stray" && !slices.Equal(got, []string{test.want}):
				t.Errorf("warnings\n%q\nwant\n%q", got, test.want)
			}
		})
	}
	var text, money strings.Builder
	text.WriteString("x,y\n")
	money.WriteString("x,y\n")
	for i := range 20 {
		fmt.Fprintf(&text, "%s,%d\n", []string{"red", "blue", strconv.Itoa(i)}[i%3], i)
		fmt.Fprintf(&money, "%s%d,%d\n", []string{"$", "€"}[i/12], i, i)
	}
	for _, data := range []string{text.String(), money.String()} {
		f := readFrameString(t, data)
		e, _, err := FitEncoder(f, []string{"x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, warnings, _ := e.Transform(f, nil); len(warnings) != 0 {
			t.Errorf("%q: warnings %v, want none", data[:30], warnings)
		}
	}
	// Numbers in the column's unit are numbers, in another its other
	// texts.
	var units strings.Builder
	units.WriteString("x\n")
	for i := range 39 {
		fmt.Fprintf(&units, "%d %s\n", i, []string{"kg", "lb"}[i/30])
	}
	f := readFrameString(t, units.String())
	e, _, err := FitEncoder(f, []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, _ := e.Transform(f, nil)
	if want := `it holds numbers in 30 of its 39 cells with a value, and other texts in 9, such as "30 lb"`; len(warnings) != 1 || !strings.HasPrefix(warnings[0].Message, want) {
		t.Errorf("a column in two units: warnings %v, want one beginning %s", warnings, want)
	}
}

// TestMostlyStrays checks the warnings of a column whose strays are most
// of its rows, and of dates written with the year last in a column of
// ISO 8601 dates, of a table and of a column encoded at a time.
func TestMostlyStrays(t *testing.T) {
	train := readFrameString(t, "age,day\n30,2024-01-01\n40,2024-01-05\n50,2024-01-09\n")
	e, _, err := FitEncoder(train, []string{"age", "day"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const (
		ageMissing = `column "age": as good as missing: 3 of its 4 rows hold text that is no number, such as "30 years" (line 2), each read as the training mean, 40, so that the model's answers for them ignore the column; write its cells as training did (such as 30, not "30 years")`
		dayMissing = `column "day": as good as missing: 3 of its 4 rows hold text that is no date, such as %q (line 2), each read as the training mean date, 2024-01-05,`
		yearLast   = `, where the column held ISO 8601 dates (2024-01-31) in training: read as missing, since one such as 03/04/2024 may be 3 April or 4 March; write them as 2024-01-31`
	)
	for _, tc := range []struct {
		name     string
		age, day []string
		want     []string // prefixes of the encoder's warnings
	}{
		{"most strays", []string{"30 years", "40 years", "50 years", "60"}, nil, []string{ageMissing}},
		{"half strays", []string{"30 years", "40 years", "50 years", "35", "40", "45"}, nil, nil},
		{"too few rows", []string{"30 years", "40 years", "50"}, nil, nil},
		{"a date with the year last", nil, []string{"31/01/2024", "2024-01-02", "2024-01-03", "2024-01-04"},
			[]string{`column "day": 1 row holds a date written with the year last, "31/01/2024" (line 2)` + yearLast}},
		{"most dates with the year last", nil, []string{"31/01/2024", "01/02/2024", "2024-01-03", "03/02/2024"},
			[]string{`column "day": 3 rows hold dates written with the year last, such as "31/01/2024" (line 2)` + yearLast, fmt.Sprintf(dayMissing, "31/01/2024")}},
		{"text in a date column", nil, []string{"soon", "later", "never", "2024-01-02"}, []string{fmt.Sprintf(dayMissing, "soon")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := max(len(tc.age), len(tc.day))
			age, day := cellsOr(tc.age, n, "35"), cellsOr(tc.day, n, "2024-01-02")
			table := "age,day\n"
			for i := range n {
				table += age[i] + "," + day[i] + "\n"
			}
			_, warnings, err := e.Transform(readFrameString(t, table), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				if w.Column != "" { // not the reader's list of strays
					got = append(got, w.String())
				}
			}
			if len(got) != len(tc.want) || !slices.EqualFunc(got, tc.want, strings.HasPrefix) {
				t.Errorf("warnings\n%q\nwant\n%q", got, tc.want)
			}
			// A column at a time, as serve encodes its requests.
			x := mat.NewDense(n, e.Width(), nil)
			for j, cells := range [][]string{age, day} {
				w, err := e.EncodeColumn(x, j, nil, cells)
				if err != nil {
					t.Fatal(err)
				}
				text := ""
				if w != nil {
					text = w.String()
				}
				if strings.Contains(text, "as good as missing") && !strings.Contains(text, fmt.Sprintf("such as %q (row 1)", cells[0])) {
					t.Errorf("warning %q names not the first stray, %q (row 1)", text, cells[0])
				}
				name := []string{"age", "day"}[j]
				for _, part := range []string{"as good as missing", "written with the year last"} {
					want := slices.ContainsFunc(tc.want, func(s string) bool { return strings.HasPrefix(s, `column "`+name+`": `) && strings.Contains(s, part) })
					if strings.Contains(text, part) != want {
						t.Errorf("column %s: warning %q; want %q in it: %v", name, text, part, want)
					}
				}
			}
		})
	}
}

// cellsOr returns cells, or n cells of the given text if cells is nil.
func cellsOr(cells []string, n int, text string) []string {
	if cells != nil {
		return cells
	}
	return slices.Repeat([]string{text}, n)
}

// TestStraysColumnar checks that the warnings of a Parquet file's strays,
// and of a table of Parquet files, number its rows as rows, not as
// lines.
func TestStraysColumnar(t *testing.T) {
	e, _, err := FitEncoder(readFrameString(t, "age\n30\n40\n50\n"), []string{"age"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := WriteFrame(&buf, Parquet, readFrameString(t, "age\n30\n40 years\n50 years\n60 years\n")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"new-1.parquet", "new-2.parquet"} {
		writeFile(t, filepath.Join(dir, name), buf.Bytes())
	}
	for _, path := range []string{filepath.Join(dir, "new-1.parquet"), filepath.Join(dir, "new-*.parquet")} {
		f, err := LoadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		got := transformWarnings(t, e, f)
		want := []string{`(row 2), each read as`, `: row 2, column "age": "40 years" is not a number; row 3,`}
		if len(got) != len(want) || !slices.EqualFunc(got, want, strings.Contains) || strings.Contains(strings.Join(got, " "), "line") || f.Place() != "row" {
			t.Errorf("warnings of %s, whose rows are %ss,\n%q\nwant them naming rows:\n%q", path, f.Place(), got, want)
		}
		// The encoding's log read back from JSON, as machines-beam's
		// workers send it, still counts rows.
		log := e.NewLog()
		if _, err := e.TransformLog(f, nil, log); err != nil {
			t.Fatal(err)
		}
		var read EncodeLog
		if b, err := json.Marshal(log); err != nil || json.Unmarshal(b, &read) != nil {
			t.Fatalf("the log of %s as JSON: %s, %v", path, b, err)
		}
		if got := e.Warnings(&read); len(got) != 1 || !strings.Contains(got[0].Message, "row 2") {
			t.Errorf("warnings of %s's log read from JSON %q, want one naming row 2", path, got)
		}
	}
}

// transformWarnings encodes f by e and returns the warnings, each on one
// line.
func transformWarnings(t *testing.T, e *Encoder, f *Frame) []string {
	t.Helper()
	_, warnings, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warnings {
		got = append(got, w.String())
	}
	return got
}
