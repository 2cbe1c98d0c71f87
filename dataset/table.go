package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Errors wrapped by ParseError for tables of any format. Test for them
// with errors.Is.
var (
	// ErrFormat is a file whose name says Parquet or Arrow but whose
	// first bytes are not that format's, or a Parquet file on a stream.
	ErrFormat = errors.New("wrong file format")
	// ErrColumnType is a Parquet or Arrow column of a type that a table
	// cannot hold: nested (lists, structs, maps), binary, durations and
	// the like.
	ErrColumnType = errors.New("unsupported column type")
	// ErrSchema is a file of several read as one table whose columns
	// are not those of the first.
	ErrSchema = errors.New("columns differ from the first file's")
	// ErrMalformed is a Parquet or Arrow file that does not decode.
	ErrMalformed = errors.New("malformed file")
)

// TableFormat is the format of a file that holds a table.
type TableFormat int

// The formats of tables. A reader tells them apart by their first bytes.
const (
	CSV     TableFormat = iota // text, one row a line (see NewFrameReader)
	Parquet                    // Apache Parquet, which begins with PAR1
	Arrow                      // Apache Arrow IPC, a file (ARROW1, also called Feather version 2) or a stream
)

var formatNames = [...]string{CSV: "CSV", Parquet: "Parquet", Arrow: "Arrow"}

func (t TableFormat) String() string { return formatNames[t] }

// The magic bytes that begin a Parquet file, an Arrow IPC file and a
// message of an Arrow IPC stream. An Arrow file is the magic bytes,
// padded to 8, then a stream.
var (
	parquetMagic     = []byte("PAR1")
	arrowMagic       = []byte("ARROW1")
	arrowContinue    = []byte{0xff, 0xff, 0xff, 0xff}
	arrowMagicLength = 8
)

// magics are the magic bytes of the formats, as errors name them.
var magics = map[TableFormat][]byte{Parquet: parquetMagic, Arrow: arrowMagic}

// detectFormat returns the format of a file that begins with head, and
// how many bytes of head precede an Arrow stream.
func detectFormat(head []byte) (TableFormat, int) {
	switch {
	case bytes.HasPrefix(head, parquetMagic):
		return Parquet, 0
	case bytes.HasPrefix(head, arrowMagic):
		return Arrow, arrowMagicLength
	case bytes.HasPrefix(head, arrowContinue):
		return Arrow, 0
	}
	return CSV, 0
}

// FormatOf returns the format that a file's name says: Parquet for
// .parquet and .pq, Arrow for .arrow, .arrows, .feather and .ipc, and
// CSV for any other name. Writers choose their format by it; readers
// go by a file's first bytes, and refuse a file whose name says Parquet
// or Arrow but whose bytes do not.
func FormatOf(path string) TableFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet
	case ".arrow", ".arrows", ".feather", ".ipc":
		return Arrow
	}
	return CSV
}

// TableFiles returns the files that a table's path names: the path
// itself if it holds no glob pattern (see filepath.Match) or names a
// file, and otherwise the files that match it, in lexical order. No
// match is an error.
func TableFiles(path string) ([]string, error) {
	if !strings.ContainsAny(path, `*?[\`) {
		return []string{path}, nil
	}
	if _, err := os.Stat(path); err == nil {
		return []string{path}, nil
	}
	files, err := filepath.Glob(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no file matches the pattern: %w", path, os.ErrNotExist)
	}
	return files, nil
}

// TableReader reads a table a few rows at a time from a CSV, Parquet or
// Arrow file, or from several such files read as one table, so that a
// program can process a table larger than its memory.
type TableReader struct {
	name    string   // the path or pattern, as given
	columns []string // the first file's
	opts    FrameOptions
	files   []string // the files after the one being read
	src     source
	// order is where each of the columns is in the file being read,
	// nil when that is the first's order.
	order []int
}

// source reads the rows of one file of a table.
type source interface {
	// columns returns the column names.
	columns() []string
	// read returns the next rows, at most max of them (all if max <=
	// 0), or io.EOF at the end.
	read(max int) (*Frame, error)
	io.Closer
}

// OpenTable opens the table at path for reading: a CSV, Parquet or
// Arrow file, told apart by its first bytes, not its name, or, if path
// is a glob pattern such as part-*.parquet, the files that match it
// (see TableFiles), read one after the other as one table. Every such
// file must have the columns of the first, by name, in any order (its
// cells are read into the first's order); the files' headers or footers
// are checked before any row is read, and a file of other columns is an
// error that names those it lacks or adds.
// opts applies to the CSV files; a later CSV file is read with the
// first one's separator.
//
// A Parquet or Arrow column of integers, floating-point numbers or
// decimals is read as a column of numbers (NaN as missing, as in a CSV
// file), a column of booleans as booleans, of strings or a dictionary
// of strings (a pandas category) as text, a column of dates as dates
// (2024-01-31) and of timestamps as times of day (2024-01-31 13:45:30,
// in UTC if the column has a time zone): the cells are the text that a
// CSV file of the same table would hold, and a null is a missing cell.
// Other columns (nested, binary, durations) are refused, before any
// row is read. Rows of a Parquet or Arrow file are numbered from 1 in
// errors, where a CSV file's are numbered by line.
func OpenTable(path string, opts FrameOptions) (*TableReader, error) {
	files, err := TableFiles(path)
	if err != nil {
		return nil, err
	}
	t := &TableReader{name: path, opts: opts}
	for i, file := range files {
		src, err := openSource(file, t.opts)
		if err != nil {
			t.Close()
			return nil, err
		}
		if i == 0 {
			t.src, t.columns = src, src.columns()
			if fr, ok := src.(*csvSource); ok && t.opts.Comma == 0 {
				t.opts.Comma = fr.format.comma
			}
			continue
		}
		_, err = t.columnOrder(file, src.columns(), t.first())
		src.Close()
		if err != nil {
			t.Close()
			return nil, err
		}
	}
	t.files = files[1:]
	return t, nil
}

// NewTableReader reads a table from r, a CSV table or an Arrow stream or
// file, told apart by its first bytes. name identifies the input in
// errors. A Parquet file cannot be read from a stream (its footer says
// where its columns are) and is an error.
func NewTableReader(r io.Reader, name string, opts FrameOptions) (*TableReader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(arrowMagicLength)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	format, skip := detectFormat(head)
	var src source
	switch format {
	case Parquet:
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: a Parquet file cannot be read from a stream: give its path", ErrFormat)}
	case Arrow:
		if _, err := br.Discard(skip); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		src, err = newArrowSource(br, io.NopCloser(nil), name, 0, opts)
	default:
		src, err = newCSVSource(br, io.NopCloser(nil), name, opts)
	}
	if err != nil {
		return nil, err
	}
	return &TableReader{name: name, columns: src.columns(), opts: opts, src: src}, nil
}

// openSource opens one file of a table, of the format its first bytes
// say.
func openSource(path string, opts FrameOptions) (source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// Reading a directory would fail with "read PATH: is a directory",
	// which says neither what was wanted nor what to do.
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory: name a table file in it, or its files by a pattern such as %s", path, filepath.Join(path, "*.csv"))
	}
	src, err := newSource(f, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return src, nil
}

// newSource returns the reader of the open file f, of the format its
// first bytes say, which closes f when closed.
func newSource(f *os.File, path string, opts FrameOptions) (source, error) {
	head := make([]byte, arrowMagicLength)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	format, skip := detectFormat(head[:n])
	if named := FormatOf(path); named != CSV && named != format {
		return nil, &ParseError{File: path, Err: fmt.Errorf("%w: its name says %s, but it does not begin with %s's magic bytes %q", ErrFormat, named, named, magics[named])}
	}
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch format {
	case Parquet:
		return newParquetSource(f, path, opts)
	case Arrow:
		if _, err := f.Seek(int64(skip), io.SeekStart); err != nil {
			return nil, err
		}
		return newArrowSource(bufio.NewReader(f), f, path, info.Size(), opts)
	}
	return newCSVSource(f, f, path, opts)
}

// columnOrder returns where each of the table's columns is among
// columns, those of its file path, or nil if they are in the same order;
// it is an error if the file lacks one of them or has another, which
// says whose the table's columns are: of, such as "the first file of
// part-*.csv".
func (t *TableReader) columnOrder(path string, columns []string, of string) ([]int, error) {
	if slices.Equal(columns, t.columns) {
		return nil, nil
	}
	order := make([]int, len(t.columns))
	var missing, extra []string
	for j, name := range t.columns {
		if order[j] = slices.Index(columns, name); order[j] < 0 {
			missing = append(missing, name)
		}
	}
	for _, name := range columns {
		if !slices.Contains(t.columns, name) {
			extra = append(extra, name)
		}
	}
	if missing == nil && extra == nil {
		return order, nil
	}
	var diff []string
	if missing != nil {
		diff = append(diff, "lacks "+quoteList(missing))
	}
	if extra != nil {
		diff = append(diff, "has "+quoteList(extra)+" besides")
	}
	return nil, &ParseError{File: path, Err: fmt.Errorf("%w: it %s: the columns of %s are %s",
		ErrSchema, strings.Join(diff, " and "), of, quoteList(t.columns))}
}

// first names the table's first file, whose columns are the table's.
func (t *TableReader) first() string { return "the first file of " + t.name }

// Reorder makes the reader give the cells of its rows in the order of
// columns, which must be its own columns in any order: those of another
// file of one table, as a worker reading one file of many needs. If
// they are other columns it returns an error that names those the
// table lacks and those it has besides, and says whose columns are
// wanted: of, such as "the first file of -data".
func (t *TableReader) Reorder(columns []string, of string) error {
	own := t.columns
	t.columns = columns
	order, err := t.columnOrder(t.name, own, of)
	if err != nil {
		t.columns = own
		return err
	}
	t.order = order
	return nil
}

// reorder puts the cells of f, read from a file whose columns are in
// another order, in the table's order.
func (t *TableReader) reorder(f *Frame) {
	if t.order == nil {
		return
	}
	for i, rec := range f.cells {
		row := make([]string, len(t.order))
		for j, at := range t.order {
			row[j] = rec[at]
		}
		f.cells[i] = row
	}
	f.columns = t.columns
}

// Name returns the path or pattern of the table, as used in errors.
func (t *TableReader) Name() string { return t.name }

// Columns returns the column names in file order. The caller must not
// modify the slice.
func (t *TableReader) Columns() []string { return t.columns }

// Read returns the next rows of the table, at most max of them (all the
// rows of the current file if max <= 0), from one file, as a Frame
// named by that file whose Line numbers are its lines (CSV) or rows
// (Parquet and Arrow). At the end of the table it returns io.EOF.
func (t *TableReader) Read(max int) (*Frame, error) {
	for {
		f, err := t.src.read(max)
		if err == nil {
			t.reorder(f)
		}
		if err != io.EOF || len(t.files) == 0 {
			return f, err
		}
		if err := t.src.Close(); err != nil {
			return nil, err
		}
		src, err := openSource(t.files[0], t.opts)
		if err != nil {
			return nil, err
		}
		file := t.files[0]
		t.src, t.files = src, t.files[1:]
		if t.order, err = t.columnOrder(file, src.columns(), t.first()); err != nil {
			return nil, err
		}
	}
}

// ReadAll returns the remaining rows of the table, of which there must
// be at least one, as one Frame. A table of several files is named by
// its pattern, and Frame.File names the file of each row.
func (t *TableReader) ReadAll() (*Frame, error) {
	var parts []*Frame
	for {
		f, err := t.Read(0)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	switch len(parts) {
	case 0:
		return nil, &ParseError{File: t.name, Err: ErrNoRows}
	case 1:
		return parts[0], nil
	}
	return joinFrames(t.name, parts)
}

// ReadRows returns the next rows of the table, at most max of them,
// read across its files and joined as ReadAll joins them. At the end of
// the table it returns io.EOF.
func (t *TableReader) ReadRows(max int) (*Frame, error) {
	var parts []*Frame
	for n := 0; n < max; {
		f, err := t.Read(max - n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
		n += f.Len()
	}
	switch len(parts) {
	case 0:
		return nil, io.EOF
	case 1:
		return parts[0], nil
	}
	return joinFrames(t.name, parts)
}

// Comma returns the field separator of the table's CSV file being read,
// and ',' for a Parquet or Arrow file; see Frame.Comma.
func (t *TableReader) Comma() rune {
	if c, ok := t.src.(*csvSource); ok {
		return c.Comma()
	}
	return ','
}

// DecimalComma reports whether the numbers of the table's CSV file
// being read are written with a decimal comma; see Frame.DecimalComma.
func (t *TableReader) DecimalComma() bool {
	c, ok := t.src.(*csvSource)
	return ok && c.DecimalComma()
}

// Close closes the file being read.
func (t *TableReader) Close() error {
	if t.src == nil {
		return nil
	}
	return t.src.Close()
}

// LoadTable reads the whole table at path, a file or a glob pattern of
// files, each CSV, Parquet or Arrow; see OpenTable.
func LoadTable(path string) (*Frame, error) {
	t, err := OpenTable(path, FrameOptions{})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return t.ReadAll()
}

// csvSource reads a CSV file.
type csvSource struct {
	*FrameReader
	io.Closer
}

// newCSVSource reads the header of the CSV table r, named name, which
// closer closes.
func newCSVSource(r io.Reader, closer io.Closer, name string, opts FrameOptions) (*csvSource, error) {
	fr, err := NewFrameReader(r, name, opts)
	if err != nil {
		return nil, err
	}
	return &csvSource{FrameReader: fr, Closer: closer}, nil
}

func (s *csvSource) columns() []string            { return s.Columns() }
func (s *csvSource) read(max int) (*Frame, error) { return s.Read(max) }

// framePart names the file of a Frame's rows up to end, exclusive.
type framePart struct {
	file string
	end  int
}

// joinFrames returns the rows of parts, read from several files of the
// table name with the same columns, as one Frame. The parts must write
// their numbers alike (with decimal points or commas), and their
// warnings become the Frame's.
func joinFrames(name string, parts []*Frame) (*Frame, error) {
	first := parts[0]
	f := &Frame{frameFormat: first.frameFormat}
	f.name, f.log = name, &readLog{place: first.log.place}
	for _, p := range parts {
		if p.decimalComma != first.decimalComma {
			return nil, &ParseError{File: p.name, Err: fmt.Errorf("%w: its numbers are written with decimal %s, unlike those of %s",
				ErrSchema, map[bool]string{true: "commas", false: "points"}[p.decimalComma], first.name)}
		}
		f.cells = append(f.cells, p.cells...)
		f.lines = append(f.lines, p.lines...)
		f.parts = append(f.parts, framePart{file: p.name, end: len(f.cells)})
		f.log.notes = append(f.log.notes, p.Warnings()...)
	}
	return f, nil
}
