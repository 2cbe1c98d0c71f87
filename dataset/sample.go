package dataset

import (
	"fmt"
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
}

// NewSample returns an empty sample of at most size rows, drawn with
// the given seed.
func NewSample(size int, seed uint64) *Sample {
	return &Sample{size: size, rnd: rand.New(rand.NewPCG(seed, 0x73616d706c65))}
}

// Add offers the rows of f, the next part of the table, to the sample.
func (s *Sample) Add(f *Frame) {
	if s.format == nil {
		format := f.frameFormat
		s.format = &format
	}
	for r := range f.cells {
		s.seen++
		if len(s.cells) < s.size {
			s.cells = append(s.cells, f.cells[r])
			s.lines = append(s.lines, f.lines[r])
			continue
		}
		if i := s.rnd.IntN(s.seen); i < s.size {
			s.cells[i], s.lines[i] = f.cells[r], f.lines[r]
		}
	}
}

// Seen returns the number of rows offered to the sample.
func (s *Sample) Seen() int { return s.seen }

// Frame returns the sampled rows in the order of the table, nil if no
// row was offered.
func (s *Sample) Frame() *Frame {
	if s.format == nil {
		return nil
	}
	order := make([]int, len(s.cells))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return s.lines[a] - s.lines[b] })
	f := &Frame{frameFormat: *s.format, cells: make([][]string, len(order)), lines: make([]int, len(order))}
	for i, j := range order {
		f.cells[i], f.lines[i] = s.cells[j], s.lines[j]
	}
	return f
}

// Concat returns the rows of a then those of b, two parts of one table
// such as the Frames of a FrameReader.
func Concat(a, b *Frame) (*Frame, error) {
	if !slices.Equal(a.columns, b.columns) || a.name != b.name {
		return nil, fmt.Errorf("dataset: %s and %s are not parts of one table", a.name, b.name)
	}
	return &Frame{frameFormat: a.frameFormat, cells: slices.Concat(a.cells, b.cells), lines: slices.Concat(a.lines, b.lines)}, nil
}

// Comma returns the field separator of the table; see Frame.Comma.
func (fr *FrameReader) Comma() rune { return fr.format.comma }

// DecimalComma reports whether the table's numbers are written with a
// decimal comma; see Frame.DecimalComma.
func (fr *FrameReader) DecimalComma() bool { return fr.format.decimalComma }
