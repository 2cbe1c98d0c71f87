package dataset

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

func TestParseDate(t *testing.T) {
	for _, test := range []struct {
		cell string
		days float64 // since 1970-01-01 UTC
		ok   bool
	}{
		{"1970-01-01", 0, true},
		{"1970-01-02", 1, true},
		{"1969-12-31", -1, true},
		{"2024-01-31", 19753, true},
		{"2024/01/31", 19753, true},
		{"2024-01-31 12:00", 19753.5, true},
		{"2024-01-31T18:00", 19753.75, true},
		{"2024-01-31 06:00:00", 19753.25, true},
		{"2024-01-31T06:00:00", 19753.25, true},
		{"2024-01-31 00:00:00.5", 19753 + 0.5/86400, true},
		{"2024-01-31T06:00:00Z", 19753.25, true},
		{"2024-01-31T08:00:00+02:00", 19753.25, true},
		{"2024-02-30", 0, false}, // no such day
		{"2024-1-31", 0, false},
		{"31/01/2024", 0, false}, // day or month first: ambiguous
		{"01/31/2024", 0, false},
		{"2024", 0, false},
		{"2024-01", 19723, true}, // a month: its first day
		{"31-Jan-2024", 19753, true},
		{"31-JAN-2024", 19753, true},
		{"Jan-31-2024", 19753, true},
		{"31 Jan 2024", 19753, true},
		{"31 january 2024", 19753, true},
		{"Jan 31, 2024", 19753, true},
		{"January 31, 2024", 19753, true},
		{"Jan 31 2024", 19753, true},
		{"Jan 2024", 19723, true},
		{"January 2024", 19723, true},
		{"31-Feb-2024", 0, false},
		{"Sept 3, 2024", 0, false},
		{"31-Jan-24", 0, false}, // which century?
		{"Monday", 0, false},
		{"2024-1", 0, false},
		{"20240131", 0, false},
		{"2024-01-31 noon", 0, false},
		{"abcd-01-31", 0, false},
		{"", 0, false},
	} {
		got, ok := ParseDate(test.cell)
		if ok != test.ok || ok && Days(got) != test.days {
			t.Errorf("ParseDate(%q) = %v (day %v), %v; want day %v, %v", test.cell, got, Days(got), ok, test.days, test.ok)
		}
	}
}

// TestEncoderDates encodes a column of dates as the days since 1970: a
// date not seen in training falls among the others, a missing one takes
// the training mean, and text is an error that says what the column held.
func TestEncoderDates(t *testing.T) {
	train := readFrameString(t, "day,y\n2024-01-01,1\n2024-01-03,2\n,3\n2024-01-08 18:00,4\n")
	e, warnings, err := FitEncoder(train, []string{"day"}, nil)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	// The dates span 7.75 days, one with a time of day: the day's cycle
	// follows them, and a missing cell is the mean date in it too.
	mean := (19723 + 19725 + 19730.75) / 3
	if r := e.Rules()[0]; r.Kind != "date" || r.Fill != mean || !r.Indicator || !reflect.DeepEqual(r.Cycles, []Cycle{{"day", 1}}) {
		t.Fatalf("rule %+v, want date, fill %v, indicator, the day's cycle", r, mean)
	}
	if names := e.Names(); !reflect.DeepEqual(names, []string{"day", "day:day.sin", "day:day.cos", "day:missing"}) {
		t.Errorf("names %q", names)
	}
	test := readFrameString(t, "day\n2024-01-02 18:00\nNA\n2025-01-01\n")
	x, warnings, err := e.Transform(test, nil)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	checkMatrix(t, x, [][]float64{
		{19724.75, -1, 0, 0},
		{mean, 1, 0, 1}, // 19726.25: six in the morning
		{20089, 0, 1, 0},
	})

	// A stray is missing, with a warning, or read strictly an error.
	x, warnings, err = e.Transform(readFrameString(t, "day\n2024-01-02\nlater\n"), nil)
	if err != nil || len(warnings) != 1 || x.At(1, 0) != mean {
		t.Errorf("a stray date: encoded %v, warnings %v, error %v", x.At(1, 0), warnings, err)
	}
	_, _, err = e.Transform(readStrict(t, "day\n2024-01-02\nlater\n"), nil)
	want := `test.csv: row 3, column "day": not a date: "later"; the column held dates such as 2024-01-31 in training`
	if !errors.Is(err, ErrDate) || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}

	// The rule travels with the model.
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"kind":"date"`) {
		t.Errorf("JSON %s has no date kind", data)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Rules(), e.Rules()) {
		t.Errorf("decoded rules %+v, want %+v", back.Rules(), e.Rules())
	}
	var none Encoder
	if err := json.Unmarshal([]byte(`{"columns":[{"name":"day","kind":"date"}]}`), &none); err == nil || err.Error() != "encoder: columns[0]: fill: absent from a date column" {
		t.Errorf("date column without a fill: error %v", err)
	}
	dst := mat.NewDense(1, e.Width(), nil)
	if _, err := e.EncodeColumn(dst, 0, nil, []string{" 2024-01-05 06:00"}); err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, dst, [][]float64{{19727.25, 1, 0, 0}})
}

// TestDateCycles checks which cycles training dates show, and the phases
// that follow the days of a date in them.
func TestDateCycles(t *testing.T) {
	daily := func(n, step int, at string) string {
		var b strings.Builder
		b.WriteString("d\n")
		day, _ := ParseDate("2020-01-01")
		for i := range n {
			b.WriteString(day.AddDate(0, 0, i*step).Format("2006-01-02") + at + "\n")
		}
		return b.String()
	}
	for _, test := range []struct {
		name, csv string
		want      []string
	}{
		{"three years of days", daily(1096, 1, ""), []string{"year", "week"}},
		{"a year of days", daily(365, 1, ""), []string{"week"}},
		{"two weeks of hours", "d\n2024-03-01 08:00\n2024-03-15 09:30\n", []string{"week", "day"}},
		{"days a week apart", daily(300, 7, ""), []string{"year"}},
		{"noon every day", daily(30, 1, " 12:00"), []string{"week"}},
		{"new year's days", "d\n2019-01-01\n2020-01-01\n2021-01-01\n", nil},
		{"ten days", daily(10, 1, ""), nil},
		{"one date", "d\n2024-03-01\n", nil},
		{"months", "d\n2019-01-01\n2020-02-01\n2021-03-01\n", []string{"year"}},
		{"months' ends", "d\n2019-01-31\n2020-02-29\n2021-04-30\n", []string{"year"}},
		{"a month's end and a mid-month", "d\n2019-01-31\n2021-04-16\n", []string{"year", "week"}},
	} {
		e, _, err := FitEncoder(readFrameString(t, test.csv), []string{"d"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.columns[0].Cycles; !reflect.DeepEqual(got, test.want) {
			t.Errorf("%s: cycles %q, want %q", test.name, got, test.want)
		}
		if plain := e.WithoutCycles(); plain.Width() != 1 || e.Width() != 1+2*len(test.want) {
			t.Errorf("%s: width %d without the cycles, %d with them", test.name, plain.Width(), e.Width())
		}
	}

	// 1970-01-01 begins every cycle; 1970-01-08 12:00 is a week and half
	// a day later, and 1971-01-01 a
	// year less 0.2425 days.
	c := encodedColumn{Kind: date, Cycles: []string{"year", "week", "day"}}
	for _, test := range []struct {
		days float64
		want []float64
	}{
		{0, []float64{0, 0, 1, 0, 1, 0, 1}},
		{7.5, []float64{7.5, math.Sin(2 * math.Pi * 7.5 / 365.2425), math.Cos(2 * math.Pi * 7.5 / 365.2425), math.Sin(math.Pi / 7), math.Cos(math.Pi / 7), 0, -1}},
		{365, []float64{365, -math.Sin(2 * math.Pi * 0.2425 / 365.2425), math.Cos(2 * math.Pi * 0.2425 / 365.2425), math.Sin(2 * math.Pi / 7), math.Cos(2 * math.Pi / 7), 0, 1}},
	} {
		out := make([]float64, c.width())
		if _, err := c.encodeText(out, time.Unix(int64(test.days*secondsPerDay), 0).UTC().Format(time.RFC3339), false); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if math.Abs(out[i]-test.want[i]) > 1e-9 {
				t.Errorf("day %v: encoded %v, want %v", test.days, out, test.want)
				break
			}
		}
	}
}

// TestYearLast checks the order that a column's dates with the year last
// are read in, and that a date that does not exist is not one.
func TestYearLast(t *testing.T) {
	for _, test := range []struct {
		name      string
		levels    []string
		order     string
		ambiguous bool
	}{
		{"day first", []string{"31/01/2024", "13/02/2024", "1/3/2024"}, dayFirst, false},
		{"month first", []string{"01/31/2024", "2/13/2024"}, monthFirst, false},
		{"dots", []string{"31.01.2024", "1.2.2024"}, dayFirst, false},
		{"dashes and times", []string{"31-01-2024", "15-06-2023 13:45", "16-06-2023 07:05:09"}, dayFirst, false},
		{"no day above 12", []string{"01/02/2024", "03/04/2024"}, "", true},
		{"months, day second", []string{"1/1/1995", "2/1/1995", "12/1/1996"}, monthFirst, false},
		{"months, day first", []string{"01.01.1995", "01.02.1995", "01.12.1996"}, dayFirst, false},
		{"one date", []string{"01/02/2024"}, "", true},
		{"days in both places", []string{"31/01/2024", "01/31/2024"}, "", false},
		{"no such day", []string{"31/01/2024", "30/02/2024"}, "", false},
		{"no such hour", []string{"31/01/2024 24:00"}, "", false},
		{"separators mixed", []string{"31/01-2024"}, "", false},
		{"a two-digit year", []string{"31/01/24"}, "", false},
		{"ranges", []string{"25-34", "35-44"}, "", false},
		{"text among dates", []string{"31/01/2024", "soon"}, "", false},
	} {
		order, ambiguous := YearLastOrder(test.levels)
		if order != test.order || ambiguous != test.ambiguous {
			t.Errorf("%s: order %q, ambiguous %v; want %q, %v", test.name, order, ambiguous, test.order, test.ambiguous)
		}
	}
	// DateOrder reads also a mix with ISO dates, as FitEncoder does.
	for _, test := range []struct {
		levels []string
		order  string
	}{
		{[]string{"31/01/2024", "01/02/2024"}, dayFirst},
		{[]string{"2024-01-31", "1/2/2024", "13/02/2024"}, dayFirst},
		{[]string{"2024-01-31", "02/13/2024"}, monthFirst},
		{[]string{"2024-01-31", "01/02/2024"}, ""},
		{[]string{"2024-01-31", "2024-02-01"}, ""},
		{[]string{"2024-01-31", "13/02/2024", "soon"}, ""},
	} {
		if got := DateOrder(test.levels); got != test.order {
			t.Errorf("DateOrder(%q) = %q, want %q", test.levels, got, test.order)
		}
	}
	for _, test := range []struct {
		cell, order string
		days        float64
	}{
		{"31/01/2024", dayFirst, 19753},
		{"01/31/2024", monthFirst, 19753},
		{"1.2.2024 12:00", dayFirst, 19754.5},
		{"02-01-2024 06:00:00", monthFirst, 19754.25},
	} {
		if got, ok := ParseYearLast(test.cell, test.order); !ok || Days(got) != test.days {
			t.Errorf("ParseYearLast(%q, %s) = day %v, %v; want %v", test.cell, test.order, Days(got), ok, test.days)
		}
	}
}

// TestEncoderYearLast encodes a column of dates with the year last as the
// days since 1970, in the order its training dates showed, and keeps a
// column whose order no day tells as text, with a warning.
func TestEncoderYearLast(t *testing.T) {
	e, warnings, err := FitEncoder(readFrameString(t, "day\n01/31/2024\n02/13/2024\nNA\n"), []string{"day"}, nil)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	if r := e.Rules()[0]; r.Kind != "date" || r.Order != monthFirst || r.Fill != 19759.5 {
		t.Fatalf("rule %+v, want a date column in mdy order, fill 19759.5", r)
	}
	x, _, err := e.Transform(readFrameString(t, "day\n03/01/2024\nNA\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x, [][]float64{{19783, 0}, {19759.5, 1}})
	_, _, err = e.Transform(readStrict(t, "day\n2024-01-31\nsoon\n"), nil)
	if want := `test.csv: row 3, column "day": not a date: "soon"; the column held dates such as 01/31/2024 in training`; err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	// A date in the other order is refused even where strays are not:
	// its table's dates whose day is 12 or less read wrongly.
	_, _, err = e.Transform(readFrameString(t, "day\n02/03/2024\n31/01/2024\nsoon\n"), nil)
	if want := `test.csv: row 3, column "day": a date in another order: "31/01/2024" is a date written as 31/01/2024, but the column held dates written as 01/31/2024 in training: ` +
		`the table's dates whose day is 12 or less would read with their day and month swapped; write them as training did`; !errors.Is(err, ErrDateOrder) || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back.Rules(), e.Rules()) {
		t.Errorf("decoded %+v, %v; want %+v", back.Rules(), err, e.Rules())
	}

	e, warnings, err = FitEncoder(readFrameString(t, "day\n01/02/2024\n03/04/2024\n"), []string{"day"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Rules()[0].Kind != "categorical" || len(warnings) != 1 || !strings.Contains(warnings[0].Message, "the day cannot be told from the month") {
		t.Errorf("rule %+v, warnings %v; want text and a warning", e.Rules()[0], warnings)
	}
}

// TestMixedDates fits columns that mix ISO 8601 dates with dates whose
// year comes last: each cell is read in its own form, with a warning,
// where the year-last dates tell their order; otherwise the column stays
// text, with the warning of dates whose day cannot be told.
func TestMixedDates(t *testing.T) {
	for _, tc := range []struct {
		name, cells string // separated by |
		kind, order string
		days        []float64 // of the cells, encoded
		warning     string    // the start of the warning
		rows        int       // that it counts
	}{
		{"day first", "2024-01-31|13/02/2024|2024-02-01|01/02/2024|NA", "date", dayFirst, []float64{19753, 19766, 19754, 19754, 19756.75},
			`it mixes dates written as 2024-01-31 (ISO 8601) with 2 rows of dates such as "01/02/2024", written as 31/01/2024`, 2},
		{"month first", "2024-01-31|02/13/2024|02/13/2024|2024-01-30", "date", monthFirst, []float64{19753, 19766, 19766, 19752},
			`it mixes dates written as 2024-01-31 (ISO 8601) with 2 rows of dates such as "02/13/2024", written as 01/31/2024`, 2},
		{"no day above 12", "2024-01-31|01/02/2024|03/04/2024|2024-02-01", "categorical", "", nil,
			`it holds dates such as "01/02/2024" in which no day is above 12`, 2},
		{"text too", "2024-01-31|13/02/2024|soon|2024-02-01|2024-02-02", "categorical", "", nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "day\n" + strings.ReplaceAll(tc.cells, "|", "\n") + "\n"
			e, warnings, err := FitEncoder(readFrameString(t, text), []string{"day"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r := e.Rules()[0]; r.Kind != tc.kind || r.Order != tc.order {
				t.Fatalf("rule %+v, want a %s column of order %q", r, tc.kind, tc.order)
			}
			switch {
			case tc.warning == "" && warnings != nil:
				t.Errorf("warned %v", warnings)
			case tc.warning != "" && (len(warnings) != 1 || !strings.HasPrefix(warnings[0].Message, tc.warning) || warnings[0].Rows != tc.rows):
				t.Errorf("warned %v, want %q of %d rows", warnings, tc.warning, tc.rows)
			}
			if tc.days == nil {
				return
			}
			x, _, err := e.Transform(readFrameString(t, text), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := mat.Col(nil, 0, x); !slices.Equal(got, tc.days) {
				t.Errorf("days %v, want %v", got, tc.days)
			}
		})
	}
	// A column of ISO dates alone reads no date with the year last,
	// whose order it cannot tell.
	e, _, err := FitEncoder(readFrameString(t, "day\n2024-01-31\n2024-02-13\n"), []string{"day"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Transform(readStrict(t, "day\n13/02/2024\n"), nil); !errors.Is(err, ErrDate) {
		t.Errorf("13/02/2024 in a column of ISO dates: error %v, want %v", err, ErrDate)
	}
}
