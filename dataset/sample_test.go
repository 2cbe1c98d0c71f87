package dataset

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// A sample keeps every row of a table no larger than it, in order, and
// otherwise as many rows as its size, each about as often as the others.
func TestSample(t *testing.T) {
	table := func(n int) string {
		var b strings.Builder
		b.WriteString("a,b\n")
		for i := range n {
			fmt.Fprintf(&b, "%d,x%d\n", i, i)
		}
		return b.String()
	}
	draw := func(n, size int, seed uint64) *Frame {
		fr, err := NewFrameReader(strings.NewReader(table(n)), "t.csv", FrameOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := NewSample(size, seed)
		for {
			f, err := fr.Read(7)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Add(f)
		}
		if s.Seen() != n {
			t.Fatalf("seen %d rows, want %d", s.Seen(), n)
		}
		return s.Frame()
	}
	for _, tc := range []struct{ n, size int }{{5, 10}, {10, 10}, {100, 10}} {
		f := draw(tc.n, tc.size, 1)
		if want := min(tc.n, tc.size); f.Len() != want {
			t.Fatalf("%d of %d rows: %d kept, want %d", tc.size, tc.n, f.Len(), want)
		}
		for r := 1; r < f.Len(); r++ {
			if f.Line(r) <= f.Line(r-1) {
				t.Errorf("row %d is on line %d, after line %d", r, f.Line(r), f.Line(r-1))
			}
			if v, _ := f.Number(r, 0); f.Cell(r, 1) != fmt.Sprintf("x%v", v) || f.Line(r) != int(v)+2 {
				t.Errorf("row %d: cells %q, %q on line %d", r, f.Cell(r, 0), f.Cell(r, 1), f.Line(r))
			}
		}
	}
	counts := make([]int, 100)
	for seed := range uint64(400) {
		f := draw(100, 10, seed)
		for r := range f.Len() {
			v, _ := f.Number(r, 0)
			counts[int(v)]++
		}
	}
	for i, c := range counts {
		// Each row is kept 40 times in expectation, sd 6.
		if c < 16 || c > 64 {
			t.Errorf("row %d kept %d times in 400 samples, want about 40", i, c)
		}
	}
	if NewSample(3, 1).Frame() != nil {
		t.Error("an empty sample has a frame")
	}
}
