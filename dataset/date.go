package dataset

import (
	"time"
)

// dateLayouts are the forms of the dates and times that a column of dates
// holds: ISO 8601's, as databases, spreadsheets and pandas write them.
// Day-first and month-first forms such as 01/02/2024 stay text: one cannot
// tell them apart.
var dateLayouts = []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", time.RFC3339, "2006/01/02"}

// ParseDate reads a trimmed cell as a date or a time of day on a date in
// one of the ISO 8601 forms 2024-01-31, 2024-01-31 13:45[:30[.5]],
// 2024-01-31T13:45:30[Z or ±hh:mm] and 2024/01/31, in UTC unless the cell
// gives its offset. ok is false for any other cell.
func ParseDate(cell string) (t time.Time, ok bool) {
	// Every form begins with four digits and a separator: other texts
	// are turned away without trying each layout.
	if len(cell) < len("2006-01-02") || cell[4] != '-' && cell[4] != '/' || !isDigits(cell[:4]) {
		return time.Time{}, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, cell); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// isDigits reports whether s holds ASCII digits only.
func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Days returns t as a number: the days since 1970-01-01 00:00 UTC, with
// the time of day as their fraction. A column of dates is encoded so.
func Days(t time.Time) float64 {
	return float64(t.Unix())/secondsPerDay + float64(t.Nanosecond())/1e9/secondsPerDay
}

const secondsPerDay = 24 * 60 * 60
