package tabular

import (
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Relevance weighs each input alone; where a few directions of the
// inputs matter, or the sum or difference of two inputs, the weights
// cannot find them. The learner measures the inputs' metric instead as
// the expected gradient outer product of the fitted shallow machine,
// M = mean over the rows of grad f grad f^T (summed over the outputs, a
// classifier's class scores included), and tries the inputs mapped by a
// damped power of it, x -> M^p x: the paper's augmenter, a linear map
// of the inputs that the machine's first block holds. Recursive feature
// machines measure the metric again on the mapped inputs; a second step
// changed nothing on the panels (docs/learner-panel.md).

// metricPower damps the normalised expected gradient outer product before
// it maps the inputs, as relevancePower damps its diagonal.
const metricPower = 0.25

// metricGain is the ratio of the held-out losses, mapped to unmapped,
// below which the metric is kept: a gain within the folds' noise was a
// loss as often as a gain on the panels' tables.
const metricGain = 0.9

// metricMaxInputs bounds the inputs whose metric the learner measures:
// its map holds inputs^2 numbers, and its passes cost rows x inputs^2.
const metricMaxInputs = 200

// metricMaxStretch bounds the ratio of the largest to the smallest
// eigenvalue of the map M^metricPower, over the directions the moments M
// of the shallow machine fitted on all the rows do not leave flat, above
// which the learner does not judge the map on the folds: on the panels'
// tables such a map, which nearly drops the directions the data vary in
// and the machine does not, never lowered the held-out loss below
// metricGain, and judging it costs a shallow fit and a basis per fold.
const metricMaxStretch = 60

// inputMap is a symmetric linear map L of the inputs, z = L x (a row
// x^T L), on whose image a fit's machines were fitted, with its inverse
// for the anchors.
type inputMap struct {
	l, inv *mat.Dense
}

// gradientMoments returns the expected gradient outer product of the
// shallow machine m (dims [inputs, outputs], its first block the input
// itself) over the rows of x: the mean of grad f_o grad f_o^T, summed
// over the outputs o.
func gradientMoments(m *kernel.Machine, x *mat.Dense) *mat.SymDense {
	n, d := x.Dims()
	moments := mat.NewSymDense(d, nil)
	g := newSlopes(m, x)
	for o := range m.Outputs() {
		moments.SymRankK(moments, 1/float64(n), g.output(o).T())
	}
	return moments
}

// newInputMap returns the map M^metricPower of the moments M scaled to a
// mean eigenvalue of 1, its eigenvalues' powers at least minRelevance,
// so that the map has an inverse; nil if M is zero or not finite.
func newInputMap(moments *mat.SymDense) *inputMap {
	var eig mat.EigenSym
	if !eig.Factorize(moments, true) {
		return nil
	}
	values := eig.Values(nil)
	var mean float64
	for _, v := range values {
		mean += v / float64(len(values))
	}
	if !(mean > 0) || math.IsInf(mean, 0) {
		return nil
	}
	var vectors mat.Dense
	eig.VectorsTo(&vectors)
	power := func(p float64) *mat.Dense {
		d := len(values)
		scaled := mat.DenseCopyOf(&vectors)
		scaled.Apply(func(_, j int, v float64) float64 {
			return v * math.Pow(math.Max(math.Pow(math.Max(values[j], 0)/mean, metricPower), minRelevance), p)
		}, scaled)
		l := mat.NewDense(d, d, nil)
		mul(l, scaled, vectors.T())
		return l
	}
	return &inputMap{l: power(1), inv: power(-1)}
}

// machine returns the kernel machine km, fitted on the inputs mapped by
// m, as a machine of the inputs themselves: the map becomes its first
// block (a shallow machine's input block is replaced by it) and its
// anchors are mapped back. A nil m returns km.
func (m *inputMap) machine(km *kernel.Machine) *kernel.Machine {
	if m == nil {
		return km
	}
	out := *km
	var a mat.Dense
	mul(&a, km.A, m.l)
	if km.InputBlock {
		r, d := a.Dims()
		full := mat.NewDense(d+r, d, nil)
		full.Slice(0, d, 0, d).(*mat.Dense).Copy(m.l)
		full.Slice(d, d+r, 0, d).(*mat.Dense).Copy(&a)
		out.A, out.InputBlock = full, false
	} else {
		out.A = &a
	}
	var anchors mat.Dense
	mul(&anchors, km.Anchors, m.inv)
	out.Anchors = &anchors
	return &out
}

// machines maps m's kernel machine and those of its Sum back to the
// inputs (see inputMap.machine).
func (im *inputMap) machines(m *Machine) {
	m.Machine = im.machine(m.Machine)
	for i, s := range m.Sum {
		m.Sum[i] = im.machine(s)
	}
}

// mapInputs returns p, or p with its inputs mapped by the damped metric
// of its shallow machine (see gradientMoments) when the metric lowers the
// held-out loss below metricGain times the unmapped one. A metric
// measured on all the rows would fit the rows that then judge it: it is
// judged on the folds of val, each fold's metric measured on its
// training rows alone (crossFitted), and the map kept is that of the
// folds' moments summed. It records the losses in res. A Raw fit, one
// with nothing to search, one whose InputScale is not AutoInputs, whose
// Family is not AutoFamily (a plan and a user's shallow machine keep the
// input itself as the first block), one of fewer than three folds, and
// one of a single input (whose metric is a scale) or of more than
// metricMaxInputs inputs are left as they are, and so is one whose
// metric on all the rows stretches the inputs beyond metricMaxStretch
// (metricStretch).
func mapInputs(p *prepared, val *validation, outputs int, s Settings, res *Result) (*prepared, error) {
	_, d := p.linear.x.Dims()
	if s.Raw || val == nil || s.InputScale != AutoInputs || s.Family != AutoFamily || d < 2 || d > metricMaxInputs || val.k < 3 {
		return p, nil
	}
	if p.pass == nil {
		if _, err := shallowLoss(p, val, outputs, s, nil); err != nil {
			return nil, err
		}
	}
	if stretch, err := metricStretch(p.pass, outputs); err != nil || !(stretch <= metricMaxStretch) {
		if s.Progress != nil && err == nil {
			fmt.Fprintf(s.Progress, "tabular: the inputs' metric stretches them %.3g times, beyond %d: not judged\n", stretch, metricMaxStretch)
		}
		return p, err
	}
	losses, moments, err := crossFitted(p, val, outputs, s)
	if err != nil || losses == nil {
		return p, err
	}
	res.MetricLosses = losses[:]
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the shallow machine's held-out loss on the folds is %.4g on the inputs, %.4g mapped by their metric measured on each fold's training rows\n", losses[0], losses[1])
	}
	if !(losses[1] < metricGain*losses[0]) {
		return p, nil
	}
	q := *p
	if q.metric = newInputMap(moments); q.metric == nil {
		return p, nil
	}
	var z mat.Dense
	mul(&z, p.linear.x, q.metric.l)
	q.linear.x, q.logarithmic.x = &z, &z
	if _, err := shallowLoss(&q, val, outputs, s, p.pass.best(passBandwidths)); err != nil {
		return nil, err
	}
	res.Metric = true
	return &q, nil
}

// metricStretch returns the ratio of the largest to the smallest
// eigenvalue of the map M^metricPower for the moments M of the pass's
// best shallow machine fitted on all the rows, over M's eigenvalues above
// eigenFloor times the largest: the map's stretch of the directions in
// which the machine is not flat. It is +Inf when the pass has no machine
// or M is zero or not finite.
func metricStretch(pass *shallowPass, outputs int) (float64, error) {
	km, x, err := passMachine(pass, outputs, nil)
	if err != nil || km == nil {
		return math.Inf(1), err
	}
	var eig mat.EigenSym
	if !eig.Factorize(gradientMoments(km, x), false) {
		return math.Inf(1), nil
	}
	values := eig.Values(nil)
	top := slices.Max(values)
	if !(top > 0) || math.IsInf(top, 0) {
		return math.Inf(1), nil
	}
	low := top
	for _, v := range values {
		if v > eigenFloor*top {
			low = math.Min(low, v)
		}
	}
	return math.Pow(top/low, metricPower), nil
}

// metricBandwidths is the number of bandwidths, the best of the pass
// before, at which crossFitted scores each fold.
const metricBandwidths = 1

// crossFitted returns the shallow machine's held-out loss on the folds
// of val's first split, on p's inputs and on them mapped by the metric of
// p's best machine fitted on each fold's training rows alone (the lowest,
// over metricBandwidths bandwidths and every cost, of the mean over the
// folds), and the folds' moments summed. It returns nil if p's pass has
// no machine or a metric is flat. The folds are measured in parallel, the
// scores on the inputs apart from the rest (measureFold, scorePlain), so
// that they fill the cores while the last folds' metrics are measured,
// and combined in their order, as one after the other.
func crossFitted(p *prepared, val *validation, outputs int, s Settings) (*[2]float64, *mat.SymDense, error) {
	list := p.pass.best(metricBandwidths)
	folds := val.folds[:val.k]
	k := len(folds)
	measured := make([]foldMetric, k)
	plain := make([]foldMetric, k)
	// Every job runs, so that the first fold that fails or is flat, in
	// the folds' order, decides the outcome whatever the scheduling.
	_ = parallel.Run(2*k, s.Workers, func(i int) error {
		if i < k {
			measured[i] = measureFold(p, val, folds[i], list, outputs)
		} else {
			plain[i-k] = scorePlain(p, val, folds[i-k], list, outputs)
		}
		return nil
	})
	for i, m := range measured {
		measured[i] = m.with(plain[i])
	}
	_, d := p.pass.space.anchors.Dims()
	return sumFolds(measured, d)
}

// sumFolds returns crossFitted's outcome of the folds measured, of d
// inputs, taken in their order: nil, with its error, at the first that
// failed or has no metric.
func sumFolds(measured []foldMetric, d int) (*[2]float64, *mat.SymDense, error) {
	var sums [2][]float64
	summed := mat.NewSymDense(d, nil)
	for _, m := range measured {
		if m.err != nil || m.moments == nil {
			return nil, nil, m.err
		}
		summed.AddSym(summed, m.moments)
		for side, losses := range m.losses {
			if sums[side] == nil {
				sums[side] = make([]float64, len(losses))
			}
			floats.Add(sums[side], losses)
		}
	}
	k := float64(len(measured))
	return &[2]float64{floats.Min(sums[0]) / k, floats.Min(sums[1]) / k}, summed, nil
}

// foldMetric is what crossFitted measures on one fold: the moments of
// the pass's best machine fitted on its training rows, nil when there is
// no machine or its metric is flat, and the held-out losses of the
// candidates on the inputs and on them mapped by that metric.
type foldMetric struct {
	moments *mat.SymDense
	losses  [2][]float64
	err     error
}

// measureFold measures fold f of val for crossFitted, at the listed
// bandwidths of p's pass, but for the losses on the inputs as they are
// (scorePlain): an error with the moments is the mapped inputs'.
func measureFold(p *prepared, val *validation, f crossval.Fold, list []int, outputs int) foldMetric {
	sp := p.pass.space
	km, x, err := passMachine(p.pass, outputs, f.Train)
	if err != nil || km == nil {
		return foldMetric{err: err}
	}
	moments := gradientMoments(km, x)
	im := newInputMap(moments)
	if im == nil {
		return foldMetric{}
	}
	variants := make([]problemData, len(sp.sub))
	for i, v := range sp.sub {
		var z mat.Dense
		mul(&z, v.x, im.l)
		variants[i] = v
		variants[i].x = &z
	}
	var anchors mat.Dense
	mul(&anchors, sp.anchors, im.l)
	in := sp.inputs(mat.DenseCopyOf(variants[0].x), &anchors)
	sigmas := shallowBandwidths()
	floats.Scale(in.anchorsDistance(), sigmas)
	mapped, err := scoreShallow(in, variants, shallowSettings{sigmas: sigmas, bases: make([]*shallowBasis, len(sigmas))}, list, foldOf(val, f), true, outputs, 1, nil)
	m := foldMetric{moments: moments, err: err}
	if err == nil {
		m.losses[1] = candidateLosses(mapped)
	}
	return m
}

// scorePlain returns the losses of fold f of val on p's inputs as they
// are, at the listed bandwidths of its pass, for crossFitted.
func scorePlain(p *prepared, val *validation, f crossval.Fold, list []int, outputs int) foldMetric {
	sp := p.pass.space
	plain, err := scoreShallow(sp.in, sp.sub, shallowSettings{sigmas: sp.sigmas, bases: p.pass.bases}, list, foldOf(val, f), true, outputs, 1, nil)
	if err != nil {
		return foldMetric{err: err}
	}
	return foldMetric{losses: [2][]float64{candidateLosses(plain)}}
}

// with returns fold m, measured by measureFold, with the losses of
// scorePlain on the same fold, and the outcome of the two as one
// measure, taken in that order, makes it: no machine or a flat metric,
// then the plain inputs' error, then the mapped inputs'.
func (m foldMetric) with(plain foldMetric) foldMetric {
	switch {
	case m.moments == nil:
		return m
	case plain.err != nil:
		return foldMetric{err: plain.err}
	case m.err != nil:
		return foldMetric{err: m.err}
	}
	m.losses[0] = plain.losses[0]
	return m
}

// foldOf returns the validation of the one fold f of val.
func foldOf(val *validation, f crossval.Fold) *validation {
	return &validation{rows: val.rows, folds: []crossval.Fold{f}, k: val.k, repeats: 1, split: val.split, classify: val.classify}
}

// candidateLosses returns the losses of the candidates scored, in their
// order, +Inf for those that diverged.
func candidateLosses(scored []*bandwidthScores) []float64 {
	var losses []float64
	for _, bs := range scored {
		for _, c := range bs.cands {
			loss := c.Loss
			if c.Diverged {
				loss = math.Inf(1) // never the lowest
			}
			losses = append(losses, loss)
		}
	}
	return losses
}
