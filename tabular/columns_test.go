package tabular

import (
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// TestReadTimes reads -time columns of numbers and of dates as the inputs'
// columns read them, and names the row of a cell it cannot read.
func TestReadTimes(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader("num,iso,us,eu,amb\n3,2024-01-31,01/31/2024,31.01.2024,01/02/2024\n1.5,2024-02-01 12:00,2/1/2024 12:00,1.2.2024 12:00,03/04/2024\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		column string
		want   []float64
		err    string
	}{
		{"num", []float64{3, 1.5}, ""},
		{"iso", []float64{19753, 19754.5}, ""},
		{"us", []float64{19753, 19754.5}, ""},
		{"eu", []float64{19753, 19754.5}, ""},
		{"amb", nil, `t.csv: row 2, column "amb": time "01/02/2024": want a number or a date such as 2024-01-31`},
	} {
		got, err := readTimes(f, tc.column, []int{0, 1})
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %s", tc.column, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.column, got, err, tc.want)
		}
	}
}

func TestAlikeClasses(t *testing.T) {
	for _, test := range []struct {
		classes []string
		want    string
	}{
		{[]string{"a", "b"}, ""},
		{[]string{"No", "Yes", "no", "yes"}, `"No" and "no"; "Yes" and "yes"`},
		{[]string{"A", "B", "C", "D", "a", "b", "c", "d"}, `"A" and "a"; "B" and "b"; "C" and "c"`},
		{[]string{"NO", "No", "no"}, `"NO" and "No" and "no"`},
		{[]string{"0", "1", "1.0", "2"}, `"1" and "1.0"`},
		{[]string{"1", "1.5", "2"}, ""},
	} {
		if got := alikeClasses(test.classes); got != test.want {
			t.Errorf("alikeClasses(%q) = %q, want %q", test.classes, got, test.want)
		}
	}
}
