package serve

import (
	"fmt"
	"net/http"

	"github.com/parametric-machines/machines/internal/budget"
)

// A Sizer is a Model that tells, from the shapes of a request's inputs
// alone, the bytes that computing it takes: Prepare, Infer and the
// response. The server asks before it prepares a request, counts the
// answer against its memory budget and refuses what would exceed it. A
// Model whose outputs have dimensions of any size must be a Sizer; the
// memory of another is measured on its request's first sample (see
// requestMemory).
type Sizer interface {
	// Memory returns the bytes, at most, that the request of inputs in
	// takes to compute; in is as for Prepare, its data unread.
	Memory(in []Tensor) int64
}

// Bytes per element of an output beyond its value: the response's JSON
// (a number's shortest form and its comma; a text's quotes and escapes)
// in a buffer that grows by doubling.
const (
	jsonNumber = 2 * 26
	jsonText   = 2 * 80
)

// requestMemory returns the bytes that computing the request of inputs
// in takes on m. A Sizer says; for another model, whose outputs have a
// fixed size per sample, the request's first sample is prepared alone
// into probe to learn the width of its rows: the request's rows, a copy
// of them in a batch, and its outputs with their JSON. A request of one
// sample is prepared into probe whole, and its rows are returned, to be
// used as they are.
func requestMemory(m Model, md *Metadata, in []Tensor, probe *Rows) (bytes int64, prepared bool, err error) {
	if sz, ok := m.(Sizer); ok {
		return sz.Memory(in), false, nil
	}
	n := in[0].Shape[0]
	first := in
	if n > 1 {
		first = firstSamples(in, 1)
	}
	if err := prepare(m, probe, first); err != nil {
		return 0, false, err
	}
	perSample := int64(probe.Width()) * 8 * 2
	for _, spec := range md.Outputs {
		w := int64(shapeSize(spec.Shape[1:]))
		if spec.Datatype == BYTES {
			perSample += w * (16 + jsonText)
		} else {
			perSample += w * (8 + jsonNumber)
		}
	}
	return int64(n) * perSample, n == 1, nil
}

// firstSamples returns the inputs in cut to their first k samples.
func firstSamples(in []Tensor, k int) []Tensor {
	out := make([]Tensor, len(in))
	for i, t := range in {
		out[i] = t
		out[i].Shape = append([]int{k}, t.Shape[1:]...)
		w := k * t.rowLen()
		if t.Datatype == BYTES {
			out[i].Texts = t.Texts[:w]
		} else {
			out[i].Numbers = t.Numbers[:w]
		}
	}
	return out
}

// mostSamples returns the most of the first samples of in whose
// computation on m takes at most room bytes, found by bisection: 0 if
// not even one's.
func mostSamples(m Model, md *Metadata, in []Tensor, room int64) int {
	fits := func(k int) bool {
		need, _, err := requestMemory(m, md, firstSamples(in, k), new(Rows))
		return err == nil && need <= room
	}
	lo, hi := 0, in[0].Shape[0] // fits(lo) or lo is 0; !fits(hi)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// checkSizer reports a model whose outputs have dimensions of any size
// and that does not say its memory.
func checkSizer(m Model, md *Metadata) error {
	if _, ok := m.(Sizer); ok {
		return nil
	}
	for _, spec := range md.Outputs {
		for _, d := range spec.Shape[1:] {
			if d < 0 {
				return fmt.Errorf("output %q of shape %v has dimensions of any size, and the model (%T) does not say the memory of a request", spec.Name, spec.Shape, m)
			}
		}
	}
	return nil
}

// tooLarge returns the error of a request whose computation would take
// need bytes, more than the room the budget gives one request's; most
// is the most of its samples that the room holds.
func tooLarge(need, room int64, most int) error {
	advice := "a single sample of this shape is too large for it"
	if most > 0 {
		advice = fmt.Sprintf("send at most %d samples of this shape at once", most)
	}
	return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"this request would take about %s of memory to compute, more than the %s this server's memory budget gives one request's computation; %s",
		budget.Bytes(float64(need)), budget.Bytes(float64(room)), advice)}
}
