package dataset

import (
	"fmt"
	"strings"
)

// ParseError reports a problem with a data file: in a table, Row and
// Column locate the field at fault; in an IDX file, Err names the image or
// label if one is at fault.
type ParseError struct {
	File   string // name of the file, as given to the reader
	Row    int    // 1-based line number in a CSV file, row in a Parquet or Arrow file; 0 if none applies
	Column string // column name; empty if no single column applies
	Err    error  // what is wrong
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Row > 0 {
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.Column != "" {
			b.WriteString(", ")
		}
	}
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q", e.Column)
	}
	if e.Row > 0 || e.Column != "" {
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }
