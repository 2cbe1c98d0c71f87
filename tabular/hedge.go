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
// alone on the standardised inputs, weighing linearWeight, when the
// linear machine's evidence or held-out loss is near the machine's.

const (
	// linearWeight is the linear machine's weight in the average (see
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
// shallowCosts.
func hedgeLinear(p *prepared, res Result, outputs int, s Settings) (*Machine, error) {
	d := p.linear
	n, _ := d.x.Dims()
	if d.labels != nil || s.Family != AutoFamily || s.Raw || n > blendMaxRows || res.InputLosses == nil {
		return nil, nil
	}
	if res.LogTarget {
		d = p.logarithmic
	}
	x := mat.DenseCopyOf(d.x)
	anchors := pickRows(x, []int{0}) // the kernel part weighs 0: one anchor keeps the machine's form
	b, err := newShallowBasis(newShallowInputs(x, anchors, 1, false), 1, 0)
	if err != nil {
		return nil, err
	}
	r, err := b.ridge(nil, d.w)
	if err != nil {
		return nil, err
	}
	vs := (&shallowScorer{parts: []scorerPart{{r: r}}, outputs: outputs}).on(d)
	best, found := vs.bestCost(Candidate{LogTarget: res.LogTarget, Shallow: true}, shallowCosts(), func(a, b Candidate) bool {
		return lowerLoss(rankLoss(a), rankLoss(b))
	})
	if !found || !nearLinear(best, res, n) {
		return nil, nil
	}
	// Unshrunk; residuals, though empty, mark it a regression's.
	cal := calibration{factor: slices.Repeat([]float64{1}, outputs), residuals: make([][]float64, outputs)}
	km, b0 := b.machine(r, r.project(targetsOf(d, outputs)), best.Cost, anchors, cal)
	return &Machine{Machine: km, Input: p.in, Output: withIntercept(p.scaling(res.LogTarget), b0), LogTarget: res.LogTarget, Range: p.bounds}, nil
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
	lin, err := hedgeLinear(p, *res, outputs, s)
	if err != nil || lin == nil {
		return err
	}
	m.Linear, m.LinearWeight, res.LinearWeight = lin, linearWeight, linearWeight
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the linear machine of the inputs as they are is near the chosen machine: it weighs %g\n", linearWeight)
	}
	return nil
}
