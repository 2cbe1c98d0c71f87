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

// A sample that covers a column holds a row of each of its values: the
// uniform sample, and the first row of each value it lacks, in the
// table's order; a column of more than MaxCovered values is not covered.
func TestSampleCover(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,c,many\n")
	for i := range 1200 {
		c := []string{"a", "b"}[i%2]
		switch i {
		case 700, 900:
			c = "rare"
		case 800:
			c = "once"
		case 1000:
			c = "NA"
		}
		fmt.Fprintf(&b, "%d,%s,%d\n", i, c, i)
	}
	for _, tc := range []struct {
		cover string
		extra []string // the lines of the rows added to the uniform sample
	}{
		{"", nil},
		{"c", []string{"702", "802"}},
		{"many", nil},
		{"nothing", nil},
	} {
		fr, err := NewFrameReader(strings.NewReader(b.String()), "t.csv", FrameOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, uniform := NewSample(10, 1), NewSample(10, 1)
		if tc.cover != "" {
			s.Cover(tc.cover)
		}
		for {
			f, err := fr.Read(100)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Add(f)
			uniform.Add(f)
		}
		f, u := s.Frame(), uniform.Frame()
		in := map[int]bool{}
		for r := range u.Len() {
			in[u.Line(r)] = true
		}
		var extra []string
		for r := range f.Len() {
			if r > 0 && f.Line(r) <= f.Line(r-1) {
				t.Errorf("cover %q: row %d on line %d, after line %d", tc.cover, r, f.Line(r), f.Line(r-1))
			}
			if !in[f.Line(r)] {
				extra = append(extra, fmt.Sprint(f.Line(r)))
			}
		}
		if strings.Join(extra, " ") != strings.Join(tc.extra, " ") || f.Len() != u.Len()+len(tc.extra) {
			t.Errorf("cover %q: %d rows, added the lines %q; want %d and %q", tc.cover, f.Len(), extra, u.Len()+len(tc.extra), tc.extra)
		}
	}
}
