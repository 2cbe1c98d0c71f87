package dataset

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

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
		{"2024-01", 0, false},
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
	train := readFrameString(t, "day,y\n2024-01-01,1\n2024-01-03,2\n,3\n2024-01-08 12:00,4\n")
	e, warnings, err := FitEncoder(train, []string{"day"}, nil)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	mean := (19723 + 19725 + 19730.5) / 3
	if r := e.Rules()[0]; r.Kind != "date" || r.Fill != mean || !r.Indicator {
		t.Fatalf("rule %+v, want date, fill %v, indicator", r, mean)
	}
	test := readFrameString(t, "day\n2024-01-02\nNA\n2025-01-01\n")
	x, warnings, err := e.Transform(test, nil)
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	checkMatrix(t, x, [][]float64{{19724, 0}, {mean, 1}, {20089, 0}})

	_, _, err = e.Transform(readFrameString(t, "day\n2024-01-02\nlater\n"), nil)
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
	if _, err := e.EncodeColumn(dst, 0, nil, []string{" 2024-01-05 "}); err != nil || dst.At(0, 0) != 19727 {
		t.Errorf("EncodeColumn: %v, %v; want 19727", dst.At(0, 0), err)
	}
}
