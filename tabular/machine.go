package tabular

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// Machine is a fitted kernel machine with the maps the learner puts
// around it: the inputs' quantiles and standardisation before it, and
// after it the map of its outputs back to the units of the targets. Its
// Predict takes rows of the encoded inputs and returns predictions in
// the targets' units; the embedded kernel.Machine's own Predict works on
// the scale the machine was fitted on.
type Machine struct {
	*kernel.Machine
	// Quantiles, if not nil, maps the inputs to their training rows'
	// distribution function before Input standardises them.
	Quantiles *scale.QuantileMap
	// Input, if not nil, standardises inputs before they enter the
	// machine; Output, if not nil, maps a regression's outputs back to
	// the units of the targets, or adds a classifier's intercepts to
	// its class scores (with scales 1).
	Input, Output *scale.Scaler
	// LogTarget says the machine was fitted to log(1 + y): Predict
	// returns exp(v) - 1 of the output v, after Output has mapped v to
	// the log units.
	LogTarget bool
	// Range, if not nil, bounds a regression's predictions: Predict
	// returns for output k values between Range[k][0] and Range[k][1],
	// and so do the ends of PredictInterval's intervals.
	Range [][2]float64
	// Sum, if not nil, holds further kernel machines of the same inputs
	// and outputs whose outputs add to the embedded machine's, on the
	// scale it was fitted on, before Output maps them: a sum of machines
	// (the paper's section 2), by which the learner averages its best
	// shallow machines of several bandwidths (see averageBandwidths).
	Sum []*kernel.Machine
	// Other, if not nil, is a machine of the same inputs and outputs on
	// another encoding of them (its own quantiles or none), whose
	// predictions in the units of the targets weigh OtherWeight, between
	// 0 and 1, in the machine's; the rest of the machine's own. The
	// learner averages so the machines of the inputs as they are and of
	// their quantiles when their held-out losses do not tell them apart.
	// Other has no Other of its own.
	Other       *Machine
	OtherWeight float64
	// Linear, if not nil, is a linear machine of the same inputs and
	// outputs (no kernel part, no quantiles), whose predictions in the
	// units of the targets weigh LinearWeight, between 0 and 1, in the
	// average of the machine's and Other's: the learner hedges so toward
	// the ridge regression on the inputs as they are when its evidence
	// or held-out loss is near the machine's. Linear has no Other or
	// Linear of its own.
	Linear       *Machine
	LinearWeight float64
	// Mean, if not nil, is a machine of the same inputs and outputs that
	// predicts the training mean of the targets whatever the row, whose
	// predictions weigh MeanWeight, between 0 and 1, in the average of
	// the machine's, Other's and Linear's. Model files written by the
	// fits of 2026-11-30 may carry it; the default fit no longer adds it
	// (docs/learner-panel.md says why). Mean has no hedges of its own.
	Mean       *Machine
	MeanWeight float64
}

// Hedge is a machine whose predictions in the units of the targets
// weigh Weight in an average, the rest the average before it.
type Hedge struct {
	Machine *Machine
	Weight  float64
	// Name is the machine's field and the name of its JSON entry.
	Name string
}

// Hedges returns the machines that m averages its own prediction with,
// in the order of the average: Other, then Linear, then Mean, those that
// are not nil. The prediction is v = own, then v = (1 - w) v + w h for each.
func (m *Machine) Hedges() []Hedge {
	var hs []Hedge
	if m.Other != nil {
		hs = append(hs, Hedge{m.Other, m.OtherWeight, "other"})
	}
	if m.Linear != nil {
		hs = append(hs, Hedge{m.Linear, m.LinearWeight, "linear"})
	}
	if m.Mean != nil {
		hs = append(hs, Hedge{m.Mean, m.MeanWeight, "mean"})
	}
	return hs
}

// NumParams returns the number of trained parameters of the machine and
// of the machines of its Sum and Hedges.
func (m *Machine) NumParams() int {
	n := m.Machine.NumParams()
	for _, s := range m.Sum {
		n += s.NumParams()
	}
	for _, h := range m.Hedges() {
		n += h.Machine.NumParams()
	}
	return n
}

// Predict writes the prediction for each row of x to the rows of dst
// (rows x Outputs()): regression values in the units of the targets, or
// class scores (logits) for a classifier. dst may be nil, in which case
// a new matrix is allocated and returned.
func (m *Machine) Predict(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	return m.NewPredictor().Predict(dst, x)
}

// PredictInterval writes the prediction for each row of x to pred and
// the ends of the interval around it to lower and upper (each rows x
// Outputs(), allocated if nil): the machine's output, on the scale it was
// fitted (standardised, and logarithmic for a LogTarget), plus and minus
// halfWidth[j] for output j, mapped to the units of the targets. With
// the half widths of Model.HalfWidths the intervals are conformal
// prediction intervals. It is for regression machines.
func (m *Machine) PredictInterval(pred, lower, upper *mat.Dense, x mat.Matrix, halfWidth []float64) (*mat.Dense, *mat.Dense, *mat.Dense) {
	return m.NewPredictor().PredictInterval(pred, lower, upper, x, halfWidth)
}

// Predictor computes a Machine's predictions batch after batch, as the
// kernel.Predictor it wraps does: a warm Predictor allocates no more
// than the result and a few bytes per chunk of rows, and a row's
// prediction has the same bits in any batch. It is not safe for
// concurrent use; make one per goroutine.
type Predictor struct {
	m *Machine
	p *kernel.Predictor
	// sum predicts for the machines of m.Sum, hedges for m.Hedges()
	// into hedgeOut, kept for batches of its size, and weights holds
	// their weights.
	sum      []*kernel.Predictor
	hedges   []*Predictor
	weights  []float64
	hedgeOut *mat.Dense
	// in holds a chunk of inputs mapped to the machine's scale, out the
	// machine's outputs for them, and part a summed machine's.
	in, out, part *mat.Dense
}

// predictChunk is the number of rows a Predictor maps at a time.
const predictChunk = 256

// NewPredictor returns a Predictor of m, which must not change while the
// Predictor is in use.
func (m *Machine) NewPredictor() *Predictor {
	p := &Predictor{m: m, p: m.Machine.NewPredictor(),
		in: mat.NewDense(predictChunk, m.Inputs(), nil), out: mat.NewDense(predictChunk, m.Outputs(), nil)}
	if m.Sum != nil {
		p.part = mat.NewDense(predictChunk, m.Outputs(), nil)
		for _, s := range m.Sum {
			p.sum = append(p.sum, s.NewPredictor())
		}
	}
	for _, h := range m.Hedges() {
		p.hedges = append(p.hedges, h.Machine.NewPredictor())
		p.weights = append(p.weights, h.Weight)
	}
	return p
}

// Predict writes the predictions for the rows of x to dst, as
// Machine.Predict does. dst may be nil, in which case a new matrix is
// allocated and returned.
func (p *Predictor) Predict(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	return p.ends(x, [3]*mat.Dense{dst}, nil)[0]
}

// PredictInterval writes the predictions and the ends of the intervals
// around them, as Machine.PredictInterval does.
func (p *Predictor) PredictInterval(pred, lower, upper *mat.Dense, x mat.Matrix, halfWidth []float64) (*mat.Dense, *mat.Dense, *mat.Dense) {
	if len(halfWidth) != p.m.Outputs() {
		panic(fmt.Errorf("%w: tabular: %d half widths for %d outputs", ad.ErrShape, len(halfWidth), p.m.Outputs()))
	}
	e := p.ends(x, [3]*mat.Dense{pred, lower, upper}, halfWidth)
	return e[0], e[1], e[2]
}

// ends writes to ends[0] the predictions for the rows of x and, when
// halfWidth is not nil, to ends[1] and ends[2] the outputs minus and plus
// the half widths, all mapped to the units of the targets; it allocates
// the ends that are nil.
func (p *Predictor) ends(x mat.Matrix, ends [3]*mat.Dense, halfWidth []float64) [3]*mat.Dense {
	m := p.m
	n, d := x.Dims()
	if d != m.Inputs() {
		panic(fmt.Errorf("%w: tabular: %d input columns for a machine of %d inputs", ad.ErrShape, d, m.Inputs()))
	}
	signs := []float64{0}
	if halfWidth != nil {
		signs = []float64{0, -1, 1}
	}
	for e := range signs {
		ends[e] = alloc(ends[e], n, m.Outputs())
	}
	if p.hedges != nil {
		return p.mix(x, ends, halfWidth)
	}
	for lo := 0; lo < n; lo += predictChunk {
		hi := min(n, lo+predictChunk)
		in := p.in.Slice(0, hi-lo, 0, d).(*mat.Dense)
		for j := lo; j < hi; j++ {
			for i := range d {
				in.Set(j-lo, i, m.toMachine(i, x.At(j, i)))
			}
		}
		out := p.p.Predict(p.out.Slice(0, hi-lo, 0, m.Outputs()).(*mat.Dense), in)
		for _, s := range p.sum {
			out.Add(out, s.Predict(p.part.Slice(0, hi-lo, 0, m.Outputs()).(*mat.Dense), in))
		}
		for e, sign := range signs {
			for k := range m.Outputs() {
				for j := lo; j < hi; j++ {
					v := out.At(j-lo, k)
					if sign != 0 {
						v += sign * halfWidth[k]
					}
					ends[e].Set(j, k, m.toTarget(k, v))
				}
			}
		}
	}
	return ends
}

// mix writes to ends[0] the average of the predictions of the machine
// without its hedges and of its Hedges, each weighing its weight in the
// average before it, all in the units of the targets; and to the ends of
// the intervals, if any, the average mapped back to the scale the
// machine fits, plus and minus the half widths, mapped to the units of
// the targets: the machine's own intervals about the average, as its
// residuals make them.
func (p *Predictor) mix(x mat.Matrix, ends [3]*mat.Dense, halfWidth []float64) [3]*mat.Dense {
	own := *p
	own.hedges = nil
	pred := own.ends(x, [3]*mat.Dense{ends[0]}, nil)[0]
	m := p.m
	n, k := pred.Dims()
	if p.hedgeOut == nil || p.hedgeOut.RawMatrix().Rows != n {
		p.hedgeOut = mat.NewDense(n, k, nil)
	}
	for i, h := range p.hedges {
		hp, w := h.Predict(p.hedgeOut, x), p.weights[i]
		for j := range n {
			for o := range k {
				pred.Set(j, o, (1-w)*pred.At(j, o)+w*hp.At(j, o))
			}
		}
	}
	ends[0] = pred
	if halfWidth == nil {
		return ends
	}
	ends[1], ends[2] = alloc(ends[1], n, k), alloc(ends[2], n, k)
	for j := range n {
		for o := range k {
			u := m.fromTarget(o, pred.At(j, o))
			ends[1].Set(j, o, m.toTarget(o, u-halfWidth[o]))
			ends[2].Set(j, o, m.toTarget(o, u+halfWidth[o]))
		}
	}
	return ends
}

// alloc returns dst, or a new r x c matrix if it is nil; it panics if
// dst has other dimensions.
func alloc(dst *mat.Dense, r, c int) *mat.Dense {
	if dst == nil {
		return mat.NewDense(r, c, nil)
	}
	if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(mat.ErrShape)
	}
	return dst
}

// toMachine maps the value v of input i to the scale the machine was
// fitted on: its quantile, then its standardisation.
func (m *Machine) toMachine(i int, v float64) float64 {
	if m.Quantiles != nil {
		v = m.Quantiles.TransformValue(i, v)
	}
	if m.Input != nil {
		v = m.Input.TransformValue(i, v)
	}
	return v
}

// fromTarget maps the value v of output k from the units of the targets
// to the scale the machine was fitted on, as toTarget's inverse within
// the machine's Range; a value of -1 or less on the log scale maps to
// minus infinity.
func (m *Machine) fromTarget(k int, v float64) float64 {
	if m.LogTarget {
		v = math.Log1p(max(v, -1))
	}
	if m.Output != nil {
		v = m.Output.TransformValue(k, v)
	}
	return v
}

// toTarget maps the value v of output k from the scale the machine was
// fitted on to the units of the targets: it undoes the standardisation
// and the log scale, and bounds the result to the machine's Range. The
// map does not decrease, so it keeps the order of the ends of an
// interval.
func (m *Machine) toTarget(k int, v float64) float64 {
	if m.Output != nil {
		v = m.Output.InvertValue(k, v)
	}
	if m.LogTarget {
		v = math.Expm1(v)
	}
	if r := m.Range; r != nil {
		v = min(max(v, r[k][0]), r[k][1])
	}
	return v
}
