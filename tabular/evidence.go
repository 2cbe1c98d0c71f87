package tabular

import (
	"math"

	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// The shallow machine's ridge regression is the posterior mean of a
// Gaussian model: each target is an intercept, which has a flat prior,
// plus z^T beta with beta ~ N(0, s2 / (n cost) I), plus noise of
// variance s2 / w_i. Its evidence, the likelihood of the targets with
// beta and the intercept integrated out (restricted to the contrasts of
// the rows, which the intercept leaves free), follows at every cost from
// the eigendecomposition that leave-one-out uses. With the noise scale
// s2 of each output set to its maximum,
//
//	log p(y) = sum_o -(N/2) (log(2 pi Q_o / N) + 1) - (k/2) sum_j log(1 + e_j / lambda),
//
// with N = n - 1 contrasts, lambda = n cost, and Q_o the output's
// penalised residual sum of squares, sum_i w_i (y_io - mean_o)^2 - sum_j
// t_jo^2 / (e_j + lambda), up to a constant that no setting changes.

// evidence holds what the evidence of a solver's rows for targets y,
// whose projection is pr, shares at every cost.
type evidence struct {
	r  *ridge
	pr projection
	// unfit is, per output, the part of the penalised residual sum of
	// squares that no cost changes: what the features cannot fit at
	// cost 0.
	unfit []float64
}

// evidence returns the parts of the evidence of the solver's rows for
// the targets y, of projection pr, that no cost changes.
func (r *ridge) evidence(y mat.Matrix, pr projection) *evidence {
	n, k := y.Dims()
	ev := &evidence{r: r, pr: pr, unfit: make([]float64, k)}
	for o := range k {
		var s float64
		for i := range n {
			d := y.At(i, o) - pr.mean[o]
			s += r.weight(i) * d * d
		}
		for j, e := range r.e {
			if e > 0 {
				t := pr.t.At(j, o)
				s -= t * t / e
			}
		}
		ev.unfit[o] = max(s, 0)
	}
	return ev
}

// at returns the log evidence at the given cost, which must be
// positive.
func (ev *evidence) at(cost float64) float64 {
	r := ev.r
	lambda := float64(r.rows) * cost
	dof := float64(r.rows - 1)
	var logDet float64
	for _, e := range r.e {
		if e > 0 {
			logDet += math.Log1p(e / lambda)
		}
	}
	k := len(ev.unfit)
	out := -float64(k) / 2 * logDet
	for o, q := range ev.unfit {
		for j, e := range r.e {
			if e > 0 {
				t := ev.pr.t.At(j, o)
				q += t * t * lambda / (e * (e + lambda))
			}
		}
		q = max(q, math.SmallestNonzeroFloat64)
		out -= dof / 2 * (math.Log(2*math.Pi*q/dof) + 1)
	}
	return out
}

// evidenceRows is the most rows of a regression's selection on which
// the shallow machine's settings are ranked within a pass by their
// evidence rather than their leave-one-out loss (see rankLoss). On the
// panels' regressions of up to 300 training rows the evidence's ranking
// did better on the test rows; on those of 375 to 750 it did no better,
// and worse on two (docs/learner-panel.md). A classifier's settings stay
// ranked by leave-one-out: the evidence of its one-hot labels chose
// worse.
const evidenceRows = 300

// rankLoss returns the loss by which a shallow candidate is ranked
// among the settings of a pass (the bandwidths kept, the costs that the
// folds score, the setting that measures the relevance) and by which the
// relevance weights are kept: its negative log evidence per row if it
// has one, else its held-out loss. The other choices between passes, of
// the inputs' quantiles, levels and codes, stay by held-out loss: the
// evidence chose the quantiles worse.
func rankLoss(c Candidate) float64 {
	if c.evidenced {
		return c.evidence
	}
	return c.Loss
}

// logJacobian returns, for targets whose log(1 + y) is logY, each row's
// log of the derivative of the log scale's standardised targets by the
// standardised targets (out and logOut their scalers, nil for none),
// summed over the outputs; nil for a nil logY.
func logJacobian(logY mat.Matrix, out, logOut *scale.Scaler) []float64 {
	if logY == nil {
		return nil
	}
	n, k := logY.Dims()
	jac := make([]float64, n)
	for i := range n {
		for o := range k {
			jac[i] -= logY.At(i, o)
			if out != nil {
				jac[i] += math.Log(out.Scale[o])
			}
			if logOut != nil {
				jac[i] -= math.Log(logOut.Scale[o])
			}
		}
	}
	return jac
}

// evidenceFor reports whether the leave-one-out candidates of data v, on
// rows rows, are ranked by their evidence: a regression's, on up to
// evidenceRows rows.
func evidenceFor(v problemData, rows int) bool {
	return v.labels == nil && rows <= evidenceRows
}
