package tabular

import (
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

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

// evidenceSwitch is a temporary switch for measuring choices by the
// evidence: MACHINES_EVID lists the choices made by it (bw: the cost and
// bandwidth within a pass; one: the folds score only the best setting so
// ranked; enc: the inputs' encodings; rel: the relevance weights; cls:
// classifiers too), MACHINES_EVID_ROWS the most rows it applies to
// (1000).
var evidenceSwitch = sync.OnceValue(func() map[string]bool {
	on := map[string]bool{}
	for _, f := range strings.Split(os.Getenv("MACHINES_EVID"), ",") {
		if f != "" {
			on[f] = true
		}
	}
	return on
})

var evidenceRows = sync.OnceValue(func() int {
	n, err := strconv.Atoi(os.Getenv("MACHINES_EVID_ROWS"))
	if err != nil {
		return 1000
	}
	return n
})

// byEvidence reports whether the choice what is made by the evidence.
func byEvidence(what string) bool { return evidenceSwitch()[what] }

// rankLoss returns the loss by which a candidate is ranked in the choice
// what: its negative log evidence per row when that choice is made by
// the evidence and the candidate has one, else its held-out loss.
func rankLoss(c Candidate, what string) float64 {
	if c.evidenced && byEvidence(what) {
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
// rows rows, are given their evidence.
func evidenceFor(v problemData, rows int) bool {
	return len(evidenceSwitch()) > 0 && rows <= evidenceRows() && (v.labels == nil || byEvidence("cls"))
}
