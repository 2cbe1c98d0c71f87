package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReadNumber(t *testing.T) {
	for _, test := range []struct {
		cell         string
		decimalComma bool
		want         float64
		ok           bool
	}{
		{"3.5", false, 3.5, true},
		{"-1e3", false, -1000, true},
		{"4,599.0", false, 4599, true},
		{"4,599", false, 4599, true},
		{"-1,234,567.25", false, -1234567.25, true},
		{"17.5%", false, 0.175, true},
		{"99.9 %", false, 0.999, true},
		{"-3%", false, -0.03, true},
		{"1,234.5%", false, 12.345, true},
		{"50%", false, 0.5, true}, // as 0.5, so that a column may mix them
		{"50\u00a0%", false, 0.5, true},
		{"12,5\u202f%", true, 0.125, true},
		{"1e3%", false, 10, true},
		{"3,14", false, 0, false},      // a decimal comma in a file of decimal points
		{"45,67,890", false, 0, false}, // groups of two: not thousands
		{"1,2345", false, 0, false},
		{"%", false, 0, false},
		{"5%%", false, 0, false},
		{"abc", false, 0, false},
		{"13:45", false, 13.75, true},
		{"0:00", false, 0, true},
		{"7:05:30", true, 7 + 5.0/60 + 30.0/3600, true},
		{"125:30", false, 125.5, true},
		{"1:02:03.5", false, 1 + 2.0/60 + 3.5/3600, true},
		{"13:60", false, 0, false},
		{"13:5", false, 0, false},
		{"3:1", false, 0, false},
		{"-1:30", false, 0, false},
		{"12:30 PM", false, 12.5, true},
		{"12:30 AM", false, 0.5, true},
		{"10:00 PM", false, 22, true},
		{"7:30pm", false, 19.5, true},
		{"11:00 a.m.", false, 11, true},
		{"13:00 PM", false, 0, false},
		{"0:30 AM", false, 0, false},
		{"10:00 XM", false, 0, false},
		{"NaN", false, 0, false},
		{"+Inf", false, math.Inf(1), true},
		{"1e999", false, math.Inf(1), true},
		{"$1,234.50", false, 1234.5, true},
		{"-$5", false, -5, true},
		{"$-5", false, -5, true},
		{"€ 12.5", false, 12.5, true},
		{"12,50 €", true, 12.5, true},
		{"-3 £", false, -3, true},
		{"¥1e3", false, 1000, true},
		{"$", false, 0, false},
		{"$$5", false, 0, false},
		{"--$5", false, 0, false},
		{"-$-5", false, 0, false},
		{"$5%", false, 0, false},
		{"US$5", false, 0, false},
		// Parentheses for a minus, as accounts write it.
		{"(1,234.50)", false, -1234.5, true},
		{"($5)", false, -5, true},
		{"(5 $)", false, -5, true},
		{"(12,5)", true, -12.5, true},
		{"(17.5%)", false, -0.175, true},
		{"(0)", false, 0, true},
		{"(-5)", false, 0, false},
		{"(+5)", false, 0, false},
		{"(\u22125)", false, 0, false},
		{"((5))", false, 0, false},
		{"()", false, 0, false},
		{"(5", false, 0, false},
		{"5)", false, 0, false},
		{"(13:45)", false, 0, false},
		{"(a)", false, 0, false},
		// A minus after the number, as SAP and other ledgers export it.
		{"1.234,50-", true, -1234.5, true},
		{"120,17 -", true, -120.17, true},
		{"5-", false, -5, true},
		{"$5-", false, -5, true},
		{"12.5%-", false, -0.125, true},
		{"-5-", false, 0, false},
		{"(5)-", false, 0, false},
		{"10-20-", false, 0, false},
		{"13:45-", false, 0, false},
		{"5 kg-", false, 0, false},
		{"-", false, 0, false},
		{"--", false, 0, false},
		{"3,14", true, 3.14, true},
		{"-0,5", true, -0.5, true},
		{"1.234,5", true, 1234.5, true},
		{"1.234", true, 1234, true},
		{"12.345.678", true, 12345678, true},
		{"3.14", true, 3.14, true}, // not groups of three: a decimal point
		{"17,5%", true, 0.175, true},
		{"4,599.0", true, 0, false},
		// Spaces between groups of three digits, with either decimal mark.
		{"1 554,5", true, 1554.5, true},
		{"10 851,5", true, 10851.5, true},
		{"10\u00a0851,5", true, 10851.5, true},
		{"-1\u202f234\u202f567,25", true, -1234567.25, true},
		{"1\u2009234", true, 1234, true},
		{"1 234 €", true, 1234, true},
		{"12 345,5%", true, 123.455, true},
		{"10 851.5", false, 10851.5, true},
		{"1 234 567", false, 1234567, true},
		{"10 85,5", true, 0, false}, // groups of two
		{"1 5544,5", true, 0, false},
		{"1  554,5", true, 0, false},
		{"1 554.5,5", true, 0, false},
		{"1 554,5", false, 0, false}, // a decimal comma in a file of decimal points
		{"1.234 567,5", true, 0, false},
		{"1\t554,5", true, 0, false},
		{" 554,5", true, 0, false},
		{"1'554.50", false, 1554.5, true},
		{"1\u2019234\u2019567", false, 1234567, true},
		{"1'5544.5", false, 0, false},
		// Spreadsheets' marks of a number kept as text.
		{"'554.5", false, 554.5, true},
		{"'00123", false, 123, true},
		{"'1'554.50", false, 1554.5, true},
		{`="12.5"`, false, 12.5, true},
		{`="-3,14"`, true, -3.14, true},
		{"''5", false, 0, false},
		{"'", false, 0, false},
		{`="5`, false, 0, false},
		{`="`, false, 0, false},
		{`"5"`, false, 0, false},
		{"\u22125", false, -5, true},
		{"\u22121 554,5", true, -1554.5, true},
		{"\u2212$5", false, -5, true},
		{"1e\u22122", false, 0.01, true},
		{"\u2212", false, 0, false},
	} {
		v, ok := readNumber(test.cell, test.decimalComma)
		if ok != test.ok || ok && v != test.want {
			t.Errorf("readNumber(%q, decimal comma %v) = %v, %v; want %v, %v", test.cell, test.decimalComma, v, ok, test.want, test.ok)
		}
	}
}

func TestDetectSeparator(t *testing.T) {
	for _, test := range []struct {
		name, data   string
		comma        rune
		decimalComma bool
		columns      []string
		err          error // wrapped by the error, if any
	}{
		{"comma", "a,b\n1,2\n", ',', false, []string{"a", "b"}, nil},
		{"semicolon", "a;b\n1;2\n", ';', false, []string{"a", "b"}, nil},
		{"semicolon, decimal commas", "a;b\n1,5;2\n3;4,25\n", ';', true, []string{"a", "b"}, nil},
		{"tab", "a\tb\tc\n1\t2\t3\n", '\t', false, []string{"a", "b", "c"}, nil},
		{"tab, decimal commas", "a\tb\n0,5\t2\n", '\t', true, []string{"a", "b"}, nil},
		{"bar", "a|b\n1|2\n", '|', false, []string{"a", "b"}, nil},
		{"text with semicolons", "a,b\n\"x;y\",2\nz,3\n", ',', false, []string{"a", "b"}, nil},
		{"more fields win", "a,b;c,d\n1,2;3,4\n", ',', false, []string{"a", "b;c", "d"}, nil},
		// Neither separator fits: read by commas, which reports the row
		// that does not.
		{"neither fits", "a;b,c\n1\n", ',', false, nil, ErrFieldCount},
		{"one column", "a\n1\n", ',', false, []string{"a"}, nil},
		{"thousands, not decimals", "a;b\n\"1,234.5\";2\n", ';', false, []string{"a", "b"}, nil},
		// Commas between fields and in quoted numbers, as spreadsheets of
		// much of Europe export them, unless they may be thousands or a
		// number has a decimal point.
		{"comma, quoted decimal commas", "a,b\n\"1,5\",2\n\"1.234,25\",x\n", ',', true, []string{"a", "b"}, nil},
		{"comma, quoted thousands", "a,b\n\"1,234\",2\n\"12,345,678\",x\n", ',', false, []string{"a", "b"}, nil},
		{"comma, a decimal point too", "a,b\n\"1,5\",2.5\n", ',', false, []string{"a", "b"}, nil},
		{"comma, a decimal point before", "a,b\n3.5,2\n\"1,5\",2\n", ',', false, []string{"a", "b"}, nil},
	} {
		t.Run(test.name, func(t *testing.T) {
			f, err := ReadFrame(strings.NewReader(test.data), "test.csv")
			if test.err != nil {
				if !errors.Is(err, test.err) {
					t.Errorf("error %v, want %v", err, test.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Comma() != test.comma || f.DecimalComma() != test.decimalComma || !slices.Equal(f.Columns(), test.columns) {
				t.Errorf("separator %q, decimal comma %v, columns %q; want %q, %v, %q",
					f.Comma(), f.DecimalComma(), f.Columns(), test.comma, test.decimalComma, test.columns)
			}
		})
	}
}

// TestDetectSeparatorLongSample checks detection when the file is longer
// than the sample: the cut last record must not count, and decimal
// commas past the sample are not looked for.
func TestDetectSeparatorLongSample(t *testing.T) {
	var b strings.Builder
	b.WriteString("x;y;z\n")
	for b.Len() < 2*sampleSize {
		b.WriteString("1;2;\"a long text; with a separator\"\n")
	}
	b.WriteString("3,5;4;t\n")
	fr, err := NewFrameReader(strings.NewReader(b.String()), "long.csv", FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := fr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if f.Comma() != ';' || f.DecimalComma() {
		t.Errorf("separator %q, decimal comma %v; want ';', false", f.Comma(), f.DecimalComma())
	}
	if _, err := f.Number(f.Len()-1, 0); !errors.Is(err, ErrNumber) {
		t.Errorf("3,5 after the sample read with error %v, want ErrNumber", err)
	}
}

// TestDetectSeparatorLongLines detects the separator of a file whose
// lines are so long that the sample ends within the 15th: the part of it
// there, short of fields, must not count.
func TestDetectSeparatorLongLines(t *testing.T) {
	var b strings.Builder
	for j := range 400 {
		if j > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	line := strings.Repeat("1234567890;", 399) + "1234567890\n"
	for range 20 {
		b.WriteString(line)
	}
	if sampleSize%len(line) == 0 {
		t.Fatal("the sample ends at the end of a line")
	}
	f, err := ReadFrame(strings.NewReader(b.String()), "long.csv")
	if err != nil {
		t.Fatal(err)
	}
	if f.Comma() != ';' || len(f.Columns()) != 400 {
		t.Errorf("separator %q, %d columns; want ';' and 400", f.Comma(), len(f.Columns()))
	}
}

func TestFrameOptionsComma(t *testing.T) {
	// The separator given is used even where another would fit better.
	fr, err := NewFrameReader(strings.NewReader("a;b,c\n1;2,3\n"), "test.csv", FrameOptions{Comma: ';'})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fr.Columns(), []string{"a", "b,c"}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
	if _, err := NewFrameReader(strings.NewReader("a,b\n"), "test.csv", FrameOptions{Comma: '"'}); err == nil ||
		!strings.Contains(err.Error(), `'"' cannot separate the fields`) {
		t.Errorf("a quote as the separator: error %v", err)
	}
}

// TestReadFrameNumbers reads the numbers of tables as spreadsheets write
// them: decimal commas in a semicolon file, thousands separators and
// percent signs, as a numeric column and as a target.
func TestReadFrameNumbers(t *testing.T) {
	for _, test := range []struct {
		name, data string
		want       []float64 // column x as a target
	}{
		{"decimal commas", "x;y\n1,5;a\n-2,25;b\n1.000,5;c\n", []float64{1.5, -2.25, 1000.5}},
		{"thousands", "x,y\n\"4,599.0\",a\n\"1,000\",b\n12,c\n", []float64{4599, 1000, 12}},
		{"percent", "x,y\n17.5%,a\n99.9%,b\n0%,c\n", []float64{0.175, 0.999, 0}},
		{"percent and fraction", "x,y\n50%,a\n0.25,b\n100%,c\n", []float64{0.5, 0.25, 1}},
		{"spaces between thousands", "x;y\n1 554,5;a\n10\u00a0851,5;b\n2\u202f000;c\n", []float64{1554.5, 10851.5, 2000}},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := readFrameString(t, test.data)
			target, err := f.Target("x", false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(target.Values, test.want) {
				t.Errorf("target %v, want %v", target.Values, test.want)
			}
			e, _, err := FitEncoder(f, []string{"x"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := e.Rules()[0]; r.Kind != "numeric" {
				t.Errorf("column x is %s, want numeric", r.Kind)
			}
			x, _, err := e.Transform(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.RawMatrix().Data; !slices.Equal(got, test.want) {
				t.Errorf("encoded %v, want %v", got, test.want)
			}
		})
	}
}

func TestFrameRowNames(t *testing.T) {
	// R's write.csv: an empty first header cell over the row names.
	f := readFrameString(t, "\"\",\"x\",\"y\"\n\"a\",1,2\n\"b\",3,4\n")
	if got, want := f.Columns(), []string{RowNamesColumn, "x", "y"}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
	if f.RowNames() != RowNamesColumn || f.Cell(1, 0) != "b" {
		t.Errorf("RowNames() = %q, cell %q", f.RowNames(), f.Cell(1, 0))
	}
	if g := readFrameString(t, "w,x\n1,2\n"); g.RowNames() != "" {
		t.Errorf("a file without row names: RowNames() = %q", g.RowNames())
	}
	// A second unnamed column is still an error, and so is a lone empty
	// header.
	for _, data := range []string{",,x\n1,2,3\n", "\"\"\n1\n"} {
		if _, err := ReadFrame(strings.NewReader(data), "test.csv"); err == nil || !strings.Contains(err.Error(), "of the header is empty") {
			t.Errorf("%q: error %v", data, err)
		}
	}
	if _, err := ReadFrame(strings.NewReader(",row.names\n1,2\n"), "test.csv"); !errors.Is(err, ErrDuplicate) {
		t.Errorf("row names beside a column named %s: error %v, want ErrDuplicate", RowNamesColumn, err)
	}
}

// TestFrameReaderChunks checks that reading a few rows at a time gives
// the rows and lines of reading the whole file.
func TestFrameReaderChunks(t *testing.T) {
	const data = "a;b\n1;x\n2;\"y\nz\"\n\n3;w\n4,5;v\n"
	whole := readFrameString(t, data)
	fr, err := NewFrameReader(strings.NewReader(data), "test.csv", FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	row := 0
	for {
		f, err := fr.Read(2)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Len() > 2 || !f.DecimalComma() {
			t.Errorf("chunk of %d rows, decimal comma %v", f.Len(), f.DecimalComma())
		}
		for r := range f.Len() {
			if f.Line(r) != whole.Line(row) || f.Cell(r, 1) != whole.Cell(row, 1) {
				t.Errorf("row %d: line %d cell %q, want line %d cell %q", row, f.Line(r), f.Cell(r, 1), whole.Line(row), whole.Cell(row, 1))
			}
			row++
		}
	}
	if row != whole.Len() {
		t.Errorf("%d rows in chunks, %d in the whole", row, whole.Len())
	}
}

func TestWithUnit(t *testing.T) {
	for _, test := range []struct {
		cell string
		want float64
		unit string
		ok   bool
	}{
		{"12 kg", 12, "kg", true},
		{"23.4 kmpl", 23.4, "kmpl", true},
		{"74bhp", 74, "bhp", true},
		{"5 km/h", 5, "km/h", true},
		{"20 m²", 20, "m²", true},
		{"1,248 CC", 1248, "CC", true},
		{"3 months", 3, "month", true},
		{"1 month", 1, "month", true},
		{"10 ms", 10, "ms", true}, // a two-letter unit keeps its s
		{"4th", 0, "", false},     // a rank
		{"2nd", 0, "", false},
		{"kg", 0, "", false},
		{"12 kg 3", 0, "", false},
		{"100 Main St", 0, "", false},
		{"inf kg", 0, "", false},
		{"12", 0, "", false},
	} {
		v, unit, ok := withUnit(test.cell, false)
		if v != test.want || unit != test.unit || ok != test.ok {
			t.Errorf("withUnit(%q) = %v, %q, %v; want %v, %q, %v", test.cell, v, unit, ok, test.want, test.unit, test.ok)
		}
	}
}

// TestUnitColumns reads columns of numbers with a unit of measure: as
// numbers, the unit kept in the encoder, so that a value not seen in
// training encodes as its number; a cell in another unit is a stray.
// A regression target with a unit is read as its numbers.
func TestUnitColumns(t *testing.T) {
	var b strings.Builder
	// The first cell in a unit is in an odd one: the column's unit is its
	// cells' most frequent.
	b.WriteString("w,y\n50 lb,7 lb\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d kg,%d kg\n", 40+i, 2*i)
	}
	f := readFrameString(t, b.String())
	e, _, err := FitEncoder(f, []string{"w"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Rules()[0]; r.Kind != "numeric" || r.Unit != "kg" {
		t.Fatalf("column w: %s in %q, want numeric in kg", r.Kind, r.Unit)
	}
	x, warnings, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if x.At(1, 0) != 40 || x.At(30, 0) != 69 || len(warnings) != 1 || warnings[0].Rows != 1 {
		t.Errorf("encoded %v, %v, warnings %v; want 40, 69 and the stray 50 lb", x.At(1, 0), x.At(30, 0), warnings)
	}
	g := readFrameString(t, "w\n70.5 kg\n37\n")
	x, warnings, err = e.Transform(g, nil)
	if err != nil || x.At(0, 0) != 70.5 || x.At(1, 0) != 37 || len(warnings) != 0 {
		t.Errorf("new rows encoded %v, %v, warnings %v, error %v; want 70.5 and 37", x.At(0, 0), x.At(1, 0), warnings, err)
	}
	target, err := f.Target("y", false)
	if err != nil || len(target.Values) != 30 || target.Values[0] != 0 || target.Values[29] != 58 {
		t.Errorf("target %+v, error %v; want 30 numbers in kg", target, err)
	}
	var bad encodedColumn
	if err := json.Unmarshal([]byte(`{"name":"c","kind":"boolean","fill":0.5,"unit":"kg"}`), &bad); err != nil {
		t.Fatal(err)
	}
	if err := bad.check(nil); err == nil || !strings.Contains(err.Error(), "unit: present in a boolean column") {
		t.Errorf("a boolean column with a unit: error %v", err)
	}
}

// TestMagnitudes reads columns of numbers with suffixes of magnitude: two
// suffixes or more multiply, one alone is a unit.
func TestMagnitudes(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,temp,y\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d%s,%dK,%dk\n", i+1, []string{"", "k", "M", "K", "bn", "B"}[i%6], 290+i, i+1)
	}
	f := readFrameString(t, b.String())
	e, _, err := FitEncoder(f, []string{"n", "temp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Rules(); r[0].Kind != "numeric" || r[0].Unit != magnitudeUnit || r[1].Kind != "numeric" || r[1].Unit != "K" {
		t.Fatalf("rules %+v, want n numeric in %s and temp in K", r, magnitudeUnit)
	}
	x, warnings, err := e.Transform(f, nil)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("warnings %v, error %v", warnings, err)
	}
	for i, want := range []float64{1, 2e3, 3e6, 4e3, 5e9, 6e9} {
		if got := x.At(i, 0); got != want {
			t.Errorf("n on row %d: %v, want %v", i, got, want)
		}
	}
	if x.At(1, 1) != 291 {
		t.Errorf("temp on row 1: %v, want 291 (K a unit, not a thousand)", x.At(1, 1))
	}
	x, warnings, err = e.Transform(readFrameString(t, "n,temp\n2.5M,300K\n7 kg,305\n"), nil)
	if err != nil || x.At(0, 0) != 2.5e6 || x.At(0, 1) != 300 || len(warnings) != 1 || warnings[0].Rows != 1 {
		t.Errorf("new rows encoded %v, %v, warnings %v, error %v; want 2.5e6, 300 and the stray 7 kg", x.At(0, 0), x.At(0, 1), warnings, err)
	}
	target, err := f.Target("y", false)
	if err != nil || len(target.Values) != 30 || target.Values[29] != 30 {
		t.Errorf("target %v, error %v; want 30 numbers in k", target.Values, err)
	}
	y := readFrameString(t, strings.ReplaceAll(b.String(), "k\n", "M\n"))
	if target, err = y.Target("n", false); err != nil || target.Values[4] != 5e9 {
		t.Errorf("target n %v, error %v; want the magnitudes", target, err)
	}
}

// TestOneMagnitudeBesidePlainNumbers reads a column of one suffix of
// magnitude beside plain numbers: as thousands where that brings its
// numbers nearer the plain ones (950 and 1.2k, $95,000 and $85K), and
// as a unit where it does not (295 and 300K, kelvins). The first two
// were read as 1.2 beside 950 and 85 beside 95,000, in silence.
func TestOneMagnitudeBesidePlainNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString("installs,salary,temp\n")
	for i := range 30 {
		installs := fmt.Sprintf("%d", 100+30*i)
		if i%2 == 1 {
			installs = fmt.Sprintf("%.1fk", 1+0.1*float64(i))
		}
		salary := fmt.Sprintf("\"$%d,000\"", 50+i)
		if i%3 == 0 {
			salary = fmt.Sprintf("$%dK", 60+i)
		}
		temp := fmt.Sprintf("%d", 280+i)
		if i%2 == 0 {
			temp = fmt.Sprintf("%dK", 280+i)
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", installs, salary, temp)
	}
	f := readFrameString(t, b.String())
	e, _, err := FitEncoder(f, []string{"installs", "salary", "temp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.Rules()
	if r[0].Unit != magnitudeUnit || r[1].Unit != magnitudeUnit || r[2].Unit != "K" {
		t.Fatalf("units %q, %q, %q; want %s, %s and K", r[0].Unit, r[1].Unit, r[2].Unit, magnitudeUnit, magnitudeUnit)
	}
	x, _, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row, col int
		want     float64
	}{{0, 0, 100}, {1, 0, 1100}, {0, 1, 60000}, {1, 1, 51000}, {0, 2, 280}, {1, 2, 281}} {
		if got := x.At(c.row, c.col); got != c.want {
			t.Errorf("row %d, column %q: %v, want %v", c.row, r[c.col].Name, got, c.want)
		}
	}
	target, err := f.Target("installs", false)
	if err != nil || target.Values[0] != 100 || target.Values[1] != 1100 {
		t.Errorf("target %v, error %v; want 100, 1100, ...", target, err)
	}
}

// TestCommonUnitSkipsNumbers checks that the column's unit is learned
// from the cells that are not plain numbers: times on the 12-hour clock
// end in letters but are hours, not a unit.
func TestCommonUnitSkipsNumbers(t *testing.T) {
	f := readFrameString(t, "x\n10:00 PM\n11:00 PM\n9:30 AM\n5 kg\n")
	if got := f.commonUnit(0, []int{0, 1, 2, 3}); got != "kg" {
		t.Errorf("commonUnit = %q, want kg", got)
	}
}

// TestTargetIn reads parts of a table's target in the unit of the
// Target of another part: 2.5k in thousands where the first part's
// numbers had magnitudes, though the part alone would make k a unit; a
// part without targets has no rows; a part in another unit than the
// first's has strays, dropped as Target drops them, or refused beyond
// their limit.
func TestTargetIn(t *testing.T) {
	first := readFrameString(t, "y\n950\n1.2k\n800\n3k\n")
	whole, err := first.Target("y", false)
	if err != nil || whole.Unit != magnitudeUnit {
		t.Fatalf("unit %q, error %v; want %s", whole.Unit, err, magnitudeUnit)
	}
	for _, tc := range []struct {
		text, unit string
		values     []float64
		dropped    int
		err        string
	}{
		{"y\n2.5k\n3k\n", whole.Unit, []float64{2500, 3000}, 0, ""},
		{"y\n2.5k\n3k\n", "", nil, 0, `not a number: "2.5k"`},
		{"y\nNA\n?\n", whole.Unit, nil, 2, ""},
		{"y\n5 kg\n6 kg\n7 kg\n8 kg\n9 kg\n10 kg\n1 lb\n", "kg", []float64{5, 6, 7, 8, 9, 10}, 1, ""},
	} {
		got, err := readFrameString(t, tc.text).TargetIn("y", tc.unit)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q in %q: error %v, want %s", tc.text, tc.unit, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got.Values, tc.values) || got.Dropped != tc.dropped {
			t.Errorf("%q in %q: target %+v, error %v; want %v, %d dropped", tc.text, tc.unit, got, err, tc.values, tc.dropped)
		}
	}
}

// TestLongIntegers checks that a column of whole numbers beyond 2^53,
// ids whose last digits a float64 loses, is read as text, each its own
// level, with a warning, and that other large numbers stay numbers.
func TestLongIntegers(t *testing.T) {
	for _, tc := range []struct {
		name, cells string // separated by |
		kind        string
		levels      int
		warned      int // the rows the warning counts, 0 for none
	}{
		// 9007199254740993 and ...992 are one float64.
		{"ids", "9007199254740993|9007199254740992|12|9007199254740993", "categorical", 3, 2},
		{"negative and beyond uint64", "-9223372036854775809|123456789012345678901|1", "categorical", 3, 2},
		{"2^53 itself", "9007199254740992|1|2", "numeric", 0, 0},
		{"a fraction", "9007199254740993.5|1|2", "numeric", 0, 0},
		{"an exponent", "9.1e15|1|2", "numeric", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := readFrameString(t, "id\n"+strings.ReplaceAll(tc.cells, "|", "\n")+"\n")
			e, _, err := FitEncoder(f, []string{"id"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := e.Rules()[0]
			warnings := f.Warnings()
			if r.Kind != tc.kind || len(r.Levels) != tc.levels {
				t.Errorf("rule %+v, want %s of %d levels", r, tc.kind, tc.levels)
			}
			switch {
			case tc.warned == 0 && warnings != nil:
				t.Errorf("warned %v", warnings)
			case tc.warned > 0 && (len(warnings) != 1 || warnings[0].Rows != tc.warned || !strings.Contains(warnings[0].Message, "beyond 2^53")):
				t.Errorf("warned %v, want one of %d rows", warnings, tc.warned)
			}
		})
	}
}
