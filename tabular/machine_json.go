package tabular

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/scale"
)

// machineJSON is the JSON form of a Machine: one object that holds the
// kernel machine's fields, in package kernel's form, and the maps around
// it, in the order the model files have always had. N is float64 when
// encoding and json.RawMessage when decoding, so that the decoder can say
// which entry is not a usable number.
type machineJSON[N any] struct {
	kernelJSON
	Quantiles *quantileJSON[N] `json:"quantiles,omitempty"`
	Input     *scalerJSON[N]   `json:"input,omitempty"`
	Output    *scalerJSON[N]   `json:"output,omitempty"`
	LogTarget bool             `json:"log_target,omitempty"`
	Range     [][]N            `json:"range,omitempty"`
	// InputBlock is the kernel machine's, written only when true.
	InputBlock json.RawMessage `json:"input_block,omitempty"`
	// Sum holds the machines of Machine.Sum, each in package kernel's
	// form.
	Sum []json.RawMessage `json:"sum,omitempty"`
	// Other holds Machine.Other in this form, OtherWeight its weight.
	Other       json.RawMessage `json:"other,omitempty"`
	OtherWeight float64         `json:"other_weight,omitempty"`
	// Linear holds Machine.Linear in this form, LinearWeight its weight.
	Linear       json.RawMessage `json:"linear,omitempty"`
	LinearWeight float64         `json:"linear_weight,omitempty"`
	// Mean holds Machine.Mean in this form, MeanWeight its weight.
	Mean       json.RawMessage `json:"mean,omitempty"`
	MeanWeight float64         `json:"mean_weight,omitempty"`
}

// kernelJSON holds the kernel machine's fields but its input block, as
// package kernel encodes them.
type kernelJSON struct {
	Dims      json.RawMessage `json:"dims,omitempty"`
	Kernel    json.RawMessage `json:"kernel,omitempty"`
	Bandwidth json.RawMessage `json:"bandwidth,omitempty"`
	A         json.RawMessage `json:"a,omitempty"`
	C         json.RawMessage `json:"c,omitempty"`
	Anchors   json.RawMessage `json:"anchors,omitempty"`
	Laplacian json.RawMessage `json:"laplacian,omitempty"`
}

type quantileJSON[N any] struct {
	Knots [][]N `json:"knots"`
	Ranks [][]N `json:"ranks"`
}

type scalerJSON[N any] struct {
	Mean  []N `json:"mean"`
	Scale []N `json:"scale"`
}

// MarshalJSON encodes m as one JSON object: the fields of
// kernel.Machine.MarshalJSON and
//
//	"quantiles": {"knots": [...], "ranks": [...]}, one list (or null) per
//	     input, its scale.QuantileMap (optional),
//	"input": {"mean": [...], "scale": [...]}, one entry per input (optional),
//	"output": {"mean": [...], "scale": [...]}, one entry per output (optional),
//	"log_target": true when the machine predicts exp(output) - 1 (optional),
//	"range": [[lowest, highest], ...], one pair per output, the bounds of
//	     a regression's predictions (optional),
//	"sum": [...], the machines of Sum, each as kernel.Machine.MarshalJSON
//	     writes it (optional),
//	"other": {...}, the machine Other in this form, and "other_weight":
//	     its weight OtherWeight (optional),
//	"linear": {...}, the machine Linear in this form, and "linear_weight":
//	     its weight LinearWeight (optional),
//	"mean": {...}, the machine Mean in this form, and "mean_weight": its
//	     weight MeanWeight (optional)
//
// A decoded machine predicts exactly what m predicts. MarshalJSON returns
// an error if m is not a consistent machine, as UnmarshalJSON would
// reject it.
func (m *Machine) MarshalJSON() ([]byte, error) {
	if m.Machine == nil {
		return nil, errors.New("tabular: encoding machine: no kernel machine")
	}
	// The machines' own encoders are called directly: their JSON is
	// compact already, and json.Marshal would scan it once more at every
	// level of the machines nested in m.
	body, err := m.Machine.MarshalJSON() // checks the kernel machine
	if err != nil {
		return nil, err
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("tabular: encoding machine: %w", err)
	}
	var w machineJSON[float64]
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	w.LogTarget = m.LogTarget
	for _, r := range m.Range {
		w.Range = append(w.Range, r[:])
	}
	if m.Quantiles != nil {
		w.Quantiles = &quantileJSON[float64]{Knots: m.Quantiles.Knots, Ranks: m.Quantiles.Ranks}
	}
	if m.Input != nil {
		w.Input = &scalerJSON[float64]{Mean: m.Input.Mean, Scale: m.Input.Scale}
	}
	if m.Output != nil {
		w.Output = &scalerJSON[float64]{Mean: m.Output.Mean, Scale: m.Output.Scale}
	}
	for _, s := range m.Sum {
		b, err := s.MarshalJSON()
		if err != nil {
			return nil, err
		}
		w.Sum = append(w.Sum, b)
	}
	if m.Other != nil {
		if w.Other, err = m.Other.MarshalJSON(); err != nil {
			return nil, err
		}
		w.OtherWeight = m.OtherWeight
	}
	if m.Linear != nil {
		if w.Linear, err = m.Linear.MarshalJSON(); err != nil {
			return nil, err
		}
		w.LinearWeight = m.LinearWeight
	}
	if m.Mean != nil {
		if w.Mean, err = m.Mean.MarshalJSON(); err != nil {
			return nil, err
		}
		w.MeanWeight = m.MeanWeight
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes a machine in the form that MarshalJSON writes and
// replaces *m with it. It checks everything that Predict relies on and
// returns an error naming the field at fault: the kernel machine's (see
// kernel.Machine.UnmarshalJSON), and maps of the wrong length or with
// numbers that are not finite. On error *m is left as it was. The JSON
// null leaves *m unchanged.
func (m *Machine) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	d, err := decodeMachine(data)
	if err != nil {
		return err
	}
	*m = *d
	return nil
}

// decodingPrefix begins the errors of decodeMachine about the machine's
// own parts.
const decodingPrefix = "tabular: decoding machine:"

// decodeMachine decodes the machine of data. Its errors say whose part
// of the machine is at fault: package kernel's, or the maps around it.
func decodeMachine(data []byte) (*Machine, error) {
	var w machineJSON[json.RawMessage]
	if err := jsonfile.DecodeObject(data, &w, "machine"); err != nil {
		return nil, fmt.Errorf("%s %w", decodingPrefix, err)
	}
	body, err := json.Marshal(struct {
		kernelJSON
		InputBlock json.RawMessage `json:"input_block,omitempty"`
	}{w.kernelJSON, w.InputBlock})
	if err != nil {
		return nil, err
	}
	m := &Machine{Machine: new(kernel.Machine), LogTarget: w.LogTarget}
	if err := m.Machine.UnmarshalJSON(body); err != nil {
		return nil, err
	}
	for i, raw := range w.Sum {
		s := new(kernel.Machine)
		if err := s.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("%s sum[%d]: %w", decodingPrefix, i, err)
		}
		m.Sum = append(m.Sum, s)
	}
	if m.Other, err = decodeHedge("other", w.Other); err != nil {
		return nil, err
	}
	if m.Linear, err = decodeHedge("linear", w.Linear); err != nil {
		return nil, err
	}
	if m.Mean, err = decodeHedge("mean", w.Mean); err != nil {
		return nil, err
	}
	m.OtherWeight, m.LinearWeight, m.MeanWeight = w.OtherWeight, w.LinearWeight, w.MeanWeight
	if err := m.mapsFrom(w); err != nil {
		return nil, fmt.Errorf("%s %w", decodingPrefix, err)
	}
	return m, nil
}

// decodeHedge decodes the machine of the entry name, data; nil for none.
func decodeHedge(name string, data json.RawMessage) (*Machine, error) {
	if data == nil {
		return nil, nil
	}
	m, err := decodeMachine(data)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %s", decodingPrefix, name, strings.TrimPrefix(err.Error(), decodingPrefix+" "))
	}
	return m, nil
}

// mapsFrom sets the maps of m from w, as decoded, and checks them.
func (m *Machine) mapsFrom(w machineJSON[json.RawMessage]) error {
	var err error
	if m.Quantiles, err = quantilesFrom(w.Quantiles); err != nil {
		return err
	}
	if m.Input, err = scalerFrom("input", w.Input); err != nil {
		return err
	}
	if m.Output, err = scalerFrom("output", w.Output); err != nil {
		return err
	}
	if m.Range, err = rangeFrom(w.Range); err != nil {
		return err
	}
	return m.validate()
}

// validate checks the maps around the machine: a quantile map and an
// input scaler of one entry per input, an output scaler and a range of
// one per output; that the machines of its sum have its inputs and
// outputs; and its Other, Linear and Mean (see checkHedge).
func (m *Machine) validate() error {
	if err := m.checkHedge("other", m.Other, m.OtherWeight); err != nil {
		return err
	}
	if err := m.checkHedge("linear", m.Linear, m.LinearWeight); err != nil {
		return err
	}
	if err := m.checkHedge("mean", m.Mean, m.MeanWeight); err != nil {
		return err
	}
	for i, s := range m.Sum {
		switch {
		case s == nil || s.A == nil:
			return fmt.Errorf("sum[%d] is not a machine", i)
		case s.Inputs() != m.Inputs() || s.Outputs() != m.Outputs():
			return fmt.Errorf("sum[%d] has %d inputs and %d outputs, want %d and %d, those of the machine", i, s.Inputs(), s.Outputs(), m.Inputs(), m.Outputs())
		}
	}
	if m.Quantiles != nil {
		if err := m.Quantiles.Check(m.Inputs()); err != nil {
			return fmt.Errorf("quantiles: %w", err)
		}
	}
	if err := checkScaler("input", m.Input, m.Inputs(), "input"); err != nil {
		return err
	}
	if err := checkScaler("output", m.Output, m.Outputs(), "output (the last entry of dims)"); err != nil {
		return err
	}
	if m.Range == nil {
		return nil
	}
	if len(m.Range) != m.Outputs() {
		return fmt.Errorf("range has %d pairs of bounds, want %d, one per output (the last entry of dims)", len(m.Range), m.Outputs())
	}
	for k, r := range m.Range {
		if !(r[0] <= r[1]) || math.IsInf(r[0], 0) || math.IsInf(r[1], 0) {
			return fmt.Errorf("range[%d] is %v, want two finite numbers, the lower first", k, r)
		}
	}
	return nil
}

// checkHedge checks the machine o of m's entry name (Other, Linear or
// Mean), of weight w: nil with a weight of 0, or a machine of m's inputs and
// outputs, without hedges of its own, weighing more than 0 and less
// than 1.
func (m *Machine) checkHedge(name string, o *Machine, w float64) error {
	switch {
	case o == nil && w != 0:
		return fmt.Errorf("%s_weight is %v without an entry %q", name, w, name)
	case o == nil:
		return nil
	case o.Machine == nil || o.A == nil:
		return fmt.Errorf("%s is not a machine", name)
	case o.Inputs() != m.Inputs() || o.Outputs() != m.Outputs():
		return fmt.Errorf("%s has %d inputs and %d outputs, want %d and %d, those of the machine", name, o.Inputs(), o.Outputs(), m.Inputs(), m.Outputs())
	case o.Hedges() != nil:
		return fmt.Errorf("%s has another machine of its own, want none", name)
	case !(w > 0 && w < 1):
		return fmt.Errorf("%s_weight is %v, want a number between 0 and 1", name, w)
	}
	return o.validate()
}

func checkScaler(name string, s *scale.Scaler, n int, what string) error {
	if s == nil {
		return nil
	}
	if len(s.Mean) != n || len(s.Scale) != n {
		return fmt.Errorf("%s scaler has %d means and %d scales, want %d, one per %s", name, len(s.Mean), len(s.Scale), n, what)
	}
	for j := range n {
		if v := s.Mean[j]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s.mean[%d] is %v, want a finite number", name, j, v)
		}
		if v := s.Scale[j]; math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
			return fmt.Errorf("%s.scale[%d] is %v, want a finite number other than 0", name, j, v)
		}
	}
	return nil
}

// rangeFrom decodes the bounds of a machine's predictions: nil if the
// file has none.
func rangeFrom(rows [][]json.RawMessage) ([][2]float64, error) {
	if rows == nil {
		return nil, nil
	}
	if len(rows) == 0 {
		return nil, errors.New("range has no rows")
	}
	r := make([][2]float64, len(rows))
	for k, row := range rows {
		if len(row) != 2 {
			return nil, fmt.Errorf("range has rows of %d numbers, want 2: the lowest and the highest prediction", len(row))
		}
		for e, raw := range row {
			v, err := jsonfile.Number(raw)
			if err != nil {
				return nil, fmt.Errorf("range[%d][%d] %w", k, e, err)
			}
			r[k][e] = v
		}
	}
	return r, nil
}

// quantilesFrom converts the quantile map as decoded; validate checks it.
func quantilesFrom(w *quantileJSON[json.RawMessage]) (*scale.QuantileMap, error) {
	if w == nil {
		return nil, nil
	}
	if w.Knots == nil || w.Ranks == nil {
		return nil, errors.New(`missing field "knots" or "ranks" in quantiles`)
	}
	q := &scale.QuantileMap{}
	for _, f := range []struct {
		field string
		raw   [][]json.RawMessage
		dst   *[][]float64
	}{{"knots", w.Knots, &q.Knots}, {"ranks", w.Ranks, &q.Ranks}} {
		*f.dst = make([][]float64, len(f.raw))
		for j, col := range f.raw {
			if col == nil {
				continue
			}
			(*f.dst)[j] = make([]float64, len(col))
			for k, raw := range col {
				v, err := jsonfile.Number(raw)
				if err != nil {
					return nil, fmt.Errorf("quantiles.%s[%d][%d] %w", f.field, j, k, err)
				}
				(*f.dst)[j][k] = v
			}
		}
	}
	return q, nil
}

// scalerFrom converts the scaler called name, as decoded; nil stays nil.
func scalerFrom(name string, w *scalerJSON[json.RawMessage]) (*scale.Scaler, error) {
	if w == nil {
		return nil, nil
	}
	if w.Mean == nil {
		return nil, fmt.Errorf(`missing field "mean" in %s`, name)
	}
	if w.Scale == nil {
		return nil, fmt.Errorf(`missing field "scale" in %s`, name)
	}
	s := &scale.Scaler{Mean: make([]float64, len(w.Mean)), Scale: make([]float64, len(w.Scale))}
	for _, f := range []struct {
		field string
		raw   []json.RawMessage
		dst   []float64
	}{{"mean", w.Mean, s.Mean}, {"scale", w.Scale, s.Scale}} {
		for j, raw := range f.raw {
			v, err := jsonfile.Number(raw)
			if err != nil {
				return nil, fmt.Errorf("%s.%s[%d] %w", name, f.field, j, err)
			}
			f.dst[j] = v
		}
	}
	return s, nil
}
