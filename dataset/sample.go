package dataset

import (
	"math/rand/v2"
	"slices"
)

// Sample keeps a seeded uniform sample of the rows of the Frames added
// to it, the parts of one table (such as the Frames of a FrameReader),
// by reservoir sampling: every row is kept with the same probability,
// and the memory holds at most the sample's rows. Fit a model on a
// sample of a table larger than memory, then read the table again.
type Sample struct {
	size   int
	seen   int
	rnd    *rand.Rand
	format *frameFormat
	cells  [][]string
	lines  []int
	// pos holds each kept row's place in the table, which orders the
	// sample: the lines of a table of several files start again in each.
	pos []int
	// cover names the column whose values the sample covers (see
	// Cover), col is its index once a Frame is added, and first holds
	// the first row of each of its values, nil once they outnumber
	// MaxCovered.
	cover string
	col   int
	first map[string]sampledRow
}

// sampledRow is a row of a table that a Sample keeps, and its place.
type sampledRow struct {
	cells     []string
	line, pos int
}

// MaxCovered is the most values of a column whose rows a Sample covers:
// a column of more values is no column of classes.
const MaxCovered = 1000

// NewSample returns an empty sample of at most size rows, drawn with
// the given seed.
func NewSample(size int, seed uint64) *Sample {
	return &Sample{size: size, rnd: rand.New(rand.NewPCG(seed, 0x73616d706c65))}
}

// Cover makes the sample hold a row of every value of the named column,
// the classes of a classification, up to MaxCovered values: besides
// the uniform sample, it keeps the first row of each value, and Frame
// adds those of the values that the uniform sample lacks, so that a
// class rarer than the sample can hold is not lost to it. It is called
// before any Frame is added; a column that no Frame has, or of more than
// MaxCovered values, is covered by nothing.
func (s *Sample) Cover(column string) {
	s.cover, s.first = column, map[string]sampledRow{}
}

// Add offers the rows of f, the next part of the table, to the sample.
func (s *Sample) Add(f *Frame) {
	if s.format == nil {
		format := f.frameFormat
		s.format = &format
		if s.first != nil {
			var err error
			if s.col, err = f.Column(s.cover); err != nil {
				s.first = nil
			}
		}
	}
	for r := range f.cells {
		s.seen++
		s.covers(f, r)
		if len(s.cells) < s.size {
			s.cells = append(s.cells, f.cells[r])
			s.lines = append(s.lines, f.lines[r])
			s.pos = append(s.pos, s.seen)
			continue
		}
		if i := s.rnd.IntN(s.seen); i < s.size {
			s.cells[i], s.lines[i], s.pos[i] = f.cells[r], f.lines[r], s.seen
		}
	}
}

// covers keeps row r of f if it is the first of its value in the
// covered column.
func (s *Sample) covers(f *Frame, r int) {
	if s.first == nil {
		return
	}
	v := f.cells[r][s.col]
	if _, ok := s.first[v]; ok || isMissing(v) {
		return
	}
	if len(s.first) == MaxCovered {
		s.first = nil
		return
	}
	s.first[v] = sampledRow{cells: f.cells[r], line: f.lines[r], pos: s.seen}
}

// Seen returns the number of rows offered to the sample.
func (s *Sample) Seen() int { return s.seen }

// Frame returns the sampled rows in the order of the table, nil if no
// row was offered: the uniform sample, and the first row of each value
// of the covered column that it lacks (see Cover).
func (s *Sample) Frame() *Frame {
	if s.format == nil {
		return nil
	}
	rows := make([]sampledRow, len(s.cells))
	for i := range rows {
		rows[i] = sampledRow{cells: s.cells[i], line: s.lines[i], pos: s.pos[i]}
	}
	if s.first != nil {
		has := map[string]bool{}
		for _, cells := range s.cells {
			has[cells[s.col]] = true
		}
		for v, row := range s.first {
			if !has[v] {
				rows = append(rows, row)
			}
		}
	}
	slices.SortFunc(rows, func(a, b sampledRow) int { return a.pos - b.pos })
	f := &Frame{frameFormat: *s.format, cells: make([][]string, len(rows)), lines: make([]int, len(rows))}
	for i, row := range rows {
		f.cells[i], f.lines[i] = row.cells, row.line
	}
	return f
}

// Comma returns the field separator of the table; see Frame.Comma.
func (fr *FrameReader) Comma() rune { return fr.format.comma }

// DecimalComma reports whether the table's numbers are written with a
// decimal comma; see Frame.DecimalComma.
func (fr *FrameReader) DecimalComma() bool { return fr.format.decimalComma }
