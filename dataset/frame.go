package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrEmptyColumn is wrapped by the ParseError for a column that has no
// value in any of the rows read from it.
var ErrEmptyColumn = errors.New("column has no values: every row is missing one")

// ErrBoolean is wrapped by the ParseError for a cell of a boolean column
// that is neither missing nor one of true, false, yes and no.
var ErrBoolean = errors.New("not a boolean")

// Frame is a table read from a CSV file as text: a header naming the
// columns and one row of cells for each later line. The cells keep their
// text, trimmed of surrounding spaces; Target, FitEncoder and an Encoder's
// Transform decide how to read them, and a stray cell that they read as
// missing (see the package documentation) is empty from then on. So a
// Frame is not safe for concurrent use.
type Frame struct {
	frameFormat
	cells [][]string // cells[row][column]
	lines []int      // lines[row] is the 1-based file line of the row
	// parts name the files of a table read from several, in order;
	// nil for one file.
	parts []framePart
}

// frameFormat is what a Frame knows of its file besides the cells.
type frameFormat struct {
	name    string
	columns []string
	// comma is the field separator; decimalComma says numbers are
	// written with a decimal comma (3,14), as in files separated by
	// semicolons in much of Europe.
	comma        rune
	decimalComma bool
	// rowNames says the first column holds row names: its header cell
	// was empty, as R's write.csv and pandas' to_csv write them.
	rowNames bool
	// trailing counts the empty fields that end the header, after a
	// separator at the end of every line or columns a spreadsheet
	// formatted but left empty; rows may end in as many, empty, which
	// are dropped.
	trailing int
	// strict refuses stray cells (see FrameOptions.Strict).
	strict bool
	// columnar says the file is a Parquet or an Arrow file, whose rows
	// are numbered as rows, not as lines.
	columnar bool
	// skipped counts the lines before the header that name the
	// separator (see sepLine).
	skipped int
	// log is what reading met that the user should hear of.
	log *readLog
}

// RowNamesColumn is the name a Frame gives a first column whose header
// cell is empty: the row names that R's write.csv and pandas' to_csv
// write by default.
const RowNamesColumn = "row.names"

// FrameOptions says how to read a CSV file. The zero value detects the
// separator and reads stray cells as missing.
type FrameOptions struct {
	// Comma is the field separator; 0 detects it (see NewFrameReader).
	Comma rune
	// Strict refuses a stray cell, one that is not a number in a column
	// of numbers, with a *ParseError wrapping ErrStray or ErrNumber that
	// locates it, where it would otherwise be read as missing, with a
	// warning (see the package documentation).
	Strict bool
}

// LoadFrame reads the CSV file at path; see ReadFrame.
func LoadFrame(path string) (*Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrame(f, path)
}

// ReadFrame reads a whole table in CSV format from r, detecting its
// separator; see NewFrameReader. There must be at least one row after
// the header.
func ReadFrame(r io.Reader, name string) (*Frame, error) {
	fr, err := NewFrameReader(r, name, FrameOptions{})
	if err != nil {
		return nil, err
	}
	return fr.ReadAll()
}

// FrameReader reads a table in CSV format a few rows at a time, so that
// a program can process a file larger than its memory.
type FrameReader struct {
	cr     *csv.Reader
	format frameFormat
	// held are the rows, read last, that may lie below the table (see
	// belowTable); ready the rows to give before reading more, held rows
	// that a row of the table followed.
	held, ready []heldRow
	rows        int // given so far
}

// heldRow is a row of a file and its line.
type heldRow struct {
	rec  []string
	line int
}

// NewFrameReader reads the header of a table in CSV format from r and
// returns a reader of its rows. name identifies the input in errors,
// which are *ParseError values for problems with the content.
//
// Unless opts.Comma sets it, the separator is the one of comma,
// semicolon, tab and vertical bar that splits the first lines into the
// same number of fields, the most fields if several do, and a comma if
// none does. A file separated by other than commas whose first lines
// (the first 64 KiB) hold a number with a decimal comma, such as 3,14,
// is read with decimal commas: see Frame.Number. So is a file separated
// by commas whose first lines hold such a number, quoted, that cannot be
// thousands ("3,14", not "1,234"), and no number with a decimal point.
//
// The file is UTF-8 text, except that a byte that is not part of UTF-8
// is read as its Windows-1252 character, so that a file saved in
// Windows-1252 or Latin-1 reads as it was written; the first line with
// such a byte is reported once, as a Warning (see Frame.Warnings). A file
// that starts with a UTF-16 byte order mark, as spreadsheets save
// "Unicode text", is read as UTF-16. Lines end in a line feed, with a
// carriage return before it or not, or, in a file whose first lines (the
// first 64 KiB) hold no line feed, in a lone carriage return, as "CSV
// (Macintosh)" writes them.
//
// The first row names the columns: names are trimmed of spaces, of a
// leading byte order mark and of single quotes around them ('vote' is
// vote, as "vote" is; two quotes inside them stand for one), and must be
// non-empty and unique, except that an empty first name marks a column of
// row names, which is then named RowNamesColumn, and empty last names
// after two named columns, as a separator at the end of every line or a
// spreadsheet's formatted empty columns leave them, name no column. Every
// later row must have as many fields as the header names, or as many more,
// empty, as it leaves unnamed. An error for a
// header of one name, or of one name and empty fields, asks whether its
// line is a title above the header. A first line "sep=;" above the
// header, which spreadsheets write and read, names the separator (unless
// opts.Comma sets it) and is skipped. A later line that repeats the
// header, as tables joined end to end hold, is left out, with a warning.
func NewFrameReader(r io.Reader, name string, opts FrameOptions) (*FrameReader, error) {
	log := new(readLog)
	br := bufio.NewReaderSize(newTextReader(utf16Text(r), log), sampleSize)
	// Spreadsheets often start UTF-8 files with a byte order mark, which
	// would open the first field, so that a quote after it were bare.
	if mark, _ := br.Peek(len(utf8BOM)); string(mark) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	sample, err := br.Peek(sampleSize)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var text io.Reader = br
	if bytes.IndexByte(sample, '\r') >= 0 && bytes.IndexByte(sample, '\n') < 0 {
		text = crLines{br}
		sample = bytes.ReplaceAll(sample, []byte{'\r'}, []byte{'\n'})
	}
	format := frameFormat{name: name, comma: opts.Comma, strict: opts.Strict, log: log}
	if sep, n := sepLine(sample); n > 0 {
		br.Discard(n)
		sample, format.skipped = sample[n:], 1
		if format.comma == 0 {
			format.comma = sep
		}
	}
	if format.comma == 0 {
		format.comma = detectComma(sample, err == io.EOF)
	}
	if !validComma(format.comma) {
		return nil, fmt.Errorf("%s: %q cannot separate the fields of a CSV file", name, format.comma)
	}
	format.decimalComma = hasDecimalComma(sample, err == io.EOF, format.comma)

	cr := csv.NewReader(text)
	cr.Comma = format.comma
	// Rows of the wrong length are reported below, with the header's count.
	cr.FieldsPerRecord = -1
	// Allows a space between a separator and an opening quote.
	cr.TrimLeadingSpace = true

	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: name, Err: ErrEmpty}
	}
	if err != nil {
		return nil, readError(name, err)
	}
	headerRow, _ := cr.FieldPos(0)
	headerRow += format.skipped
	if err := format.readHeader(header); err != nil {
		return nil, &ParseError{File: name, Row: headerRow, Column: err.column, Err: err.err}
	}
	return &FrameReader{cr: cr, format: format}, nil
}

// utf8BOM is the byte order mark in UTF-8.
const utf8BOM = "\ufeff"

// headerError is an error of a header, in its column if any.
type headerError struct {
	column string
	err    error
}

// readHeader sets the columns of format from the fields of the header.
// Empty last fields after two named ones, after a separator that ends
// every line as some programs write them, or of columns that a
// spreadsheet formatted but left empty, name no column: format.trailing
// drops them from every row.
func (format *frameFormat) readHeader(header []string) *headerError {
	for j := range header {
		header[j] = unquoteName(strings.TrimSpace(header[j]))
	}
	named := len(header)
	for named > 0 && header[named-1] == "" {
		named--
	}
	if named >= 2 && named < len(header) {
		header, format.trailing = header[:named], len(header)-named
	}
	format.columns = make([]string, len(header))
	for j, h := range header {
		if h == "" && j == 0 && len(header) > 1 {
			h, format.rowNames = RowNamesColumn, true
		}
		if h == "" {
			err := fmt.Errorf("field %d of the header is empty", j+1)
			if len(header) > 2 && !slices.ContainsFunc(header[1:], func(h string) bool { return h != "" }) {
				err = fmt.Errorf("%w, as are all but the first: is the first line a title above the header? The header must come first", err)
			}
			return &headerError{err: err}
		}
		if slices.Contains(format.columns[:j], h) {
			return &headerError{column: h, err: ErrDuplicate}
		}
		format.columns[j] = h
	}
	return nil
}

// fieldCountError is the error of a row of the fields rec, which the
// header's columns do not number. A row of one field of text, where the
// header has several, is likely a note below the table; a row of too
// many, split by commas, may hold a number with commas between its
// thousands, unquoted (see unquotedThousands).
func (format *frameFormat) fieldCountError(rec []string) error {
	n := len(rec)
	err := fmt.Errorf("%w: %d, header has %d", ErrFieldCount, n, len(format.columns))
	switch {
	case n == 1 && len(format.columns) > 1 && strings.ContainsFunc(rec[0], unicode.IsLetter):
		return fmt.Errorf("%w: is the line a note below the table, such as its source or a footnote? The file must end with the table's last row", err)
	case n > len(format.columns) && format.comma == ',' && unquotedThousands(rec) != "":
		return fmt.Errorf("%w: does it hold a number with commas between its thousands, such as %s, unquoted? Quote such numbers (\"%[2]s\"), or write them without the commas", err, unquotedThousands(rec))
	case n > len(format.columns) && n <= len(format.columns)+format.trailing:
		return fmt.Errorf("%w: a value after the header's last named column, in a field that it leaves unnamed", err)
	case len(format.columns) == 1 && n > 1:
		return fmt.Errorf("%w: is the first line a title or a note above the header? The header must come first", err)
	}
	return err
}

// sepLine returns the separator that the first line of sample names, as
// spreadsheets read and write "sep=;" above a table, and the length of
// that line with its end; 0 if it is no such line.
func sepLine(sample []byte) (rune, int) {
	end := bytes.IndexByte(sample, '\n')
	if end < 0 {
		return 0, 0
	}
	line := bytes.TrimSuffix(sample[:end], []byte{'\r'})
	rest, ok := bytes.CutPrefix(line, []byte("sep="))
	r, size := utf8.DecodeRune(rest)
	if !ok || size != len(rest) || !validComma(r) {
		return 0, 0
	}
	return r, end + 1
}

// unquotedThousands returns the first number that the fields rec, split
// by commas, would make if joined by a comma, two to five of them, as a
// number with commas between its thousands (1,234 or 12,345,678.5)
// splits; "" if none.
func unquotedThousands(rec []string) string {
	for i := range rec {
		for j := i + 2; j <= min(i+5, len(rec)); j++ {
			if joined := strings.Join(rec[i:j], ","); thousandsCommas.MatchString(joined) {
				return joined
			}
		}
	}
	return ""
}

// crLines reads a text whose lines end in a lone carriage return, as
// classic Mac OS and spreadsheets' "CSV (Macintosh)" write them, with
// line feeds instead, which encoding/csv reads as line ends: it would
// read the whole file as one line.
type crLines struct{ r io.Reader }

func (c crLines) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

// isHeader reports whether the trimmed fields of a row name the columns,
// two or more, as the header does: a line of the header again, where
// files were joined end to end (each may begin with a byte order mark).
func (format *frameFormat) isHeader(rec []string) bool {
	if len(rec) < 2 {
		return false
	}
	rec[0] = strings.TrimPrefix(rec[0], utf8BOM)
	for j, cell := range rec {
		if unquoteName(cell) != format.columns[j] && !(j == 0 && format.rowNames && cell == "") {
			return false
		}
	}
	return true
}

// unquoteName returns the trimmed column name h without the single quotes
// around it, if it has them.
func unquoteName(h string) string {
	if len(h) < 2 || h[0] != '\'' || h[len(h)-1] != '\'' {
		return h
	}
	return strings.TrimSpace(strings.ReplaceAll(h[1:len(h)-1], "''", "'"))
}

// Columns returns the column names in file order. The caller must not
// modify the slice.
func (fr *FrameReader) Columns() []string { return fr.format.columns }

// Name returns the name of the file, as used in errors.
func (fr *FrameReader) Name() string { return fr.format.name }

// Read returns the next rows of the table, at most max of them (all the
// rest if max <= 0), as a Frame whose Line numbers count from the start
// of the file. At the end of the table it returns io.EOF.
func (fr *FrameReader) Read(max int) (*Frame, error) {
	f := &Frame{frameFormat: fr.format}
	for max <= 0 || len(f.cells) < max {
		if len(fr.ready) > 0 {
			f.cells, f.lines = append(f.cells, fr.ready[0].rec), append(f.lines, fr.ready[0].line)
			fr.ready = fr.ready[1:]
			continue
		}
		// Each record is a fresh slice whose fields share one string, so
		// the frame holds about as many bytes as the file.
		rec, err := fr.cr.Read()
		if err == io.EOF && fr.rows+len(f.cells) == 0 {
			// No table above them: the held rows are the table's.
			fr.ready, fr.held = fr.held, nil
			if len(fr.ready) > 0 {
				continue
			}
		}
		if err == io.EOF {
			f.log.belowTable(fr.held)
			fr.held = nil
			break
		}
		if err != nil {
			return nil, readError(f.name, err)
		}
		line, _ := fr.cr.FieldPos(0)
		line += f.skipped
		if extra := rec[min(len(f.columns), len(rec)):]; len(extra) <= f.trailing && strings.TrimSpace(strings.Join(extra, "")) == "" {
			rec = rec[:len(rec)-len(extra)]
		}
		if len(rec) != len(f.columns) {
			return nil, &ParseError{File: f.name, Row: line, Err: f.fieldCountError(rec)}
		}
		for j := range rec {
			rec[j] = strings.TrimSpace(rec[j])
		}
		if f.isHeader(rec) {
			if f.log.headers++; f.log.headers == 1 {
				f.log.headerLine = line
			}
			continue
		}
		if belowTable(rec) {
			fr.held = append(fr.held, heldRow{rec, line})
			continue
		}
		if len(fr.held) > 0 {
			// Rows of the table follow the held ones, which are rows too.
			fr.ready, fr.held = append(fr.held, heldRow{rec, line}), nil
			continue
		}
		f.cells = append(f.cells, rec)
		f.lines = append(f.lines, line)
	}
	if len(f.cells) == 0 {
		return nil, io.EOF
	}
	fr.rows += len(f.cells)
	return f, nil
}

// belowTable reports whether the trimmed fields rec of a row, of two or
// more, may lie below the table rather than in it, as the lines that
// a spreadsheet exports with its table pad with empty fields: a note,
// whose only value is in its first field, holds a letter and a space or
// a colon and begins with no digit ("Source: national survey, 2023",
// "* p < 0.05", not "5 kg"), or a row of empty fields. Such rows are rows
// of the table unless they end it.
func belowTable(rec []string) bool {
	if len(rec) < 2 || slices.ContainsFunc(rec[1:], func(cell string) bool { return cell != "" }) {
		return false
	}
	note := rec[0]
	return note == "" || strings.ContainsFunc(note, unicode.IsLetter) && strings.ContainsAny(note, " :") && !unicode.IsDigit([]rune(note)[0])
}

// ReadAll returns the remaining rows of the table, of which there must
// be at least one.
func (fr *FrameReader) ReadAll() (*Frame, error) {
	f, err := fr.Read(0)
	if err == io.EOF {
		return nil, &ParseError{File: fr.format.name, Err: ErrNoRows}
	}
	return f, err
}

// Name returns the name of the file, as used in errors.
func (f *Frame) Name() string { return f.name }

// Warnings returns what reading the file met that its user should hear
// of and has not yet: bytes that are not UTF-8 (see NewFrameReader), and
// the stray cells of columns of numbers read as missing (see the package
// documentation), all of them in one warning. Each is returned once,
// here or by an Encoder's Transform; the Frames of one FrameReader
// share them.
func (f *Frame) Warnings() []Warning { return f.log.warnings(f.name) }

// Len returns the number of data rows.
func (f *Frame) Len() int { return len(f.cells) }

// Columns returns the column names in file order. The caller must not
// modify the slice.
func (f *Frame) Columns() []string { return f.columns }

// Column returns the index of the named column. If there is none, the error
// is a *ParseError wrapping ErrNoColumn that lists the file's columns.
func (f *Frame) Column(name string) (int, error) {
	j := slices.Index(f.columns, name)
	if j < 0 {
		return -1, noColumnError(f.name, name, f.columns)
	}
	return j, nil
}

// Cell returns the trimmed text of the cell in the given row and column,
// or "" for a stray cell read as missing.
func (f *Frame) Cell(row, col int) string { return f.cells[row][col] }

// Empty reports whether every cell of column col is missing in the given
// rows (nil: all rows).
func (f *Frame) Empty(col int, rows []int) bool {
	return !slices.ContainsFunc(f.allRows(rows), func(r int) bool { return !isMissing(f.cells[r][col]) })
}

// Line returns the 1-based line of the file on which data row row
// starts: of a Parquet or Arrow file, its 1-based row.
func (f *Frame) Line(row int) int { return f.lines[row] }

// Place returns what Line counts, as messages name it: "line" of a CSV
// file, "row" of a Parquet or Arrow file.
func (f *Frame) Place() string {
	if f.columnar {
		return "row"
	}
	return "line"
}

// File returns the file of data row row: Name, unless the table was
// read from several files (see TableReader.ReadAll).
func (f *Frame) File(row int) string {
	if f.parts == nil {
		return f.name
	}
	i, _ := slices.BinarySearchFunc(f.parts, row, func(p framePart, row int) int { return cmp.Compare(p.end-1, row) })
	return f.parts[i].file
}

// RowNames returns RowNamesColumn if the first column holds row names
// (its header cell was empty), and "" otherwise.
func (f *Frame) RowNames() string {
	if f.rowNames {
		return RowNamesColumn
	}
	return ""
}

// Comma returns the field separator of the file.
func (f *Frame) Comma() rune { return f.comma }

// DecimalComma reports whether the file writes numbers with a decimal
// comma.
func (f *Frame) DecimalComma() bool { return f.decimalComma }

// Number reads the cell in the given row and column as a number, as the
// columns of numbers are read: in Go's syntax (strconv.ParseFloat), or
// with thousands separators (4,599.0, 10 851.5), or as a percentage,
// which is a fraction (17.5% is 0.175), or with a currency sign, which is
// dropped ($1,234.50 is 1234.5); in a file with decimal commas, 3,14 is
// 3.14, 1.234,5 and 1 234,5 are 1234.5 and 1.234 is 1234. A missing
// cell, text, NaN and infinite values are
// errors, *ParseError values that locate the cell.
func (f *Frame) Number(row, col int) (float64, error) {
	v, err := f.number(f.cells[row][col])
	if err != nil {
		return 0, f.cellError(row, col, err)
	}
	return v, nil
}

// number reads a trimmed cell of f as a number; see Number.
func (f *Frame) number(cell string) (float64, error) {
	return readCell(cell, f.decimalComma, false)
}

// readCell reads a trimmed cell as a number, with a decimal comma or
// point, and a percentage as a fraction unless percentPoints is set; see
// Number and readScaled.
func readCell(cell string, decimalComma, percentPoints bool) (float64, error) {
	if cell == "" {
		return 0, ErrMissing
	}
	v, ok := readScaled(cell, decimalComma, percentPoints)
	switch {
	case !ok:
		return 0, fmt.Errorf("%w: %q", ErrNumber, cell)
	case math.IsInf(v, 0):
		return 0, fmt.Errorf("%w: %q", ErrInf, cell)
	}
	return v, nil
}

// allRows returns rows, or all rows of f if rows is nil.
func (f *Frame) allRows(rows []int) []int {
	if rows != nil {
		return rows
	}
	all := make([]int, f.Len())
	for i := range all {
		all[i] = i
	}
	return all
}

// cellError locates err in the given row and column of f.
func (f *Frame) cellError(row, col int, err error) error {
	return &ParseError{File: f.File(row), Row: f.lines[row], Column: f.columns[col], Err: err}
}

// The texts, in lower case, that stand for a missing cell and for true
// and false.
var (
	missingTexts = []string{"", "na", "n/a", "?", "nan", "null"}
	trueTexts    = []string{"true", "yes"}
	falseTexts   = []string{"false", "no"}
)

// MissingTexts returns the texts that stand for a missing cell, in lower
// case: a trimmed cell is missing if its lower-case form is one of them.
// Code that reads cells elsewhere, such as an exported model, uses them to
// agree with this package.
func MissingTexts() []string { return slices.Clone(missingTexts) }

// BoolTexts returns the texts, in lower case, that a boolean column reads
// as true and as false, in any case, after training: training's true,
// yes, false and no, then the other spellings that ParseTruth reads.
func BoolTexts() (yes, no []string) {
	return slices.Concat(trueTexts, otherTrueTexts), slices.Concat(falseTexts, otherFalseTexts)
}

// isMissing reports whether a trimmed cell stands for a missing value: it
// is empty or one of the words NA, N/A, ?, NaN and null in any case.
func isMissing(cell string) bool {
	return slices.Contains(missingTexts, strings.ToLower(cell))
}

// The other spellings, in lower case, of true and false that ParseTruth
// reads: a column of them is not boolean (a column of 1 and 0 is
// numeric, of Y and N categorical), but a boolean column that meets them
// after training reads them as the value they spell, with a warning.
var (
	otherTrueTexts  = []string{"y", "t", "1"}
	otherFalseTexts = []string{"n", "f", "0"}
)

// parseBool reads true, false, yes and no in any case.
func parseBool(cell string) (value, ok bool) {
	return readTruth(cell, trueTexts, falseTexts)
}

// ParseTruth reads a trimmed cell that spells a yes or a no, in any
// case: true, yes, y, t and 1, or false, no, n, f and 0, as a yes-or-no
// column gathered from several sources may mix them.
func ParseTruth(cell string) (value, ok bool) {
	if value, ok = parseBool(cell); ok {
		return value, ok
	}
	return readTruth(cell, otherTrueTexts, otherFalseTexts)
}

// readTruth reads a cell that is one of yes or no, in lower case, in any
// case.
func readTruth(cell string, yes, no []string) (value, ok bool) {
	lower := strings.ToLower(cell)
	switch {
	case slices.Contains(yes, lower):
		return true, true
	case slices.Contains(no, lower):
		return false, true
	}
	return false, false
}

// kind is how the cells of a column are read.
type kind int

const (
	numeric kind = iota + 1
	boolean
	categorical
	// ordinal is a categorical column whose levels are ordered numbers
	// (see orderedLevels); FitEncoder makes it, inferKind never does.
	ordinal
	// date is a column of dates (see ParseDate), read as the days since
	// 1970 (see Days). FitEncoder also makes one of a categorical column
	// of dates with the year last (see YearLastOrder).
	date
)

var kindNames = map[kind]string{numeric: "numeric", boolean: "boolean", categorical: "categorical", ordinal: "ordinal", date: "date"}

func (k kind) String() string { return kindNames[k] }

// MarshalText implements encoding.TextMarshaler for the JSON form of an
// Encoder.
func (k kind) MarshalText() ([]byte, error) {
	if _, ok := kindNames[k]; !ok {
		return nil, fmt.Errorf("dataset: invalid kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *kind) UnmarshalText(text []byte) error {
	for kk, name := range kindNames {
		if name == string(text) {
			*k = kk
			return nil
		}
	}
	return fmt.Errorf("kind %q is not numeric, boolean, categorical, ordinal or date", text)
}

// inferKind returns the kind of column col over the given rows of f, ignoring
// missing cells: boolean if every other cell is a boolean, date if every
// other cell is a date (see ParseDate), numeric if every other cell is a
// number, and no two carry different currency signs, dates and numbers
// but for a few strays (see strayLimit), and categorical otherwise, as
// is a column of numbers with a whole number beyond 2^53 (an id, see
// longInteger), with a warning. The
// strays become missing cells, or an error if f is read strictly. A
// numeric column holding an infinite value and a column with no value in
// any row are errors.
func (f *Frame) inferKind(col int, rows []int) (kind, error) {
	present := -1 // some row with a value, to report an infinity
	isBool, isNum, isDate := true, true, true
	inf := -1
	money := ""             // the currency sign of the numbers, if any
	var unit columnUnit     // the unit of measure of the numbers, if any
	var strays columnStrays // cells that are not numbers
	var dateStrays []int    // rows whose cells are not dates
	n := 0                  // cells with a value
	var scales percentScales
	long, longFirst := 0, "" // whole numbers beyond 2^53 (see longInteger)
	for _, r := range rows {
		cell := f.cells[r][col]
		if isMissing(cell) {
			continue
		}
		present = r
		n++
		if _, ok := parseBool(cell); !ok {
			isBool = false
		}
		if isNum {
			v, ok := readNumber(cell, f.decimalComma)
			if !ok {
				v, ok = unit.read(f, col, rows, cell)
			}
			sign := currency(cell)
			switch {
			case sign != "" && money != "" && sign != money:
				// Amounts in two currencies are not one quantity.
				isNum = false
			case !ok:
				strays.addStray(r, cell)
				// The column has at most len(rows) cells with a value.
				isNum = len(strays.rows) <= strayLimit(len(rows)) || strays.mayBeCodes()
			case math.IsInf(v, 0) && inf < 0:
				inf = r
			default:
				strays.addNumber(v)
			}
			if longInteger(cell) {
				long++
				longFirst = cmp.Or(longFirst, cell)
			}
			money = cmp.Or(money, sign)
			scales.add(cell, v)
		}
		if isDate {
			if _, ok := ParseDate(cell); !ok {
				dateStrays = append(dateStrays, r)
				isDate = len(dateStrays) <= strayLimit(len(rows))
			}
		}
		if !isBool && !isNum && !isDate {
			f.noteNumbersAsText(col, rows, &strays, &unit)
			return categorical, nil
		}
	}
	switch {
	case present < 0:
		return 0, &ParseError{File: f.name, Column: f.columns[col], Err: ErrEmptyColumn}
	case isBool:
		return boolean, nil
	case isDate && len(dateStrays) <= strayLimit(n):
		return date, f.someStrays(date, col, dateStrays, n)
	case !strays.tolerated(n, strayLimit):
		f.noteNumbersAsText(col, rows, &strays, &unit)
		return categorical, nil
	case long > 0:
		f.noteLongIntegers(col, long, strings.Clone(longFirst))
		return categorical, nil
	case inf >= 0:
		_, err := f.Number(inf, col)
		return 0, err
	}
	if err := f.someStrays(numeric, col, strays.rows, n); err != nil {
		return 0, err
	}
	scales.check(f.log, f.columns[col])
	return numeric, nil
}

// Target is the target column of a task, read from a Frame.
type Target struct {
	Rows    []int     // frame rows kept (target present), ascending
	Dropped int       // rows dropped because the target was missing
	Values  []float64 // regression: one per kept row
	Classes []string  // classification: the sorted class names
	Labels  []int     // classification: index into Classes, one per kept row
	// Unit is the unit of measure of a regression's numbers, as an
	// Encoder keeps an input's ("kg", or "k/M/B" for suffixes of
	// magnitude), "" for none: TargetIn reads another part of the table
	// in it.
	Unit string
}

// Target reads the named column as the target of a regression task, or of
// a classification task if classify is true. Rows whose target is missing
// are dropped. For regression every other cell must be a finite number,
// but for a few strays, cells that are not numbers (see the package
// documentation; a target also tolerates one stray beside two numbers or
// more), which become missing, so that their rows are dropped too, or are
// an error if f is read strictly. For classification the
// classes are the distinct texts of the cells, sorted as strings, and
// there must be at least two.
func (f *Frame) Target(column string, classify bool) (*Target, error) {
	col, err := f.Column(column)
	if err != nil {
		return nil, err
	}
	t := f.targetRows(col)
	if len(t.Rows) == 0 {
		return nil, &ParseError{File: f.name, Column: column,
			Err: fmt.Errorf("%w, so no row is left to learn from", ErrEmptyColumn)}
	}
	if !classify {
		if err := f.targetValues(t, col, nil); err != nil {
			return nil, err
		}
		return t, nil
	}
	for _, r := range t.Rows {
		t.Classes = append(t.Classes, f.cells[r][col])
	}
	slices.Sort(t.Classes)
	t.Classes = slices.Clip(slices.Compact(t.Classes))
	for i, c := range t.Classes {
		// A cell shares its memory with its whole line.
		t.Classes[i] = strings.Clone(c)
	}
	if len(t.Classes) == 1 {
		return nil, &ParseError{File: f.name, Column: column,
			Err: fmt.Errorf("%w %q", ErrOneClass, t.Classes[0])}
	}
	t.Labels = make([]int, len(t.Rows))
	for i, r := range t.Rows {
		t.Labels[i], _ = slices.BinarySearch(t.Classes, f.cells[r][col])
	}
	return t, nil
}

// TargetIn reads the named column as a regression's target, as Target
// does, but in the given unit, the Unit of the Target of another part of
// the same table (its first rows, or a sample), rather than in the unit
// of most of f's cells with one: so the parts of a table read a chunk at
// a time (see FrameReader) read alike, 1.2k as 1200 in a part without
// 3.4M. A part whose every target is missing has no rows, and no error.
func (f *Frame) TargetIn(column, unit string) (*Target, error) {
	col, err := f.Column(column)
	if err != nil {
		return nil, err
	}
	t := f.targetRows(col)
	if len(t.Rows) == 0 {
		return t, nil
	}
	u := columnUnit(unit)
	if err := f.targetValues(t, col, &u); err != nil {
		return nil, err
	}
	return t, nil
}

// targetRows returns the Target of column col of f without its values:
// the rows with a target, and the count of those without.
func (f *Frame) targetRows(col int) *Target {
	t := new(Target)
	for r, rec := range f.cells {
		if isMissing(rec[col]) {
			t.Dropped++
			continue
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// targetValues reads the values of the rows of t in column col of f, a
// regression's target, dropping the rows of its strays. The numbers are
// in the given unit, or, if it is nil, in the unit of most of the cells
// with one.
func (f *Frame) targetValues(t *Target, col int, in *columnUnit) error {
	var strays columnStrays
	var unit columnUnit
	if in != nil {
		unit = *in
	}
	t.Values = make([]float64, 0, len(t.Rows))
	for _, r := range t.Rows {
		v, err := f.number(f.cells[r][col])
		if errors.Is(err, ErrNumber) && (in == nil || unit != "") {
			if u, ok := unit.read(f, col, t.Rows, f.cells[r][col]); ok {
				v, err = u, nil
			}
		}
		switch {
		case errors.Is(err, ErrNumber):
			strays.addStray(r, f.cells[r][col])
		case err != nil:
			return f.cellError(r, col, err)
		default:
			strays.addNumber(v)
		}
		t.Values = append(t.Values, v)
	}
	t.Unit = string(unit)
	switch {
	case len(strays.rows) == 0:
		return nil
	case !strays.tolerated(len(t.Rows), targetStrayLimit):
		_, err := f.Number(strays.rows[0], col)
		return err
	}
	if err := f.strays(numeric, col, strays.rows, len(t.Rows)-len(strays.rows)); err != nil {
		return err
	}
	kept := 0
	for i, r := range t.Rows {
		if f.cells[r][col] != "" {
			t.Rows[kept], t.Values[kept] = r, t.Values[i]
			kept++
		}
	}
	t.Dropped += len(t.Rows) - kept
	t.Rows, t.Values = t.Rows[:kept], t.Values[:kept]
	return nil
}
