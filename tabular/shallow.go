package tabular

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// medianDistance returns the median distance between distinct rows of
// x, or 1 if they all coincide.
func medianDistance(x *mat.Dense) float64 {
	n, _ := x.Dims()
	ds := make([]float64, 0, n*(n-1)/2)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if v := sqDistance(x.RawRowView(i), x.RawRowView(j)); v > 0 {
				ds = append(ds, v)
			}
		}
	}
	return medianOf(ds)
}

// anchorsDistance returns medianDistance of the anchors of in, from the
// squared distances between them that newShallowInputs measured.
func (in *shallowInputs) anchorsDistance() float64 {
	m, _ := in.between.Dims()
	ds := make([]float64, 0, m*(m-1)/2)
	for i := range m {
		for _, v := range in.between.RawRowView(i)[i+1:] {
			if v > 0 {
				ds = append(ds, v)
			}
		}
	}
	if in.laplacian {
		if len(ds) == 0 {
			return 1
		}
		return nthSmallest(ds, len(ds)/2)
	}
	return medianOf(ds)
}

// medianOf returns the square root of the upper median of the squared
// distances ds, which it reorders, or 1 if there are none.
func medianOf(ds []float64) float64 {
	if len(ds) == 0 {
		return 1
	}
	return math.Sqrt(nthSmallest(ds, len(ds)/2))
}

// nthSmallest returns the element that would be ds[k] if ds were sorted,
// reordering ds: Hoare's selection, in time linear in len(ds) on average
// rather than a sort's n log n. ds holds no NaN.
func nthSmallest(ds []float64, k int) float64 {
	lo, hi := 0, len(ds)-1
	for lo < hi {
		pivot := ds[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for ds[i] < pivot {
				i++
			}
			for ds[j] > pivot {
				j--
			}
			if i <= j {
				ds[i], ds[j] = ds[j], ds[i]
				i++
				j--
			}
		}
		// ds[lo:j+1] <= pivot <= ds[i:hi+1], and ds[j+1:i] == pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return ds[k]
		}
	}
	return ds[k]
}

// shallowCosts returns the shallow machine's costs. Its candidates are
// every cost of shallowCosts at every
// bandwidth of shallowBandwidths times the median distance between the
// anchors (standardised inputs). The package documentation says how they
// were chosen. Each call returns a fresh slice.
func shallowCosts() []float64 {
	return []float64{1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3, 10, 30, 100}
}

// shallowBandwidths returns the shallow machine's bandwidths, as
// multiples of the median distance between the anchors.
func shallowBandwidths() []float64 { return []float64{0.25, 0.35, 0.5, 0.71, 1, 2, 8} }

// shallowSettings are settings of the shallow machine by index: the
// bandwidths, and the bases of the settings built so far (nil entries
// for the others).
type shallowSettings struct {
	sigmas []float64
	bases  []*shallowBasis
}

// shallowFit is the outcome of the shallow selection: its candidates and
// what refits the best.
type shallowFit struct {
	sel  *Selection
	best Candidate
	// members are the candidates whose machines the fit averages, best
	// first (see averageShallow); nil for best alone.
	members []Candidate
	// costs are the costs whose solutions at best's bandwidth the fit
	// averages, best's first (see averageCosts); nil for best's alone.
	// The fit to all the rows drops them where it grows the anchors: the
	// selection judged them on its own basis.
	costs []float64
	// deep, when not nil, is the average with the deep machine that the
	// selection prefers to its winner (see averageDeep).
	deep *deepAverage
	// final is the fit to all the rows that start began, nil if none.
	final *shallowFinal
	// space is the selection's: its anchors, rows and bandwidths.
	space *shallowSpace
	// data is all the rows, on the best scale.
	data       problemData
	outputs    int
	anchors    *mat.Dense
	anchorRows []int
	cal        calibration
	// refine is set when the selection ran on a shuffled subsample of
	// the rows: the final fit then re-chooses the cost (refineCosts).
	// grow is set when the rows are exchangeable (not split by groups or
	// in time) and Settings.Anchors left the count to the fit: the final
	// fit then tries more anchors (growAnchors), from seed.
	refine, grow bool
	seed         uint64
	// scored are the selection's bandwidths with their bases, when it
	// ran on all the rows: the final fit's own.
	scored []*bandwidthScores
	// preds are the best setting's held-out predictions on the fit
	// scale on each fold of the validation, and tests the held-out
	// rows, when it was scored on the folds.
	preds []*mat.Dense
	means []*mat.Dense
	tests []problemData
}

// selectShallow scores the shallow machine at every cost of shallowCosts
// and every bandwidth of shallowBandwidths times the median distance
// between the anchors, on each scale of the targets tried, and keeps the
// best with its calibration. Alone it scores by the exact leave-one-out
// residuals; it scores on the folds of val instead when they are grouped
// or move forward in time, where leaving out one row would judge a row by
// its group or its future, and when it competes with the deep machine
// (alone false), so that both families are chosen and compared on the
// same held-out rows: the setting of lowest leave-one-out error can lose
// on the folds to one that the folds would have chosen.
func selectShallow(p *prepared, val *validation, outputs int, s Settings, alone bool) (*shallowFit, error) {
	variants := p.variants()
	pass := p.pass
	if pass == nil {
		pass = newShallowPass(variants, val, s)
	}
	sp := pass.space
	anchors, anchorRows, sub, sigmas := sp.anchors, sp.anchorRows, sp.sub, sp.sigmas
	folded := val != nil && (val.split != "" || !alone)
	m := len(val.rows)
	sel := &Selection{Folds: m, Repeats: 1, Rows: m, Loss: "mse", Score: "r2", Best: -1}
	if folded {
		sel = val.header()
		sel.Best = -1
	}
	if variants[0].labels != nil {
		sel.Loss, sel.Score = "brier", "accuracy"
	}
	// The bandwidths that the choice of the inputs scored, or all.
	kept := pass.listed()
	if kept == nil {
		kept = numeric.Indices(len(sigmas))
	}
	var scored []*bandwidthScores
	var err error
	if folded && val.split == "" {
		scored, err = pass.scoreNearBest(kept, val, outputs, s)
	} else {
		scored, err = pass.score(kept, val, folded, outputs, s.Workers)
	}
	if err != nil {
		return nil, err
	}
	var best *bandwidthScores
	for _, bs := range scored {
		for _, cand := range bs.cands {
			if !cand.Diverged && (sel.Best < 0 || rankLoss(cand) < rankLoss(sel.Candidates[sel.Best])) {
				sel.Best, best = len(sel.Candidates), bs
			}
			sel.Candidates = append(sel.Candidates, cand)
		}
	}
	if sel.Best < 0 {
		return nil, errors.New("tabular: every setting of the shallow machine diverged")
	}
	if folded && lowerCost(variants[0], s, m) {
		if b := belowBest(sel); b != sel.Best {
			if s.Progress != nil {
				fmt.Fprintf(s.Progress, "tabular: the inputs are all categorical: cost %g, a step of the grid below the folds' best %g\n", sel.Candidates[b].Cost, sel.Candidates[sel.Best].Cost)
			}
			sel.Best = b
		}
	}
	cand := sel.Candidates[sel.Best]
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: %d settings of the shallow machine scored; chose %s: %s\n", len(sel.Candidates), cand.setting(), cand.scores(sel))
	}
	i := 0
	if cand.LogTarget {
		i = len(variants) - 1
	}
	vs := best.scorer.on(sub[i])
	n, _ := variants[i].x.Dims()
	preds, _ := vs.predictions(cand.Cost)
	means := vs.means()
	var members []Candidate
	var costs []float64
	if !alone && len(val.rows) == n {
		if m, avg := averageShallow(scored, cand, sub[i], preds); len(m) > 1 && lowerHeldOut(avg, preds, means, vs.tests) {
			members, preds = m, avg
		} else if variants[0].labels == nil {
			if c, avg := averageCosts(best, cand, sub[i], preds); len(c) > 1 && lowerHeldOut(avg, preds, means, vs.tests) {
				costs, preds = c, avg
			}
		}
	}
	f := &shallowFit{sel: sel, best: cand, members: members, costs: costs, space: sp, data: variants[i], outputs: outputs,
		anchors: anchors, anchorRows: anchorRows, cal: calibrate(preds, means, vs.tests),
		refine: val.split == "" && len(val.rows) < n, grow: val.split == "" && s.Anchors == 0, seed: s.Seed}
	if folded {
		f.preds, f.means, f.tests = preds, means, vs.tests
	}
	if len(val.rows) == n {
		f.scored = scored
	}
	return f, nil
}

// scoreNearBest scores the bandwidths kept on the shuffled folds of val.
// Fold scores cost k solvers per bandwidth, leave-one-out one, so the
// bandwidths are ranked by leave-one-out first, and only the best
// foldBandwidths of them are scored on the folds, each at the costs near
// its best by leave-one-out (nearBest).
func (pass *shallowPass) scoreNearBest(kept []int, val *validation, outputs int, s Settings) ([]*bandwidthScores, error) {
	loo, err := pass.score(kept, val, false, outputs, s.Workers)
	if err != nil {
		return nil, err
	}
	set := shallowSettings{sigmas: pass.space.sigmas, bases: slices.Clone(pass.bases)}
	ranked, best := len(kept), bestBandwidths(loo, foldBandwidths)
	kept = pick(kept, best)
	costs := make([][]float64, len(best))
	for i, b := range best {
		costs[i] = nearBest(loo[b].cands, foldCostSteps)
	}
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: %d bandwidths of the shallow machine ranked by leave-one-out; the best %d are scored on the folds\n", ranked, len(kept))
	}
	return scoreShallow(pass.space.in, pass.space.sub, set, kept, val, true, outputs, s.Workers, costs)
}

// shallowSpace is what the shallow machine's candidates share: anchors
// drawn from all the rows, the validation's rows (all of them, or the
// subsample of a large set, which is all the basis then holds) with their
// distances to the anchors, and the bandwidths of shallowBandwidths in
// units of the inputs.
type shallowSpace struct {
	anchors    *mat.Dense
	anchorRows []int
	sub        []problemData
	in         *shallowInputs
	sigmas     []float64
	// lin is the linear factor of all the rows' shape (see linearFactor).
	lin float64
	// laplacian says the kernel is the Laplacian (see ShallowKernel).
	laplacian bool
}

func newShallowSpace(variants []problemData, val *validation, s Settings) *shallowSpace {
	x := mat.DenseCopyOf(variants[0].x)
	sp := &shallowSpace{sub: val.restrict(variants), sigmas: shallowBandwidths(), lin: linearFactor(x.Dims()), laplacian: s.ShallowKernel == LaplacianKernel}
	sp.anchorRows = anchorRows(Shallow, x, s, s.Seed)
	sp.anchors = pickRows(x, sp.anchorRows)
	sp.in = sp.inputs(mat.DenseCopyOf(sp.sub[0].x), sp.anchors)
	floats.Scale(sp.in.anchorsDistance(), sp.sigmas)
	return sp
}

// inputs returns the shallow inputs of the rows x, some or all of the
// space's, and the anchors, at the space's linear factor.
func (sp *shallowSpace) inputs(x, anchors *mat.Dense) *shallowInputs {
	return newShallowInputs(x, anchors, sp.lin, sp.laplacian)
}

// shallowPass is the shallow machine's space and the bases of its
// bandwidths, built as they are needed, with the scores of the
// bandwidths scored so far, by leave-one-out or, when the validation's
// folds are grouped or move forward in time, on them: the choice of the
// inputs' scale scores them, and the selection that follows on the
// chosen inputs reuses them.
type shallowPass struct {
	space  *shallowSpace
	bases  []*shallowBasis
	all    []*bandwidthScores // by bandwidth, nil until scored
	folded bool               // whether all holds scores on folds
}

func newShallowPass(variants []problemData, val *validation, s Settings) *shallowPass {
	sp := newShallowSpace(variants, val, s)
	return &shallowPass{space: sp, bases: make([]*shallowBasis, len(sp.sigmas)), all: make([]*bandwidthScores, len(sp.sigmas)),
		folded: val.split != ""}
}

// score returns the scores of the listed bandwidths, as scoreShallow;
// scored as the pass scores them (folded as the pass's own), they are
// kept in the pass and taken from it when known.
func (p *shallowPass) score(list []int, val *validation, folded bool, outputs, workers int) ([]*bandwidthScores, error) {
	sp := p.space
	set := shallowSettings{sigmas: sp.sigmas, bases: p.bases}
	if folded != p.folded {
		return scoreShallow(sp.in, sp.sub, set, list, val, folded, outputs, workers, nil)
	}
	var missing []int
	for _, b := range list {
		if p.all[b] == nil {
			missing = append(missing, b)
		}
	}
	scored, err := scoreShallow(sp.in, sp.sub, set, missing, val, folded, outputs, workers, nil)
	if err != nil {
		return nil, err
	}
	for i, b := range missing {
		p.all[b] = scored[i]
	}
	return pick(p.all, list), nil
}

// listed returns the bandwidths the pass has scored, nil if none.
func (p *shallowPass) listed() []int {
	var list []int
	for b, bs := range p.all {
		if bs != nil {
			list = append(list, b)
		}
	}
	return list
}

// best returns the n bandwidths of lowest loss among those the pass has
// scored, in increasing order: the ones a later pass, on other inputs,
// scores (see passBandwidths).
func (p *shallowPass) best(n int) []int {
	list := p.listed()
	return pick(list, bestBandwidths(pick(p.all, list), n))
}

// passBandwidths is the number of bandwidths that a pass on other
// inputs than the first (their quantiles, or weighed by relevance)
// scores: the best of the pass before it. Leaving the others out leaves
// the choices of the inputs as they were on the panels' tables, and
// halves the time of those passes.
const passBandwidths = 5

// encodingLoss returns the shallow machine's lowest held-out loss, over
// every bandwidth and cost, on the inputs x, for the regression targets y
// or, when y is nil, the labels of a classification into classes classes:
// the measure by which the fit chooses its inputs' scale and weights
// (Settings.InputScale), for a caller that weighs two encodings of a
// table alike, with lowerLoss. s gives the validation and the targets'
// scales as for FitRegression and FitClassifier; its Progress is not
// written to.
func encodingLoss(x, y mat.Matrix, labels []int, classes int, s Settings) (float64, error) {
	e, err := newEncodingPass(x, y, labels, classes, s)
	if err != nil {
		return 0, err
	}
	return e.loss, nil
}

// encodingPass is the shallow machine's pass of encodingLoss on one
// encoding of the inputs, which other encodings of the same rows may be
// judged against (see other), and which the fit on the same inputs takes
// over (see Settings.pass).
type encodingPass struct {
	x         mat.Matrix // the inputs
	p         *prepared
	val, sval *validation // the fit's validations (see validations)
	y         mat.Matrix
	labels    []int
	outputs   int
	loss      float64
}

// newEncodingPass runs the pass of encodingLoss.
func newEncodingPass(x, y mat.Matrix, labels []int, classes int, s Settings) (*encodingPass, error) {
	if err := numeric.CheckFinite("tabular: input", x); err != nil {
		return nil, err
	}
	outputs := classes
	if y != nil {
		if err := numeric.CheckFinite("tabular: target", y); err != nil {
			return nil, err
		}
		_, outputs = y.Dims()
	}
	p, err := prepare(x, y, labels, s, true)
	if err != nil {
		return nil, err
	}
	val, sval, err := validations(p.linear, s, true)
	if err != nil {
		return nil, err
	}
	e := &encodingPass{x: x, p: p, val: val, sval: sval, y: y, labels: labels, outputs: outputs}
	e.loss, err = shallowLoss(p, sval, outputs, s, nil)
	return e, err
}

// other returns the shallow machine's pass on another encoding x of the
// same rows, its lowest held-out loss on e's validation and the
// passBandwidths best bandwidths of e's pass, as the quantiles are
// judged. It holds the validations of a fit on x, and the scores only
// where that fit's shallow passes run on the rows of e's: the width of x
// may change how many they are (see forShallow).
func (e *encodingPass) other(x mat.Matrix, s Settings) (*encodingPass, error) {
	if err := numeric.CheckFinite("tabular: input", x); err != nil {
		return nil, err
	}
	p, err := prepare(x, e.y, e.labels, s, true)
	if err != nil {
		return nil, err
	}
	val, sval, err := validations(p.linear, s, true)
	if err != nil {
		return nil, err
	}
	o := &encodingPass{x: x, p: p, val: val, sval: sval, y: e.y, labels: e.labels, outputs: e.outputs}
	if o.loss, err = shallowLoss(p, e.sval, e.outputs, s, e.p.pass.best(passBandwidths)); err != nil {
		return nil, err
	}
	// Both subsample the same shuffle of the rows (see validationOn).
	if len(sval.rows) != len(e.sval.rows) {
		p.pass = nil
	}
	return o, nil
}

// lowerLoss reports whether held-out loss a is lower than b by more than
// the rounding of the sums that made them: by more than a millionth of
// |b| (a negative log evidence may be negative). The fit keeps a richer
// encoding of its inputs (their quantiles, their relevance weights) only
// when its encodingLoss is lower so; on a tie, as when the quantiles of
// evenly spaced values are those values rescaled, the simpler one stays.
func lowerLoss(a, b float64) bool {
	if b < 0 {
		return a < b*(1+lossTie)
	}
	return a < b*(1-lossTie)
}

// lossTie is the relative difference of two losses that lowerLoss takes
// for rounding. The ties it settles differ by 1e-11 of the loss; real
// differences of held-out losses are thousands of times larger.
const lossTie = 1e-6

// shallowLoss returns the shallow machine's lowest held-out loss over
// the listed bandwidths (nil: every one) and every cost on the
// validation's rows of p: by leave-one-out, or on the folds of val when
// they are grouped or move forward in time. It keeps the scores in p for
// the selection.
func shallowLoss(p *prepared, val *validation, outputs int, s Settings, list []int) (float64, error) {
	p.pass = newShallowPass(p.variants(), val, s)
	return p.passLoss(val, outputs, s, list)
}

// passLoss is shallowLoss on the pass that p holds.
func (p *prepared) passLoss(val *validation, outputs int, s Settings, list []int) (float64, error) {
	if list == nil {
		list = numeric.Indices(len(p.pass.bases))
	}
	if _, err := p.pass.score(list, val, p.pass.folded, outputs, s.Workers); err != nil {
		return 0, err
	}
	return p.pass.bestLoss(), nil
}

// passAhead starts building the shallow machine's pass of p on val (its
// anchors and their distances, on one core) beside the work that
// follows, where fits may run in parallel, and returns the call that
// waits for it and gives it to p, for passLoss.
func passAhead(p *prepared, val *validation, s Settings) (wait func()) {
	if s.Workers == 1 {
		return func() { p.pass = newShallowPass(p.variants(), val, s) }
	}
	done := make(chan *shallowPass, 1)
	go func() { done <- newShallowPass(p.variants(), val, s) }()
	return func() { p.pass = <-done }
}

// bestLoss returns the lowest held-out loss of the candidates of the
// bandwidths the pass has scored.
func (p *shallowPass) bestLoss() float64 {
	return p.lowest(func(c Candidate) float64 { return c.Loss })
}

// evidenced reports whether the pass's candidates carry their evidence
// (see rankLoss).
func (p *shallowPass) evidenced() bool {
	for _, bs := range p.all {
		if bs != nil && slices.ContainsFunc(bs.cands, func(c Candidate) bool { return c.evidenced }) {
			return true
		}
	}
	return false
}

// lowest returns the lowest loss of the candidates of the bandwidths
// the pass has scored, by the loss key.
func (p *shallowPass) lowest(key func(Candidate) float64) float64 {
	best := math.Inf(1)
	for _, bs := range p.all {
		if bs == nil {
			continue
		}
		for _, c := range bs.cands {
			if !c.Diverged {
				best = math.Min(best, key(c))
			}
		}
	}
	return best
}

// foldBandwidths is the number of bandwidths that the shallow machine
// scores on the folds when leave-one-out has ranked them.
const foldBandwidths = 3

// foldCostSteps is how many steps of the grid of shallowCosts on either
// side of a bandwidth's best cost by leave-one-out the folds score.
const foldCostSteps = 2

// nearBest returns the costs of shallowCosts, in the grid's order, within
// steps steps of the cost of lowest loss on some scale of the targets
// among cands, the candidates of one bandwidth in the order scoreShallow
// makes them (each scale's costs in the grid's order).
func nearBest(cands []Candidate, steps int) []float64 {
	grid := shallowCosts()
	near := make([]bool, len(grid))
	for v := 0; v+len(grid) <= len(cands); v += len(grid) {
		best := -1
		for c, cand := range cands[v : v+len(grid)] {
			if !cand.Diverged && (best < 0 || rankLoss(cand) < rankLoss(cands[v+best])) {
				best = c
			}
		}
		for c := max(best-steps, 0); best >= 0 && c <= min(best+steps, len(grid)-1); c++ {
			near[c] = true
		}
	}
	var out []float64
	for c, ok := range near {
		if ok {
			out = append(out, grid[c])
		}
	}
	return out
}

// bandwidthScores are the shallow machine's candidates at one bandwidth,
// every cost on every scale of the targets, and the scorer that made
// them.
type bandwidthScores struct {
	cands  []Candidate
	basis  *shallowBasis
	scorer *shallowScorer
}

// scoreShallow scores the shallow machine at the listed settings of set
// at every cost of shallowCosts, or at the costs costs[i] of the
// i-th listed setting if costs is not nil, on each variant: by
// leave-one-out, or on the folds of val if folded. It builds the bases of
// the listed settings that set lacks, and keeps them there. The results
// are in the order of the list. The work runs in parallel in three steps, the
// bases, then the solvers (one per bandwidth and part, so that a few
// bandwidths on many folds keep every core busy), then the scores; a
// setting's solvers start as soon as its basis is built, and its scores
// as soon as its solvers are, so that no core waits for the last basis
// of a step while another setting has work left (see shallowJobs).
func scoreShallow(in *shallowInputs, variants []problemData, set shallowSettings, list []int, val *validation, folded bool, outputs, workers int, costs [][]float64) ([]*bandwidthScores, error) {
	bases := set.bases
	parts := 1
	if folded {
		parts = len(val.folds)
	}
	out := make([]*bandwidthScores, len(list))
	for i := range out {
		out[i] = &bandwidthScores{scorer: &shallowScorer{parts: make([]scorerPart, parts), outputs: outputs}}
	}
	basis := func(i int) error {
		if bases[list[i]] != nil {
			return nil
		}
		b, err := newShallowBasis(in, set.sigmas[list[i]], 1)
		if err == nil {
			b.all, err = b.ridge(nil, variants[0].w)
		}
		bases[list[i]] = b
		return err
	}
	solver := func(i, part int) error {
		var err error
		out[i].scorer.parts[part], err = bases[list[i]].scorerPart(variants[0].w, val, folded, part)
		return err
	}
	score := func(i int) error {
		grid := shallowCosts()
		if costs != nil {
			grid = costs[i]
		}
		for _, v := range variants {
			vs := out[i].scorer.on(v)
			for _, c := range grid {
				out[i].cands = append(out[i].cands, vs.score(Candidate{Cost: c, Bandwidth: set.sigmas[list[i]], LogTarget: v.back != nil, Shallow: true}))
			}
		}
		return nil
	}
	if err := shallowJobs(len(list), parts, workers, basis, solver, score); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].basis = bases[list[i]]
	}
	return out, nil
}

// shallowJobs runs basis(i) for each of n settings, then solver(i, part)
// for each of their parts, then score(i), on workers workers (0:
// GOMAXPROCS): each job starts once the jobs of its setting that it
// needs have returned. A free worker takes the first job in that order
// whose needs are met, rather than the next one to wait for them: a
// slow basis then holds up only its own setting's jobs, while the other
// workers go on with the settings built before it. Once a job fails no
// other starts, and the error of the first failed job in that order is
// returned. The jobs write results of their own, so their outcome does
// not depend on the order they run in.
func shallowJobs(n, parts, workers int, basis func(i int) error, solver func(i, part int) error, score func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := n * (parts + 2)
	var (
		mu      sync.Mutex
		done    = sync.NewCond(&mu) // signalled when a job returns
		started = make([]bool, jobs)
		built   = make([]bool, n) // basis(i) returned nil
		solved  = make([]int, n)  // solver(i, .) that returned nil
		errs    = make([]error, jobs)
		running int
		failed  bool
	)
	// ready returns the first job not started whose needs are met, or -1.
	ready := func() int {
		for job, s := range started {
			if !s && (job < n || job < n*(parts+1) && built[(job-n)/parts] || job >= n*(parts+1) && solved[job-n*(parts+1)] == parts) {
				return job
			}
		}
		return -1
	}
	run := func(job int) error {
		switch {
		case job < n:
			return basis(job)
		case job < n*(parts+1):
			return solver((job-n)/parts, (job-n)%parts)
		}
		return score(job - n*(parts+1))
	}
	var wg sync.WaitGroup
	for range min(workers, jobs) {
		wg.Go(func() {
			mu.Lock()
			defer mu.Unlock()
			for {
				job := -1
				for !failed {
					if job = ready(); job >= 0 || running == 0 {
						break
					}
					done.Wait()
				}
				if job < 0 {
					return // every job has run, or one failed
				}
				started[job], running = true, running+1
				mu.Unlock()
				err := run(job)
				mu.Lock()
				running--
				switch {
				case err != nil:
					errs[job], failed = err, true
				case job < n:
					built[job] = true
				case job < n*(parts+1):
					solved[(job-n)/parts]++
				}
				done.Broadcast()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// best returns the lowest loss of the candidates that did not diverge,
// +Inf if none.
func (bs *bandwidthScores) best() float64 {
	loss := math.Inf(1)
	for _, c := range bs.cands {
		if !c.Diverged {
			loss = math.Min(loss, rankLoss(c))
		}
	}
	return loss
}

// bestBandwidths returns the indices of the n bandwidths whose best
// candidate has the lowest loss, in increasing order.
func bestBandwidths(scored []*bandwidthScores, n int) []int {
	best := make([]float64, len(scored))
	for i, bs := range scored {
		best[i] = bs.best()
	}
	order := numeric.Indices(len(scored))
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(best[a], best[b]) })
	order = order[:min(n, len(order))]
	slices.Sort(order)
	return order
}

// shallowScorer scores the shallow machine of one basis at any cost by
// its held-out predictions: leave-one-out on all the rows, or on each
// fold of a validation. It holds the solvers, which the scales of the
// targets share.
type shallowScorer struct {
	parts   []scorerPart
	outputs int
}

// scorerPart is the solver of the rows a part is fitted on, and its
// held-out rows with their features, both nil for leave-one-out, which
// holds out the solver's own rows in turn. A part whose fold and
// training rows are all the solver's rows is shared: r is the solver of
// all the rows, from which the fold's fit follows (see heldFold).
type scorerPart struct {
	r           *ridge
	train, test []int
	ztv         *mat.Dense // the held-out rows' features, in r's eigenbasis; nil when shared
	held        *heldRows  // the held-out rows as r sees them when shared, else nil
}

// scorerPart returns part i of the scorer of the shallow machine of
// basis b on the validation's rows, weighted by w: the solver of all the
// rows for leave-one-out and for a fold of val that parts the rows with
// its training rows (if folded), or the fold's own solver for a fold
// that leaves rows out of both, as forward folds do.
func (b *shallowBasis) scorerPart(w []float64, val *validation, folded bool, i int) (scorerPart, error) {
	if !folded {
		return scorerPart{r: b.all}, nil
	}
	fold := val.folds[i]
	if len(fold.Train)+len(fold.Test) == b.all.rows {
		return scorerPart{r: b.all, train: fold.Train, test: fold.Test, held: b.all.held(fold.Test)}, nil
	}
	r, err := b.ridge(fold.Train, pick(w, fold.Train))
	if err != nil {
		return scorerPart{}, err
	}
	return scorerPart{r: r, train: fold.Train, test: fold.Test, ztv: r.inBasis(pickRows(b.z, fold.Test))}, nil
}

// variantScorer scores the shallow machine of one basis on one scale of
// the targets: the projections of the parts' training targets (of all
// the rows for a shared part), the targets of all the rows, the held-out
// rows of each part, for a regression the mean of each part's training
// targets, and for a part of leave-one-out or a shared part what its
// predictions share at every cost (nil for the others).
type variantScorer struct {
	sc         *shallowScorer
	projs      []projection
	y          mat.Matrix
	tests      []problemData
	trainMeans [][]float64
	loos       []*leaveOneOut
	folds      []*heldFold
	// ev is the evidence of leave-one-out's rows, nil when the fit
	// does not rank by it; jac the sum of v's jac.
	ev  *evidence
	jac float64
}

// on returns the scorer of data v, on the validation's rows.
func (sc *shallowScorer) on(v problemData) *variantScorer {
	vs := &variantScorer{sc: sc, y: targetsOf(v, sc.outputs)}
	var all *projection // of every row, which the shared parts share
	for _, p := range sc.parts {
		train, test := v, v
		if p.test != nil {
			train, test = v.rows(p.train), v.rows(p.test)
		}
		var pr projection
		switch {
		case p.held == nil:
			pr = p.r.project(targetsOf(train, sc.outputs))
		case all == nil:
			pr = p.r.project(vs.y)
			all = &pr
		default:
			pr = *all
		}
		mean := pr.mean
		if p.held != nil && v.labels == nil {
			mean = weightedMean(train.targets(), train.w, sumOr(train.w, len(p.train)))
		}
		var loo *leaveOneOut
		var fold *heldFold
		if p.held != nil {
			fold = p.r.heldFold(vs.y, pr, p.held)
		}
		if p.ztv == nil && p.held == nil {
			loo = p.r.leaveOneOut(targetsOf(test, sc.outputs), pr)
			if evidenceFor(v, p.r.rows) {
				vs.ev, vs.jac = p.r.evidence(targetsOf(test, sc.outputs), pr), floats.Sum(v.jac)
			}
		}
		vs.projs, vs.tests, vs.trainMeans = append(vs.projs, pr), append(vs.tests, test), append(vs.trainMeans, mean)
		vs.loos, vs.folds = append(vs.loos, loo), append(vs.folds, fold)
	}
	return vs
}

// sumOr returns the sum of w, or n for a nil w.
func sumOr(w []float64, n int) float64 {
	if w == nil {
		return float64(n)
	}
	return floats.Sum(w)
}

// predictions returns the held-out predictions of each part at the given
// cost on the scale the machine fits, and false if leaving a row out is
// undefined at that cost.
func (vs *variantScorer) predictions(cost float64) ([]*mat.Dense, bool) {
	preds := make([]*mat.Dense, len(vs.sc.parts))
	for i, p := range vs.sc.parts {
		if p.ztv != nil {
			preds[i] = p.r.predict(p.ztv, vs.projs[i], cost)
			continue
		}
		n, _ := vs.tests[i].x.Dims()
		preds[i] = mat.NewDense(n, vs.sc.outputs, nil)
		if p.held != nil {
			if !vs.folds[i].predictions(preds[i], cost) {
				return nil, false
			}
			continue
		}
		if !vs.loos[i].predictions(preds[i], cost) {
			return nil, false
		}
	}
	return preds, true
}

// means returns, for each part, the means that its held-out predictions
// are made about: for each held-out row of a regression, the (weighted)
// mean of the targets of the rows its fit learned from, which is the
// solver's intercept. Nil for a classifier.
func (vs *variantScorer) means() []*mat.Dense {
	out := make([]*mat.Dense, len(vs.sc.parts))
	for i, p := range vs.sc.parts {
		test := vs.tests[i]
		if test.labels != nil {
			return nil
		}
		n, _ := test.x.Dims()
		mean := vs.trainMeans[i]
		out[i] = mat.NewDense(n, len(mean), nil)
		y := test.targets()
		for r := range n {
			w := 1.0
			if p.r.w != nil {
				w = p.r.w[r]
			}
			for j, m := range mean {
				if p.test == nil {
					// Leaving row r out takes it out of the mean too.
					m = (m*p.r.total - w*y.At(r, j)) / (p.r.total - w)
				}
				out[i].Set(r, j, m)
			}
		}
	}
	return out
}

// upToNext returns the ascending costs up to c and the first above it.
func upToNext(costs []float64, c float64) []float64 {
	for i, v := range costs {
		if v > c {
			return costs[:i+1]
		}
	}
	return costs
}

// onFitScale returns vs judging its predictions on the scale the
// machine fits rather than mapped back to the targets' (vs itself when
// they are not mapped back).
func (vs *variantScorer) onFitScale() *variantScorer {
	if !slices.ContainsFunc(vs.tests, func(t problemData) bool { return t.back != nil }) {
		return vs
	}
	out := *vs
	out.tests = slices.Clone(vs.tests)
	for i, t := range out.tests {
		out.tests[i].y, out.tests[i].back = t.targets(), nil
	}
	return &out
}

// bestCost returns c scored at each of costs, the best by better among
// those that did not diverge, and false if every one did.
func (vs *variantScorer) bestCost(c Candidate, costs []float64, better func(a, b Candidate) bool) (Candidate, bool) {
	best, found := c, false
	for _, cost := range costs {
		c.Cost = cost
		if s := vs.score(c); !s.Diverged && (!found || better(s, best)) {
			best, found = s, true
		}
	}
	return best, found
}

// score returns the candidate at the given cost with the mean held-out
// loss and score over the parts and their standard deviations, or
// diverged.
func (vs *variantScorer) score(c Candidate) Candidate {
	preds, ok := vs.predictions(c.Cost)
	if !ok {
		c.Diverged = true
		return c
	}
	if vs.ev != nil {
		c.evidence, c.evidenced = -(vs.ev.at(c.Cost)+vs.jac)/float64(vs.ev.r.rows), true
	}
	losses, scores := make([]float64, len(preds)), make([]float64, len(preds))
	for i, pred := range preds {
		test := vs.tests[i]
		if test.back != nil {
			test.back(pred)
		}
		if test.labels != nil {
			// Ranked by the Brier score, not heldOutOf's log-loss.
			losses[i], scores[i] = brier(pred, test), accuracy(pred, test)
			continue
		}
		h := heldOutOf(pred, test)
		losses[i], scores[i] = h.loss, h.score
	}
	if len(preds) == 1 {
		c.Loss, c.Score = losses[0], scores[0]
		return c
	}
	c.Loss, c.LossStd = stat.MeanStdDev(losses, nil)
	c.Score, c.ScoreStd = stat.MeanStdDev(scores, nil)
	return c
}

// brier returns the mean over the held-out rows d (weighted) of the
// squared distance between a classifier's scores pred and the row's
// one-hot label: the Brier score of the least-squares scores, the loss
// their fit minimises, by which the shallow machine's settings are
// ranked. Ranked by the log-loss of their calibrated scores instead,
// which a few confident mistakes dominate, the settings chosen were less
// accurate on the panels' classifiers (docs/learner-panel.md).
func brier(pred *mat.Dense, d problemData) float64 {
	var sum, total float64
	for i, l := range d.labels {
		w := 1.0
		if d.w != nil {
			w = d.w[i]
		}
		for j, v := range pred.RawRowView(i) {
			if j == l {
				v--
			}
			sum += w * v * v
		}
		total += w
	}
	return sum / total
}

// targetsOf returns the targets the machine fits for v: one-hot labels
// for a classifier.
func targetsOf(v problemData, outputs int) mat.Matrix {
	if v.labels != nil {
		return oneHot(v.labels, outputs)
	}
	return v.targets()
}

// result returns the best shallow machine fitted to all the rows, and res
// completed for it: the fit that start began, if it did.
func (f *shallowFit) result(p *prepared, res Result, begin time.Time) (*Machine, Result, error) {
	fin := f.final
	if fin == nil {
		fin = &shallowFinal{done: make(chan struct{})}
		f.fitAll(p, fin)
	}
	fin.wait()
	if fin.err != nil {
		return nil, res, fin.err
	}
	f.best, f.cal, res.CostRows = fin.best, fin.cal, fin.costRows
	f.anchors, f.anchorRows = fin.anchors, fin.anchorRows
	m := fin.m
	if len(fin.members) > 1 {
		res.Averaged = fin.members
	}
	res.Costs = fin.costs
	res.Dims, res.Cost, res.Bandwidth, res.LogTarget = m.Dims, f.best.Cost, f.best.Bandwidth, f.best.LogTarget
	res.Anchors, res.Shallow = len(f.anchorRows), true
	res.Converged, res.Status = true, "closed form"
	res.Calibration = f.cal.record(f.data.labels != nil)
	res.Seconds = time.Since(begin).Seconds()
	return m, res, nil
}

// shallowFinal is the best shallow machine of a selection fitted to all
// the rows, with the cost, calibration and anchors it was fitted with and
// the rows that re-chose them, if any (see refineCosts and growAnchors);
// done is closed once it is fitted.
type shallowFinal struct {
	m          *Machine
	best       Candidate
	cal        calibration
	anchors    *mat.Dense
	anchorRows []int
	costRows   int
	// members are the members of an average with their costs as
	// fitted, nil for one machine.
	members []Candidate
	// costs are the costs whose solutions the machine averages (see
	// averageCosts), nil for one.
	costs []float64
	err   error
	done  chan struct{}
}

func (fin *shallowFinal) wait() { <-fin.done }

// start fits f's machine to all the rows in the background, for result:
// the deep machine's race that follows the selection fits one fold at a
// time at first, which leaves a core idle, and the shallow machine wins
// most tables. The fit works on a copy of f, whose cost and calibration
// it may re-choose while the race reads f's.
func (f *shallowFit) start(p *prepared) {
	fin := &shallowFinal{done: make(chan struct{})}
	g := *f
	f.final = fin
	go g.fitAll(p, fin)
}

// fitAll fits f's machine, or the sum of its members' machines, to all
// the rows, into fin: with more anchors where growAnchors finds that
// they pay, and the costs re-chosen when the selection ran on a
// subsample or the anchors grew.
func (f shallowFit) fitAll(p *prepared, fin *shallowFinal) {
	defer close(fin.done)
	members := slices.Clone(f.members)
	if members == nil {
		members = []Candidate{f.best}
	}
	bases, solvers := make([]*shallowBasis, len(members)), make([]*ridge, len(members))
	var err error
	for i, c := range members {
		if bases[i], solvers[i], err = f.basis(c); err != nil {
			fin.err = err
			return
		}
	}
	grown := false
	var first *looChoice // the leave-one-out of solvers[0], if growAnchors made it
	if f.grow {
		if bases[0], solvers[0], first, grown, err = f.growAnchors(members[0], bases[0], solvers[0]); err != nil {
			fin.err = err
			return
		}
		if grown {
			f.scored = nil // the selection's bases hold the anchors before
			for i := 1; i < len(members); i++ {
				if bases[i], solvers[i], err = f.basis(members[i]); err != nil {
					fin.err = err
					return
				}
			}
		}
	}
	if f.refine || grown {
		f.refineCosts(members, solvers, first)
		fin.costRows = solvers[0].rows
	}
	var machines []*kernel.Machine
	var intercept []float64
	for i, c := range members {
		r := solvers[i]
		costs := []float64{c.Cost}
		if f.costs != nil && !grown {
			costs, fin.costs = f.costs, f.costs
		}
		km, b0 := bases[i].averageMachine(r, r.project(targetsOf(f.data, f.outputs)), costs, f.anchors, f.cal)
		if len(members) > 1 {
			scaleMachine(km, b0, 1/float64(len(members)))
		}
		machines = append(machines, km)
		if intercept == nil {
			intercept = b0
		} else {
			floats.Add(intercept, b0)
		}
	}
	m := &Machine{Machine: machines[0], Quantiles: p.quantiles, Input: p.in, Output: withIntercept(p.scaling(f.best.LogTarget), intercept),
		LogTarget: f.best.LogTarget, Range: p.bounds}
	if len(machines) > 1 {
		m.Sum = machines[1:]
		fin.members = members
	}
	p.metric.machines(m)
	fin.m, fin.best, fin.cal, fin.anchors, fin.anchorRows = m, f.best, f.cal, f.anchors, f.anchorRows
}

// inputs returns the shallow inputs of the rows x, some or all of f's,
// and the anchors, their linear factor that of all the rows' shape, as
// the selection's space took it (see linearFactor).
func (f *shallowFit) inputs(x, anchors *mat.Dense) *shallowInputs {
	return newShallowInputs(x, anchors, linearFactor(f.data.x.Dims()), f.space.laplacian)
}

// basis returns the basis of the candidate c on all the rows and its
// solver: the selection's, when it ran on all the rows.
func (f *shallowFit) basis(c Candidate) (*shallowBasis, *ridge, error) {
	for _, bs := range f.scored {
		if len(bs.cands) > 0 && bs.cands[0].Bandwidth == c.Bandwidth {
			return bs.basis, bs.basis.all, nil
		}
	}
	b, err := newShallowBasis(f.inputs(mat.DenseCopyOf(f.data.x), f.anchors), c.Bandwidth, 1)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.ridge(nil, f.data.w)
	return b, r, err
}

// refineCosts re-chooses the cost of each of the members, on the
// solvers of their bases on all the rows, among StreamCosts by the exact
// leave-one-out residuals of all the rows, and recalibrates the machine
// (their average) on its leave-one-out predictions, the mean of
// theirs; f's best is members[0]. The best cost falls as the rows grow:
// a subsample of SelectionRows rows chooses one that smooths a table of
// thousands more than its rows need, and more anchors on the same rows
// need another. The streamed fit chooses its cost among the same costs
// on rows held out for that. first, if not nil, is the leave-one-out
// of solvers[0], already made. Nothing changes if every cost of a member
// diverged.
func (f *shallowFit) refineCosts(members []Candidate, solvers []*ridge, first *looChoice) {
	costs := make([]float64, len(members))
	var sum mat.Dense
	var l *looChoice
	for i, r := range solvers {
		if l = first; i > 0 || l == nil {
			l = f.leaveOneOut(r)
		}
		if l == nil {
			return
		}
		if i == 0 {
			sum.CloneFrom(l.pred)
		} else {
			sum.Add(&sum, l.pred)
		}
		costs[i] = l.best.Cost
	}
	sum.Scale(1/float64(len(members)), &sum)
	for i := range members {
		members[i].Cost = costs[i]
	}
	f.best.Cost, f.cal = costs[0], calibrate([]*mat.Dense{&sum}, l.vs.means(), l.vs.tests)
}

// growErrors is the number of standard errors of the paired
// differences of the rows' leave-one-out losses by which a larger count
// of anchors must lower the loss of the count before it to be kept (see
// growAnchors): a margin in the units of each table's own noise. The
// loss of a few hundred rows is noisy, and a fixed fraction of it let
// counts pass there by chance.
const growErrors = 1

// growMargin is the fraction of the leave-one-out loss by which a larger
// count of anchors must lower it besides (see growAnchors): on tables of
// thousands of rows, whose loss is precise, a count that passes the
// standard errors alone by less costs more time than it gains.
const growMargin = 0.0025

// lossFall returns the fraction of the loss best (the rows' losses,
// weighted by w, nil for alike) by which the rows' losses next, paired
// with best, are lower on the whole, and whether they are lower by more
// than growErrors standard errors of their differences and by more than
// growMargin of best.
func lossFall(next, best, w []float64) (fall float64, beyondNoise bool) {
	var total, sum, loss float64
	for i := range next {
		total += weight(w, i)
		sum += weight(w, i) * (best[i] - next[i])
		loss += weight(w, i) * best[i]
	}
	fall, mean := sum/loss, sum/total
	if !(mean > growMargin*loss/total) {
		return fall, false
	}
	var ss float64
	for i := range next {
		d := weight(w, i) * (best[i] - next[i] - mean)
		ss += d * d
	}
	n := float64(len(next))
	se := math.Sqrt(ss*n/(n-1)) / total
	return fall, mean > growErrors*se
}

// growAhead is the fraction of the leave-one-out loss by which the
// doubling of the anchors before a count past 800 must have lowered it
// for growAnchors to try that count (see worthTrying).
const growAhead = 0.01

// worthTrying reports whether growAnchors tries m anchors after the
// count kept last lowered the loss by the fraction fall of it: always
// up to twice streamAnchorsMax, and past it only when fall is more than
// growAhead. Each doubling's basis takes about four times the time of
// the one before, and it mostly gains less than the one before did.
func worthTrying(m int, fall float64) bool {
	return m <= 2*streamAnchorsMax || fall > growAhead
}

// weight returns w[i], or 1 for a nil w.
func weight(w []float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w[i]
}

// looChoice is the cost of StreamCosts of lowest exact leave-one-out
// loss on all the rows (see leaveOneOut), for the solver of a basis: the
// setting at that cost, the rows' leave-one-out predictions there on the
// scale the machine fits, and the scorer that scored it.
type looChoice struct {
	best Candidate
	pred *mat.Dense
	vs   *variantScorer
}

// leaveOneOut returns the looChoice of the solver r, nil if every cost
// diverged. The costs are judged by the error of the targets, as the
// selection judges them; for a log target the cost may be at most one
// step of StreamCosts above the best on the scale the machine fits
// (upToNext), whose squared error the ridge minimises. Mapped back, the
// error of one row of high leverage whose held-out prediction is far
// too large can outweigh all the others' and choose a cost that smooths
// the machine for every row.
func (f *shallowFit) leaveOneOut(r *ridge) *looChoice {
	vs := (&shallowScorer{parts: []scorerPart{{r: r}}, outputs: f.outputs}).on(f.data)
	better := func(a, b Candidate) bool { return a.Loss < b.Loss }
	costs := StreamCosts()
	if fit := vs.onFitScale(); fit != vs {
		ref, found := fit.bestCost(f.best, costs, better)
		if !found {
			return nil
		}
		costs = upToNext(costs, ref.Cost)
	}
	best, found := vs.bestCost(f.best, costs, better)
	if !found {
		return nil
	}
	pred, _ := vs.predictions(best.Cost)
	return &looChoice{best: best, pred: pred[0], vs: vs}
}

// rowLosses returns the loss of each row of d held out with the
// predictions pred on the scale the machine fits, whose weighted mean is
// the loss that score gives: a regression's squared error, mapped back
// to its targets and averaged over the outputs, or a classifier's Brier
// score.
func rowLosses(pred *mat.Dense, d problemData) []float64 {
	if d.back != nil {
		pred = mat.DenseCopyOf(pred)
		d.back(pred)
	}
	n, k := pred.Dims()
	out := make([]float64, n)
	for i := range out {
		for j, v := range pred.RawRowView(i) {
			switch {
			case d.labels == nil:
				v -= d.y.At(i, j)
			case j == d.labels[i]:
				v--
			}
			out[i] += v * v
		}
		if d.labels == nil {
			out[i] /= float64(k)
		}
	}
	return out
}

// growAnchors returns the basis of the candidate c on all the rows, its
// solver and the solver's leave-one-out (nil if none was made or every
// cost diverged), at the count of anchors among ShallowAnchors and its
// doublings (anchorGrowth) beyond which the exact leave-one-out loss of
// all the rows, each count at its best cost, stops falling by more than
// its noise and growMargin (lossFall) or that worthTrying does not try
// (growCounts), and whether that count is larger than ShallowAnchors.
// The anchors are drawn as anchorRows draws them, from the same seed, so
// that 400 hold the 200. It sets f's anchors to the basis's. b and r are
// the basis and solver of f's anchors. A setting chosen on a subsample
// of SelectionRows rows would give a table of thousands of rows a
// machine of no more capacity than it had there, and on a few hundred
// rows ShallowAnchors of them leave out what the others hold; more
// anchors let the fit on all the rows follow it.
func (f *shallowFit) growAnchors(c Candidate, b *shallowBasis, r *ridge) (*shallowBasis, *ridge, *looChoice, bool, error) {
	n, inputs := f.data.x.Dims()
	counts := anchorGrowth(n, inputs)
	if counts == nil {
		return b, r, nil, false, nil
	}
	loo := f.leaveOneOut(r)
	if loo == nil {
		return b, r, nil, false, nil
	}
	// The count tried last: its anchors, basis, solver and leave-one-out.
	var rows []int
	var anchors *mat.Dense
	var nb *shallowBasis
	var nr *ridge
	var nloo *looChoice
	grown := false
	try := func(m int) ([]float64, error) {
		rows = anchorRows(Shallow, f.data.x, Settings{Anchors: m}, f.seed)
		anchors = pickRows(f.data.x, rows)
		var err error
		if nb, err = newShallowBasis(f.inputs(mat.DenseCopyOf(f.data.x), anchors), c.Bandwidth, 1); err != nil {
			return nil, err
		}
		if nr, err = nb.ridge(nil, f.data.w); err != nil {
			return nil, err
		}
		if nloo = f.leaveOneOut(nr); nloo == nil {
			return nil, nil
		}
		return rowLosses(nloo.pred, f.data), nil
	}
	keep := func() { b, r, loo, f.anchors, f.anchorRows, grown = nb, nr, nloo, anchors, rows, true }
	if err := growCounts(counts, rowLosses(loo.pred, f.data), f.data.w, try, keep); err != nil {
		return nil, nil, nil, false, err
	}
	return b, r, loo, grown, nil
}

// growCounts steps through the counts of anchors as growAnchors does,
// from the rows' losses best (weighted by w, nil for alike) at the count
// before them: it tries each count that worthTrying lets it, try
// returning the rows' losses there (nil where it has none), keeps it
// (calling keep) when they are lower beyond their noise (lossFall), and stops at the first count it does not try or
// keep, or at an error of try.
func growCounts(counts []int, best, w []float64, try func(m int) ([]float64, error), keep func()) error {
	fall := math.Inf(1) // the relative fall of the loss at the count kept last
	for _, m := range counts {
		if !worthTrying(m, fall) {
			return nil
		}
		next, err := try(m)
		if next == nil || err != nil {
			return err
		}
		f, beyondNoise := lossFall(next, best, w)
		if !beyondNoise {
			return nil
		}
		fall, best = f, next
		keep()
	}
	return nil
}

// withIntercept returns the output scaler that adds the intercept b, on
// the scale the machine fits, to its outputs before out (nil: none) maps
// them to the units of the targets: out with its means moved by b times
// its scales.
func withIntercept(out *scale.Scaler, b []float64) *scale.Scaler {
	s := &scale.Scaler{Mean: slices.Clone(b), Scale: make([]float64, len(b))}
	for j := range b {
		s.Scale[j] = 1
		if out != nil {
			s.Mean[j] = out.Mean[j] + out.Scale[j]*b[j]
			s.Scale[j] = out.Scale[j]
		}
	}
	return s
}

func oneHot(labels []int, k int) *mat.Dense {
	y := mat.NewDense(len(labels), k, nil)
	for i, l := range labels {
		y.Set(i, l, 1)
	}
	return y
}

// fitLogitScale returns the factor beta >= 0 that minimises the mean
// log-loss of softmax(beta * scores) for the labels: Newton's method on a
// convex function of one variable.
func fitLogitScale(scores *mat.Dense, labels []int) float64 {
	beta := 1.0
	n, k := scores.Dims()
	p := make([]float64, k)
	for range 50 {
		var g, h float64
		for i := range n {
			row := scores.RawRowView(i)
			hi := math.Inf(-1)
			for _, v := range row {
				hi = math.Max(hi, beta*v)
			}
			var sum float64
			for j, v := range row {
				p[j] = math.Exp(beta*v - hi)
				sum += p[j]
			}
			var mean, sq float64
			for j, v := range row {
				p[j] /= sum
				mean += p[j] * v
				sq += p[j] * v * v
			}
			g += mean - row[labels[i]]
			h += sq - mean*mean
		}
		if h <= 0 {
			break
		}
		step := g / h
		next := math.Max(beta-step, beta/4)
		next = math.Min(next, 4*beta+1)
		if math.Abs(next-beta) < 1e-6*beta {
			beta = next
			break
		}
		beta = next
	}
	return beta
}

// onFolds scores the chosen setting, chosen on the rows of sval, on the
// held-out rows of each fold of val, the deep machine's selection on
// fewer of them (see shallowRows): the deep machine races it there, on
// the same rows as its own. Each fold's shallow machine learns from all
// the rows of sval but the fold's held-out ones, as many as its setting
// was chosen for; on val's fewer training rows, a setting chosen on more
// rows smooths too little and loses races it should win. A cost whose
// held-out predictions are undefined is scored at the next larger cost
// of shallowCosts that has them. The calibration stays the selection's.
func (f *shallowFit) onFolds(val, sval *validation, workers int) error {
	races := &validation{rows: sval.rows, k: val.k, repeats: val.repeats, classify: val.classify}
	at := make(map[int]int, len(sval.rows))
	for i, r := range sval.rows {
		at[r] = i
	}
	for _, fold := range val.folds {
		held := make([]bool, len(sval.rows))
		test := make([]int, len(fold.Test))
		for i, j := range fold.Test {
			k, ok := at[val.rows[j]]
			if !ok {
				panic("tabular: the deep machine's validation holds rows that the shallow machine's does not")
			}
			test[i], held[k] = k, true
		}
		train := slices.DeleteFunc(numeric.Indices(len(sval.rows)), func(k int) bool { return held[k] })
		races.folds = append(races.folds, crossval.Fold{Train: train, Test: test})
	}
	sub := []problemData{f.data.rows(sval.rows)}
	set := shallowSettings{sigmas: []float64{f.best.Bandwidth}, bases: make([]*shallowBasis, 1)}
	in := f.inputs(mat.DenseCopyOf(sub[0].x), f.anchors)
	scored, err := scoreShallow(in, sub, set, []int{0}, races, true, f.outputs, workers, [][]float64{nil})
	if err != nil {
		return err
	}
	vs := scored[0].scorer.on(sub[0])
	costs := slices.DeleteFunc(shallowCosts(), func(c float64) bool { return c < f.best.Cost })
	for _, cost := range costs {
		if preds, ok := vs.predictions(cost); ok {
			f.preds, f.means, f.tests = preds, vs.means(), vs.tests
			return nil
		}
	}
	return fmt.Errorf("tabular: the shallow machine's held-out predictions are undefined on the %d rows of the deep machine's folds", len(val.rows))
}

// heldOut returns the chosen setting's calibrated loss and score on the
// held-out rows of fold f of the validation it was scored on.
func (f *shallowFit) heldOut(fold int) heldOut {
	pred := mat.DenseCopyOf(f.preds[fold])
	test := f.tests[fold]
	if test.labels != nil {
		f.cal.apply(pred, true)
	} else {
		f.cal.shrink(pred, f.means[fold])
	}
	if test.back != nil {
		test.back(pred)
	}
	return heldOutOf(pred, test)
}

// pick returns the listed elements of x, or nil for a nil x.
func pick[T any](x []T, idx []int) []T {
	if x == nil {
		return nil
	}
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = x[j]
	}
	return out
}

// calibration is what the held-out predictions of the chosen setting say
// about it: how much to shrink a regression's predictions towards the
// mean, or by what factor to scale a classifier's scores, and the
// absolute residuals that conformal intervals are made of.
type calibration struct {
	// factor multiplies the machine's outputs on the scale it fits: the
	// logit scale of a classifier (softmax(factor * scores + bias) has
	// the lowest held-out log-loss), or the shrinkage of a regression.
	factor []float64
	// bias is added to a classifier's scaled scores, class by class (see
	// fitLogits); nil for a regression.
	bias []float64
	// residuals holds, for each output of a regression, the sorted
	// absolute held-out residuals on the fit scale after the factor.
	residuals [][]float64
	// scores holds a classifier's sorted held-out scores 1 - p, p the
	// calibrated probability of the row's true class.
	scores []float64
}

// calibrate returns the calibration of held-out predictions preds (on the
// fit scale) of the rows of parts. A regression's are shrunk towards
// means, the means of the targets their fits learned from (see
// calibration.shrink).
func calibrate(preds, means []*mat.Dense, parts []problemData) calibration {
	_, k := preds[0].Dims()
	var labels []int
	ys := make([]mat.Matrix, len(parts))
	for i, p := range parts {
		labels = append(labels, p.labels...)
		ys[i] = p.targets()
	}
	if labels != nil {
		all := stack(preds)
		c := calibration{factor: make([]float64, 1)}
		c.factor[0], c.bias = fitLogits(all, labels)
		c.apply(all, true)
		c.scores = classScores(all, labels)
		return c
	}
	// The deviations from the means: a fold's mean, which its held-out
	// targets pull the other way, would otherwise bias the factor
	// towards 0 on a few dozen rows.
	centre := stack(means)
	dev := stack(preds)
	dev.Sub(dev, centre)
	y := stack(ys)
	y.Sub(y, centre)
	n, _ := dev.Dims()
	c := calibration{factor: make([]float64, k), residuals: make([][]float64, k)}
	for j := range k {
		f := 1.0
		var py, pp float64
		for i := range n {
			py += dev.At(i, j) * y.At(i, j)
			pp += dev.At(i, j) * dev.At(i, j)
		}
		if pp > 0 {
			f = math.Max(0, math.Min(1, py/pp))
		}
		c.factor[j] = f
		r := make([]float64, n)
		for i := range n {
			r[i] = math.Abs(y.At(i, j) - f*dev.At(i, j))
		}
		slices.Sort(r)
		c.residuals[j] = r
	}
	return c
}

// classScores returns the sorted scores 1 - p of the rows of the
// calibrated class scores pred, p the probability their softmax gives
// the row's label: what conformal prediction sets are made of.
func classScores(pred *mat.Dense, labels []int) []float64 {
	_, k := pred.Dims()
	p := make([]float64, k)
	out := make([]float64, len(labels))
	for i, l := range labels {
		softmaxTo(p, pred.RawRowView(i))
		out[i] = math.Max(0, 1-p[l])
	}
	slices.Sort(out)
	return out
}

// stack returns the rows of ms one after the other, in a new matrix.
func stack[M mat.Matrix](ms []M) *mat.Dense {
	n, k := 0, 0
	for _, m := range ms {
		r, c := m.Dims()
		n, k = n+r, c
	}
	out := mat.NewDense(n, k, nil)
	i := 0
	for _, m := range ms {
		r, _ := m.Dims()
		out.Slice(i, i+r, 0, k).(*mat.Dense).Copy(m)
		i += r
	}
	return out
}

// record returns the calibration as Result holds it.
func (c calibration) record(classify bool) Calibration {
	if classify {
		return Calibration{LogitScale: c.factor[0], ClassBias: c.bias, Scores: c.scores}
	}
	return Calibration{Shrinkage: c.factor, Residuals: c.residuals}
}

// apply calibrates the outputs pred on the fit scale: multiplies them
// by the factors and adds a classifier's biases.
func (c calibration) apply(pred *mat.Dense, classify bool) {
	c.scale(pred, classify)
	if c.bias != nil {
		pred.Apply(func(_, j int, v float64) float64 { return v + c.bias[j] }, pred)
	}
}

// scale multiplies the outputs pred on the fit scale, or a machine's
// coefficients of them, by the factors.
func (c calibration) scale(pred *mat.Dense, classify bool) {
	pred.Apply(func(_, j int, v float64) float64 {
		if classify {
			return v * c.factor[0]
		}
		return v * c.factor[j]
	}, pred)
}

// shrink moves a regression's held-out predictions pred towards means,
// the means of the targets their fits learned from, by the factors: as
// the final machine's are moved towards the mean of all the rows.
func (c calibration) shrink(pred, means *mat.Dense) {
	pred.Apply(func(i, j int, v float64) float64 {
		m := means.At(i, j)
		return m + c.factor[j]*(v-m)
	}, pred)
}

// scaleOutputs multiplies the output block of m by the factors: the rows
// of A and C that make it.
func (c calibration) scaleOutputs(m *kernel.Machine, classify bool) {
	k := m.Outputs()
	ra, _ := m.A.Dims()
	rc, _ := m.C.Dims()
	for j := range k {
		f := c.factor[0]
		if !classify {
			f = c.factor[j]
		}
		for _, w := range [][]float64{m.A.RawRowView(ra - k + j), m.C.RawRowView(rc - k + j)} {
			for i := range w {
				w[i] *= f
			}
		}
	}
}

// lowerCost reports whether the shallow machine of a regression on rows
// selection rows, of data v and settings s, takes the cost one step of
// the grid below the folds' best (belowBest): when its inputs are all
// categorical (Settings.categorical), on at most evidenceRows rows. Its
// machine then fits the means of a few cells of rows, and each fold's
// training rows hold fewer of a cell's rows than all the rows do: the
// folds' best cost shrank the cells' means of all the rows towards the
// mean more than their test rows bore out on the panels' tables of
// categorical inputs alone (docs/learner-panel.md).
func lowerCost(v problemData, s Settings, rows int) bool {
	return v.labels == nil && s.categorical && rows <= evidenceRows
}

// belowBest returns the index in sel of the candidate at the cost one
// step of the grid of shallowCosts below that of sel's best, at its
// bandwidth and scale of the targets, or sel.Best if none was scored.
func belowBest(sel *Selection) int {
	best := sel.Candidates[sel.Best]
	grid := shallowCosts()
	i := slices.Index(grid, best.Cost)
	if i < 1 {
		return sel.Best
	}
	for j, c := range sel.Candidates {
		if !c.Diverged && c.Cost == grid[i-1] && c.Bandwidth == best.Bandwidth && c.LogTarget == best.LogTarget {
			return j
		}
	}
	return sel.Best
}

// heldPart is one part of the held-out predictions of a shallow machine:
// the held-out rows, their targets on the scale the machine fits (one
// column per class for a classifier) and the predictions there.
type heldPart struct {
	rows       problemData
	y, predict mat.Matrix
}

// heldOut returns the held-out predictions of the pass's candidate of
// lowest loss, by leave-one-out or on the folds as the pass scored it;
// nil if every candidate diverged.
func (e *encodingPass) heldOut() []heldPart {
	pass := e.p.pass
	var (
		best    *bandwidthScores
		bestC   Candidate
		lowestL = math.Inf(1)
	)
	for _, bs := range pass.all {
		if bs == nil {
			continue
		}
		for _, c := range bs.cands {
			if !c.Diverged && c.Loss < lowestL {
				best, bestC, lowestL = bs, c, c.Loss
			}
		}
	}
	if best == nil {
		return nil
	}
	v := pass.space.sub[0]
	for _, sub := range pass.space.sub {
		if (sub.back != nil) == bestC.LogTarget {
			v = sub
		}
	}
	vs := best.scorer.on(v)
	preds, ok := vs.predictions(bestC.Cost)
	if !ok {
		return nil
	}
	out := make([]heldPart, len(preds))
	for i, pred := range preds {
		out[i] = heldPart{rows: vs.tests[i], y: targetsOf(vs.tests[i], e.outputs), predict: pred}
	}
	return out
}
