package dataset

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Numbers as tables write them, beyond Go's syntax. Group separators come
// in groups of three digits, so that "4,599.0" is a number but "3,14" in
// a file with decimal points is text.
var (
	// thousandsCommas matches a number grouped by commas with an optional
	// decimal point: 4,599.0, -1,234,567.
	thousandsCommas = regexp.MustCompile(`^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]+)?$`)
	// decimalCommaNumber matches a number with a decimal comma, optionally
	// grouped by points: 3,14, 1.234,5.
	decimalCommaNumber = regexp.MustCompile(`^[+-]?([0-9]+|[0-9]{1,3}(\.[0-9]{3})+),[0-9]+$`)
	// thousandsPoints matches a whole number grouped by points: 1.234,
	// 12.345.678; only files with decimal commas read it so.
	thousandsPoints = regexp.MustCompile(`^[+-]?[0-9]{1,3}(\.[0-9]{3})+$`)
)

// readNumber reads a trimmed cell as a number. It takes Go's syntax
// (strconv.ParseFloat, which also reads Inf and returns ±Inf for numbers
// too large for a float64), thousands separators (4,599.0), a trailing
// percent sign (17.5% is 17.5) and a currency sign before or after the
// number ($1,234.50, -$5, 12,50 € are 1234.5, -5 and 12.5). In a file
// with decimal commas, 3,14 and 1.234,5 are 3.14 and 1234.5, and 1.234 is
// 1234. ok is false for a cell that is none of these, and for NaN.
func readNumber(cell string, decimalComma bool) (v float64, ok bool) {
	if v, ok := plainNumber(cell, decimalComma); ok {
		return v, true
	}
	rest, sign := withoutSign(cell)
	if sign == "" {
		return 0, false
	}
	return plainNumber(rest, decimalComma)
}

// currencySigns are the signs a number may carry before or after it, as
// spreadsheets write amounts of money.
var currencySigns = []string{"$", "€", "£", "¥"}

// currency returns the currency sign that a cell carries before or after
// its number, and "" for none.
func currency(cell string) string {
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

// plainNumber is readNumber without a percent or currency sign.
func plainNumber(s string, decimalComma bool) (float64, bool) {
	switch {
	case decimalComma && decimalCommaNumber.MatchString(s):
		s = strings.Replace(strings.ReplaceAll(s, ".", ""), ",", ".", 1)
	case decimalComma && thousandsPoints.MatchString(s):
		s = strings.ReplaceAll(s, ".", "")
	case !decimalComma && thousandsCommas.MatchString(s):
		s = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
