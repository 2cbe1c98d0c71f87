package tabular

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The selection reaches a nearly linear machine (a wide bandwidth, a
// large cost) but not the linear one, and it judges the inputs' quantiles and relevance weights on the rows
// that learned them. On small regressions whose truth is nearly linear
// the machine so chosen trails a ridge regression on the inputs as they
// are (docs/learner-panel.md): the encodings and the kernel part add a
// variance that leave-one-out does not see. The fit therefore averages
// its machine with the linear machine, the shallow machine's linear part
// alone on the standardised inputs, when the linear machine's evidence
// or held-out loss is near the machine's: weighing what the two
// machines' held-out predictions say (stackedWeight), or linearWeight
// where the chosen machine has none on the folds.

const (
	// linearWeight is the linear machine's weight in the average where
	// the chosen machine's held-out predictions do not weigh it (see
	// hedgeLinear): the chosen machine keeps the larger share.
	linearWeight = 0.25
	// linearEvidenceGap bounds the log of the Bayes factor of the
	// chosen machine against the linear one (the rows times the
	// difference of their negative log evidences per row) under which
	// the fit averages them, where both have an evidence.
	linearEvidenceGap = 8
	// linearNoise bounds the relative difference of their held-out
	// losses, times the square root of the rows, elsewhere.
	linearNoise = 2
)

// hedgeLinear returns the linear machine of the inputs as they are, p
// (the data before chooseInputs), on the scale of the targets the chosen
// machine of res fits, when the fit hedges toward it: a regression of
// the auto family, standardised, of at most blendMaxRows rows, whose
// inputs' encodings were compared (res.InputLosses; a table of
// categorical inputs alone has no quantiles to judge, and its kernel
// part holds the interactions of its levels), and whose linear machine
// is near the chosen one by nearLinear. Otherwise it returns nil. The
// linear machine's cost is the one of lowest rankLoss among
// shallowCosts. It returns the machine's weight with it: the stacked
// weight (stackedWeight) where the chosen machine has held-out
// predictions on the folds (res.heldOut), no machine where that weight
// is 0, and linearWeight elsewhere.
func hedgeLinear(p *prepared, res Result, outputs int, s Settings) (*Machine, float64, error) {
	d := p.linear
	n, _ := d.x.Dims()
	if d.labels != nil || s.Family != AutoFamily || s.Raw || n > blendMaxRows || res.InputLosses == nil {
		return nil, 0, nil
	}
	if res.LogTarget {
		d = p.logarithmic
	}
	x := mat.DenseCopyOf(d.x)
	anchors := pickRows(x, []int{0}) // the kernel part weighs 0: one anchor keeps the machine's form
	b, err := newShallowBasis(newShallowInputs(x, anchors, 1), 1, 0)
	if err != nil {
		return nil, 0, err
	}
	r, err := b.ridge(nil, d.w)
	if err != nil {
		return nil, 0, err
	}
	vs := (&shallowScorer{parts: []scorerPart{{r: r}}, outputs: outputs}).on(d)
	best, found := vs.bestCost(Candidate{LogTarget: res.LogTarget, Shallow: true}, shallowCosts(), func(a, b Candidate) bool {
		return lowerLoss(rankLoss(a), rankLoss(b))
	})
	if !found || !nearLinear(best, res, n) {
		return nil, 0, nil
	}
	w := linearWeight
	if h := res.heldOut; h != nil {
		if loo, ok := vs.predictions(best.Cost); ok {
			w = h.stackedWeight(loo[0])
		}
		if w == 0 {
			return nil, 0, nil
		}
	}
	// Unshrunk; residuals, though empty, mark it a regression's.
	cal := calibration{factor: slices.Repeat([]float64{1}, outputs), residuals: make([][]float64, outputs)}
	km, b0 := b.machine(r, r.project(targetsOf(d, outputs)), best.Cost, anchors, cal)
	return &Machine{Machine: km, Input: p.in, Output: withIntercept(p.scaling(res.LogTarget), b0), LogTarget: res.LogTarget, Range: p.bounds}, w, nil
}

// nearLinear reports whether the linear machine's candidate lin, on n
// rows, is near the chosen machine of res: by the log Bayes factor
// (linearEvidenceGap) where both have an evidence, else by the held-out
// losses (linearNoise), the chosen one's after its relevance weights or
// its inputs' encoding. Without a held-out loss of the chosen machine it
// is not.
func nearLinear(lin Candidate, res Result, n int) bool {
	if ev := res.RelevanceEvidence; lin.evidenced && ev != nil {
		return float64(n)*(lin.evidence-slices.Min(ev)) <= linearEvidenceGap
	}
	losses := res.RelevanceLosses
	if losses == nil {
		losses = res.InputLosses
	}
	if losses == nil {
		return false
	}
	lo := slices.Min(losses)
	return (lin.Loss-lo)/min(lin.Loss, lo)*math.Sqrt(float64(n)) <= linearNoise
}

// withLinear averages m with the linear machine of the data p when
// hedgeLinear says so, and records its weight in res.
func withLinear(m *Machine, res *Result, p *prepared, outputs int, s Settings) error {
	lin, w, err := hedgeLinear(p, *res, outputs, s)
	if err != nil || lin == nil {
		return err
	}
	m.Linear, m.LinearWeight, res.LinearWeight = lin, w, w
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the linear machine of the inputs as they are is near the chosen machine: it weighs %.3g\n", w)
	}
	return nil
}

// heldOutRows are a regression's held-out predictions on the folds of
// its selection, calibrated, on the scale it fits: for each fold the
// rows of the data it holds out, their predictions and their targets.
type heldOutRows struct {
	rows    [][]int
	preds   []*mat.Dense
	targets []mat.Matrix
}

// heldOutRows returns the held-out predictions of f's chosen setting on
// its folds as its calibration shrinks them, or nil where it has none
// (leave-one-out alone) or is a classifier.
func (f *shallowFit) heldOutRows() *heldOutRows {
	if f.preds == nil || f.testRows == nil || f.data.labels != nil {
		return nil
	}
	h := &heldOutRows{rows: f.testRows}
	for i, p := range f.preds {
		pred := mat.DenseCopyOf(p)
		f.cal.shrink(pred, f.means[i])
		h.preds, h.targets = append(h.preds, pred), append(h.targets, f.tests[i].targets())
	}
	return h
}

// heldRowsOf returns the rows of the data that each of the parts holds
// out, whose indices are into rows, the validation's: all of them for
// leave-one-out.
func heldRowsOf(parts []scorerPart, rows []int) [][]int {
	out := make([][]int, len(parts))
	for i, p := range parts {
		if p.test == nil {
			out[i] = rows
			continue
		}
		out[i] = pick(rows, p.test)
	}
	return out
}

// stackedWeight returns the weight w in [0, 1] of the linear machine
// whose average w l + (1 - w) k with the chosen machine's held-out
// predictions k has the least squared error over the held-out rows: the
// linear machine's leave-one-out predictions l (one row per row of the
// data) regressed on the chosen machine's residuals. It is linearWeight
// where the two machines agree on every row.
func (h *heldOutRows) stackedWeight(l *mat.Dense) float64 {
	var num, den float64
	for f, rows := range h.rows {
		_, k := h.preds[f].Dims()
		for i, r := range rows {
			for j := range k {
				y, c, d := h.targets[f].At(i, j), h.preds[f].At(i, j), l.At(r, j)-h.preds[f].At(i, j)
				num += (y - c) * d
				den += d * d
			}
		}
	}
	if !(den > 0) {
		return linearWeight
	}
	return math.Max(0, math.Min(1, num/den))
}
