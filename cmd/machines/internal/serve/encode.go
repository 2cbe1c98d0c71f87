package serve

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parametric-machines/machines/internal/numeric"
)

// response is what an inference response holds: the rows lo to hi-1 of
// the outputs of a batch.
type response struct {
	model, version string
	req            *inferRequest
	warnings       []string
	outputs        []Tensor // the batch's outputs, in the model's order
	lo, hi         int
	// blank lists the rows, counted from lo, whose outputs are written
	// as missing: null, or "" for a text.
	blank []int
}

// blankRows returns the rows lo to hi-1 of outputs, counted from lo,
// whose numbers are not all finite: JSON has no NaN or infinities, and
// the other outputs of such a row, a label computed from them, are no
// answer either. predict leaves such a row's cells empty.
func blankRows(outputs []Tensor, lo, hi int) []int {
	var blank []int
	for i := lo; i < hi; i++ {
		for k := range outputs {
			t := &outputs[k]
			if t.Datatype == BYTES {
				continue
			}
			w := t.rowLen()
			if !numeric.AllFinite(t.Numbers[i*w : (i+1)*w]) {
				blank = append(blank, i-lo)
				break
			}
		}
	}
	return blank
}

// blankWarning says which of a request's n rows are blank.
func blankWarning(blank []int, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows have outputs that are not finite numbers (rows ", len(blank), n)
	for i, r := range blank[:min(len(blank), 10)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(r + 1))
	}
	if len(blank) > 10 {
		b.WriteString(", ...")
	}
	b.WriteString("): their outputs are null, their texts empty, as predict leaves them; their inputs lie far outside the training data, or the model's outputs overflow")
	return b.String()
}

// appendResponse appends the protocol's JSON inference response r to b.
// The warnings, if any, go in the response's parameters as "warnings",
// one per line.
func appendResponse(b []byte, r *response) []byte {
	b = append(b, `{"model_name":`...)
	b = appendString(b, r.model)
	b = append(b, `,"model_version":`...)
	b = appendString(b, r.version)
	if r.req.hasID {
		b = append(b, `,"id":`...)
		b = appendString(b, string(r.req.id))
	}
	if len(r.warnings) > 0 {
		b = append(b, `,"parameters":{"warnings":`...)
		b = appendString(b, strings.Join(r.warnings, "\n"))
		if len(r.blank) > 0 {
			b = append(b, `,"blank_rows":[`...)
			for i, row := range r.blank {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(row), 10)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, `,"outputs":[`...)
	n := len(r.outputs)
	if r.req.outputs != nil {
		n = len(r.req.outputs)
	}
	for i := range n {
		k := i
		if r.req.outputs != nil {
			k = r.req.outputs[i]
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOutput(b, &r.outputs[k], r.lo, r.hi, r.blank)
	}
	return append(b, "]}\n"...)
}

// appendOutput appends the rows lo to hi-1 of the output t, those of
// blank (counted from lo, in order) as missing.
func appendOutput(b []byte, t *Tensor, lo, hi int, blank []int) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, t.Name)
	b = append(b, `,"datatype":"`...)
	b = append(b, t.Datatype...)
	b = append(b, `","shape":[`...)
	b = strconv.AppendInt(b, int64(hi-lo), 10)
	for _, d := range t.Shape[1:] {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(d), 10)
	}
	b = append(b, `],"data":[`...)
	bits := 64
	if t.Datatype == FP32 {
		bits = 32
	}
	w := t.rowLen()
	for i := lo; i < hi; i++ {
		missing := len(blank) > 0 && blank[0] == i-lo
		if missing {
			blank = blank[1:]
		}
		for j := i * w; j < (i+1)*w; j++ {
			if j > lo*w {
				b = append(b, ',')
			}
			switch {
			case missing && t.Datatype == BYTES:
				b = append(b, `""`...)
			case t.Datatype == BYTES:
				b = appendString(b, t.Texts[j])
			case missing:
				b = append(b, "null"...)
			default:
				b = appendNumber(b, t.Numbers[j], bits)
			}
		}
	}
	return append(b, "]}"...)
}

// appendNumber appends v in the shortest form that reads back as the
// same value of its size in bits, or null if it is not finite: JSON has
// no NaN or infinities.
func appendNumber(b []byte, v float64, bits int) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, bits)
}

// appendString appends s as a JSON string, with the bytes that are not
// UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
