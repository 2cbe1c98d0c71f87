package dataset

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// dateLayouts are the forms of the dates and times that a column of dates
// holds: ISO 8601's, as databases, spreadsheets and pandas write them,
// and its year and month alone. Forms with the year last, day or month
// first (31/01/2024, 01/31/2024), are read by ParseYearLast in the order
// that a whole column shows: one such cell cannot tell it.
var dateLayouts = []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04", time.RFC3339, "2006/01/02", "2006-01"}

// namedMonthLayouts are the forms of the dates that name their month, in
// English, as reports and spreadsheets write them; a month without a day
// is its first day.
var namedMonthLayouts = []string{"2-Jan-2006", "Jan-2-2006", "2 Jan 2006", "2 January 2006", "Jan 2, 2006", "January 2, 2006", "Jan 2 2006", "Jan 2006", "January 2006", "Jan-2006"}

// ParseDate reads a trimmed cell as a date or a time of day on a date in
// one of the ISO 8601 forms 2024-01-31, 2024-01-31 13:45[:30[.5]],
// 2024-01-31T13:45:30[Z or ±hh:mm], 2024/01/31 and 2024-01 (a month, read
// as its first day), or with the month's English name or its first three
// letters, in any case: 31-Jan-2024, Jan-31-2024, 31 Jan 2024, Jan 31,
// 2024, January 31, 2024, Jan 2024. It is in UTC unless the cell gives its
// offset. ok is false for any other cell.
func ParseDate(cell string) (t time.Time, ok bool) {
	// Other texts are turned away without trying each layout: ISO forms
	// begin with four digits and a separator, and the others have a
	// letter.
	var layouts []string
	switch {
	case len(cell) >= len("2006-01") && (cell[4] == '-' || cell[4] == '/') && isDigits(cell[:4]):
		layouts = dateLayouts
	case len(cell) <= len("September 30, 2006") && strings.ContainsFunc(cell, unicode.IsLetter):
		layouts = namedMonthLayouts
	default:
		return time.Time{}, false
	}
	for _, layout := range layouts {
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

// cycleIndex returns the index in cycles of the cycle of the given name,
// and -1 for no cycle's name.
func cycleIndex(name string) int {
	return slices.IndexFunc(cycles, func(c Cycle) bool { return c.Name == name })
}

// dateCycles returns the names of the cycles that training dates, given
// as days (see Days), show: those whose period the dates span at least
// twice, so that the season can be told from the trend, and in which they
// fall at two places at least (days of the year, weekdays, times of day:
// weekly figures all on a Saturday show no week). The week is left out
// too when every date is the first or the last day of its month (monthly,
// quarterly or yearly figures, whose weekdays are chance).
func dateCycles(days []float64) []string {
	if len(days) == 0 {
		return nil
	}
	span := slices.Max(days) - slices.Min(days)
	times := make([]time.Time, len(days))
	for i, d := range days {
		times[i] = time.Unix(int64(math.Round(d*secondsPerDay)), 0).UTC()
	}
	var names []string
	for _, c := range cycles {
		switch {
		case span < 2*c.Period || !varies(times, c.Name):
		case c.Name == "week" && monthEnds(times):
		default:
			names = append(names, c.Name)
		}
	}
	return names
}

// varies reports whether times fall at two places at least in the named
// cycle, to the second.
func varies(times []time.Time, cycle string) bool {
	place := func(t time.Time) int {
		switch cycle {
		case "year":
			return t.YearDay()*secondsPerDay + t.Hour()*3600 + t.Minute()*60 + t.Second()
		case "week":
			return int(t.Weekday())*secondsPerDay + t.Hour()*3600 + t.Minute()*60 + t.Second()
		}
		return t.Hour()*3600 + t.Minute()*60 + t.Second()
	}
	first := place(times[0])
	return slices.ContainsFunc(times[1:], func(t time.Time) bool { return place(t) != first })
}

// monthEnds reports whether every one of times falls on the first or the
// last day of its month.
func monthEnds(times []time.Time) bool {
	for _, t := range times {
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
		c := cycles[cycleIndex(name)]
		a := math.Mod(days, c.Period) * (2 * math.Pi / c.Period)
		out[2*i], out[2*i+1] = math.Sin(a), math.Cos(a)
	}
}

// Dates written with the year last, as spreadsheets write them outside
// ISO 8601 (31/01/2024, 01/31/2024, 31.01.2024, 31-01-2024, with a time
// 13:45[:30] or none), put the day first in much of the world and the
// month first in the United States. One cell such as 01/02/2024 cannot
// tell, but a column can: a first number above 12 is a day, and so is a
// second. A date column's Order names the order of its cells, "dmy" or
// "mdy"; ISO 8601's year first has none.
const (
	dayFirst   = "dmy"
	monthFirst = "mdy"
)

// dateExample returns a date written in the given order, or in ISO 8601
// for none, for messages.
func dateExample(order string) string {
	switch order {
	case dayFirst:
		return "31/01/2024"
	case monthFirst:
		return "01/31/2024"
	}
	return "2024-01-31"
}

// yearLast matches a date with the year last: two numbers of one or two
// digits and a year of four, separated by the same /, . or -, and a time
// of day after a space or a T.
var yearLast = regexp.MustCompile(`^(\d{1,2})([/.-])(\d{1,2})[/.-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$`)

// shortYear matches a date with a two-digit year, 10/25/16 or 25.10.16,
// which the year-last dates do not read: 16 may be 1916 or 2016, and
// 16/10/25 may put the year first.
var shortYear = regexp.MustCompile(`^\d{1,2}(/\d{1,2}/|-\d{1,2}-|\.\d{1,2}\.)\d{2}$`)

// shortYears reports whether every one of levels is a date with a
// two-digit year.
func shortYears(levels []string) bool {
	return !slices.ContainsFunc(levels, func(level string) bool { return !shortYear.MatchString(level) })
}

// yearLastFields returns the numbers of a cell with the year last: the
// first two, the year, and the hours, minutes and seconds (zero without a
// time); ok is false for another cell.
func yearLastFields(cell string) (f [6]int, ok bool) {
	m := yearLast.FindStringSubmatch(cell)
	if m == nil || strings.Count(cell[:len(m[1])+len(m[3])+2], m[2]) != 2 {
		return f, false
	}
	for i, s := range []string{m[1], m[3], m[4], m[5], m[6], m[7]} {
		if s != "" {
			f[i], _ = strconv.Atoi(s)
		}
	}
	return f, true
}

// ParseYearLast reads a trimmed cell with the year last in the given
// order, "dmy" or "mdy" (see YearLastOrder); ok is false for another cell
// and for a day, month or time that does not exist.
func ParseYearLast(cell, order string) (time.Time, bool) {
	f, ok := yearLastFields(cell)
	if !ok {
		return time.Time{}, false
	}
	day, month := f[0], f[1]
	if order == monthFirst {
		day, month = month, day
	}
	t := time.Date(f[2], time.Month(month), day, f[3], f[4], f[5], 0, time.UTC)
	// time.Date carries 31 April over into May: a date that does not
	// exist comes back changed.
	if month < 1 || month > 12 || t.Day() != day || t.Month() != time.Month(month) || f[3] > 23 || f[4] > 59 || f[5] > 59 {
		return time.Time{}, false
	}
	return t, true
}

// YearLastOrder returns the order in which levels, the trimmed texts of a
// column, write dates with the year last (31/01/2024, 01/31/2024,
// 31.01.2024 or 31-01-2024, with a time or none), if they all do: a first
// number above 12 makes it "dmy", a second "mdy". With no number above 12,
// a number that never changes while the other does is the day, as in
// monthly figures (1/1/1995, 2/1/1995, ...: "mdy"). Otherwise order is
// empty, and ambiguous is true when every level is such a date.
func YearLastOrder(levels []string) (order string, ambiguous bool) {
	var first, second int // the largest of each
	var firstVaries, secondVaries bool
	var f0 [6]int // the first level's fields
	for i, level := range levels {
		f, ok := yearLastFields(level)
		if !ok {
			return "", false
		}
		if i == 0 {
			f0 = f
		}
		first, second = max(first, f[0]), max(second, f[1])
		firstVaries, secondVaries = firstVaries || f[0] != f0[0], secondVaries || f[1] != f0[1]
	}
	switch {
	case first > 12 && second <= 12:
		order = dayFirst
	case second > 12 && first <= 12:
		order = monthFirst
	case first > 12 && second > 12:
		return "", false // days in both places: not dates
	case secondVaries && !firstVaries:
		order = dayFirst
	case firstVaries && !secondVaries:
		order = monthFirst
	default:
		return "", true
	}
	for _, level := range levels {
		if _, ok := ParseYearLast(level, order); !ok {
			return "", false
		}
	}
	return order, false
}

// parseDateIn reads a trimmed cell of a column of dates written with the
// year last in the given order, or ISO 8601's (see ParseDate), which
// such a column may mix with them: no ISO date reads as one with the
// year last.
func parseDateIn(cell, order string) (time.Time, bool) {
	if order != "" {
		if t, ok := ParseYearLast(cell, order); ok {
			return t, true
		}
	}
	return ParseDate(cell)
}

// DateOrder returns the order of the dates with the year last in a column
// of dates, "dmy" or "mdy", as FitEncoder reads its levels: all written
// with the year last (see YearLastOrder), or mixed with ISO 8601 dates.
// It is empty where the levels are not such dates or do not tell the
// order.
func DateOrder(levels []string) string {
	if order, _ := YearLastOrder(levels); order != "" {
		return order
	}
	_, order, _ := mixedDates(levels)
	return order
}

// mixedDates returns the levels of a column that mixes dates with the
// year last and ISO 8601 dates (see ParseDate), if every level is one or
// the other and each kind is there, and the order of the ones with the
// year last (see YearLastOrder), or ambiguous if they do not tell it.
func mixedDates(levels []string) (yearLast []string, order string, ambiguous bool) {
	iso := 0
	for _, level := range levels {
		_, isYearLast := yearLastFields(level)
		_, isISO := ParseDate(level)
		switch {
		case isYearLast:
			yearLast = append(yearLast, level)
		case isISO:
			iso++
		default:
			return nil, "", false
		}
	}
	if iso == 0 || yearLast == nil {
		return nil, "", false
	}
	order, ambiguous = YearLastOrder(yearLast)
	if order == "" && !ambiguous {
		return nil, "", false
	}
	return yearLast, order, ambiguous
}

// mixedDatesWarning returns the warning of the named column that mixes
// ISO 8601 dates with rows of dates written with the year last in the
// given order, such as first.
func mixedDatesWarning(column, first string, rows int, order string) *Warning {
	return &Warning{Column: column, Value: first, Rows: rows,
		Message: fmt.Sprintf("it mixes dates written as 2024-01-31 (ISO 8601) with %d rows of dates such as %q, written as %s: each is read in its own form; write them alike",
			rows, first, dateExample(order))}
}

// MixedDates returns the warning that FitEncoder gives of an input column
// whose trimmed cells mix ISO 8601 dates with dates written with the year
// last in an order they tell (see DateOrder), for the named column of
// the given cells, one for each row, read otherwise (such as fit's -time
// column); nil for cells that do not mix them so.
func MixedDates(column string, cells []string) *Warning {
	yearLast, order, _ := mixedDates(cells)
	if order == "" {
		return nil
	}
	return mixedDatesWarning(column, yearLast[0], len(yearLast), order)
}
