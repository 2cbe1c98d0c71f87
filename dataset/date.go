package dataset

import (
	"math"
	"slices"
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

// A Cycle is a season of the calendar that a date column can show: the
// year, the week or the day. The encoder follows a date's days with the
// sine and cosine of its phase in each cycle that the training dates show,
// so that the kernel compares two dates by their times of year, days of
// the week or hours as well as by their distance: a Gaussian kernel on
// such a pair is the periodic kernel of the cycle, which a trend of days
// alone cannot give.
type Cycle struct {
	Name   string  // year, week or day
	Period float64 // in days
}

// cycles are the cycles a date column may show, in the order of their
// encoded columns.
var cycles = []Cycle{{"year", 365.2425}, {"week", 7}, {"day", 1}}

// cycleNamed returns the cycle of the given name, and false for no cycle's
// name.
func cycleNamed(name string) (Cycle, bool) {
	i := slices.IndexFunc(cycles, func(c Cycle) bool { return c.Name == name })
	if i < 0 {
		return Cycle{}, false
	}
	return cycles[i], true
}

// dateCycles returns the names of the cycles that training dates, given
// as days (see Days), show: those whose period the dates span at least
// twice, so that the season can be told from the trend; the week only if
// the dates are not all on the first or the last day of their months
// (monthly, quarterly or yearly figures, whose weekdays are chance), and
// the day only if some date has a time of day.
func dateCycles(days []float64) []string {
	if len(days) == 0 {
		return nil
	}
	span := slices.Max(days) - slices.Min(days)
	var names []string
	for _, c := range cycles {
		switch {
		case span < 2*c.Period:
		case c.Name == "week" && monthEnds(days):
		case c.Name == "day" && !slices.ContainsFunc(days, func(d float64) bool { return d != math.Floor(d) }):
		default:
			names = append(names, c.Name)
		}
	}
	return names
}

// monthEnds reports whether every one of days falls on the first or the
// last day of its month.
func monthEnds(days []float64) bool {
	for _, d := range days {
		t := time.Unix(int64(math.Floor(d))*secondsPerDay, 0).UTC()
		if t.Day() != 1 && t.AddDate(0, 0, 1).Day() != 1 {
			return false
		}
	}
	return true
}

// putPhases writes the sine and cosine of the phase of the date days (see
// Days) in each named cycle to out, two entries per cycle. The days are
// reduced to the cycle before they are turned into an angle, which keeps
// the phase of a day's hours exact to 1e-15 rather than 1e-11.
func putPhases(out []float64, names []string, days float64) {
	for i, name := range names {
		c, _ := cycleNamed(name)
		a := math.Mod(days, c.Period) * (2 * math.Pi / c.Period)
		out[2*i], out[2*i+1] = math.Sin(a), math.Cos(a)
	}
}
