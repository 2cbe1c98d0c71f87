package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/parametric-machines/machines/internal/jsonfile"
	"gonum.org/v1/gonum/mat"
)

// machineJSON is the JSON form of a Machine. Matrices are arrays of rows.
// N is float64 when encoding and json.RawMessage when decoding, so that
// the decoder can say which entry is not a usable number.
type machineJSON[N any] struct {
	Dims      []int  `json:"dims"`
	Kernel    string `json:"kernel"`
	Bandwidth *N     `json:"bandwidth"`
	A         [][]N  `json:"a"`
	C         [][]N  `json:"c"`
	Anchors   [][]N  `json:"anchors"`
	// InputBlock is written only when true, so that the files of other
	// machines read as before.
	InputBlock bool `json:"input_block,omitempty"`
	// Laplacian is written only when true, as InputBlock.
	Laplacian bool `json:"laplacian,omitempty"`
}

// MarshalJSON encodes m as a JSON object:
//
//	{
//	  "dims": [d0, d1, ..., dn],
//	  "kernel": "additive" or "multiplicative",
//	  "bandwidth": sigma,
//	  "a": A, sum(dims) rows of one entry per input (sum(dims) - dims[0]
//	       with "input_block"),
//	  "c": C, sum(dims)-d0 rows of one entry per anchor,
//	  "anchors": one row per anchor of one entry per input,
//	  "input_block": true when the first block is the input itself (optional),
//	  "laplacian": true when the kernel is the Laplacian (optional)
//	}
//
// Numbers are written in the shortest form that reads back to the same
// float64, so a decoded machine predicts exactly what m predicts.
// MarshalJSON returns an error if m is not a consistent machine, as
// UnmarshalJSON would reject it.
func (m *Machine) MarshalJSON() ([]byte, error) {
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("kernel: encoding machine: %w", err)
	}
	bw := m.Bandwidth
	w := machineJSON[float64]{
		Dims:       m.Dims,
		Kernel:     m.Kernel.String(),
		Bandwidth:  &bw,
		A:          rowsOf(m.A),
		C:          rowsOf(m.C),
		Anchors:    rowsOf(m.Anchors),
		InputBlock: m.InputBlock,
		Laplacian:  m.Laplacian,
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a machine in the form that MarshalJSON writes and
// replaces *m with it. It checks everything that Predict relies on and
// returns an error naming the field at fault: a missing or unknown field,
// invalid dims or kernel, matrices of the wrong shape, ragged rows, or
// numbers that are not finite. On error *m is left as it was. The JSON
// null leaves *m unchanged.
func (m *Machine) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	d, err := decodeMachine(data)
	if err != nil {
		return fmt.Errorf("kernel: decoding machine: %w", err)
	}
	*m = *d
	return nil
}

func decodeMachine(data []byte) (*Machine, error) {
	var w machineJSON[json.RawMessage]
	if err := jsonfile.DecodeObject(data, &w, "machine"); err != nil {
		return nil, err
	}
	switch {
	case w.Dims == nil:
		return nil, errors.New(`missing field "dims"`)
	case w.Kernel == "":
		return nil, errors.New(`missing field "kernel"`)
	case w.Bandwidth == nil:
		return nil, errors.New(`missing field "bandwidth"`)
	case w.A == nil:
		return nil, errors.New(`missing field "a"`)
	case w.C == nil:
		return nil, errors.New(`missing field "c"`)
	case w.Anchors == nil:
		return nil, errors.New(`missing field "anchors"`)
	}
	k, err := ParseCombine(w.Kernel)
	if err != nil {
		return nil, fmt.Errorf("unknown kernel %q, want %q or %q", w.Kernel, Additive, Multiplicative)
	}
	bw, err := jsonfile.Number(*w.Bandwidth)
	if err != nil {
		return nil, fmt.Errorf("bandwidth %w", err)
	}
	m := &Machine{Architecture: Architecture{Dims: w.Dims, Kernel: k, Bandwidth: bw, Laplacian: w.Laplacian}, InputBlock: w.InputBlock}
	if m.A, err = matrixFrom("a", w.A); err != nil {
		return nil, err
	}
	if m.C, err = matrixFrom("c", w.C); err != nil {
		return nil, err
	}
	if m.Anchors, err = matrixFrom("anchors", w.Anchors); err != nil {
		return nil, err
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// validate checks that m is a machine that Predict can run: valid dims,
// kernel and bandwidth, and matrices of matching shapes with finite
// entries.
func (m *Machine) validate() error {
	if len(m.Dims) < 2 {
		return fmt.Errorf("dims %v: need at least two blocks, the input block and the output", m.Dims)
	}
	size := 0
	for i, d := range m.Dims {
		if d < 1 {
			return fmt.Errorf("dims %v: block %d has size %d, want at least 1", m.Dims, i, d)
		}
		if d > math.MaxInt-size {
			return fmt.Errorf("dims %v: the sizes add up to more than an int holds", m.Dims)
		}
		size += d
	}
	if m.Kernel != Additive && m.Kernel != Multiplicative {
		return fmt.Errorf("unknown kernel %v", m.Kernel)
	}
	if m.Laplacian && len(m.Dims) > 2 {
		return fmt.Errorf("dims %v: a Laplacian kernel needs a machine of one level (two blocks)", m.Dims)
	}
	if math.IsNaN(m.Bandwidth) || math.IsInf(m.Bandwidth, 0) || m.Bandwidth < 0 {
		return fmt.Errorf("bandwidth is %v, want a finite number > 0 (or 0 for 1)", m.Bandwidth)
	}
	for _, p := range []struct {
		name string
		a    *mat.Dense
	}{{"a", m.A}, {"c", m.C}, {"anchors", m.Anchors}} {
		if p.a == nil || p.a.IsEmpty() {
			return fmt.Errorf("no matrix %s", p.name)
		}
	}
	rows, inputs := m.A.Dims()
	switch {
	case m.InputBlock && m.Dims[0] != inputs:
		return fmt.Errorf("dims %v: the first block is the input itself (input_block), so it has the %d inputs (the columns of a)", m.Dims, inputs)
	case m.InputBlock && rows != size-m.Dims[0]:
		return fmt.Errorf("a is %dx%d, want %dx%d: sum(dims) - dims[0] = %d rows after the input block, one column per input",
			rows, inputs, size-m.Dims[0], inputs, size-m.Dims[0])
	case !m.InputBlock && rows != size:
		return fmt.Errorf("a is %dx%d, want %dx%d: sum(dims) = %d rows, one column per input", rows, inputs, size, inputs, size)
	}
	na, c := m.Anchors.Dims()
	if c != inputs {
		return fmt.Errorf("anchors is %dx%d, want %dx%d: one row per anchor, one column per input (%d, the columns of a)", na, c, na, inputs, inputs)
	}
	if r, c := m.C.Dims(); r != size-m.Dims[0] || c != na {
		return fmt.Errorf("c is %dx%d, want %dx%d: sum(dims) - dims[0] = %d rows, one column per anchor (%d, the rows of anchors)",
			r, c, size-m.Dims[0], na, size-m.Dims[0], na)
	}
	for _, p := range []struct {
		name string
		a    *mat.Dense
	}{{"a", m.A}, {"c", m.C}, {"anchors", m.Anchors}} {
		r, c := p.a.Dims()
		for i := range r {
			for j := range c {
				if v := p.a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s[%d][%d] is %v, want a finite number", p.name, i, j, v)
				}
			}
		}
	}
	return nil
}

// rowsOf returns the rows of a as slices, for encoding.
func rowsOf(a *mat.Dense) [][]float64 {
	r, _ := a.Dims()
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = a.RawRowView(i)
	}
	return rows
}

// matrixFrom converts the rows of the matrix called name, as decoded.
func matrixFrom(name string, rows [][]json.RawMessage) (*mat.Dense, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", name)
	}
	c := len(rows[0])
	if c == 0 {
		return nil, fmt.Errorf("%s has no columns", name)
	}
	data := make([]float64, 0, len(rows)*c)
	for i, row := range rows {
		if len(row) != c {
			return nil, fmt.Errorf("%s is ragged: row %d has %d entries, row 0 has %d", name, i, len(row), c)
		}
		for j, raw := range row {
			v, err := jsonfile.Number(raw)
			if err != nil {
				return nil, fmt.Errorf("%s[%d][%d] %w", name, i, j, err)
			}
			data = append(data, v)
		}
	}
	return mat.NewDense(len(rows), c, data), nil
}
