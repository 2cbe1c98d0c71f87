package tabular

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The relevance weights are damped (relevancePower) so that they do not
// fit the rows that judge them: an input that does not matter keeps a
// weight near a half, and a few such columns (a categorical column's
// levels count as many) still dilute the distances of the inputs that
// do. Trees leave such columns out. After the weights, a small
// regression's fit leaves out its columns one at a time: at each step it
// scores the shallow machine without each of the two least relevant
// columns, and leaves out the one without which the machine's evidence
// is the higher if the evidence over the rows rises by more than
// dropNats and the leave-one-out loss falls as well. A column left out
// keeps the weight minRelevance, so that the model, its input scaler and
// its file are those of weights.

// dropNats is the least rise of the log evidence over the rows for which
// a column is left out: a step takes the better of two columns, whose
// evidence would rise by a little by chance alone.
const dropNats = 1

// dropMaxColumns is the most columns of which the fit leaves any out:
// a step measures the slopes and scores the machine twice, and a table
// of many columns may take as many steps.
const dropMaxColumns = 20

// dropBandwidths is the number of bandwidths, the best of the pass
// before, at which a step scores the machine without a column.
const dropBandwidths = 1

// dropColumns returns p, or p with the columns of s.columns (each input
// its own column when nil) left out one at a time while the shallow
// machine's evidence over the rows rises by more than dropNats and its
// leave-one-out loss falls (keepsDrop); a column left out weighs
// minRelevance. It records the weights in res.Relevance. Only a
// regression whose selection is ranked by the evidence (evidenceRows), of
// 2 to dropMaxColumns columns, whose InputScale is AutoInputs, is
// searched.
func dropColumns(p *prepared, val *validation, outputs int, s Settings, res *Result) (*prepared, error) {
	if s.Raw || val == nil || s.InputScale != AutoInputs || p.pass == nil || !p.pass.evidenced() {
		return p, nil
	}
	n, d := p.linear.x.Dims()
	cols := s.columns
	if cols == nil {
		cols = columnBlocks(slices.Repeat([]int{1}, d))
	}
	if len(cols) < 2 || len(cols) > dropMaxColumns {
		return p, nil
	}
	w := slices.Repeat([]float64{1}, d)
	if res.Relevance != nil {
		w = slices.Clone(res.Relevance)
	}
	left := len(cols)
	for left > 1 {
		q, c, err := bestWithout(p, cols, w, val, outputs, s)
		if err != nil {
			return nil, err
		}
		if q == nil || !keepsDrop(n, [2]float64{p.pass.lowest(rankLoss), q.pass.lowest(rankLoss)}, [2]float64{p.pass.bestLoss(), q.pass.bestLoss()}) {
			break
		}
		for j := cols[c].start; j < cols[c].start+cols[c].width; j++ {
			w[j] = minRelevance
		}
		if s.Progress != nil {
			fmt.Fprintf(s.Progress, "tabular: the inputs %d to %d left out: the shallow machine's negative log evidence per row %.4g so, %.4g with them\n",
				cols[c].start, cols[c].start+cols[c].width-1, q.pass.lowest(rankLoss), p.pass.lowest(rankLoss))
		}
		p, left = q, left-1
		res.Relevance = slices.Clone(w)
	}
	return p, nil
}

// bestWithout returns p without the column, of the dropCandidates least
// relevant not yet left out (leastRelevant), whose absence gives the
// shallow machine the lowest negative log evidence, scored at the best
// dropBandwidths bandwidths of p's pass, and that column; nil if none.
func bestWithout(p *prepared, cols []levelBlock, w []float64, val *validation, outputs int, s Settings) (*prepared, int, error) {
	_, d := p.linear.x.Dims()
	list := p.pass.best(dropBandwidths)
	tried := leastRelevant(p.pass, cols, w, dropCandidates)
	var best *prepared
	at, low := -1, math.Inf(1)
	for _, c := range tried {
		b := cols[c]
		t := slices.Repeat([]float64{1}, d)
		for j := b.start; j < b.start+b.width; j++ {
			t[j] = minRelevance / w[j]
		}
		q, err := weighedBy(p, t, val, outputs, s, list)
		if err != nil {
			return nil, 0, err
		}
		if l := q.pass.lowest(rankLoss); l < low {
			best, at, low = q, c, l
		}
	}
	return best, at, nil
}

// keepsDrop reports whether a column is left out of a pass of n rows
// whose lowest negative log evidence per row is evidence[0] with it and
// evidence[1] without it, and whose lowest leave-one-out loss is loss[0]
// with it and loss[1] without it: whether the log evidence over the rows
// rises by more than dropNats and the loss falls.
func keepsDrop(n int, evidence, loss [2]float64) bool {
	return float64(n)*(evidence[0]-evidence[1]) > dropNats && lowerLoss(loss[1], loss[0])
}

// weighedBy returns p with its standardised inputs multiplied by w, the
// scales of its input scaler divided by them, scored by the shallow
// machine at the bandwidths listed.
func weighedBy(p *prepared, w []float64, val *validation, outputs int, s Settings, list []int) (*prepared, error) {
	q := *p
	q.in = &scale.Scaler{Mean: p.in.Mean, Scale: make([]float64, len(w))}
	for j := range w {
		q.in.Scale[j] = p.in.Scale[j] / w[j]
	}
	x := mat.DenseCopyOf(p.linear.x)
	scaleColumns(x, w)
	q.linear.x, q.logarithmic.x = x, x
	if _, err := shallowLoss(&q, val, outputs, s, list); err != nil {
		return nil, err
	}
	return &q, nil
}

// scaleColumns multiplies each column j of z by w[j].
func scaleColumns(z *mat.Dense, w []float64) {
	r, _ := z.Dims()
	for i := range r {
		floats.Mul(z.RawRowView(i), w)
	}
}

// columnBlocks returns the span of the encoded inputs of each column,
// of the widths given.
func columnBlocks(widths []int) []levelBlock {
	blocks := make([]levelBlock, len(widths))
	start := 0
	for i, w := range widths {
		blocks[i] = levelBlock{start, w}
		start += w
	}
	return blocks
}

// dropCandidates is the number of columns, the least relevant, that a
// step scores the machine without.
const dropCandidates = 2

// leastRelevant returns the columns of cols not left out (whose weights w
// are not minRelevance), at most k, of the least mean squared slopes of
// the pass's best shallow machine summed over their inputs, least first.
func leastRelevant(pass *shallowPass, cols []levelBlock, w []float64, k int) []int {
	m, x, _ := passMachine(pass, 0, nil)
	if m == nil {
		return nil
	}
	slopes := meanSquaredSlopes(m, x)
	var left []int
	sums := make([]float64, len(cols))
	for c, b := range cols {
		if w[b.start] != minRelevance {
			left = append(left, c)
			sums[c] = floats.Sum(slopes[b.start : b.start+b.width])
		}
	}
	slices.SortStableFunc(left, func(a, b int) int { return cmp.Compare(sums[a], sums[b]) })
	return left[:min(k, len(left))]
}
