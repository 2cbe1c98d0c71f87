package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrStray is wrapped by the ParseError for a stray cell, one that is not
// a number in a column of numbers or not a date in a column of dates, when
// the Frame is read strictly (see FrameOptions.Strict).
var ErrStray = errors.New("stray cell")

// strayLimit returns how many of a column's n non-missing cells may be
// strays, cells that are not numbers in a column read as numbers (or not
// dates in a column read as dates): one beside ten numbers or more, and
// in general one in fifty. Below that a column is a column of numbers
// with a few typos; above it the texts are as much the column's values as
// its numbers are.
func strayLimit(n int) int {
	if n <= 10 {
		return 0
	}
	return max(1, n/50)
}

// targetStrayLimit is strayLimit for a regression's target of n cells
// with a value, which also tolerates one stray beside two numbers or
// more: a target never changes task because of one cell.
func targetStrayLimit(n int) int {
	if n < 3 {
		return 0
	}
	return max(1, strayLimit(n))
}

// A column of numbers may write its missing cells as a text that is not
// one of the missing texts: a dash, a dot, "missing", "#DIV/0!". Such a
// column has as many strays as missing cells, often more than strayLimit
// tolerates, and read as text it would become one level per number. Its
// strays are missing codes, and the column numeric, when they are
// at most maxMissingCodes texts without a digit, in at most half its
// cells with a value, beside at least minCodedNumbers distinct numbers
// (spreadsheets' error values are not counted among the texts):
// a column of a few numbers and a word ("none", 1, 2, 3) stays a column
// of levels, and a text with a digit ("90+", "<0.01") may be a bin of the
// quantity, which the Encoder reads as such.
const (
	maxMissingCodes = 2
	minCodedNumbers = 10
)

// columnStrays follows the strays of a column of numbers as its cells are
// read, to tell whether they are missing codes.
type columnStrays struct {
	rows    []int     // rows of the strays
	texts   []string  // their distinct texts, up to maxMissingCodes+1
	digit   bool      // some stray holds a digit
	numbers []float64 // the column's distinct numbers, up to minCodedNumbers
}

// spreadsheetErrors are the error values that spreadsheets write in a
// cell whose formula failed, in upper case: missing codes of any number
// and whatever their digits.
var spreadsheetErrors = []string{"#N/A", "#N/A N/A", "#NA", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!"}

// addStray notes the stray cell of row r.
func (s *columnStrays) addStray(r int, cell string) {
	s.rows = append(s.rows, r)
	if slices.Contains(spreadsheetErrors, strings.ToUpper(cell)) {
		return
	}
	s.digit = s.digit || strings.ContainsAny(cell, "0123456789")
	if len(s.texts) <= maxMissingCodes && !slices.Contains(s.texts, cell) {
		s.texts = append(s.texts, cell)
	}
}

// addNumber notes a number of the column.
func (s *columnStrays) addNumber(v float64) {
	if len(s.numbers) < minCodedNumbers && !slices.Contains(s.numbers, v) {
		s.numbers = append(s.numbers, v)
	}
}

// mayBeCodes reports whether the strays so far may be missing codes.
func (s *columnStrays) mayBeCodes() bool {
	return !s.digit && len(s.texts) <= maxMissingCodes
}

// tolerated reports whether a column whose n cells with a value hold the
// strays, with at most limit(n) strays of any kind, is numeric all the
// same.
func (s *columnStrays) tolerated(n int, limit func(int) int) bool {
	return len(s.rows) <= limit(n) ||
		s.mayBeCodes() && 2*len(s.rows) <= n && len(s.numbers) >= minCodedNumbers
}

// noteNumbersAsText notes in the frame's log, once for each column, that
// column col, read as text over the given rows, holds numbers in most of
// its cells with a value (plain or in the column's unit), of at least
// minCodedNumbers distinct ones (s has seen them): its other texts are
// too many, or too varied, to be strays or missing codes, and each number
// is a level.
func (f *Frame) noteNumbersAsText(col int, rows []int, s *columnStrays, unit *columnUnit) {
	name := f.columns[col]
	if len(s.numbers) < minCodedNumbers || slices.Contains(f.log.textColumns, name) {
		return
	}
	var numbers, others int
	var texts []string // the first few other texts, quoted
	first := ""
	for _, r := range rows {
		cell := f.cells[r][col]
		_, ok := readNumber(cell, f.decimalComma)
		if !ok {
			_, ok = unit.read(f, col, rows, cell)
		}
		switch {
		case isMissing(cell):
		case ok:
			numbers++
		default:
			others++
			if first == "" {
				first = strings.Clone(cell)
			}
			if q := strconv.Quote(cell); len(texts) < shownStrays && !slices.Contains(texts, q) {
				texts = append(texts, q)
			}
		}
	}
	if others == 0 || numbers <= others {
		return
	}
	f.log.textColumns = append(f.log.textColumns, name)
	f.log.notes = append(f.log.notes, Warning{Column: name, Rows: others, Value: first, Message: fmt.Sprintf(
		"it holds numbers in %d of its %d cells with a value, and other texts in %d, such as %s: too many or too varied to be read as missing, so it is read as text, each number a level; "+
			"write its missing cells as NA, or correct the others, to have it read as numbers",
		numbers, numbers+others, others, strings.Join(texts, ", "))})
}

// noteLongIntegers notes in the frame's log, once for each column, that
// column col is read as text because it holds whole numbers beyond 2^53
// (see longInteger) in rows rows, the first of them first.
func (f *Frame) noteLongIntegers(col, rows int, first string) {
	name := f.columns[col]
	if slices.Contains(f.log.textColumns, name) {
		return
	}
	f.log.textColumns = append(f.log.textColumns, name)
	f.log.notes = append(f.log.notes, Warning{Column: name, Rows: rows, Value: first, Message: fmt.Sprintf(
		"%d rows hold whole numbers beyond 2^53 such as %s, whose last digits a number of the model would lose: "+
			"ids, card or account numbers, not quantities, so the column is read as text", rows, first)})
}

// shownStrays is the number of stray cells that a warning lists.
const shownStrays = 5

// readLog is what reading a table met that its user should hear of once:
// bytes that are not UTF-8, the stray cells read as missing, columns
// that mix percentages with numbers that may be percentages too, and
// columns of numbers read as text. The
// Frames that one FrameReader reads share it.
type readLog struct {
	// place is what a row's number counts: "line" of a CSV file (the
	// zero value), "row" of a Parquet or Arrow file.
	place string
	// encodingLine is the first line with a byte that is not UTF-8, read
	// as Windows-1252; 0 if none.
	encodingLine     int
	encodingReported bool
	// strays counts the stray cells read as missing and not yet
	// reported, of which first holds the first few.
	strays int
	first  []strayCell
	// notes are the other warnings not yet reported, and scaleColumns
	// the columns warned of mixing percentages with numbers above 1.
	notes        []Warning
	scaleColumns []string
	// textColumns are the columns warned of holding numbers read as
	// text.
	textColumns []string
	// headers counts the lines that repeat the header, left out and not
	// yet reported, the first on line headerLine.
	headers, headerLine int
	// below are the rows that end the file below its table (see
	// belowTable), left out and not yet reported.
	below []heldRow
}

// belowTable notes the rows that end the file below its table: notes
// or empty fields (see belowTable), which no row of the table follows.
func (l *readLog) belowTable(rows []heldRow) { l.below = append(l.below, rows...) }

// belowWarning returns the warning of the rows below the table.
func (l *readLog) belowWarning(file string) Warning {
	lines := fmt.Sprintf("line %d, below the table's last row, holds", l.below[0].line)
	if n := len(l.below); n > 1 {
		lines = fmt.Sprintf("the %d lines from line %d, below the table's last row, hold", n, l.below[0].line)
	}
	i := slices.IndexFunc(l.below, func(r heldRow) bool { return r.rec[0] != "" })
	if i < 0 {
		return Warning{Rows: len(l.below), Message: fmt.Sprintf("%s: %s empty fields only, as a spreadsheet exports the rows below a table: left out", file, lines)}
	}
	note := l.below[i].rec[0]
	return Warning{Rows: len(l.below), Value: note, Message: fmt.Sprintf(
		"%s: %s a note (%q) and no other value, as a spreadsheet's footnotes do: left out", file, lines, note)}
}

// strayCell is a cell read as missing because it is not a number in a
// column of numbers, or not a date in a column of dates.
type strayCell struct {
	line   int
	column string
	text   string
	what   string // "number" or "date"
}

// kindValue returns what a cell of a column of kind k is: "number" or
// "date".
func kindValue(k kind) string {
	if k == date {
		return "date"
	}
	return "number"
}

// isStray reports whether err, from reading a cell of a column of kind k,
// says the cell is a stray.
func isStray(k kind, err error) bool {
	return k == numeric && errors.Is(err, ErrNumber) || k == date && errors.Is(err, ErrDate)
}

// strays handles the given rows of column col of f, of kind k, whose
// cells are strays: read strictly, they are an error that locates the
// first; otherwise they become missing cells, noted in the frame's log.
// values is how many cells of the column are numbers or dates.
func (f *Frame) strays(k kind, col int, rows []int, values int) error {
	what := kindValue(k)
	if f.strict {
		return f.cellError(rows[0], col, fmt.Errorf("%w %q: not a %s in a column of %ss (%d such cells beside %d %ss: reading strictly refuses them, and otherwise reads them as missing)",
			ErrStray, f.cells[rows[0]][col], what, what, len(rows), values, what))
	}
	for _, r := range rows {
		f.log.stray(strayCell{line: f.lines[r], column: f.columns[col], text: strings.Clone(f.cells[r][col]), what: what})
		f.cells[r][col] = ""
	}
	return nil
}

// strayValue reports whether err, from encoding the cell in the given row
// and column of f in a column of kind k, is that of a stray and, unless f
// is read strictly, makes the cell missing, to be encoded as such.
func (f *Frame) strayValue(k kind, row, col int, err error) bool {
	if !isStray(k, err) || f.strict {
		return false
	}
	return f.strays(k, col, []int{row}, 0) == nil
}

// stray notes the stray cell c.
func (l *readLog) stray(c strayCell) {
	if len(l.first) < shownStrays {
		l.first = append(l.first, c)
	}
	l.strays++
}

// warnings returns the warnings of the log not yet reported, and marks
// them reported.
func (l *readLog) warnings(file string) []Warning {
	var warnings []Warning
	if l.encodingLine > 0 && !l.encodingReported {
		l.encodingReported = true
		warnings = append(warnings, Warning{Rows: 1, Message: fmt.Sprintf(
			"%s: not UTF-8: bytes that are not, first on line %d, are read as Windows-1252 (Latin-1) characters; save the file as UTF-8 to be sure of its text", file, l.encodingLine)})
	}
	if l.headers > 0 {
		what := fmt.Sprintf("line %d repeats the header", l.headerLine)
		if l.headers > 1 {
			what = fmt.Sprintf("%d lines repeat the header, the first on line %d", l.headers, l.headerLine)
		}
		warnings = append(warnings, Warning{Rows: l.headers, Message: fmt.Sprintf(
			"%s: %s, as tables joined end to end do: left out", file, what)})
		l.headers = 0
	}
	if l.below != nil {
		warnings = append(warnings, l.belowWarning(file))
		l.below = nil
	}
	if l.strays > 0 {
		warnings = append(warnings, l.strayWarning(file))
		l.strays, l.first = 0, nil
	}
	warnings = append(warnings, l.notes...)
	l.notes = nil
	return warnings
}

// strayWarning returns the warning of the stray cells not yet reported.
func (l *readLog) strayWarning(file string) Warning {
	n := l.strays
	var shown []string
	for _, c := range l.first {
		shown = append(shown, fmt.Sprintf("%s %d, column %q: %q is not a %s", cmp.Or(l.place, "line"), c.line, c.column, c.text, c.what))
	}
	if n > len(shown) {
		shown = append(shown, fmt.Sprintf("and %d more", n-len(shown)))
	}
	what := "1 stray cell, not of its column's kind, is read as missing"
	if n > 1 {
		what = fmt.Sprintf("%d stray cells, not of their columns' kinds, are read as missing", n)
	}
	return Warning{Rows: n, Value: l.first[0].text,
		Message: fmt.Sprintf("%s: %s: %s; correct such cells, or read strictly to refuse them", file, what, strings.Join(shown, "; "))}
}

// cellStrays counts the stray cells of a column of numbers or dates, read
// as missing, and keeps the first few with their rows, counted from 1,
// and the dates written with the year last among them.
type cellStrays struct {
	rows     int
	first    []string
	head     string // the first, quoted, and its row
	yearLast unseenLevels
}

// add counts the stray cell of the given row of column c.
func (s *cellStrays) add(c *encodedColumn, row int, cell string) {
	if len(s.first) < shownStrays {
		s.first = append(s.first, fmt.Sprintf("row %d: %q", row, cell))
	}
	if s.rows == 0 {
		s.head = fmt.Sprintf("%q (row %d)", cell, row)
	}
	s.rows++
	if _, ok := yearLastFields(cell); ok && c.Kind == date && c.Order == "" {
		s.yearLast.add(cell, row)
	}
}

// warning returns the warning of the strays of column c, of n rows: the
// column as good as missing if they are most of its rows, and the dates
// written with the year last among them.
func (s *cellStrays) warning(c *encodedColumn, n int) *Warning {
	if s.rows > len(s.first) {
		s.first = append(s.first, fmt.Sprintf("and %d more", s.rows-len(s.first)))
	}
	msg := fmt.Sprintf("%d cells are not %ss and are read as missing: %s", s.rows, kindValue(c.Kind), strings.Join(s.first, "; "))
	if y := s.yearLast; y.rows > 0 {
		msg += "; " + yearLastText(y.rows, y.first, fmt.Sprintf("row %d", y.line))
	}
	if mostlyStrays(s.rows, n) {
		msg = c.missingText(s.rows, n, s.head) + "; " + msg
	}
	return &Warning{Column: c.Name, Rows: s.rows, Message: msg}
}

// percentScales notes whether a column of numbers mixes percentages with
// plain numbers above 1 in size, which may be percentages without their
// sign: 50% is 0.5, but 50 is 50.
type percentScales struct {
	percent, plain string // the first of each, if any
}

// add notes the cell, which reads as the number v.
func (p *percentScales) add(cell string, v float64) {
	percent := strings.HasSuffix(cell, "%")
	switch {
	case percent && p.percent == "":
		p.percent = cell
	case !percent && math.Abs(v) > 1 && p.plain == "":
		p.plain = cell
	}
}

// check notes in log a warning for the named column if it mixes the two
// scales, once for each column.
func (p *percentScales) check(log *readLog, column string) {
	if p.percent == "" || p.plain == "" || slices.Contains(log.scaleColumns, column) {
		return
	}
	log.scaleColumns = append(log.scaleColumns, column)
	log.notes = append(log.notes, Warning{Column: column, Value: p.plain, Message: fmt.Sprintf(
		"it mixes percentages such as %s, read as fractions (50%% is 0.5), with numbers above 1 such as %s, read as they are: if those are percentages too, write them with %%, or as fractions",
		p.percent, p.plain)})
}

// someStrays is strays for the strays, if any, of a column of n cells with
// a value.
func (f *Frame) someStrays(k kind, col int, rows []int, n int) error {
	if len(rows) == 0 {
		return nil
	}
	return f.strays(k, col, rows, n-len(rows))
}
