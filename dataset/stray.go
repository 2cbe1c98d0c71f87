package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ErrStray is wrapped by the ParseError for a cell that is not a number in
// a column of numbers, when the Frame is read strictly (see
// FrameOptions.Strict).
var ErrStray = errors.New("not a number in a column of numbers")

// strayLimit returns how many of a column's n non-missing cells may be
// strays, cells that are not numbers, in a column that is read as
// numbers: one among ten numbers or more, and in general one in fifty.
// Below that a column is a column of numbers with a few typos; above it
// the texts are as much the column's values as its numbers are.
func strayLimit(n int) int {
	if n <= 10 {
		return 0
	}
	return max(1, n/50)
}

// shownStrays is the number of stray cells that a warning lists.
const shownStrays = 5

// readLog is what reading a table met that its user should hear of once:
// bytes that are not UTF-8, the stray cells read as missing, and columns
// that mix percentages with numbers that may be percentages too. The
// Frames that one FrameReader reads share it.
type readLog struct {
	// encodingLine is the first line with a byte that is not UTF-8, read
	// as Windows-1252; 0 if none.
	encodingLine     int
	encodingReported bool
	// strays counts the stray cells read as missing, of which first holds
	// the first few; reported counts those already reported.
	strays   int
	first    []strayCell
	reported int
	// notes are the other warnings not yet reported, and scaleColumns
	// the columns warned of mixing percentages with numbers above 1.
	notes        []Warning
	scaleColumns []string
}

// strayCell is a cell read as missing because it is not a number in a
// column of numbers.
type strayCell struct {
	line   int
	column string
	text   string
}

// strays handles the given rows of column col of f, whose cells are not
// numbers in a column of numbers: read strictly, they are an error that
// locates the first; otherwise they become missing cells, noted in the
// frame's log. numbers is how many cells of the column are numbers.
func (f *Frame) strays(col int, rows []int, numbers int) error {
	if f.strict {
		return f.cellError(rows[0], col, fmt.Errorf("%w: %q (%d such cells beside %d numbers: reading strictly refuses them, and otherwise reads them as missing)",
			ErrStray, f.cells[rows[0]][col], len(rows), numbers))
	}
	for _, r := range rows {
		f.log.stray(strayCell{line: f.lines[r], column: f.columns[col], text: strings.Clone(f.cells[r][col])})
		f.cells[r][col] = ""
	}
	return nil
}

// strayNumber reports whether err, from encoding the cell in the given
// row and column of f in a column of kind k, is that of a cell that is
// not a number in a column of numbers and, unless f is read strictly,
// makes the cell missing, to be encoded as such.
func (f *Frame) strayNumber(k kind, row, col int, err error) bool {
	if k != numeric || !errors.Is(err, ErrNumber) || f.strict {
		return false
	}
	return f.strays(col, []int{row}, 0) == nil
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
			"%s: the bytes from line %d on are not UTF-8: the file is read as Windows-1252 (Latin-1); save it as UTF-8 to be sure of its text", file, l.encodingLine)})
	}
	if l.strays > l.reported {
		warnings = append(warnings, l.strayWarning(file))
		l.reported = l.strays
	}
	warnings = append(warnings, l.notes...)
	l.notes = nil
	return warnings
}

// strayWarning returns the warning of the stray cells not yet reported.
func (l *readLog) strayWarning(file string) Warning {
	n := l.strays - l.reported
	var shown []string
	for _, c := range l.first[min(l.reported, len(l.first)):] {
		shown = append(shown, fmt.Sprintf("line %d, column %q: %q", c.line, c.column, c.text))
	}
	if n > len(shown) && len(shown) > 0 {
		shown = append(shown, fmt.Sprintf("and %d more", n-len(shown)))
	}
	what := "1 cell of a column of numbers is not a number and is read as missing"
	if n > 1 {
		what = fmt.Sprintf("%d cells of columns of numbers are not numbers and are read as missing", n)
	}
	w := Warning{Rows: n, Message: fmt.Sprintf("%s: %s: %s; correct such cells, or read strictly to refuse them", file, what, strings.Join(shown, "; "))}
	if len(l.first) > 0 {
		w.Value = l.first[0].text
	}
	return w
}

// cellStrays counts the stray cells of a column of numbers, read as
// missing, and keeps the first few with their rows, counted from 1.
type cellStrays struct {
	rows  int
	first []string
}

// add counts the stray cell of the given row.
func (s *cellStrays) add(row int, cell string) {
	if len(s.first) < shownStrays {
		s.first = append(s.first, fmt.Sprintf("row %d: %q", row, cell))
	}
	s.rows++
}

// warning returns the warning of the strays of the named column.
func (s *cellStrays) warning(column string) *Warning {
	if s.rows > len(s.first) {
		s.first = append(s.first, fmt.Sprintf("and %d more", s.rows-len(s.first)))
	}
	return &Warning{Column: column, Rows: s.rows,
		Message: fmt.Sprintf("%d cells are not numbers and are read as missing: %s", s.rows, strings.Join(s.first, "; "))}
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
