package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Errors wrapped by ParseError for CSV files. Test for them with errors.Is.
var (
	ErrEmpty      = errors.New("empty file")
	ErrNoRows     = errors.New("no data rows after the header")
	ErrFieldCount = errors.New("wrong number of fields")
	ErrDuplicate  = errors.New("duplicate column name")
	ErrNoColumn   = errors.New("no such column")
	ErrMissing    = errors.New("missing value")
	ErrNumber     = errors.New("not a number")
	ErrInf        = errors.New("value is infinite")
	ErrDate       = errors.New("not a date")
	ErrDateOrder  = errors.New("a date in another order")
	ErrCurrency   = errors.New("an amount in another currency")
	ErrOneClass   = errors.New("target has a single class")
)

// noColumnError is the error for column col, missing from file name of
// the given columns. It names a column that differs from col in case
// only, and says when a header of numbers only is data: the file has no
// header row.
func noColumnError(name, col string, cols []string) *ParseError {
	hint := ""
	if i := slices.IndexFunc(cols, func(c string) bool { return strings.EqualFold(c, col) }); i >= 0 {
		hint = fmt.Sprintf(", of which %q differs in case only: names are matched exactly", cols[i])
	} else if !slices.ContainsFunc(cols, func(c string) bool { _, ok := readNumber(c, false); return !ok }) {
		hint = ": its first line holds numbers only, and a table's first line names its columns"
	}
	return &ParseError{File: name, Column: col,
		Err: fmt.Errorf("%w; the file has %s%s", ErrNoColumn, quoteList(cols), hint)}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// readError converts an error from the CSV reader, which for malformed input
// knows the line but not the file.
func readError(name string, err error) error {
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		return &ParseError{File: name, Row: ce.Line, Err: ce.Err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// FormatFloat formats v in the shortest form that strconv.ParseFloat reads
// back to v.
func FormatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}
