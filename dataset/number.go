package dataset

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Numbers as tables write them, beyond Go's syntax. Group separators come
// in groups of three digits, so that "4,599.0" is a number but "3,14" in
// a file with decimal points is text. A space, a no-break space (U+00A0),
// a narrow no-break space (U+202F) or a thin space (U+2009) may separate
// the groups with either decimal mark, as ISO 80000 writes numbers, and
// so may an apostrophe (' or ’), as Switzerland writes them.
var (
	// thousandsCommas matches a number grouped by commas or spaces with an
	// optional decimal point: 4,599.0, -1,234,567, 10 851.5.
	thousandsCommas = regexp.MustCompile(`^[+-]?[0-9]{1,3}((,[0-9]{3})+|(` + groupSpace + `[0-9]{3})+)(\.[0-9]+)?$`)
	// decimalCommaNumber matches a number with a decimal comma, optionally
	// grouped by points or spaces: 3,14, 1.234,5, 10 851,5.
	decimalCommaNumber = regexp.MustCompile(`^[+-]?([0-9]+|[0-9]{1,3}((\.[0-9]{3})+|(` + groupSpace + `[0-9]{3})+)),[0-9]+$`)
	// thousandsPoints matches a whole number grouped by points or spaces:
	// 1.234, 12.345.678, 1 234; only files with decimal commas read it so.
	thousandsPoints = regexp.MustCompile(`^[+-]?[0-9]{1,3}((\.[0-9]{3})+|(` + groupSpace + `[0-9]{3})+)$`)
	// clockTime matches a time of day or a duration in hours, minutes
	// and optionally seconds, a time of day on the 12-hour clock with AM
	// or PM after it: 13:45, 7:05:30, 125:30, 1:02:03.5, 10:00 PM.
	clockTime = regexp.MustCompile(`^([0-9]{1,4}):([0-5][0-9])(:([0-5][0-9](\.[0-9]+)?))?(\s*([AaPp])\.?[Mm]\.?)?$`)
)

// groupMarks are the characters of a number that plainNumber's regular
// expressions need, separators of thousands or decimals, and
// thousandsMarks those that thousandsCommas needs.
const (
	groupMarks     = "." + thousandsMarks
	thousandsMarks = ", \u00a0\u202f\u2009'\u2019"
)

// groupSpace matches the spaces and apostrophes that may separate groups
// of three digits.
const groupSpace = "[ \u00a0\u202f\u2009'\u2019]"

// readNumber reads a trimmed cell as a number. It takes Go's syntax
// (strconv.ParseFloat, which also reads Inf and returns ±Inf for numbers
// too large for a float64), thousands separators (4,599.0, 10 851.5), a
// trailing percent sign, which makes a fraction (17.5% is 0.175, so that
// a column mixing 50% and 0.5 holds one quantity), a minus sign (U+2212)
// for the hyphen, parentheses for a minus, as accounts write it
// ((1,234.50) is -1234.5), a minus after the number, as SAP exports it
// (1.234,50- is -1234.5 with decimal commas), a currency sign before or after the number
// ($1,234.50, -$5, 12,50 € are 1234.5, -5 and 12.5), and the marks by
// which spreadsheets keep a number as text, an apostrophe before it or a
// formula's quotes around it ('12.5 and ="12.5" are 12.5). In a file with decimal commas, 3,14, 1.234,5 and 1 234,5 are
// 3.14, 1234.5 and 1234.5, and 1.234 is 1234. A time of day or a
// duration, hours and minutes and optionally seconds, is read in hours:
// 13:45 is 13.75, 1:02:03 is 1.034, 10:00 PM is 22. ok is false for a
// cell that is none of these, and for NaN.
func readNumber(cell string, decimalComma bool) (v float64, ok bool) {
	return readScaled(cell, decimalComma, false)
}

// readScaled is readNumber, except that a percentage is read as the
// number before its sign (17.5% is 17.5) if percentPoints is set, as
// encoders saved before percentages were fractions read them.
func readScaled(cell string, decimalComma, percentPoints bool) (v float64, ok bool) {
	if inner, ok := spreadsheetText(cell); ok {
		return readScaled(inner, decimalComma, percentPoints)
	}
	if inner, ok := parenthesized(cell); ok {
		v, ok := readScaled(inner, decimalComma, percentPoints)
		return -v, ok
	}
	if inner, ok := minusAfter(cell); ok {
		v, ok := readScaled(inner, decimalComma, percentPoints)
		return -v, ok
	}
	// Word processors and typeset tables write a minus sign (U+2212).
	cell = strings.ReplaceAll(cell, "\u2212", "-")
	if v, ok := plainNumber(cell, decimalComma, false); ok {
		return v, true
	}
	if strings.Contains(cell, ":") {
		return hours(cell)
	}
	rest, sign := withoutSign(cell)
	if sign == "" {
		return 0, false
	}
	return plainNumber(rest, decimalComma, sign == "%" && !percentPoints)
}

// unitSuffix matches a number followed by a unit of measure: letters,
// µ or °, then letters, µ, °, a slash or a square or cube, after an
// optional space: 12 kg, 23.4 kmpl, 74bhp, 5 km/h, 20 m².
var unitSuffix = regexp.MustCompile(`^(.*[0-9.])\s*([\p{L}µ°][\p{L}µ°/²³]{0,11})$`)

// ordinalSuffixes end ordinal numbers (1st, 2nd, 3rd, 4th), which are
// ranks, not quantities in a unit.
var ordinalSuffixes = []string{"st", "nd", "rd", "th"}

// withUnit reads a trimmed cell that is a finite number followed by a
// unit of measure (see unitSuffix): the number and the unit, whose
// plural s is dropped when it has three letters or more, so that 1 month
// and 3 months share their unit. ok is false for any other cell.
func withUnit(cell string, decimalComma bool) (v float64, unit string, ok bool) {
	m := unitSuffix.FindStringSubmatch(cell)
	if m == nil || slices.Contains(ordinalSuffixes, strings.ToLower(m[2])) {
		return 0, "", false
	}
	v, ok = readNumber(strings.TrimSpace(m[1]), decimalComma)
	if !ok || math.IsInf(v, 0) {
		return 0, "", false
	}
	unit = m[2]
	if utf8.RuneCountInString(unit) >= 3 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return v, unit, true
}

// Magnitudes: a column of numbers followed by k, K, M, B or bn, two of
// them at least (1.2k, 3.4M, $350K, $1.2B), counts in thousands,
// millions and billions, as app stores, social networks and financial
// tables write them. Its unit is magnitudeUnit, and a cell is its number
// times its suffix's magnitude. A column of one suffix keeps it as its
// unit (300K may be kelvins), unless it also holds plain numbers that
// the suffix's magnitude brings nearer (see magnitudeNearer): 950 beside
// 1.2k, $95,000 beside $85K.
const magnitudeUnit = "k/M/B"

// magnitudes are the suffixes of magnitudeUnit and what they multiply by.
var magnitudes = map[string]float64{"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}

// inUnit reads a trimmed cell that is a number in the given unit (see
// withUnit and magnitudeUnit).
func inUnit(cell, unit string, decimalComma bool) (float64, bool) {
	v, u, ok := withUnit(cell, decimalComma)
	if !ok {
		return 0, false
	}
	return asUnit(v, u, unit)
}

// asUnit returns v, a number in unit u, as a number in the given unit: v
// itself in the same unit, v times u's magnitude in magnitudeUnit; ok is
// false for another unit.
func asUnit(v float64, u, unit string) (float64, bool) {
	if unit == magnitudeUnit {
		m := magnitudes[u]
		return v * m, m != 0
	}
	return v, u == unit
}

// columnUnit is the unit of measure of a column of numbers, learned at
// the first of its cells that carries one: the unit of most of its cells
// that carry one, so that an odd first cell ("5 lb" above cells in kg)
// does not make the others strays, or magnitudeUnit. Only cells in that
// unit are numbers.
type columnUnit string

// read reads the cell, of the given rows of column col of f, if it is a
// number in the column's unit.
func (u *columnUnit) read(f *Frame, col int, rows []int, cell string) (float64, bool) {
	v, unit, ok := withUnit(cell, f.decimalComma)
	if !ok {
		return 0, false
	}
	if *u == "" {
		*u = f.commonUnit(col, rows)
	}
	return asUnit(v, unit, string(*u))
}

// commonUnit returns the most frequent unit of the cells of the given
// rows of column col of f that are numbers in a unit, the first seen of
// those tied, or magnitudeUnit if that unit is a magnitude's and another
// magnitude is seen too, or plain numbers that it brings nearer (see
// magnitudeNearer).
func (f *Frame) commonUnit(col int, rows []int) columnUnit {
	var units []string
	counts := map[string]int{}
	var plain []float64               // the plain numbers, in absolute value
	inUnits := map[string][]float64{} // the numbers before each unit, alike
	for _, r := range rows {
		cell := f.cells[r][col]
		if v, ok := readNumber(cell, f.decimalComma); ok {
			plain = append(plain, math.Abs(v))
			continue
		}
		if v, unit, ok := withUnit(cell, f.decimalComma); ok {
			if counts[unit] == 0 {
				units = append(units, unit)
			}
			counts[unit]++
			inUnits[unit] = append(inUnits[unit], math.Abs(v))
		}
	}
	best, suffixes := "", 0
	for _, unit := range units {
		if counts[unit] > counts[best] {
			best = unit
		}
		if magnitudes[unit] != 0 {
			suffixes++
		}
	}
	if magnitudes[best] != 0 && (suffixes > 1 || magnitudeNearer(plain, inUnits[best], magnitudes[best])) {
		return magnitudeUnit
	}
	return columnUnit(best)
}

// magnitudeNearer reports whether the numbers written with a suffix of
// magnitude m lie nearer the plain numbers of their column, on the log
// scale, multiplied by m than as they are: whether the plain numbers'
// median is at least sqrt(m) times theirs. 950 and 1.2k, or $95,000 and
// $85K, are counts in ones beside counts in thousands; 295 and 300K are
// kelvins. Without plain numbers it is false.
func magnitudeNearer(plain, suffixed []float64, m float64) bool {
	if len(plain) == 0 || len(suffixed) == 0 {
		return false
	}
	return median(plain) >= math.Sqrt(m)*median(suffixed)
}

// median returns the median of values, which it sorts.
func median(values []float64) float64 {
	slices.Sort(values)
	n := len(values)
	return (values[(n-1)/2] + values[n/2]) / 2
}

// hours reads a time of day or a duration (see clockTime) in hours.
func hours(cell string) (float64, bool) {
	m := clockTime.FindStringSubmatch(cell)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.ParseFloat(m[1], 64)
	minutes, _ := strconv.ParseFloat(m[2], 64)
	seconds := 0.0
	if m[4] != "" {
		seconds, _ = strconv.ParseFloat(m[4], 64)
	}
	if half := strings.ToLower(m[7]); half != "" {
		// 12:30 AM is half past midnight, 12:30 PM half past noon.
		if h < 1 || h > 12 {
			return 0, false
		}
		h = math.Mod(h, 12)
		if half == "p" {
			h += 12
		}
	}
	return h + minutes/60 + seconds/3600, true
}

// currencySigns are the signs a number may carry before or after it, as
// spreadsheets write amounts of money.
var currencySigns = []string{"$", "€", "£", "¥"}

// spreadsheetText returns the text of a cell that a spreadsheet marks as
// text, so that it keeps its digits as written: after an apostrophe
// ('00123) or as a formula's string (="00123").
func spreadsheetText(cell string) (inner string, ok bool) {
	if inner, ok = strings.CutPrefix(cell, "'"); ok && inner != "" && inner[0] != '\'' {
		return inner, true
	}
	if inner, ok = strings.CutPrefix(cell, `="`); ok && len(inner) > 1 && strings.HasSuffix(inner, `"`) {
		return inner[:len(inner)-1], true
	}
	return "", false
}

// parenthesized returns the cell within its parentheses if it is a
// negative amount as accounts write it, (1,234.50) or ($5): the
// parentheses around a number with no sign of its own (not a time).
func parenthesized(cell string) (inner string, ok bool) {
	if len(cell) < 3 || cell[0] != '(' || cell[len(cell)-1] != ')' {
		return "", false
	}
	inner = cell[1 : len(cell)-1]
	first, _ := utf8.DecodeRuneInString(inner)
	return inner, !strings.ContainsRune("+-\u2212(", first) && !strings.Contains(inner, ":")
}

// minusAfter returns the number of a cell written with its minus after
// it, as SAP and other ledgers export negative amounts (1.234,50-): a
// number without a sign, a minus, a range or a time of its own.
func minusAfter(cell string) (inner string, ok bool) {
	inner, ok = strings.CutSuffix(cell, "-")
	inner = strings.TrimSpace(inner)
	return inner, ok && inner != "" && !strings.ContainsAny(inner, "-+\u2212():")
}

// currency returns the currency sign that a cell carries before or after
// its number, and "" for none.
func currency(cell string) string {
	if inner, ok := parenthesized(cell); ok {
		cell = inner
	}
	if _, sign := withoutSign(cell); sign != "%" {
		return sign
	}
	return ""
}

// withoutSign returns the cell without its percent sign or currency sign,
// and that sign, "" if it has none: the number, with its own sign (-$5 is
// -5), trimmed.
func withoutSign(cell string) (rest, sign string) {
	if rest, ok := strings.CutSuffix(cell, "%"); ok {
		return strings.TrimSpace(rest), "%"
	}
	minus := strings.HasPrefix(cell, "-")
	for _, sign := range currencySigns {
		if rest, ok := strings.CutSuffix(cell, sign); ok {
			return strings.TrimSpace(rest), sign
		}
		if rest, ok := strings.CutPrefix(strings.TrimPrefix(cell, "-"), sign); ok {
			if rest = strings.TrimSpace(rest); minus {
				rest = "-" + rest
			}
			return rest, sign
		}
	}
	return "", ""
}

// plainNumber is readNumber without a percent or currency sign; it
// returns a hundredth of the number if hundredths is set, rounded once.
func plainNumber(s string, decimalComma, hundredths bool) (float64, bool) {
	switch {
	case !strings.ContainsAny(s, groupMarks) || !decimalComma && !strings.ContainsAny(s, thousandsMarks):
		// No regular expression can match: ParseFloat alone reads it.
	case decimalComma && decimalCommaNumber.MatchString(s):
		s = strings.Replace(withoutGroups(s, "."), ",", ".", 1)
	case decimalComma && thousandsPoints.MatchString(s):
		s = withoutGroups(s, ".")
	case !decimalComma && thousandsCommas.MatchString(s):
		s = withoutGroups(s, ",")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	if hundredths {
		// Shifting the exponent of the text keeps 99.9% at 0.999, which
		// dividing 99.9 by 100 misses.
		if w, err := strconv.ParseFloat(s+"e-2", 64); err == nil {
			return w, true
		}
		return v / 100, true
	}
	return v, true
}

// groupSpaces replaces the spaces and apostrophes that separate groups of
// digits.
var groupSpaces = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "\u2009", "", "'", "", "\u2019", "")

// withoutGroups returns the number s without the separator sep and the
// spaces between its groups of digits.
func withoutGroups(s, sep string) string {
	return groupSpaces.Replace(strings.ReplaceAll(s, sep, ""))
}

// longInteger reports whether a trimmed cell writes a whole number in
// plain digits, after an optional sign, beyond 2^53 in magnitude, where
// a float64 no longer holds every whole number: such a number is a
// 64-bit id, a card or account number, whose last digits a float64
// would lose, so that two of them could read as one.
func longInteger(cell string) bool {
	digits := strings.TrimLeft(cell, "+-")
	if len(digits) < len("9007199254740993") || len(cell)-len(digits) > 1 || !isDigits(digits) {
		return false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	return err != nil || v > 1<<53
}
