package machines

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Span is the half-open range [Lo, Hi) of coordinates of M, that is of
// columns of a batch.
type Span struct {
	Lo, Hi int
}

// Len returns the number of coordinates in the span.
func (s Span) Len() int { return s.Hi - s.Lo }

// Spanner is implemented by machines that read only some coordinates of M
// and write only some coordinates of M, leaving the others at zero. Such
// footprints decide dependency: f_j depends on f_i only if f_i writes a
// coordinate that f_j reads, since otherwise f_j(b + λ f_i(b')) = f_j(b).
type Spanner interface {
	Spans() (in, out []Span)
}

// Block is a machine that reads the coordinates in In and writes those in
// Out: F receives the columns of In side by side and produces the columns
// of Out side by side; all other columns of the output are zero. A Block
// whose In and Out do not overlap does not depend on itself, so its stable
// state takes one step. A hyperedge of a hypergraph (reading its sources,
// writing its targets) and a strictly block-triangular map on a filtration
// are Blocks.
//
// Block keeps scratch memory between calls, so a Block must not be used
// concurrently.
type Block struct {
	// In and Out are the coordinates read and written. The spans of Out
	// must be disjoint.
	In, Out []Span
	// F sets dst from src. src has one column per coordinate of In and dst
	// one per coordinate of Out, in span order; F must overwrite all of
	// dst and must not retain either matrix.
	F func(dst, src *mat.Dense)

	src, out mat.Dense
}

// Spans returns b.In and b.Out.
func (b *Block) Spans() (in, out []Span) { return b.In, b.Out }

// Apply sets dst = f(h) as described on Block. If dst is empty it is resized
// to the shape of h.
func (b *Block) Apply(dst, h *mat.Dense) {
	r, c := shape(dst, h)
	nIn := width(b.In, c, "In")
	nOut := width(b.Out, c, "Out")
	for i, s := range b.Out {
		if overlap(b.Out[:i], []Span{s}) {
			panic(fmt.Errorf("%w: machines: Block Out span %v overlaps an earlier one", ad.ErrShape, s))
		}
	}
	resize(&b.src, r, nIn)
	resize(&b.out, r, nOut)
	gather(b.src.RawMatrix(), h.RawMatrix(), b.In)
	b.F(&b.out, &b.src)
	dst.Zero()
	scatter(dst.RawMatrix(), b.out.RawMatrix(), b.Out)
}

// StableState sets dst to the stable state of b with initial condition g:
// in one step when In and Out are disjoint, by Iterate otherwise.
func (b *Block) StableState(dst, g *mat.Dense, s Settings) (Result, error) {
	if overlap(b.In, b.Out) {
		return Iterate(dst, b, g, s)
	}
	return oneStep(dst, b, g, s)
}

// width returns the total length of spans after checking that they lie in
// [0, c) and are not all empty.
func width(spans []Span, c int, name string) int {
	n := 0
	for _, s := range spans {
		if s.Lo < 0 || s.Hi < s.Lo || s.Hi > c {
			panic(fmt.Errorf("%w: machines: Block %s span %v invalid for %d coordinates", ad.ErrShape, name, s, c))
		}
		n += s.Len()
	}
	if n == 0 {
		panic(fmt.Errorf("%w: machines: Block %s has no coordinates", ad.ErrShape, name))
	}
	return n
}

// overlap reports whether some span of a shares a coordinate with some span
// of b.
func overlap(a, b []Span) bool {
	for _, s := range a {
		for _, t := range b {
			if max(s.Lo, t.Lo) < min(s.Hi, t.Hi) {
				return true
			}
		}
	}
	return false
}

// gather copies the columns of src in spans, in order, into the columns of
// dst.
func gather(dst, src blas64.General, spans []Span) {
	for i := range src.Rows {
		d := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		row := src.Data[i*src.Stride:]
		k := 0
		for _, s := range spans {
			k += copy(d[k:], row[s.Lo:s.Hi])
		}
	}
}

// scatter copies the columns of src, in order, into the columns of dst in
// spans.
func scatter(dst, src blas64.General, spans []Span) {
	for i := range src.Rows {
		row := dst.Data[i*dst.Stride:]
		s0 := src.Data[i*src.Stride : i*src.Stride+src.Cols]
		k := 0
		for _, s := range spans {
			k += copy(row[s.Lo:s.Hi], s0[k:])
		}
	}
}
