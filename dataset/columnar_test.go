package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	flatbuffers "github.com/google/flatbuffers/go"
)

// typedCSV is the table of typedBatch as a CSV file writes it.
const typedCSV = `x,n,f32,u8,flag,colour,size,day,at,local,price,none
1.5,3,0.1,7,true,red,S,2024-01-31,2024-01-31T13:45:30.5Z,2024-01-31 13:45:30,12.5,
NaN,-2,,0,false,blue,M,,2024-02-01T00:00:00Z,2024-02-01 08:00:00,,
,100000000000,2.5,255,,,L,2023-12-31,,2024-02-02 00:00:00,-0.01,
-1e+300,0,-3,,true,NA,S,2024-02-29,2025-06-01T23:59:59Z,,7,
`

// typedBatch returns a record batch of the table of typedCSV with a
// column of each type that a table reads: numbers, booleans, text (with
// spaces, trimmed, and NA, missing), a dictionary, dates, timestamps
// with and without a time zone, decimals and nulls.
func typedBatch(t testing.TB) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	at := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	local := &arrow.TimestampType{Unit: arrow.Second}
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: " colour ", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "size", Type: dict, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at", Type: at, Nullable: true},
		{Name: "local", Type: local, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "none", Type: arrow.Null, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	valid := func(s ...bool) []bool { return s }
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, nan(), 0, -1e300}, valid(true, true, false, true))
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{3, -2, 1e11, 0}, nil)
	b.Field(2).(*array.Float32Builder).AppendValues([]float32{0.1, 0, 2.5, -3}, valid(true, false, true, true))
	b.Field(3).(*array.Uint8Builder).AppendValues([]uint8{7, 0, 255, 0}, valid(true, true, true, false))
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{true, false, false, true}, valid(true, true, false, true))
	b.Field(5).(*array.StringBuilder).AppendValues([]string{" red", "blue ", "", "NA"}, valid(true, true, false, true))
	if err := b.Field(6).(*array.BinaryDictionaryBuilder).AppendValueFromString("S"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"M", "L", "S"} {
		if err := b.Field(6).(*array.BinaryDictionaryBuilder).AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	days := func(s string) arrow.Date32 {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return arrow.Date32FromTime(d)
	}
	b.Field(7).(*array.Date32Builder).AppendValues([]arrow.Date32{days("2024-01-31"), 0, days("2023-12-31"), days("2024-02-29")}, valid(true, false, true, true))
	stamp := func(s string, unit arrow.TimeUnit) arrow.Timestamp {
		ts, err := arrow.TimestampFromString(s, unit)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	b.Field(8).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{
		stamp("2024-01-31T13:45:30.5", arrow.Millisecond), stamp("2024-02-01T00:00:00", arrow.Millisecond), 0, stamp("2025-06-01T23:59:59", arrow.Millisecond)},
		valid(true, true, false, true))
	b.Field(9).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{
		stamp("2024-01-31T13:45:30", arrow.Second), stamp("2024-02-01T08:00:00", arrow.Second), stamp("2024-02-02T00:00:00", arrow.Second), 0},
		valid(true, true, true, false))
	b.Field(10).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(1250), {}, decimal128.FromI64(-1), decimal128.FromI64(700)}, valid(true, false, true, true))
	b.Field(11).(*array.NullBuilder).AppendNulls(4)
	return b.NewRecordBatch()
}

func nan() float64 { v := 0.0; return v / v }

// writeParquet writes the batches, of one schema, as a Parquet file of
// row groups of at most groupRows rows.
func writeParquet(t testing.TB, path string, groupRows int64, batches ...arrow.RecordBatch) {
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(groupRows))
	fw, err := pqarrow.NewFileWriter(batches[0].Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := fw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, buf.Bytes())
}

// writeArrow writes the batches, of one schema, as an Arrow IPC file, or
// stream if stream is set.
func writeArrow(t testing.TB, path string, stream bool, batches ...arrow.RecordBatch) {
	var buf bytes.Buffer
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	var err error
	if stream {
		w = ipc.NewWriter(&buf, ipc.WithSchema(batches[0].Schema()))
	} else if w, err = ipc.NewFileWriter(&buf, ipc.WithSchema(batches[0].Schema())); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, buf.Bytes())
}

func writeFile(t testing.TB, path string, data []byte) {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// frameText returns the columns and the cells of f.
func frameText(f *Frame) [][]string {
	text := [][]string{slices.Clone(f.Columns())}
	for r := range f.Len() {
		text = append(text, f.cells[r])
	}
	return text
}

// TestTypedColumns reads the table of typedBatch from Parquet, Arrow
// files and streams, and finds the cells that the CSV file of the table
// holds.
func TestTypedColumns(t *testing.T) {
	want, err := ReadFrame(strings.NewReader(typedCSV), "typed.csv")
	if err != nil {
		t.Fatal(err)
	}
	batch := typedBatch(t)
	defer batch.Release()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		write func(path string)
	}{
		{"typed.parquet", func(p string) { writeParquet(t, p, 3, batch) }},
		{"typed.arrow", func(p string) { writeArrow(t, p, false, batch) }},
		{"typed.arrows", func(p string) { writeArrow(t, p, true, batch) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			tc.write(path)
			got, err := LoadTable(path)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := frameText(got), frameText(want); !slices.EqualFunc(g, w, slices.Equal) {
				t.Errorf("cells\n%q\nwant\n%q", g, w)
			}
			if got.Line(3) != 4 || got.Name() != path || got.File(3) != path {
				t.Errorf("row 3 is row %d of %s (%s), want row 4 of %s", got.Line(3), got.File(3), got.Name(), path)
			}
		})
	}
}

// TestTableChunks reads a table of several batches and row groups a
// few rows at a time, across their boundaries, and from a stream.
func TestTableChunks(t *testing.T) {
	batch := typedBatch(t)
	defer batch.Release()
	dir := t.TempDir()
	want, err := ReadFrame(strings.NewReader(typedCSV+strings.SplitAfterN(typedCSV, "\n", 2)[1]), "twice.csv")
	if err != nil {
		t.Fatal(err)
	}
	writeParquet(t, filepath.Join(dir, "twice.parquet"), 3, batch, batch)
	writeArrow(t, filepath.Join(dir, "twice.arrow"), false, batch, batch)
	stream, err := os.ReadFile(filepath.Join(dir, "twice.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		open func() (*TableReader, error)
	}{
		{"parquet", func() (*TableReader, error) { return OpenTable(filepath.Join(dir, "twice.parquet"), FrameOptions{}) }},
		{"arrow", func() (*TableReader, error) { return OpenTable(filepath.Join(dir, "twice.arrow"), FrameOptions{}) }},
		{"arrow file on a stream", func() (*TableReader, error) {
			return NewTableReader(bytes.NewReader(stream), "standard input", FrameOptions{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tc.open()
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			var rows, lines []int
			got := [][]string{slices.Clone(tr.Columns())}
			for {
				f, err := tr.Read(3)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, f.Len())
				for r := range f.Len() {
					got = append(got, f.cells[r])
					lines = append(lines, f.Line(r))
				}
			}
			if w := frameText(want); !slices.EqualFunc(got, w, slices.Equal) {
				t.Errorf("cells\n%q\nwant\n%q", got, w)
			}
			if !slices.Equal(rows, []int{3, 3, 2}) || !slices.Equal(lines, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
				t.Errorf("parts of %v rows numbered %v, want 3, 3, 2 numbered 1 to 8", rows, lines)
			}
		})
	}
}

// TestTableGlob reads files that match a pattern, of three formats, as
// one table, and refuses files whose columns differ.
func TestTableGlob(t *testing.T) {
	batch := typedBatch(t)
	defer batch.Release()
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "part-1.parquet"), 2, batch)
	writeArrow(t, filepath.Join(dir, "part-2"), false, batch)
	writeFile(t, filepath.Join(dir, "part-3.csv"), []byte(typedCSV))
	pattern := filepath.Join(dir, "part-*")
	f, err := LoadTable(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 12 || f.Name() != pattern {
		t.Fatalf("%d rows named %s, want 12 named %s", f.Len(), f.Name(), pattern)
	}
	for _, tc := range []struct {
		row, line int
		file      string
	}{{0, 1, "part-1.parquet"}, {3, 4, "part-1.parquet"}, {4, 1, "part-2"}, {8, 2, "part-3.csv"}, {11, 5, "part-3.csv"}} {
		if f.File(tc.row) != filepath.Join(dir, tc.file) || f.Line(tc.row) != tc.line {
			t.Errorf("row %d: line %d of %s, want %d of %s", tc.row, f.Line(tc.row), f.File(tc.row), tc.line, tc.file)
		}
	}
	// An error in a cell names its file.
	if err := f.cellError(5, 0, ErrNumber); !strings.HasPrefix(err.Error(), filepath.Join(dir, "part-2")+": row 2, column \"x\"") {
		t.Errorf("error %q does not locate row 2 of part-2", err)
	}

	writeFile(t, filepath.Join(dir, "part-4.csv"), []byte("x,n\n1,2\n"))
	_, err = OpenTable(pattern, FrameOptions{})
	if !errors.Is(err, ErrSchema) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "part-4.csv")+": ") {
		t.Errorf("columns that differ: error %v, want ErrSchema naming part-4.csv", err)
	}
	if _, err := OpenTable(filepath.Join(dir, "none-*.parquet"), FrameOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a pattern without files: error %v, want os.ErrNotExist", err)
	}
	if _, err := OpenTable(dir, FrameOptions{}); err == nil || err.Error() != dir+": is a directory: name a table file in it, or its files by a pattern such as "+filepath.Join(dir, "*.csv") {
		t.Errorf("a directory: error %v, want one that offers a pattern", err)
	}
}

// batchOf returns a batch of one row of one column of type dt, holding
// a null.
func batchOf(dt arrow.DataType, names ...string) arrow.RecordBatch {
	var fields []arrow.Field
	for _, name := range names {
		fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: true})
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, f := range b.Fields() {
		f.AppendNull()
	}
	return b.NewRecordBatch()
}

// TestBadTables checks that damaged files, files whose name says
// another format, and columns that a table cannot hold are errors that
// name the file, and the column if one is at fault.
func TestBadTables(t *testing.T) {
	dir := t.TempDir()
	batch := typedBatch(t)
	defer batch.Release()
	writeParquet(t, filepath.Join(dir, "good.parquet"), 2, batch)
	writeArrow(t, filepath.Join(dir, "good.arrow"), false, batch)
	good := map[string][]byte{}
	for _, name := range []string{"good.parquet", "good.arrow"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		good[name] = data
	}
	listType := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	structType := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	for _, tc := range []struct {
		name   string
		write  func(path string)
		err    error
		column string
	}{
		{"half.parquet", func(p string) { writeFile(t, p, good["good.parquet"][:len(good["good.parquet"])/2]) }, ErrMalformed, ""},
		{"no-footer.parquet", func(p string) { writeFile(t, p, good["good.parquet"][:len(good["good.parquet"])-4]) }, ErrMalformed, ""},
		{"half.arrow", func(p string) { writeFile(t, p, good["good.arrow"][:len(good["good.arrow"])/2]) }, ErrMalformed, ""},
		{"header.arrow", func(p string) { writeFile(t, p, good["good.arrow"][:12]) }, ErrMalformed, ""},
		{"text.parquet", func(p string) { writeFile(t, p, []byte("x,y\n1,2\n")) }, ErrFormat, ""},
		{"empty.arrow", func(p string) { writeFile(t, p, nil) }, ErrFormat, ""},
		{"binary.parquet", func(p string) { writeParquet(t, p, 2, batchOf(arrow.BinaryTypes.Binary, "blob")) }, ErrColumnType, "blob"},
		{"duration.arrow", func(p string) { writeArrow(t, p, false, batchOf(arrow.FixedWidthTypes.Duration_s, "wait")) }, ErrColumnType, "wait"},
		{"list.parquet", func(p string) { writeParquet(t, p, 2, batchOf(listType, "tags")) }, ErrColumnType, "tags"},
		{"struct.arrow", func(p string) { writeArrow(t, p, true, batchOf(structType, "point")) }, ErrColumnType, "point"},
		{"twice.arrow", func(p string) { writeArrow(t, p, false, batchOf(arrow.PrimitiveTypes.Int8, "x", "x ")) }, ErrDuplicate, "x"},
		{"unnamed.parquet", func(p string) { writeParquet(t, p, 2, batchOf(arrow.PrimitiveTypes.Int8, " ")) }, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			tc.write(path)
			_, err := LoadTable(path)
			var pe *ParseError
			switch {
			case !errors.As(err, &pe):
				t.Fatalf("error %v, want a *ParseError", err)
			case tc.err != nil && !errors.Is(err, tc.err):
				t.Errorf("error %v, want %v", err, tc.err)
			case pe.File != path || pe.Column != tc.column:
				t.Errorf("error %v names file %q column %q, want %q and %q", err, pe.File, pe.Column, path, tc.column)
			}
		})
	}
	_, err := NewTableReader(bytes.NewReader(good["good.parquet"]), "standard input", FrameOptions{})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("Parquet on a stream: error %v, want ErrFormat", err)
	}
}

// TestCellTexts writes cells of the types that the CSV file of a table
// writes differently, or that hold nulls in more than one way, as text.
func TestCellTexts(t *testing.T) {
	mem := memory.NewGoAllocator()
	fromJSON := func(dt arrow.DataType, values string) arrow.Array {
		a, _, err := array.FromJSON(mem, dt, strings.NewReader(values))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	dict := array.NewDictionaryArray(dictType, fromJSON(arrow.PrimitiveTypes.Int16, "[0, 1, null, 2]"), fromJSON(arrow.BinaryTypes.String, `["a", null, "c"]`))
	for _, tc := range []struct {
		name string
		a    arrow.Array
		want []string
	}{
		{"date64", fromJSON(arrow.FixedWidthTypes.Date64, "[1706659200000, 1706708730500, null]"), []string{"2024-01-31", "2024-01-31 13:45:30.5", ""}},
		{"timestamp in Paris", fromJSON(&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"}, "[1706708730000000001]"), []string{"2024-01-31T13:45:30.000000001Z"}},
		{"float16", fromJSON(arrow.FixedWidthTypes.Float16, "[0.5, -2, null]"), []string{"0.5", "-2", ""}},
		{"large string", fromJSON(arrow.BinaryTypes.LargeString, `[" a b ", ""]`), []string{"a b", ""}},
		{"string view", fromJSON(arrow.BinaryTypes.StringView, `["x", null]`), []string{"x", ""}},
		{"decimal256", fromJSON(&arrow.Decimal256Type{Precision: 40, Scale: 3}, `["-12345678901234567890.125"]`), []string{"-12345678901234567890.125"}},
		{"dictionary with a null value", dict, []string{"a", "", "", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.a.Release()
			text, err := textOf(tc.a.DataType())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range tc.a.Len() {
				var b []byte
				if !isNull(tc.a, i) {
					b = text(b, tc.a, i)
				}
				got = append(got, strings.TrimSpace(string(b)))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("cells %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCSVGlob reads CSV files of one table with the first file's
// separator, and refuses files that write numbers differently.
func TestCSVGlob(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second string
		err           error
	}{
		// Alone, the second file would split at its commas.
		{"separator of the first", "a,b;c\n1;2\n", "a,b;c\nu,v;3\n", nil},
		{"decimal commas, then points", "a;b\n1,5;2\n", "a;b\n1.5;2\n", ErrSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "1.csv"), []byte(tc.first))
			writeFile(t, filepath.Join(dir, "2.csv"), []byte(tc.second))
			f, err := LoadTable(filepath.Join(dir, "*.csv"))
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "2.csv")) {
					t.Errorf("error %v, want %v naming 2.csv", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case f.Len() != 2 || len(f.Columns()) != 2:
				t.Errorf("%d rows of columns %q, want 2 of 2", f.Len(), f.Columns())
			}
		})
	}
}

// TestGlobColumnOrder reads files of a pattern whose columns come in
// other orders by their names, and refuses one of other columns, naming
// the file and the columns it lacks or adds.
func TestGlobColumnOrder(t *testing.T) {
	const first = "a,b,c\n1,2,x\n"
	for _, tc := range []struct {
		name, second, third string
		want                [][]string
		err                 string // the error after the second file's name
	}{
		{"same order", "a,b,c\n3,4,y\n", "a,b,c\n5,6,z\n", [][]string{{"a", "b", "c"}, {"1", "2", "x"}, {"3", "4", "y"}, {"5", "6", "z"}}, ""},
		{"other orders", "c,a,b\ny,3,4\n", "b,c,a\n6,z,5\n", [][]string{{"a", "b", "c"}, {"1", "2", "x"}, {"3", "4", "y"}, {"5", "6", "z"}}, ""},
		{"one lacking", "c,a\ny,3\n", first, nil, `lacks "b": the columns of the first file`},
		{"one more", "c,a,b,d\ny,3,4,5\n", first, nil, `has "d" besides: the columns of the first file`},
		{"one renamed", "a,B,c\n3,4,y\n", first, nil, `lacks "b" and has "B" besides: the columns`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, text := range []string{first, tc.second, tc.third} {
				writeFile(t, filepath.Join(dir, fmt.Sprintf("part-%d.csv", i+1)), []byte(text))
			}
			f, err := LoadTable(filepath.Join(dir, "part-*.csv"))
			if tc.err != "" {
				if !errors.Is(err, ErrSchema) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "part-2.csv")+": ") || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %v naming part-2.csv and saying %q", err, ErrSchema, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := frameText(f); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			// Cells are located by the table's column names.
			if err := f.cellError(2, 1, ErrNumber); !strings.Contains(err.Error(), `column "b"`) {
				t.Errorf("error %v, want one in column \"b\"", err)
			}
		})
	}
}

// TestReorder reads a file in the column order of another file of its
// table, and refuses another file's columns, saying whose they are.
func TestReorder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shard.csv")
	writeFile(t, path, []byte("c,a,b\ny,3,4\n"))
	for _, tc := range []struct {
		columns []string
		want    [][]string
		err     string
	}{
		{[]string{"a", "b", "c"}, [][]string{{"a", "b", "c"}, {"3", "4", "y"}}, ""},
		{[]string{"c", "a", "b"}, [][]string{{"c", "a", "b"}, {"y", "3", "4"}}, ""},
		{[]string{"a", "b"}, nil, `has "c" besides: the columns of the first file of -data are "a", "b"`},
	} {
		tr, err := OpenTable(path, FrameOptions{})
		if err != nil {
			t.Fatal(err)
		}
		err = tr.Reorder(tc.columns, "the first file of -data")
		if tc.err != "" {
			if !errors.Is(err, ErrSchema) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one naming %s and saying %q", tc.columns, err, path, tc.err)
			}
			if !slices.Equal(tr.Columns(), []string{"c", "a", "b"}) {
				t.Errorf("columns %q after a refusal, want the file's own", tr.Columns())
			}
			tr.Close()
			continue
		}
		f, err := tr.Read(10)
		tr.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := frameText(f); !slices.EqualFunc(got, tc.want, slices.Equal) || !slices.Equal(tr.Columns(), tc.columns) {
			t.Errorf("%q: read %q of columns %q, want %q", tc.columns, got, tr.Columns(), tc.want)
		}
	}
}

// TestBoundedAllocator checks that a buffer larger than maxBuffer, which
// only a damaged file claims, is an error rather than an allocation.
func TestBoundedAllocator(t *testing.T) {
	s := &columnarSource{format: frameFormat{name: "big.arrow"}}
	for name, allocate := range map[string]func(){
		"Allocate":   func() { allocator.Allocate(maxBuffer + 1) },
		"Reallocate": func() { allocator.Reallocate(maxBuffer+1, nil) },
	} {
		err := func() (err error) {
			defer s.recoverMalformed(&err)
			allocate()
			return nil
		}()
		if !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "big.arrow: ") {
			t.Errorf("%s: error %v, want ErrMalformed naming big.arrow", name, err)
		}
	}
}

// TestWriteFrame writes a CSV table as Parquet and Arrow, and reads it
// back: the same cells, numbers as float64 and text as strings, and a
// row group or batch for each writeRows rows.
func TestWriteFrame(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,name\n")
	for i := range writeRows + 1 {
		fmt.Fprintf(&b, "%d.5,n%d\n", i, i%7)
	}
	b.WriteString(",\n")
	want, err := ReadFrame(strings.NewReader(b.String()), "rows.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, format := range []TableFormat{Parquet, Arrow} {
		t.Run(format.String(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteFrame(&buf, format, want); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "rows."+strings.ToLower(format.String()))
			writeFile(t, path, buf.Bytes())
			tr, err := OpenTable(path, FrameOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			fields := tr.src.(*columnarSource).rr.Schema().Fields()
			if fields[0].Type.ID() != arrow.FLOAT64 || fields[1].Type.ID() != arrow.STRING {
				t.Errorf("columns of types %s and %s, want float64 and utf8", fields[0].Type, fields[1].Type)
			}
			if n := parts(t, format, buf.Bytes()); n != 2 {
				t.Errorf("%d row groups or batches, want 2", n)
			}
			got, err := tr.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(frameText(got), frameText(want), slices.Equal) {
				t.Errorf("the cells read back differ from those written")
			}
		})
	}
}

// parts returns the number of row groups of a Parquet file or of record
// batches of an Arrow file.
func parts(t *testing.T, format TableFormat, data []byte) int {
	if format == Parquet {
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return pf.NumRowGroups()
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return fr.NumRecords()
}

// schemaMessage returns an Arrow schema message of one field with one
// child nested depth deep, the innermost with custom metadata, and the
// positions of the lengths of its vectors: the fields, the first field's
// children, the innermost field's metadata and the message's.
func schemaMessage(depth int) (msg []byte, vectors map[string]int) {
	b := flatbuffers.NewBuilder(0)
	offsets := map[string]flatbuffers.UOffsetT{}
	vector := func(name string, table flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		b.StartVector(4, 1, 4)
		b.PrependUOffsetT(table)
		offsets[name] = b.EndVector(1)
		return offsets[name]
	}
	keyValue := func() flatbuffers.UOffsetT {
		b.StartObject(2)
		return b.EndObject()
	}
	metadata := vector("field metadata", keyValue())
	b.StartObject(7)
	b.PrependUOffsetTSlot(6, metadata, 0)
	field := b.EndObject()
	for range depth {
		children := vector("children", field)
		b.StartObject(7)
		b.PrependUOffsetTSlot(5, children, 0)
		field = b.EndObject()
	}
	fields := vector("fields", field)
	b.StartObject(4)
	b.PrependUOffsetTSlot(1, fields, 0)
	schema := b.EndObject()
	metadata = vector("message metadata", keyValue())
	b.StartObject(5)
	b.PrependByteSlot(1, schemaHeader, 0)
	b.PrependUOffsetTSlot(2, schema, 0)
	b.PrependUOffsetTSlot(4, metadata, 0)
	b.Finish(b.EndObject())
	msg = b.FinishedBytes()
	vectors = map[string]int{}
	for name, o := range offsets {
		vectors[name] = len(msg) - int(o)
	}
	return msg, vectors
}

// TestCheckMessage checks that a schema's vectors of fields and of
// metadata, at any depth, must fit in its message, and that its types
// nest at most maxNesting deep.
func TestCheckMessage(t *testing.T) {
	for _, tc := range []struct {
		depth int
		patch string // the vector whose length to make 2^30, if any
		want  string // in the error; "" for none
	}{
		{3, "", ""},
		{3, "fields", errVector.Error()},
		{3, "children", errVector.Error()},
		{3, "field metadata", errVector.Error()},
		{3, "message metadata", errVector.Error()},
		{maxNesting + 1, "", "nested more than"},
	} {
		msg, vectors := schemaMessage(tc.depth)
		if tc.patch != "" {
			msg[vectors[tc.patch]+3] = 0x40
		}
		_, err := checkMessage(msg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("depth %d, %q patched: error %v, want %q", tc.depth, tc.patch, err, tc.want)
		}
	}
}

// batchMessage returns an Arrow record batch message with no buffers
// that claims count buffers of variable size.
func batchMessage(count int64) []byte {
	b := flatbuffers.NewBuilder(0)
	b.StartVector(8, 1, 8)
	b.PrependInt64(count)
	counts := b.EndVector(1)
	b.StartVector(16, 0, 8)
	buffers := b.EndVector(0)
	b.StartObject(5)
	b.PrependUOffsetTSlot(2, buffers, 0)
	b.PrependUOffsetTSlot(4, counts, 0)
	batch := b.EndObject()
	b.StartObject(5)
	b.PrependByteSlot(1, batchHeader, 0)
	b.PrependUOffsetTSlot(2, batch, 0)
	b.PrependInt64Slot(3, 64, 0)
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

// TestCheckBatch checks a batch's count of buffers of variable size.
func TestCheckBatch(t *testing.T) {
	for _, tc := range []struct {
		count int64
		ok    bool
	}{{0, true}, {1, false}, {1 << 40, false}} {
		body, err := checkMessage(batchMessage(tc.count))
		if (err == nil) != tc.ok || tc.ok && body != 64 {
			t.Errorf("%d buffers of variable size: body %d, error %v", tc.count, body, err)
		}
	}
}

// TestCheckedStream checks each message of a stream, after the body of
// the one before: a batch's, then a damaged batch's; and refuses
// metadata and bodies beyond their limits, which the Arrow library's
// reader would allocate.
func TestCheckedStream(t *testing.T) {
	var stream []byte
	for _, count := range []int64{0, 1} {
		meta := batchMessage(count)
		stream = binary.LittleEndian.AppendUint32(append(stream, arrowContinue...), uint32(len(meta)))
		stream = append(append(stream, meta...), make([]byte, 64)...)
	}
	meta := len(stream)/2 - 8 - 64
	for _, tc := range []struct {
		messages         int
		limit, bodyLimit int64
		ok               bool
	}{
		{1, arrowMetadataLimit, arrowBodyLimit, true},
		{2, arrowMetadataLimit, arrowBodyLimit, false},
		{1, int64(meta), 64, true},
		{1, int64(meta) - 1, 64, false},
		{1, int64(meta), 63, false},
	} {
		c := &checkedStream{r: bytes.NewReader(stream[:len(stream)/2*tc.messages]), limit: tc.limit, bodyLimit: tc.bodyLimit}
		data, err := io.ReadAll(c)
		if (err == nil) != tc.ok || tc.ok && len(data) != len(stream)/2 || err != nil && !errors.Is(err, ErrMalformed) && tc.messages == 1 {
			t.Errorf("%d messages, limits %d and %d: %d bytes, error %v", tc.messages, tc.limit, tc.bodyLimit, len(data), err)
		}
	}
}
