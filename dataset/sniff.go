package dataset

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"unicode/utf8"
)

// sampleSize is how much of the start of a file NewFrameReader reads to
// detect the separator and the decimal mark.
const sampleSize = 64 << 10

// sniffLines is the number of records of the sample that decide the
// separator.
const sniffLines = 20

// separators are the field separators NewFrameReader detects, in order
// of preference.
var separators = []rune{',', ';', '\t', '|'}

// detectComma returns the separator that splits the first records of
// sample into the same number of fields, more than one, the most fields
// if several do; a comma if none does. complete says the sample is the
// whole file; otherwise its last record may be cut short and does not
// count.
func detectComma(sample []byte, complete bool) rune {
	best, bestFields := ',', 1
	for _, comma := range separators {
		records := sampleRecords(sample, complete, comma, sniffLines)
		if len(records) == 0 {
			continue
		}
		fields := len(records[0])
		for _, rec := range records[1:] {
			if len(rec) != fields {
				fields = 0
				break
			}
		}
		if fields > bestFields {
			best, bestFields = comma, fields
		}
	}
	return best
}

// hasDecimalComma reports whether a cell of the sample, split by comma,
// is a number written with a decimal comma. In a file separated by
// commas, which must quote such a number ("3,14", as spreadsheets of
// much of Europe export them), one that may be thousands (1,234) does not
// count, and a number with a decimal point in any cell says that the
// file writes decimal points.
func hasDecimalComma(sample []byte, complete bool, comma rune) bool {
	decimalCommas := false
	for _, rec := range sampleRecords(sample, complete, comma, 0) {
		for _, cell := range rec {
			cell = strings.TrimSpace(cell)
			if !decimalCommaNumber.MatchString(cell) {
				if _, ok := readNumber(cell, false); ok && comma == ',' && strings.Contains(cell, ".") {
					return false
				}
				continue
			}
			if comma != ',' {
				return true
			}
			decimalCommas = decimalCommas || !thousandsCommas.MatchString(cell)
		}
	}
	return decimalCommas
}

// sampleRecords returns up to max records of sample (all if max is 0)
// split by comma, as far as they parse; without the last one unless the
// sample is complete. It returns nil if the first record does not parse.
func sampleRecords(sample []byte, complete bool, comma rune, max int) [][]string {
	cr := csv.NewReader(bytes.NewReader(sample))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var records [][]string
	for max == 0 || len(records) < max {
		rec, err := cr.Read()
		if err == io.EOF {
			if !complete && len(records) > 1 {
				records = records[:len(records)-1]
			}
			break
		}
		if err != nil {
			break
		}
		records = append(records, rec)
	}
	return records
}

// validComma reports whether r can separate the fields of a CSV file.
func validComma(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}
