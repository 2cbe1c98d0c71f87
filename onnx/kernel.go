package onnx

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"github.com/parametric-machines/machines/scale"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// The names of the outputs of an exported kernel machine.
const (
	OutputPrediction    = "prediction"
	OutputScores        = "scores"
	OutputProbabilities = "probabilities"
	OutputLabel         = "label"
	OutputLower         = "lower"
	OutputUpper         = "upper"
)

// kernelModel is a fitted kernel machine with what it needs to read a
// table, as a tabular.Model holds it.
type kernelModel struct {
	Machine *tabular.Machine
	// Encoder turns the Features into the machine's inputs; nil means
	// the features are numbers used as they are.
	Encoder  *dataset.Encoder
	Features []string
	// Target names what a regression predicts; it goes into the model's
	// metadata.
	Target string
	// Classes are a classifier's classes in the order of the machine's
	// outputs; nil for a regression.
	Classes []string
	// HalfWidth, if not nil, adds the outputs lower and upper to a
	// regression: the ends of its prediction intervals, the machine's
	// output plus and minus these half widths on the scale it fits, as
	// tabular.Machine.PredictInterval computes them. One per output.
	HalfWidth []float64
}

// Codes of the LabelEncoder that reads a string column: a missing cell,
// and a text that is none of the keys.
const (
	codeMissing = -2
	codeUnknown = -1
)

// Tabular returns the ONNX model of a tabular model, with the outputs
// lower and upper of a regression's conformal prediction intervals of
// the given level if it is not 0: see the package documentation for its
// inputs and outputs. Its errors name the part that cannot be exported;
// a classifier's prediction sets are not.
func Tabular(md *tabular.Model, level float64) (*onnxpb.ModelProto, error) {
	km := kernelModel{Machine: md.Machine, Encoder: md.Encoder, Features: md.Features, Target: md.Target, Classes: md.Classes}
	if level != 0 {
		if md.Task == tabular.Classification {
			return nil, errors.New("onnx: kernel machine: prediction sets are not exported; export the probabilities and threshold them")
		}
		var err error
		if km.HalfWidth, err = md.HalfWidths(level); err != nil {
			return nil, fmt.Errorf("onnx: kernel machine: %w", err)
		}
	}
	return kernelGraph(km)
}

// kernelGraph returns the ONNX model of km: see the package
// documentation for its inputs and outputs. Its errors name the part
// that cannot be exported.
func kernelGraph(km kernelModel) (*onnxpb.ModelProto, error) {
	m := km.Machine
	if err := checkKernel(km); err != nil {
		return nil, fmt.Errorf("onnx: kernel machine: %w", err)
	}
	b := newBuilder("kernel machine")

	// The encoded inputs, as [N, w] doubles, column by column.
	var cols []string
	if km.Encoder == nil {
		for _, f := range km.Features {
			b.g.Input = append(b.g.Input, valueInfo(f, "numeric: a double", onnxpb.TensorProto_DOUBLE, 1))
			cols = append(cols, f)
		}
	} else {
		for _, r := range km.Encoder.Rules() {
			c, err := b.encode(r)
			if err != nil {
				return nil, fmt.Errorf("onnx: kernel machine: encoder: column %q: %w", r.Name, err)
			}
			cols = append(cols, c...)
		}
	}
	x := cols[0]
	if len(cols) > 1 {
		x = b.op("Concat", cols, intAttr("axis", 1))
	}
	raw := b.outputs(m, x)
	out := b.toTargets(m, raw)
	if hs := m.Hedges(); hs != nil {
		// Each hedge's prediction weighs its weight in the average
		// before it, and the intervals are the machine's own about the
		// average, on the scale it fits.
		for _, h := range hs {
			hp := b.toTargets(h.Machine, b.outputs(h.Machine, x))
			out = b.op("Add", []string{b.op("Mul", []string{out, b.scalar(1 - h.Weight)}), b.op("Mul", []string{hp, b.scalar(h.Weight)})})
		}
		raw = b.fromTargets(m, out)
	}
	k := int64(m.Outputs())
	meta := [][2]string{{"kind", "kernel-machine"}, {"target", km.Target}}
	doc := "a finite-depth kernel machine fitted by github.com/parametric-machines/machines, with its preprocessing"
	if km.Classes == nil {
		meta = append(meta, [2]string{"task", "regression"})
		b.rename(out, OutputPrediction)
		b.g.Output = append(b.g.Output, valueInfo(OutputPrediction, "the predicted "+km.Target, onnxpb.TensorProto_DOUBLE, 1))
		if km.HalfWidth != nil {
			h := b.doubles([]int64{1, k}, km.HalfWidth)
			b.rename(b.toTargets(m, b.op("Sub", []string{raw, h})), OutputLower)
			b.rename(b.toTargets(m, b.op("Add", []string{raw, h})), OutputUpper)
			b.g.Output = append(b.g.Output,
				valueInfo(OutputLower, "the lower end of the prediction interval of "+km.Target, onnxpb.TensorProto_DOUBLE, k),
				valueInfo(OutputUpper, "the upper end of the prediction interval of "+km.Target, onnxpb.TensorProto_DOUBLE, k))
		}
	} else {
		meta = append(meta, [2]string{"task", "classification"}, [2]string{"classes", strings.Join(km.Classes, "\n")})
		b.rename(out, OutputScores)
		b.rename(b.op("Softmax", []string{out}, intAttr("axis", 1)), OutputProbabilities)
		best := b.op("ArgMax", []string{out}, intAttr("axis", 1), intAttr("keepdims", 0))
		b.rename(b.op("Gather", []string{b.strings([]int64{k}, km.Classes), best}), OutputLabel)
		b.g.Output = append(b.g.Output,
			valueInfo(OutputScores, "the machine's score of each class, in the order of the metadata's classes", onnxpb.TensorProto_DOUBLE, k),
			valueInfo(OutputProbabilities, "the probability of each class: the softmax of the scores", onnxpb.TensorProto_DOUBLE, k),
			valueInfo(OutputLabel, "the most probable class", onnxpb.TensorProto_STRING))
	}
	return b.model(doc, meta...), nil
}

// outputs adds the outputs of the machine m, on the scale it fits, for
// the encoded inputs x: the quantile map and the standardisation of the
// inputs, then the machine and those of its sum added.
func (b *builder) outputs(m *tabular.Machine, x string) string {
	d := m.Inputs()
	if m.Quantiles != nil {
		x = b.quantiles(m.Quantiles, x, d)
	}
	if m.Input != nil {
		x = b.op("Sub", []string{x, b.doubles([]int64{1, int64(d)}, m.Input.Mean)})
		x = b.op("Div", []string{x, b.doubles([]int64{1, int64(d)}, m.Input.Scale)})
	}
	raw := b.machine(onnxpb.TensorProto_DOUBLE, m.Machine, x)
	for _, s := range m.Sum {
		raw = b.op("Add", []string{raw, b.machine(onnxpb.TensorProto_DOUBLE, s, x)})
	}
	return raw
}

// fromTargets adds the map of v, in the units of the targets, to the
// scale the machine m fits, as tabular.Machine does: the log scale
// (minus infinity at -1 or less), then the output scaler.
func (b *builder) fromTargets(m *tabular.Machine, v string) string {
	if m.LogTarget {
		v = b.op("Log", []string{b.op("Add", []string{b.op("Max", []string{v, b.scalar(-1)}), b.scalar(1)})})
	}
	if m.Output != nil {
		k := int64(m.Outputs())
		v = b.op("Sub", []string{v, b.doubles([]int64{1, k}, m.Output.Mean)})
		v = b.op("Div", []string{v, b.doubles([]int64{1, k}, m.Output.Scale)})
	}
	return v
}

// toTargets adds the map of the machine's outputs v to the units of the
// targets: the output scaler, then the log scale, then the bounds of the
// machine's Range.
func (b *builder) toTargets(m *tabular.Machine, v string) string {
	if m.Output != nil {
		k := int64(m.Outputs())
		v = b.op("Mul", []string{v, b.doubles([]int64{1, k}, m.Output.Scale)})
		v = b.op("Add", []string{v, b.doubles([]int64{1, k}, m.Output.Mean)})
	}
	if m.LogTarget {
		v = b.op("Sub", []string{b.op("Exp", []string{v}), b.scalar(1)})
	}
	if m.Range != nil {
		v = b.clamp(m, v)
	}
	return v
}

// clamp adds the bounds of m.Range to v.
func (b *builder) clamp(m *tabular.Machine, v string) string {
	k := int64(m.Outputs())
	lo, hi := make([]float64, k), make([]float64, k)
	for j, r := range m.Range {
		lo[j], hi[j] = r[0], r[1]
	}
	return b.op("Min", []string{b.op("Max", []string{v, b.doubles([]int64{1, k}, lo)}), b.doubles([]int64{1, k}, hi)})
}

// checkMachine reports what keeps the kernel machine m, of a model or
// of its sum, from being exported.
func checkMachine(m *kernel.Machine) error {
	switch {
	case m == nil:
		return errors.New("no machine")
	case m.A == nil || m.C == nil || m.Anchors == nil:
		return errors.New("the machine has no augmenter, coefficients or anchors")
	case m.Kernel != kernel.Additive && m.Kernel != kernel.Multiplicative:
		return fmt.Errorf("kernel %v: only additive and multiplicative kernels can be exported", m.Kernel)
	}
	return nil
}

// checkSum reports what keeps the kernel machine of m and those of its
// sum from being exported.
func checkSum(m *tabular.Machine) error {
	if err := checkMachine(m.Machine); err != nil {
		return err
	}
	for i, s := range m.Sum {
		if err := checkMachine(s); err != nil {
			return fmt.Errorf("sum[%d]: %w", i, err)
		}
		if s.Inputs() != m.Inputs() || s.Outputs() != m.Outputs() {
			return fmt.Errorf("sum[%d]: %d inputs and %d outputs for a machine of %d and %d", i, s.Inputs(), s.Outputs(), m.Inputs(), m.Outputs())
		}
	}
	return nil
}

// checkKernel reports what keeps km from being exported.
func checkKernel(km kernelModel) error {
	m := km.Machine
	if m == nil {
		return errors.New("no machine")
	}
	if err := checkSum(m); err != nil {
		return err
	}
	for _, h := range m.Hedges() {
		o := h.Machine
		if err := checkSum(o); err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
		switch {
		case o.Inputs() != m.Inputs() || o.Outputs() != m.Outputs():
			return fmt.Errorf("%s: %d inputs and %d outputs for a machine of %d and %d", h.Name, o.Inputs(), o.Outputs(), m.Inputs(), m.Outputs())
		case o.Hedges() != nil:
			return fmt.Errorf("%s: a machine of its own, want none", h.Name)
		case !(h.Weight > 0 && h.Weight < 1):
			return fmt.Errorf("%s weight %v, want a number between 0 and 1", h.Name, h.Weight)
		}
	}
	switch {
	case len(km.Features) == 0:
		return errors.New("no features")
	case km.HalfWidth != nil && km.Classes != nil:
		return errors.New("prediction intervals are for regressions, not classifiers")
	case km.HalfWidth != nil && len(km.HalfWidth) != m.Outputs():
		return fmt.Errorf("%d interval half widths for %d outputs", len(km.HalfWidth), m.Outputs())
	}
	for _, h := range km.HalfWidth {
		if !(h >= 0) || math.IsInf(h, 0) {
			return fmt.Errorf("interval half width %v, want a finite value >= 0", h)
		}
	}
	if km.Encoder != nil {
		if !slices.Equal(km.Encoder.Features(), km.Features) {
			return fmt.Errorf("the encoder reads the columns %q, the model lists the features %q", km.Encoder.Features(), km.Features)
		}
		if w := km.Encoder.Width(); w != m.Inputs() {
			return fmt.Errorf("the encoder makes %d columns for a machine of %d inputs", w, m.Inputs())
		}
	} else if len(km.Features) != m.Inputs() {
		return fmt.Errorf("%d features for a machine of %d inputs", len(km.Features), m.Inputs())
	}
	if km.Classes != nil && len(km.Classes) != m.Outputs() {
		return fmt.Errorf("%d classes for a machine of %d outputs", len(km.Classes), m.Outputs())
	}
	if km.Classes == nil && m.Outputs() != 1 {
		return fmt.Errorf("a regression machine of %d outputs: only one can be exported", m.Outputs())
	}
	outputs := []string{OutputPrediction, OutputScores, OutputProbabilities, OutputLabel}
	if km.HalfWidth != nil {
		outputs = append(outputs, OutputLower, OutputUpper)
	}
	for i, f := range km.Features {
		switch {
		case f == "":
			return fmt.Errorf("feature %d has no name", i)
		case strings.HasPrefix(f, internalPrefix):
			return fmt.Errorf("feature %q: names starting with %q are the graph's own", f, internalPrefix)
		case slices.Contains(outputs, f):
			return fmt.Errorf("feature %q has the name of an output of the graph", f)
		case slices.Contains(km.Features[:i], f):
			return fmt.Errorf("feature %q is listed twice", f)
		}
	}
	return nil
}

// encode adds the input of the column of rule r and returns the encoded
// columns it makes, as [N, w] doubles.
func (b *builder) encode(r dataset.ColumnRule) ([]string, error) {
	var (
		cols    []string
		missing string // bool [N, 1]
	)
	switch r.Kind {
	case "numeric", "date":
		doc := "numeric: a double, NaN where the cell is missing"
		if r.Kind == "date" {
			// ONNX has no operator that reads a date.
			doc = "date: a double, the days since 1970-01-01 00:00 UTC with the time of day as their fraction, NaN where the cell is missing"
		}
		b.g.Input = append(b.g.Input, valueInfo(r.Name, doc, onnxpb.TensorProto_DOUBLE, 1))
		missing = b.op("IsNaN", []string{r.Name})
		days := b.op("Where", []string{missing, b.scalar(r.Fill), r.Name})
		cols = append(cols, days)
		for _, c := range r.Cycles {
			// The days reduced to the cycle first, as the encoder does.
			within := b.op("Mod", []string{days, b.scalar(c.Period)}, intAttr("fmod", 1))
			angle := b.op("Mul", []string{within, b.scalar(2 * math.Pi / c.Period)})
			cols = append(cols, b.op("Sin", []string{angle}), b.op("Cos", []string{angle}))
		}
		cols = append(cols, b.codes(r)...)
	case "boolean":
		yes, no := dataset.BoolTexts()
		b.g.Input = append(b.g.Input, valueInfo(r.Name, "boolean: a string, "+strings.Join(append(yes, no...), ", ")+" in any case, or a missing cell's text", onnxpb.TensorProto_STRING, 1))
		var keys []string
		var values []int64
		for v, texts := range [][]string{no, yes} {
			for _, t := range texts {
				for _, k := range caseVariants(t) {
					keys, values = append(keys, k), append(values, int64(v))
				}
			}
		}
		code := b.readStrings(r.Name, keys, values)
		missing = b.op("Equal", []string{code, b.int64s([]int64{1}, []int64{codeMissing})})
		unknown := b.op("Equal", []string{code, b.int64s([]int64{1}, []int64{codeUnknown})})
		v := b.op("Cast", []string{code}, intAttr("to", int64(onnxpb.TensorProto_DOUBLE)))
		v = b.op("Where", []string{missing, b.scalar(r.Fill), v})
		cols = append(cols, b.op("Where", []string{unknown, b.scalar(nan), v}))
	case "categorical":
		b.g.Input = append(b.g.Input, valueInfo(r.Name, "categorical: a string, one of the levels "+quoteList(r.Levels)+", another text (no level) or a missing cell's text", onnxpb.TensorProto_STRING, 1))
		mode, ok := slices.BinarySearch(r.Levels, r.Mode)
		if !ok {
			return nil, fmt.Errorf("the mode %q is not a level", r.Mode)
		}
		code := b.readLevels(r.Name, r.Levels, r.Other)
		missing = b.op("Equal", []string{code, b.int64s([]int64{1}, []int64{codeMissing})})
		code = b.op("Where", []string{missing, b.int64s([]int64{1}, []int64{int64(mode)}), code})
		hot := b.op("Equal", []string{code, b.int64s([]int64{1, int64(len(r.Levels))}, indices(len(r.Levels)))})
		cols = append(cols, b.op("Cast", []string{hot}, intAttr("to", int64(onnxpb.TensorProto_DOUBLE))))
	case "ordinal":
		b.g.Input = append(b.g.Input, valueInfo(r.Name, "ordinal: a string, one of the levels "+quoteList(r.Levels)+", another text or a missing cell's text (both the training mean)", onnxpb.TensorProto_STRING, 1))
		code := b.readLevels(r.Name, r.Levels, r.Other)
		missing = b.op("Equal", []string{code, b.int64s([]int64{1}, []int64{codeMissing})})
		// Missing and unknown texts have negative codes: gather any level,
		// then put the training mean in their place.
		other := b.op("Less", []string{code, b.int64s([]int64{1}, []int64{0})})
		level := b.op("Max", []string{code, b.int64s([]int64{1}, []int64{0})})
		v := b.op("Gather", []string{b.doubles([]int64{int64(len(r.Values))}, r.Values), level})
		cols = append(cols, b.op("Where", []string{other, b.scalar(r.Fill), v}))
	default:
		return nil, fmt.Errorf("kind %q cannot be exported", r.Kind)
	}
	if r.Indicator {
		cols = append(cols, b.op("Cast", []string{missing}, intAttr("to", int64(onnxpb.TensorProto_DOUBLE))))
	}
	return cols, nil
}

// codes returns the 0/1 columns of the codes of the numeric column of
// rule r, as [N, len(r.Codes)] doubles, or none: 1 where the input equals
// a code. A missing cell's NaN equals no code.
func (b *builder) codes(r dataset.ColumnRule) []string {
	if len(r.Codes) == 0 {
		return nil
	}
	hot := b.op("Equal", []string{r.Name, b.doubles([]int64{1, int64(len(r.Codes))}, r.Codes)})
	return []string{b.op("Cast", []string{hot}, intAttr("to", int64(onnxpb.TensorProto_DOUBLE)))}
}

// quantiles maps the columns of x, [N, d] doubles, through q: a mapped
// column's value v becomes ranks[0] plus, for each pair of neighbouring
// knots, the rise of the ranks between them times the share of the way
// from the first to the second that v has gone, clipped to [0, 1], which
// is q's linear interpolation held constant beyond the end knots.
func (b *builder) quantiles(q *scale.QuantileMap, x string, d int) string {
	cols := make([]string, d)
	for j := range d {
		cols[j] = b.slice(x, j, j+1)
		knots, ranks := q.Knots[j], q.Ranks[j]
		if knots == nil {
			continue
		}
		k := len(knots) - 1
		inv, rise := make([]float64, k), make([]float64, k)
		for i := range k {
			inv[i], rise[i] = 1/(knots[i+1]-knots[i]), ranks[i+1]-ranks[i]
		}
		share := b.op("Mul", []string{b.op("Sub", []string{cols[j], b.doubles([]int64{1, int64(k)}, knots[:k])}), b.doubles([]int64{1, int64(k)}, inv)})
		share = b.op("Min", []string{b.op("Max", []string{share, b.scalar(0)}), b.scalar(1)})
		cols[j] = b.op("Add", []string{b.op("MatMul", []string{share, b.doubles([]int64{int64(k), 1}, rise)}), b.scalar(ranks[0])})
	}
	return b.op("Concat", cols, intAttr("axis", 1))
}

// readStrings maps the string input name to int64 codes: values[i] for
// keys[i], codeMissing for a missing cell's text and codeUnknown for any
// other text.
func (b *builder) readStrings(name string, keys []string, values []int64) string {
	keys, values = slices.Clone(keys), slices.Clone(values)
	for _, t := range dataset.MissingTexts() {
		for _, k := range caseVariants(t) {
			keys, values = append(keys, k), append(values, codeMissing)
		}
	}
	return b.domainOp(mlDomain, "LabelEncoder", []string{name},
		stringsAttr("keys_strings", keys), intsAttr("values_int64s", values), intAttr("default_int64", codeUnknown))
}

// readLevels maps the string input name to the index of the level of
// levels it is, as readStrings does, and a text that is no level to the
// one level it is in another case of its ASCII letters, as
// dataset.Encoder reads it, unless the column lost its rare levels
// (other). StringNormalizer lowers the case with the C locale, which
// every runtime has, so that other letters keep their case: the library
// reads "ÉTÉ" as the level "Été", the graph as no level.
func (b *builder) readLevels(name string, levels []string, other bool) string {
	code := b.readStrings(name, levels, indices(len(levels)))
	var keys []string
	var values []int64
	for i, l := range levels {
		if !slices.ContainsFunc(levels, func(m string) bool { return m != l && strings.EqualFold(m, l) }) {
			keys, values = append(keys, asciiLower(l)), append(values, int64(i))
		}
	}
	if other || len(keys) == 0 {
		return code
	}
	// StringNormalizer takes a flat list of one string or more: the
	// batch takes one more, dropped after, so that a batch of none runs.
	padded := b.op("Concat", []string{name, b.strings([]int64{1, 1}, []string{""})}, intAttr("axis", 0))
	flat := b.op("Reshape", []string{padded, b.int64s([]int64{1}, []int64{-1})})
	lower := b.op("StringNormalizer", []string{flat}, stringAttr("case_change_action", "LOWER"), stringAttr("locale", "C"))
	lower = b.op("Reshape", []string{lower, b.int64s([]int64{2}, []int64{-1, 1})})
	lower = b.op("Slice", []string{lower, b.int64s([]int64{1}, []int64{0}), b.int64s([]int64{1}, []int64{-1}), b.int64s([]int64{1}, []int64{0})})
	alike := b.domainOp(mlDomain, "LabelEncoder", []string{lower},
		stringsAttr("keys_strings", keys), intsAttr("values_int64s", values), intAttr("default_int64", codeUnknown))
	unknown := b.op("Equal", []string{code, b.int64s([]int64{1}, []int64{codeUnknown})})
	return b.op("Where", []string{unknown, alike, code})
}

// indices returns 0, 1, ..., n-1.
func indices(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	return v
}

// asciiLower returns s with its ASCII letters in lower case, as
// StringNormalizer lowers them in the C locale.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// caseVariants returns every spelling of the lower-case ASCII text s in
// upper and lower case: the texts that are s in any case.
func caseVariants(s string) []string {
	variants := []string{""}
	for _, r := range s {
		lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r))
		next := make([]string, 0, 2*len(variants))
		for _, v := range variants {
			next = append(next, v+lo)
			if up != lo {
				next = append(next, v+up)
			}
		}
		variants = next
	}
	return variants
}

func quoteList(levels []string) string {
	q := make([]string, len(levels))
	for i, l := range levels {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ", ")
}

// machine adds the stable state of m on the standardised inputs x,
// [N, inputs] of element type elem, and returns its output block, [N,
// outputs]. The anchors' states, which do not depend on x, are computed
// here once.
func (b *builder) machine(elem onnxpb.TensorProto_DataType, m *kernel.Machine, x string) string {
	anchors := anchorStates(m)
	na, _ := m.Anchors.Dims()
	size, _ := m.A.Dims()
	z := b.matMulT(elem, x, mat.DenseCopyOf(m.A).RawMatrix().Data, size, m.Inputs())
	gamma := gammaOf(m)
	lo := secondBlock(m)
	state := x
	if !m.InputBlock {
		state = b.slice(z, 0, lo)
	}
	var k string
	crow := 0
	for i, d := range m.Dims[1:] {
		prev := anchors[i]
		_, pd := prev.Dims()
		g := b.kernelValues(elem, state, prev.RawMatrix().Data, na, pd, gamma, m.Laplacian)
		switch {
		case k == "":
			k = g
		case m.Kernel == kernel.Additive:
			k = b.op("Add", []string{k, g})
		default:
			k = b.op("Mul", []string{k, g})
		}
		ci := mat.DenseCopyOf(m.C.Slice(crow, crow+d, 0, na))
		val := b.matMulT(elem, k, ci.RawMatrix().Data, d, na)
		state = b.op("Add", []string{b.slice(z, lo, lo+d), val})
		lo += d
		crow += d
	}
	return state
}

// kernelValues returns exp(-gamma |x_p - a_q|^2), or for the Laplacian
// exp(-gamma |x_p - a_q|_1), for the rows x_p of the batch x, [N, d], and
// the points a_q, the rows of anchors, [na, d] in row-major order:
// [N, na].
func (b *builder) kernelValues(elem onnxpb.TensorProto_DataType, x string, anchors []float64, na, d int, gamma float64, laplacian bool) string {
	diff := b.op("Sub", []string{
		b.op("Unsqueeze", []string{x, b.int64s([]int64{1}, []int64{1})}),
		b.reals(elem, []int64{1, int64(na), int64(d)}, anchors),
	})
	size := b.op("Mul", []string{diff, diff})
	if laplacian {
		size = b.op("Abs", []string{diff})
	}
	dist := b.op("ReduceSum", []string{size, b.int64s([]int64{1}, []int64{2})}, intAttr("keepdims", 0))
	return b.op("Exp", []string{b.op("Mul", []string{dist, b.reals(elem, []int64{1}, []float64{-gamma})})})
}

// secondBlock returns the row of m's augmenter A, and so the column of
// its product with the inputs, at which the second block starts:
// Dims[0], or 0 when the first block is the input itself and A holds
// the other blocks alone.
func secondBlock(m *kernel.Machine) int {
	if m.InputBlock {
		return 0
	}
	return m.Dims[0]
}

// gammaOf returns the factor of the distances in the exponent of m's
// kernel: 1/(2 sigma^2) for its Gaussians, 1/sigma for its Laplacian.
func gammaOf(m *kernel.Machine) float64 {
	s := m.Sigma()
	if m.Laplacian {
		return 1 / s
	}
	return 1 / (2 * s * s)
}

// anchorStates returns the anchors' states of every block of m but the
// last, one matrix per block with a row per anchor: the recurrence of the
// machine's stable state on the anchors alone, which is what they are
// in every prediction.
func anchorStates(m *kernel.Machine) []*mat.Dense {
	na, _ := m.Anchors.Dims()
	var z mat.Dense
	z.Mul(m.Anchors, m.A.T())
	gamma := gammaOf(m)
	lo := secondBlock(m)
	first := m.Anchors
	if !m.InputBlock {
		first = z.Slice(0, na, 0, lo).(*mat.Dense)
	}
	states := []*mat.Dense{mat.DenseCopyOf(first)}
	k := mat.NewDense(na, na, nil)
	crow := 0
	for i, d := range m.Dims[1:] {
		if i == len(m.Dims)-2 {
			break // the output block's state is not needed, nor its kernel
		}
		s := states[i]
		for p := range na {
			for q := range na {
				var dist float64
				for j, v := range s.RawRowView(p) {
					e := v - s.At(q, j)
					dist += e * e
				}
				g := math.Exp(-gamma * dist)
				switch {
				case i == 0:
					k.Set(p, q, g)
				case m.Kernel == kernel.Additive:
					k.Set(p, q, k.At(p, q)+g)
				default:
					k.Set(p, q, k.At(p, q)*g)
				}
			}
		}
		var next mat.Dense
		next.Mul(k, m.C.Slice(crow, crow+d, 0, na).T())
		next.Add(&next, z.Slice(0, na, lo, lo+d))
		states = append(states, &next)
		lo += d
		crow += d
	}
	return states
}
