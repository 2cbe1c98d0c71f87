package tabular

import (
	"slices"
	"time"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// deepWeights returns the deep machine's weights in its average with
// the shallow machine that the folds choose among; the shallow machine,
// or the machines of its average (see averageBandwidths), hold the
// rest. Where the deep machine survives its race, the two may predict
// held-out rows differently enough that their average predicts them
// better than the one of them the folds choose, a choice the folds'
// noise makes in part. docs/learner-panel.md has the replay of the
// panels' selections and the panels' scores.
func deepWeights() []float64 { return []float64{0.25, 0.5, 0.75} }

// deepAverage is the average of the deep and the shallow machine that a
// selection prefers to its winner: the deep candidate, the calibration of
// its held-out predictions alone, and the calibration of the average.
type deepAverage struct {
	deep    Candidate
	weight  float64 // the deep machine's, among deepWeights
	deepCal calibration
	cal     calibration
}

// averageDeep returns the average of the best deep candidate of sel and
// the shallow machine f, both on f's scale of the targets, if the average's
// calibrated held-out loss is lower than the winner's (lowerLoss); nil
// otherwise. It needs the deep machine's held-out predictions on every
// fold, so a selection that raced the deep machine out does not call it;
// and, as averageShallow, a selection on all the rows (val) of the data
// (f.data), not a subsample. Each member's held-out predictions are
// calibrated as the selection calibrates them alone before they are
// averaged (a shallow classifier's least-squares scores are not logits),
// and the average is calibrated again.
func (d *deepFolds) averageDeep(sel *Selection, f *shallowFit, val *validation) *deepAverage {
	if n, _ := f.data.x.Dims(); n != len(val.rows) || f.preds == nil {
		return nil
	}
	deep := -1
	for i, c := range sel.Candidates {
		if !c.Shallow && !c.Raced && !c.Diverged && !c.Skipped && c.LogTarget == f.best.LogTarget && (deep < 0 || c.Loss < sel.Candidates[deep].Loss) {
			deep = i
		}
	}
	if deep < 0 {
		return nil
	}
	preds, means, tests := d.heldOutPreds(deep)
	deepCal := calibrate(preds, means, tests)
	dp, sp := make([]*mat.Dense, len(preds)), make([]*mat.Dense, len(preds))
	var avgMeans []*mat.Dense // the deep and the shallow fits' means, the same but for weights
	for i := range preds {
		var dm, sm *mat.Dense
		if means != nil {
			dm, sm = means[i], f.means[i]
			avgMeans = append(avgMeans, weighed(dm, sm, 0.5))
		}
		dp[i], sp[i] = deepCal.calibrated(preds[i], dm), f.cal.calibrated(f.preds[i], sm)
	}
	var a *deepAverage
	loss := calibratedLoss(f.preds, f.means, f.tests)
	if !sel.Candidates[sel.Best].Shallow {
		loss = calibratedLoss(d.heldOutPreds(sel.Best))
	}
	for _, w := range deepWeights() {
		avg := make([]*mat.Dense, len(preds))
		for i := range preds {
			avg[i] = weighed(dp[i], sp[i], w)
		}
		if l := calibratedLoss(avg, avgMeans, tests); lowerLoss(l, loss) {
			loss = l
			a = &deepAverage{deep: sel.Candidates[deep], weight: w, deepCal: deepCal, cal: calibrate(avg, avgMeans, tests)}
		}
	}
	return a
}

// weighed returns w times a plus 1-w times b.
func weighed(a, b *mat.Dense, w float64) *mat.Dense {
	out := mat.DenseCopyOf(b)
	out.Scale(1-w, out)
	out.Apply(func(i, j int, v float64) float64 { return v + w*a.At(i, j) }, out)
	return out
}

// calibrated returns a copy of the held-out predictions pred, on the
// fit scale, calibrated by c as the final machine's outputs are: a
// classifier's scaled, a regression's shrunk towards means.
func (c calibration) calibrated(pred, means *mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(pred)
	if c.residuals == nil {
		c.apply(out, true)
	} else {
		c.shrink(out, means)
	}
	return out
}

// fitDeepAverage fits the deep and the shallow machine of the average
// f.deep to all the rows and returns their sum: the deep machine, its
// outputs scaled by its own calibration, the average's and its weight,
// and in its Sum the shallow machines f fits with their calibration,
// scaled by the average's and 1 less the weight, as their intercepts
// are. res describes the deep machine, and Averaged lists the deep
// candidate and then the shallow ones.
func fitDeepAverage(p *prepared, arch kernel.Architecture, res Result, f *shallowFit, s Settings, begin time.Time) (*Machine, Result, error) {
	a := f.deep
	classify := p.linear.labels != nil
	sm, sres, err := f.result(p, res, begin)
	if err != nil {
		return nil, res, err
	}
	g := a.cal.scaled(1 - a.weight)
	out := p.scaling(f.best.LogTarget)
	b := slices.Clone(sm.Output.Mean) // the shallow machines' intercepts
	for j := range b {
		if out != nil {
			b[j] = (b[j] - out.Mean[j]) / out.Scale[j]
		}
		b[j] *= g.factor[min(j, len(g.factor)-1)]
		if classify {
			// The deep machine's bias, weighed and scaled as its
			// outputs, and the average's.
			b[j] += a.cal.factor[0]*a.weight*a.deepCal.bias[j] + a.cal.bias[j]
		}
	}
	shallow := append([]*kernel.Machine{sm.Machine}, sm.Sum...)
	for _, km := range shallow {
		g.scaleOutputs(km, classify)
	}
	res.Cost, res.Bandwidth, res.LogTarget = a.deep.Cost, a.deep.Bandwidth, a.deep.LogTarget
	cal := a.deepCal.scaled(a.weight, a.cal)
	m, res, err := fitDeep(p, arch, res, &cal, s)
	if err != nil {
		return nil, res, err
	}
	m.Sum, m.Output = shallow, withIntercept(out, b)
	res.Averaged = append([]Candidate{a.deep}, sres.Averaged...)
	if sres.Averaged == nil {
		res.Averaged = append(res.Averaged, f.best) // its cost as the fit re-chose it
	}
	res.CostRows, res.Costs, res.DeepWeight = sres.CostRows, sres.Costs, a.weight
	res.Calibration = a.cal.record(classify)
	res.Seconds = time.Since(begin).Seconds()
	return m, res, nil
}

// scaled returns c with its factors multiplied by w and by the factors
// of each of by, output by output.
func (c calibration) scaled(w float64, by ...calibration) calibration {
	out := c
	out.factor = make([]float64, len(c.factor))
	for j, v := range c.factor {
		out.factor[j] = v * w
		for _, b := range by {
			out.factor[j] *= b.factor[j]
		}
	}
	return out
}
