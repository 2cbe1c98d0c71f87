package dataset

import "testing"

// TestTotals finds a last row of totals: a cell that says so and a sum
// of the rows above, to within their rounding.
func TestTotals(t *testing.T) {
	for _, tc := range []struct {
		name, data    string
		label, column string
	}{
		{"total", "name,x,y\na,1,2.5\nb,2,3.5\nc,3,4\nTotal,6,10\n", "Total", "x"},
		{"colon, rounded", "x,name\n1.333,a\n2.333,b\n3.333,c\n7.0,Total:\n", "Total:", "x"},
		{"sums of some columns", "x,y,z\n1,5,a\n2,,b\n3,7,c\n6.5,12,grand total\n", "grand total", "y"},
		{"sum of one column only", "name,x,y\na,1,2\nb,2,2\nc,3,2\nSumme,6,2\n", "Summe", "x"},
		{"no label", "name,x\na,1\nb,2\nc,3\nall,6\n", "", ""},
		{"no sum", "name,x\na,1\nb,2\nc,3\nTotal,5\n", "", ""},
		{"a text column", "name,x\na,1\nb,z\nc,3\nTotal,4\n", "", ""},
		{"too few rows", "name,x\na,1\nTotal,1\n", "", ""},
		{"sum 0", "name,x\na,1\nb,-1\nTotal,0\n", "", ""},
		{"one number", "name,x\na,0\nb,5\nc,0\nTotal,5\n", "", ""},
		{"total not last", "name,x\na,1\nTotal,3\nb,2\n", "", ""},
	} {
		label, column, ok := readFrameString(t, tc.data).Totals()
		if label != tc.label || column != tc.column || ok != (tc.label != "") {
			t.Errorf("%s: %q, %q, %v; want %q, %q", tc.name, label, column, ok, tc.label, tc.column)
		}
	}
}
