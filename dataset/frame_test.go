package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

func readFrameString(t *testing.T, data string) *Frame {
	t.Helper()
	f, err := ReadFrame(strings.NewReader(data), "test.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadFrame(t *testing.T) {
	f, err := LoadFrame(filepath.Join("testdata", "messy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Columns(), []string{"len", "supp", "dose", "fresh", "note"}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
	if f.Len() != 5 {
		t.Errorf("Len() = %d, want 5", f.Len())
	}
	if got := f.Name(); got != filepath.Join("testdata", "messy.csv") {
		t.Errorf("Name() = %q", got)
	}
	for _, c := range []struct {
		row, col int
		want     string
	}{
		{0, 1, "VC"}, // quoted
		{1, 2, ""},   // empty
		{3, 1, "NA"},
		{4, 2, "1e3"},
		{2, 3, "True"},
	} {
		if got := f.Cell(c.row, c.col); got != c.want {
			t.Errorf("Cell(%d, %d) = %q, want %q", c.row, c.col, got, c.want)
		}
	}
	if j, err := f.Column("fresh"); err != nil || j != 3 {
		t.Errorf("Column(fresh) = %d, %v, want 3", j, err)
	}
}

func TestReadFrameText(t *testing.T) {
	// A byte order mark, spaces around names and cells, a quoted field
	// spanning two lines and a blank line.
	const data = "\ufeff a , b \n 1 , \"x\"\n\n2,\"y\nz\"\n3, w \n"
	f := readFrameString(t, data)
	if got, want := f.Columns(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
	var cells []string
	var lines []int
	for r := range f.Len() {
		cells = append(cells, f.Cell(r, 0), f.Cell(r, 1))
		lines = append(lines, f.Line(r))
	}
	if want := []string{"1", "x", "2", "y\nz", "3", "w"}; !slices.Equal(cells, want) {
		t.Errorf("cells %q, want %q", cells, want)
	}
	if want := []int{2, 4, 6}; !slices.Equal(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
	// A byte order mark before a quoted name, as pandas' to_csv with
	// utf-8-sig and quoting writes it.
	if got, want := readFrameString(t, "\ufeff\"a\",\"b\"\n1,2\n").Columns(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("columns %q, want %q", got, want)
	}
}

func TestReadFrameErrors(t *testing.T) {
	for _, test := range []struct {
		name, data string
		err        error  // wrapped sentinel, if any
		msg        string // the whole message
	}{
		{"empty", "", ErrEmpty, "test.csv: empty file"},
		{"header only", "a,b\n", ErrNoRows, "test.csv: no data rows after the header"},
		{"empty name", "a,,c\n1,2,3\n", nil, "test.csv: row 1: field 2 of the header is empty"},
		{"blank name", "a, \n1,2\n", nil, "test.csv: row 1: field 2 of the header is empty"},
		{"duplicate", "a,b, a\n1,2,3\n", ErrDuplicate, `test.csv: row 1, column "a": duplicate column name`},
		{"short row", "a,b\n1,2\n3\n", ErrFieldCount, "test.csv: row 3: wrong number of fields: 1, header has 2"},
		{"thousands unquoted", "a,b,c\n1,2,3\nx,1,234,5\n", ErrFieldCount,
			`test.csv: row 3: wrong number of fields: 4, header has 3: does it hold a number with commas between its thousands, such as 1,234, unquoted? Quote such numbers ("1,234"), or write them without the commas`},
		{"footnote", "a,b\n1,2\n\nSource: a survey of 2023\n", ErrFieldCount,
			"test.csv: row 4: wrong number of fields: 1, header has 2: is the line a note below the table, such as its source or a footnote? The file must end with the table's last row"},
		{"long row", "a,b\n1,2\n\n3,4,5\n", ErrFieldCount, "test.csv: row 4: wrong number of fields: 3, header has 2"},
		{"bare quote", "a,b\n1,x\"y\n", nil, `test.csv: row 2: bare " in non-quoted-field`},
		// A title or a note above the header, with and without the
		// separators of the table's other columns.
		{"title", "Sales in 2026,,,\na,b,c,d\n1,2,3,4\n", nil,
			"test.csv: row 1: field 2 of the header is empty, as are all but the first: is the first line a title above the header? The header must come first"},
		{"note", "# exported 2026-11-30\na,b\n1,2\n", ErrFieldCount,
			"test.csv: row 2: wrong number of fields: 2, header has 1: is the first line a title or a note above the header? The header must come first"},
		// Every line ends in a separator, but one with a value there.
		{"value in an unnamed column", "a,b,c,,,\n1,2,3,,,\n4,5,6,,7,\n", ErrFieldCount,
			"test.csv: row 3: wrong number of fields: 6, header has 3: a value after the header's last named column, in a field that it leaves unnamed"},
		{"trailing value", "a,b,c,\n1,2,3,\n4,5,6,7\n", ErrFieldCount,
			"test.csv: row 3: wrong number of fields: 4, header has 3: a value after the header's last named column, in a field that it leaves unnamed"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := ReadFrame(strings.NewReader(test.data), "test.csv")
			if err == nil {
				t.Fatal("no error")
			}
			if test.err != nil && !errors.Is(err, test.err) {
				t.Errorf("error %v does not wrap %v", err, test.err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %v is not a *ParseError", err)
			}
			if err.Error() != test.msg {
				t.Errorf("error\n%s\nwant\n%s", err, test.msg)
			}
		})
	}
}

func TestFrameColumnError(t *testing.T) {
	f := readFrameString(t, "a,b\n1,2\n")
	_, err := f.Column("c")
	if !errors.Is(err, ErrNoColumn) {
		t.Errorf("error %v does not wrap ErrNoColumn", err)
	}
	if want := `test.csv: column "c": no such column; the file has "a", "b"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// column returns a one-column frame holding cells, for type inference.
func column(t *testing.T, cells ...string) *Frame {
	t.Helper()
	return readFrameString(t, "x\n"+strings.Join(cells, "\n")+"\n")
}

func TestInferKind(t *testing.T) {
	for _, test := range []struct {
		name  string
		cells []string
		want  kind
	}{
		{"numbers", []string{"1", "-2.5", "1e3", "0.25"}, numeric},
		{"quoted numbers", []string{`"1"`, `" 2.5"`, "3"}, numeric},
		{"whole numbers", []string{"0", "1", "1", "0"}, numeric},
		{"empty", []string{"1", `""`, "2"}, numeric},
		{"NA", []string{"1", "NA", "na", "2"}, numeric},
		{"N/A", []string{"1", "N/A", "n/a"}, numeric},
		{"question mark", []string{"?", "1"}, numeric},
		{"NaN", []string{"NaN", "nan", "NAN", "1"}, numeric},
		{"null", []string{"null", "NULL", "Null", "1"}, numeric},
		{"true false", []string{"true", "false"}, boolean},
		{"TRUE FALSE", []string{"TRUE", "FALSE", "NA"}, boolean},
		{"True False", []string{"True", "False"}, boolean},
		{"yes no", []string{"yes", "no", "YES", "No", ""}, boolean},
		{"mixed booleans", []string{"true", "no"}, boolean},
		{"words", []string{"VC", "OJ"}, categorical},
		{"text among numbers", []string{"1", "2", "a"}, categorical},
		{"number among booleans", []string{"true", "1"}, categorical},
		{"levels like ranges", []string{"0-5yrs", "6-11yrs"}, categorical},
		{"infinity among text", []string{"Inf", "big"}, categorical},
		{"T and F are text", []string{"T", "F"}, categorical},
		{"dates", []string{"2024-01-31", "2023-12-01", "NA", "2024-02-29"}, date},
		{"times", []string{"2024-01-31 10:00", "2024-01-31T11:30:00Z"}, date},
		{"text among dates", []string{"2024-01-31", "soon"}, categorical},
		{"a number among dates", []string{"2024-01-31", "2024"}, categorical},
		{"years are numbers", []string{"2023", "2024"}, numeric},
		{"one currency", []string{"$5", "-$7.5", "8"}, numeric},
		{"two currencies", []string{"$5", "7 €"}, categorical},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := column(t, test.cells...)
			got, err := f.inferKind(0, f.allRows(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got != test.want {
				t.Errorf("kind %v, want %v", got, test.want)
			}
		})
	}
}

// TestEmpty checks Frame.Empty on all rows and on some.
func TestEmpty(t *testing.T) {
	f := readFrameString(t, "a,b\n1,\nNA,x\n,?\n")
	for _, test := range []struct {
		col  int
		rows []int
		want bool
	}{
		{0, nil, false},
		{0, []int{1, 2}, true},
		{1, nil, false},
		{1, []int{0, 2}, true},
		{1, []int{1}, false},
	} {
		if got := f.Empty(test.col, test.rows); got != test.want {
			t.Errorf("Empty(%d, %v) = %v, want %v", test.col, test.rows, got, test.want)
		}
	}
}

func TestInferKindErrors(t *testing.T) {
	for _, test := range []struct {
		name  string
		cells []string
		err   error
		msg   string
	}{
		{"all missing", []string{"NA", "", "?"}, ErrEmptyColumn,
			`test.csv: column "x": column has no values: every row is missing one`},
		{"Inf", []string{"1", "Inf", "2"}, ErrInf, `test.csv: row 3, column "x": value is infinite: "Inf"`},
		{"overflow", []string{"1", "NA", "-1e999"}, ErrInf, `test.csv: row 4, column "x": value is infinite: "-1e999"`},
	} {
		t.Run(test.name, func(t *testing.T) {
			f := column(t, test.cells...)
			_, err := f.inferKind(0, f.allRows(nil))
			if !errors.Is(err, test.err) {
				t.Errorf("error %v does not wrap %v", err, test.err)
			}
			if err == nil || err.Error() != test.msg {
				t.Errorf("error\n%v\nwant\n%s", err, test.msg)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	f := readFrameString(t, "x,y,c\n1,2.5,b\n2,NA,a\n3,-1,\n4,1e3,b\n")
	reg, err := f.Target("y", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 2, 3}; !slices.Equal(reg.Rows, want) {
		t.Errorf("regression rows %v, want %v", reg.Rows, want)
	}
	if want := []float64{2.5, -1, 1000}; !slices.Equal(reg.Values, want) {
		t.Errorf("values %v, want %v", reg.Values, want)
	}
	if reg.Dropped != 1 || reg.Classes != nil || reg.Labels != nil {
		t.Errorf("regression target %+v", reg)
	}

	cls, err := f.Target("c", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 3}; !slices.Equal(cls.Rows, want) {
		t.Errorf("classification rows %v, want %v", cls.Rows, want)
	}
	if want := []string{"a", "b"}; !slices.Equal(cls.Classes, want) {
		t.Errorf("classes %q, want %q", cls.Classes, want)
	}
	if want := []int{1, 0, 1}; !slices.Equal(cls.Labels, want) {
		t.Errorf("labels %v, want %v", cls.Labels, want)
	}
	if cls.Dropped != 1 || cls.Values != nil {
		t.Errorf("classification target %+v", cls)
	}

	// Classes are the raw text, sorted as strings.
	num, err := f.Target("x", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "3", "4"}; !slices.Equal(num.Classes, want) {
		t.Errorf("classes %q, want %q", num.Classes, want)
	}
}

func TestTargetErrors(t *testing.T) {
	f := readFrameString(t, "x,y,c,e\n1,2.5,b,\n2,high,b,NA\n")
	for _, test := range []struct {
		column   string
		classify bool
		err      error
		msg      string
	}{
		{"y", false, ErrNumber, `test.csv: row 3, column "y": not a number: "high"`},
		{"c", true, ErrOneClass, `test.csv: column "c": target has a single class "b"`},
		{"e", false, ErrEmptyColumn, `test.csv: column "e": column has no values: every row is missing one, so no row is left to learn from`},
		{"e", true, ErrEmptyColumn, `test.csv: column "e": column has no values: every row is missing one, so no row is left to learn from`},
		{"z", false, ErrNoColumn, `test.csv: column "z": no such column; the file has "x", "y", "c", "e"`},
	} {
		_, err := f.Target(test.column, test.classify)
		if !errors.Is(err, test.err) {
			t.Errorf("Target(%q, %t): error %v does not wrap %v", test.column, test.classify, err, test.err)
		}
		if err == nil || err.Error() != test.msg {
			t.Errorf("Target(%q, %t): error\n%v\nwant\n%s", test.column, test.classify, err, test.msg)
		}
	}
	f = readFrameString(t, "1.5,2\n3,4\n")
	want := `test.csv: column "y": no such column; the file has "1.5", "2": its first line holds numbers only, and a table's first line names its columns`
	if _, err := f.Target("y", false); err == nil || err.Error() != want {
		t.Errorf("a file without a header: error\n%v\nwant\n%s", err, want)
	}
	f = readFrameString(t, "x,Y\n3,4\n")
	want = `test.csv: column "y": no such column; the file has "x", "Y", of which "Y" differs in case only: names are matched exactly`
	if _, err := f.Target("y", false); err == nil || err.Error() != want {
		t.Errorf("a column named in another case: error\n%v\nwant\n%s", err, want)
	}
	f = readFrameString(t, "y\n1\nInf\n")
	if _, err := f.Target("y", false); !errors.Is(err, ErrInf) {
		t.Errorf("infinite target: error %v does not wrap ErrInf", err)
	}
}

// TestPanelData reads the tables users hand over, R's and scikit-learn's
// data sets, and encodes every column.
func TestPanelData(t *testing.T) {
	// The panel sits beside the repository, in ../shared.
	const dir = "../../shared/panel/data"
	paths, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(paths) == 0 {
		testutil.Missing(t, "the tabular panel", fmt.Errorf("no CSV files in %s", dir))
	}
	// The encoded columns of a few tables, by the rules of FitEncoder.
	names := map[string][]string{
		"airquality.csv":  {"Ozone", "Ozone:missing", "Solar.R", "Solar.R:missing", "Wind", "Temp", "Month", "Day"},
		"toothgrowth.csv": {"len", "supp=OJ", "supp=VC", "dose"},
		"infert.csv":      {"education", "age", "parity", "induced", "case", "spontaneous", "stratum", "pooled.stratum"},
		"esoph.csv":       {"agegp", "alcgp", "tobgp", "ncases", "ncontrols"},
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := LoadFrame(path)
			if err != nil {
				t.Fatal(err)
			}
			e, _, err := FitEncoder(f, f.Columns(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want, ok := names[filepath.Base(path)]; ok && !slices.Equal(e.Names(), want) {
				t.Errorf("names %q, want %q", e.Names(), want)
			}
			x, _, err := e.Transform(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r, c := x.Dims(); r != f.Len() || c != len(e.Names()) {
				t.Errorf("%d×%d matrix for %d rows and %d names", r, c, f.Len(), len(e.Names()))
			}
		})
	}
}

// checkChunks checks that reading data two rows at a time gives the rows
// of whole, read at once.
func checkChunks(t *testing.T, data []byte, whole *Frame) {
	t.Helper()
	r, err := NewFrameReader(strings.NewReader(string(data)), "fuzz.csv", FrameOptions{})
	if err != nil {
		t.Fatalf("the header read whole, but not alone: %v", err)
	}
	row := 0
	for {
		chunk, err := r.Read(2)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read whole, but in chunks: %v", err)
		}
		if chunk.Comma() != whole.Comma() || chunk.DecimalComma() != whole.DecimalComma() {
			t.Fatalf("chunk read with separator %q, decimal comma %v; the whole with %q, %v",
				chunk.Comma(), chunk.DecimalComma(), whole.Comma(), whole.DecimalComma())
		}
		for i := range chunk.Len() {
			if row >= whole.Len() || chunk.Line(i) != whole.Line(row) || !slices.Equal(chunk.cells[i], whole.cells[row]) {
				t.Fatalf("row %d differs in chunks", row)
			}
			row++
		}
	}
	if row != whole.Len() {
		t.Fatalf("%d rows in chunks, %d whole", row, whole.Len())
	}
}

// checkStrict reads data strictly, as a CSV file that reads, and fits an
// encoder to every column: an error must be a *ParseError.
func checkStrict(t *testing.T, data []byte) {
	r, err := NewFrameReader(strings.NewReader(string(data)), "fuzz.csv", FrameOptions{Strict: true})
	if err != nil {
		t.Fatalf("read strictly: %v", err)
	}
	f, err := r.ReadAll()
	if err != nil {
		t.Fatalf("read strictly: %v", err)
	}
	var pe *ParseError
	if _, _, err := FitEncoder(f, f.Columns(), nil); err != nil && !errors.As(err, &pe) {
		t.Fatalf("error %v read strictly is not a *ParseError", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	for _, name := range []string{"messy.csv", "train.csv", "flowers.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Separators, decimal commas, thousands, percentages, currencies, dates
	// and row names.
	f.Add([]byte("x;y;z\n1,5;\"4.599,0\";a\n2;17%;b\n"))
	f.Add([]byte("p,q,d\n\"$1,234.50\",12 €,2024-01-31\n-$5,£3,2024-02-01T10:00:00Z\n"))
	f.Add([]byte("us,eu,both\n01/31/2024,31.01.2024,01/02/2024\n2/13/2024 13:45,1.2.2023,03/04/2024\n"))
	f.Add([]byte("named,month\n31-Jan-2024,2024-01\nJan 31, 2024,Jan 2024\n"))
	f.Add([]byte("x\ty\n0,5\t1\n\"\"\t2\n"))
	f.Add([]byte("\"\",\"x\",\"y\"\n\"1\",\"4,599.0\",99.9%\n\"2\",3,1%\n"))
	// Times of day and durations.
	f.Add([]byte("t,d\n13:45,1:02:03.5\n0:00,125:30\n9:05,-\n10:00 PM,12:30 a.m.\n"))
	// Units of measure.
	f.Add([]byte("w,v\n12 kg,5 km/h\n3.5kg,20 m²\n7 lb,1 month\n"))
	// Missing codes, and numbers read as text beside too many codes.
	f.Add([]byte("m,t\n1,-\n2,.\n-,x\n4,4\n5,5\n.,6\n7,none\n8,8\n9,9\n10,-\n11,11\n-,12\n"))
	// Suffixes of magnitude.
	f.Add([]byte("n,u\n950,3K\n1.2k,4K\n3.4M,5K\n$1.5B,\n2bn,6K\n7 kg,7K\n"))
	// Lines that end in a separator, and a title above the header.
	f.Add([]byte("a,b,c,\n1,2,3,\n4,5,6\n7,8,9,10\n"))
	f.Add([]byte("Report,,\na,b,c\n1,2,3\n"))
	// Lines that end in a lone carriage return.
	f.Add([]byte("x;y\r1,5;2\r\"a\rb\";3\r"))
	// Spreadsheets' error values, and amounts in parentheses.
	f.Add([]byte("e,a\n1,(1,234.50)\n#DIV/0!,($5)\n3,(5 $)\n#N/A,(0)\n5,((5))\n#value!,(-5)\n7,8\n8,9\n9,10\n10,11\n11,()\n"))
	// A separator's line, a mark before a quoted name, a repeated
	// header, empty unnamed columns, quoted decimal commas, numbers
	// marked as text, ids beyond 2^53 and dates in two forms.
	f.Add([]byte("sep=;\r\n\ufeff\"a\";b;;\r\n1,5;'2;;\r\na;b;;\r\n=\"3\";4;;\r\n"))
	f.Add([]byte("\ufeff\"d\",\"n\",\"i\"\n2024-01-31,\"1,5\",9007199254740993\n13/02/2024,\"2,25\",12\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := ReadFrame(strings.NewReader(string(data)), "fuzz.csv")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		if fr.Len() == 0 || len(fr.Columns()) == 0 {
			t.Fatalf("%d rows, %d columns", fr.Len(), len(fr.Columns()))
		}
		for r := range fr.Len() {
			if len(fr.cells[r]) != len(fr.Columns()) {
				t.Fatalf("row %d has %d cells", r, len(fr.cells[r]))
			}
			if r > 0 && fr.Line(r) <= fr.Line(r-1) {
				t.Fatalf("line %d of row %d after line %d", fr.Line(r), r, fr.Line(r-1))
			}
		}
		checkChunks(t, data, fr)
		checkStrict(t, data)
		e, _, err := FitEncoder(fr, fr.Columns(), nil)
		if err != nil {
			return
		}
		if e.Width()*fr.Len() > 1e6 {
			// Distinct texts in every row make a matrix of size
			// rows², too slow to fill.
			return
		}
		x, _, err := e.Transform(fr, nil)
		if err != nil {
			t.Fatalf("Transform of the training rows: %v", err)
		}
		if _, c := x.Dims(); c != len(e.Names()) {
			t.Fatalf("%d columns, %d names", c, len(e.Names()))
		}
	})
}

// TestReadFrameTrailingSeparator reads a table whose lines end in a
// separator, as some programs export them: the empty field after it
// names no column, and rows with it or without it read alike. Its header
// was refused for an empty name.
func TestReadFrameTrailingSeparator(t *testing.T) {
	for _, tc := range []struct {
		data    string
		columns []string
		last    string // the last row's last cell
	}{
		{"a;b;c;\n1,5;2;x;\n3;4;y;\n", []string{"a", "b", "c"}, "y"},
		{"a,b,c,\n1,2,x,\n3,4,y\n", []string{"a", "b", "c"}, "y"},
		{",a,b,\n1,2,3,\n2,4,5,\n", []string{RowNamesColumn, "a", "b"}, "5"},
		// Columns that a spreadsheet formatted but left empty.
		{"a,b,c,,,\n1,2,x,,,\n3,4,y,,\n", []string{"a", "b", "c"}, "y"},
	} {
		f := readFrameString(t, tc.data)
		if !slices.Equal(f.Columns(), tc.columns) || f.Len() != 2 || f.Cell(1, 2) != tc.last {
			t.Errorf("%q: columns %q, %d rows, last cell %q", tc.data, f.Columns(), f.Len(), f.Cell(1, 2))
		}
	}
}

// TestRepeatedHeader reads tables joined end to end, whose later headers
// are left out with one warning, and keeps rows that only resemble one.
func TestRepeatedHeader(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		rows       int
		warning    string
	}{
		{"once", "a,b\n1,2\na,b\n3,4\n", 2, "test.csv: line 3 repeats the header, as tables joined end to end do: left out"},
		{"twice, quoted, with a mark", "a,'b c'\n1,2\n\ufeffa,\"'b c'\"\n3,4\n a , b c\n", 2,
			"test.csv: 2 lines repeat the header, the first on line 3, as tables joined end to end do: left out"},
		{"row names", ",x\n1,2\n,x\n3,4\n", 2, "test.csv: line 3 repeats the header"},
		{"one field differs", "a,b\n1,2\na,c\n", 2, ""},
		{"one column", "a\n1\na\n", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := readFrameString(t, tc.data)
			w := f.Warnings()
			if f.Len() != tc.rows {
				t.Errorf("%d rows, want %d", f.Len(), tc.rows)
			}
			switch {
			case tc.warning == "" && w != nil:
				t.Errorf("warned %v", w)
			case tc.warning != "" && (len(w) != 1 || !strings.HasPrefix(w[0].Message, tc.warning)):
				t.Errorf("warned %v, want %q", w, tc.warning)
			}
		})
	}
}

// TestBelowTable reads tables that end with the lines a spreadsheet
// exports below them, notes and empty fields, left out with one warning,
// and keeps such lines where a row of the table follows them, or where
// they are no note, read at once and in parts of two rows.
func TestBelowTable(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		lines      []int // of the rows read
		warning    string
	}{
		{"a note", "x,g,y\n1,a,2\n3,b,4\n\"Source: national survey, 2023\",,\n", []int{2, 3},
			`test.csv: line 4, below the table's last row, holds a note ("Source: national survey, 2023") and no other value, as a spreadsheet's footnotes do: left out`},
		{"empty fields and notes", "x,g,y\n1,a,2\n3,b,4\n,,\nNote: y in kg,,\n* p < 0.05,,\n", []int{2, 3},
			`test.csv: the 3 lines from line 4, below the table's last row, hold a note ("Note: y in kg") and no other value, as a spreadsheet's footnotes do: left out`},
		{"empty fields only", "x,g,y\n1,a,2\n3,b,4\n,,\n,,\n", []int{2, 3},
			"test.csv: the 2 lines from line 4, below the table's last row, hold empty fields only, as a spreadsheet exports the rows below a table: left out"},
		{"rows follow", "x,g,y\n1,a,2\n,,\nNote: in kg,,\n3,b,4\n", []int{2, 3, 4, 5}, ""},
		{"a word", "x,g,y\n1,a,2\n3,b,4\nChad,,\n", []int{2, 3, 4}, ""},
		{"a number", "g,x,y\nfoo,1,2\nbar,3,4\n5 kg,,\n", []int{2, 3, 4}, ""},
		{"a value besides", "x,g,y\n1,a,2\n3,b,4\nSource: me,,5\n", []int{2, 3, 4}, ""},
		{"one column", "x\n1\n2\nSource: me\n", []int{2, 3, 4}, ""},
		{"no table above", "x,g,y\n,,\nSource: me,,\n", []int{2, 3}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, part := range []int{0, 2} {
				fr, err := NewFrameReader(strings.NewReader(tc.data), "test.csv", FrameOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var lines []int
				var w []Warning
				var last *Frame
				for {
					f, err := fr.Read(part)
					if err == io.EOF {
						// The rows below the table are known at its end.
						w = append(w, last.Warnings()...)
						break
					}
					last = f
					if err != nil {
						t.Fatal(err)
					}
					for r := range f.Len() {
						lines = append(lines, f.Line(r))
					}
					if f.Len() > part && part > 0 {
						t.Errorf("read %d rows, at most %d asked", f.Len(), part)
					}
					w = append(w, f.Warnings()...)
				}
				if !slices.Equal(lines, tc.lines) {
					t.Errorf("parts of %d: rows on lines %v, want %v", part, lines, tc.lines)
				}
				switch {
				case tc.warning == "" && w != nil:
					t.Errorf("parts of %d: warned %v", part, w)
				case tc.warning != "" && (len(w) != 1 || w[0].Message != tc.warning):
					t.Errorf("parts of %d: warned %v, want %q", part, w, tc.warning)
				}
			}
		})
	}
}

// TestSepLine reads tables whose first line names their separator, as
// spreadsheets write "sep=;", and numbers their lines as the file does.
func TestSepLine(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		comma      rune // of the options
		columns    []string
		err        string // of reading the rows, if any
	}{
		{"semicolons", "sep=;\r\na;b\r\n1,5;2\r\n", 0, []string{"a", "b"}, ""},
		{"tabs, after a mark", "\ufeffsep=\t\na\tb\n1,5\t2\n", 0, []string{"a", "b"}, ""},
		{"a wrong row", "sep=|\na|b\n1|2\n3|4|5\n", 0, []string{"a", "b"}, "test.csv: row 4: wrong number of fields: 3, header has 2"},
		{"the option first", "sep=;\na,b\n1,2\n", ',', []string{"a", "b"}, ""},
		{"no separator", "sep=\na,b\n1,2\n", 0, []string{"sep="}, "test.csv: row 2: wrong number of fields: 2, header has 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewFrameReader(strings.NewReader(tc.data), "test.csv", FrameOptions{Comma: tc.comma})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Columns(), tc.columns) {
				t.Fatalf("columns %q, want %q", r.Columns(), tc.columns)
			}
			f, err := r.ReadAll()
			switch {
			case tc.err != "":
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case f.Line(0) != 3:
				t.Errorf("the first row on line %d, want 3", f.Line(0))
			case tc.comma == 0:
				if v, err := f.Number(0, 0); v != 1.5 {
					t.Errorf("read %v (%v), want 1.5 with a decimal comma", v, err)
				}
			}
		})
	}
	_, err := NewFrameReader(strings.NewReader("sep=;\na;a\n1;2\n"), "test.csv", FrameOptions{})
	if want := `test.csv: row 2, column "a": duplicate column name`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
