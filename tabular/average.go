package tabular

import (
	"slices"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// averageBandwidths is the number of bandwidths whose best shallow
// machines the fit may average when the shallow machine competes with
// the deep one: the bandwidths scored on the folds (foldBandwidths), each
// by its setting of lowest held-out loss. An average of a few good
// machines predicts held-out rows better than the best of them alone,
// whose choice the folds' noise makes in part. The fit averages them
// when its selection ran on all the rows and the average's calibrated
// held-out loss on the folds is lower than the best setting's
// (lowerHeldOut): on more rows than SelectionRows each machine is fitted
// on many more rows than the folds judged it on, and has less variance
// for the average to take away. docs/learner-panel.md has the replay of
// the panels' selections and the panels' scores that chose this rule.
const averageBandwidths = 3

// averageShallow returns the shallow candidates to average, best first,
// and their mean held-out predictions on each fold on the fit scale: the
// best candidate of each of the averageBandwidths bandwidths of scored
// whose best loss is lowest, among the candidates fitted on the scale of
// the targets of best (data v); best and its predictions preds alone
// when no other bandwidth has a candidate to average.
func averageShallow(scored []*bandwidthScores, best Candidate, v problemData, preds []*mat.Dense) ([]Candidate, []*mat.Dense) {
	type member struct {
		cand Candidate
		bs   *bandwidthScores
	}
	var others []member
	for _, bs := range scored {
		var top *Candidate
		for i, c := range bs.cands {
			if !c.Diverged && c.LogTarget == best.LogTarget && (top == nil || c.Loss < top.Loss) {
				top = &bs.cands[i]
			}
		}
		if top != nil && top.Bandwidth != best.Bandwidth {
			others = append(others, member{*top, bs})
		}
	}
	slices.SortStableFunc(others, func(a, b member) int { return cmpFloat(a.cand.Loss, b.cand.Loss) })
	members, sum := []Candidate{best}, newFoldSum(preds)
	for _, o := range others[:min(len(others), averageBandwidths-1)] {
		more, ok := o.bs.scorer.on(v).predictions(o.cand.Cost)
		if !ok {
			continue
		}
		members = append(members, o.cand)
		sum.add(more)
	}
	if len(members) == 1 {
		return members, preds
	}
	return members, sum.mean()
}

// foldSum adds up held-out predictions on each fold, to average them.
type foldSum struct {
	sum []*mat.Dense
	n   int
}

// newFoldSum returns the sum of the predictions preds alone, a copy.
func newFoldSum(preds []*mat.Dense) *foldSum {
	s := &foldSum{sum: make([]*mat.Dense, len(preds)), n: 1}
	for f, p := range preds {
		s.sum[f] = mat.DenseCopyOf(p)
	}
	return s
}

// add adds the predictions more, one matrix per fold.
func (s *foldSum) add(more []*mat.Dense) {
	for f := range s.sum {
		s.sum[f].Add(s.sum[f], more[f])
	}
	s.n++
}

// mean returns the mean of the predictions added, in place of their sum.
func (s *foldSum) mean() []*mat.Dense {
	for _, m := range s.sum {
		m.Scale(1/float64(s.n), m)
	}
	return s.sum
}

// averageCosts returns the costs of the shallow machine to average at
// the bandwidth and scale of best: best's and its two neighbours on the
// grid of shallowCosts (one at the grid's ends), best's first, and their
// mean held-out predictions on each fold on the fit scale (data v), from
// the scorer of bs. On few rows the folds choose the cost with noise;
// the average of its neighbours' machines, one ridge solution on the
// same basis, is less exposed to it. The fit averages them when the
// average's calibrated held-out loss is lower than the best cost's
// (lowerHeldOut), and only for a regression whose selection averages no
// bandwidths: a classifier's average lost the panels' classifiers under
// every rule screened.
func averageCosts(bs *bandwidthScores, best Candidate, v problemData, preds []*mat.Dense) ([]float64, []*mat.Dense) {
	grid := shallowCosts()
	at := slices.Index(grid, best.Cost)
	costs := []float64{best.Cost}
	if at < 0 {
		return costs, preds
	}
	sum := newFoldSum(preds)
	for _, c := range grid[max(at-1, 0):min(at+2, len(grid))] {
		if c == best.Cost {
			continue
		}
		more, ok := bs.scorer.on(v).predictions(c)
		if !ok {
			continue
		}
		costs = append(costs, c)
		sum.add(more)
	}
	if len(costs) == 1 {
		return costs, preds
	}
	return costs, sum.mean()
}

// averageMachine returns the shallow machine of basis b whose solution is
// the mean of the solver r's at the costs, on the targets of projection
// pr, with its intercept, as machine does: the average of the machines
// of those costs, one machine on the same basis; machine's own for one
// cost.
func (b *shallowBasis) averageMachine(r *ridge, pr projection, costs []float64, anchors *mat.Dense, cal calibration) (*kernel.Machine, []float64) {
	beta, intercept := r.solution(pr, costs[0])
	for _, c := range costs[1:] {
		more, b0 := r.solution(pr, c)
		beta.Add(beta, more)
		floats.Add(intercept, b0)
	}
	beta.Scale(1/float64(len(costs)), beta)
	floats.Scale(1/float64(len(costs)), intercept)
	return b.machineOf(beta, intercept, anchors, cal)
}

// scaleMachine multiplies the outputs of the shallow machine m, and
// its intercept b, by f: A and C, which hold its output block alone.
func scaleMachine(m *kernel.Machine, b []float64, f float64) {
	m.A.Scale(f, m.A)
	m.C.Scale(f, m.C)
	for j := range b {
		b[j] *= f
	}
}

// lowerHeldOut reports whether the held-out predictions a, calibrated as
// the selection calibrates a setting's (see calibrate), have a lower
// mean loss over the folds' rows tests than the predictions b (see
// lowerLoss). means are the means the folds' fits learned about.
func lowerHeldOut(a, b, means []*mat.Dense, tests []problemData) bool {
	return lowerLoss(calibratedLoss(a, means, tests), calibratedLoss(b, means, tests))
}

// calibratedLoss returns the mean over the folds of the held-out loss of
// predictions preds once calibrated, as shallowFit.heldOut scores them.
func calibratedLoss(preds, means []*mat.Dense, tests []problemData) float64 {
	f := &shallowFit{preds: preds, means: means, tests: tests, cal: calibrate(preds, means, tests)}
	var sum float64
	for i := range preds {
		sum += f.heldOut(i).loss
	}
	return sum / float64(len(preds))
}
