package dataset

import (
	"math"
	"slices"
	"strings"
)

// totalsLabels are the words, in lower case, that mark a row of totals.
var totalsLabels = []string{"total", "totals", "grand total", "sum", "summe", "gesamt", "totaal", "totale"}

// totalsMargin is the relative difference within which a cell of the
// last row is the sum of its column: totals of rounded figures differ
// from the figures' sum by their rounding.
const totalsMargin = 0.005

// Totals reports whether the last row of f holds the totals of the rows
// above it, as spreadsheets add them below a table: a cell that says so
// ("Total", "Totals", "Grand total", "Sum", in any case, with a colon or
// not) and, in a column of numbers, the sum of the other rows' numbers to
// within half a percent. It returns the labelling cell and the column of
// the first such sum. Such a row is no observation: its numbers lie far
// beyond the others, where a model would learn from it or extrapolate.
func (f *Frame) Totals() (label, column string, ok bool) {
	last := len(f.cells) - 1
	if last < 2 {
		return "", "", false
	}
	for _, cell := range f.cells[last] {
		if slices.Contains(totalsLabels, strings.TrimSpace(strings.TrimSuffix(strings.ToLower(cell), ":"))) {
			label = cell
		}
	}
	if label == "" {
		return "", "", false
	}
	for col, name := range f.columns {
		if f.sums(col, last) {
			return strings.Clone(label), name, true
		}
	}
	return "", "", false
}

// sums reports whether the cell of column col in row last is the sum of
// the numbers of the rows above it, every cell with a value among them a
// number, two of them at least not 0 (a sparse column's one number is no
// sum), and the sum not 0.
func (f *Frame) sums(col, last int) bool {
	total, err := f.number(f.cells[last][col])
	if err != nil {
		return false
	}
	sum, n := 0.0, 0
	for _, rec := range f.cells[:last] {
		if isMissing(rec[col]) {
			continue
		}
		v, err := f.number(rec[col])
		if err != nil {
			return false
		}
		sum += v
		if v != 0 {
			n++
		}
	}
	return n >= 2 && sum != 0 && math.Abs(total-sum) <= totalsMargin*math.Abs(sum)
}
