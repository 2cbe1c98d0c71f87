package tabular

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Selection records the cross-validation that chose a machine's cost and
// bandwidth.
type Selection struct {
	Folds int `json:"folds"`
	// Repeats is the number of k-fold splits, each on a new shuffle.
	Repeats int `json:"repeats"`
	// Split is "grouped" when the folds keep the rows of a group
	// together, "forward" when they move forward in time, and empty for
	// shuffled (or stratified) folds.
	Split string `json:"split,omitempty"`
	// Rows is the number of rows the selection ran on: all the training
	// rows, or a seeded subsample of SelectionRows of them.
	Rows int `json:"rows"`
	// ShallowRows is the number of rows the shallow machine's settings
	// were chosen on when that is more than Rows (see SelectionRows), 0
	// otherwise: its candidate is still scored on the folds of Rows.
	ShallowRows int `json:"shallow_rows,omitempty"`
	// Loss names the loss that ranks the candidates: "mse" (on the
	// standardised targets unless the fit is Raw), "log-loss", or the
	// "brier" score of the shallow machine's selection of a classifier.
	// Score names the score reported beside it: "r2" or "accuracy".
	Loss  string `json:"loss"`
	Score string `json:"score"`
	// Candidates are the settings tried, bandwidth by bandwidth and, for
	// each, cost by cost in the order of the grid; when the targets were
	// also tried on the log scale, those candidates follow in the same
	// order.
	Candidates []Candidate `json:"candidates"`
	// Best indexes the candidate of lowest mean loss, the first on ties.
	Best int `json:"best"`
}

// Candidate is one setting of a selection and its scores over the folds:
// the mean and the sample standard deviation of the held-out loss and
// score. A candidate whose fit diverged on some fold has Diverged set and
// no scores; it is never chosen. LogTarget marks a regression fitted to
// log(1 + y); its loss and score are still those of its predictions of y.
type Candidate struct {
	Cost      float64 `json:"cost"`
	Bandwidth float64 `json:"bandwidth"`
	LogTarget bool    `json:"log_target,omitempty"`
	Shallow   bool    `json:"shallow,omitempty"`
	Loss      float64 `json:"loss"`
	LossStd   float64 `json:"loss_std"`
	Score     float64 `json:"score"`
	ScoreStd  float64 `json:"score_std"`
	Diverged  bool    `json:"diverged,omitempty"`
	// Skipped marks a candidate whose folds were not all fitted within
	// Settings.Budget; it is never chosen.
	Skipped bool `json:"skipped,omitempty"`
	// Raced marks a deep candidate scored on the first folds alone:
	// the shallow machine led the deep ones there (see probeMargin and
	// raceMargin), and the other folds were not fitted. Its scores are
	// those of the first folds, at half the anchors where the race's
	// probe stopped it (see withProbe); it is never chosen.
	Raced bool `json:"raced,omitempty"`
	// KernelPenalty is how many times the penalty of a shallow
	// machine's linear part that of its kernel part was, at the same
	// cost, in the selections of earlier versions, which also scored the
	// kernel part penalised 10, 100 and 1000 times; their model files
	// still load. 0 means 1, as every candidate now has it.
	KernelPenalty float64 `json:"kernel_penalty,omitempty"`
	// evidence is a shallow candidate's negative log evidence per row
	// (see evidence), set if evidenced.
	evidence  float64
	evidenced bool
}

// problemData are the rows a machine is fitted to: inputs and either
// targets or labels. A regression fitted on another scale than the one it
// is judged on has fitY, the targets the machine learns, and back, which
// maps its predictions to the scale of y in place.
type problemData struct {
	x      mat.Matrix
	y      mat.Matrix
	labels []int
	fitY   mat.Matrix
	back   func(*mat.Dense)
	// w weighs the rows (mean 1), groups and times order the folds; each
	// may be nil.
	w      []float64
	groups []int
	times  []float64
	// jac is, for targets fitted on the log scale, each row's log of
	// the derivative of fitY by y, summed over the outputs: the
	// evidence of y is that of fitY plus their sum.
	jac []float64
}

// targets returns the targets the machine learns.
func (p problemData) targets() mat.Matrix {
	if p.fitY != nil {
		return p.fitY
	}
	return p.y
}

func (p problemData) rows(r []int) problemData {
	q := problemData{x: pickRows(p.x, r), back: p.back, w: pick(p.w, r), groups: pick(p.groups, r), times: pick(p.times, r), jac: pick(p.jac, r)}
	if p.y != nil {
		q.y = pickRows(p.y, r)
	}
	if p.fitY != nil {
		q.fitY = pickRows(p.fitY, r)
	}
	if p.labels != nil {
		q.labels = make([]int, len(r))
		for i, j := range r {
			q.labels[i] = p.labels[j]
		}
	}
	return q
}

// validation is the cross-validation that selections run: the rows it
// runs on, all of them or a seeded subsample of SelectionRows, and its
// folds over those rows.
type validation struct {
	rows     []int
	folds    []crossval.Fold
	k        int    // folds per split
	repeats  int    // splits, each on a new shuffle
	split    string // "", "grouped" or "forward"
	classify bool
}

// newValidation returns the cross-validation of Settings s for the data
// d: k-fold (stratified for a classifier), grouped by Settings.Groups or
// moving forward in Settings.Times; small sets repeat the k-fold split on
// new shuffles.
func newValidation(d problemData, s Settings) (*validation, error) {
	return validationOn(d, SelectionRows, s)
}

// shallowMaxRows caps the rows that the shallow machine's passes choose
// its settings on (see shallowRows).
const shallowMaxRows = 800

// shallowRows returns the number of rows, of n training rows, that the
// shallow machine's passes choose its settings on when its basis has
// width features (its inputs and anchors): half of them, at least
// SelectionRows (all of them below that) and at most shallowMaxRows. Its
// fits are closed-form, and settings chosen on SelectionRows rows smooth
// a table of thousands more than its rows need. A basis of SelectionRows
// features or more keeps SelectionRows rows: its solvers, in the span of
// the rows there, would grow with the cube of the rows. The deep
// machine's selection stays on SelectionRows rows.
func shallowRows(n, width int) int {
	if width >= SelectionRows {
		return min(n, SelectionRows)
	}
	return min(n, max(SelectionRows, min(n/2, shallowMaxRows)))
}

// forShallow returns the validation that the shallow machine's passes
// run on, for the data d that v validates: v itself, unless v runs on a
// shuffled subsample of fewer rows than shallowRows says. Grouped and
// forward folds keep v: the shallow machine is scored on them alone. The
// larger subsample draws its rows in the same order, so that it holds
// v's.
func (v *validation) forShallow(d problemData, s Settings) (*validation, error) {
	n, inputs := d.x.Dims()
	m := shallowRows(n, shallowWidth(n, inputs, s))
	if v.split != "" || len(v.rows) >= m {
		return v, nil
	}
	return validationOn(d, m, s)
}

// validationOn returns the validation of newValidation on at most rows
// of d's rows, a seeded subsample of a larger set.
func validationOn(d problemData, rows int, s Settings) (*validation, error) {
	n, _ := d.x.Dims()
	v := &validation{rows: numeric.Indices(n), classify: d.labels != nil}
	if n > rows {
		v.rows = rand.New(rand.NewPCG(s.Seed, anchorStream+1)).Perm(n)[:rows]
		slices.Sort(v.rows)
		d = d.rows(v.rows)
	}
	m := len(v.rows)
	v.k = s.FoldsFor(m)
	if m < v.k {
		return nil, fmt.Errorf("tabular: %d rows are too few for %d-fold cross-validation; fix the cost and the bandwidth or use fewer folds", m, v.k)
	}
	// Small sets repeat the cross-validation on new shuffles: one k-fold
	// split of a few dozen rows scores the settings too noisily to rank
	// them, and their fits are cheap.
	v.repeats = min(maxRepeats, max(1, repeatRows/m))
	if v.k == m {
		v.repeats = 1 // leave-one-out: every shuffle makes the same folds
	}
	switch {
	case d.groups != nil:
		v.split, v.repeats = "grouped", 1
		g := distinct(d.groups)
		v.k = s.FoldsFor(g)
		if g < v.k {
			return nil, fmt.Errorf("tabular: %d groups are too few for %d-fold grouped cross-validation", g, v.k)
		}
		v.folds = crossval.Grouped(d.groups, v.k, s.Seed)
		return v, nil
	case d.times != nil:
		v.split, v.repeats = "forward", 1
		v.k = s.FoldsFor(distinct(d.times) - 1) // k folds take k+1 blocks in time
		folds, err := crossval.Forward(d.times, v.k)
		if err != nil {
			return nil, fmt.Errorf("tabular: %w", err)
		}
		v.folds = folds
		return v, nil
	}
	for r := range uint64(v.repeats) {
		if d.labels != nil {
			v.folds = append(v.folds, crossval.Stratified(d.labels, v.k, s.Seed+r)...)
		} else {
			v.folds = append(v.folds, crossval.KFold(m, v.k, s.Seed+r)...)
		}
	}
	return v, nil
}

// FoldsFor returns the number of cross-validation folds on n rows, n
// groups or n+1 distinct times: Folds, or when Folds is 0, DefaultFolds,
// and n when that is fewer (leave-one-out on rows), so that a table of
// three rows is cross-validated too.
func (s Settings) FoldsFor(n int) int {
	if s.Folds > 0 {
		return s.Folds
	}
	return max(2, min(DefaultFolds, n))
}

// distinct returns the number of distinct values of x.
func distinct[T comparable](x []T) int {
	seen := map[T]bool{}
	for _, v := range x {
		seen[v] = true
	}
	return len(seen)
}

// restrict returns the variants on the validation's rows.
func (v *validation) restrict(variants []problemData) []problemData {
	n, _ := variants[0].x.Dims()
	if len(v.rows) == n {
		return variants
	}
	out := make([]problemData, len(variants))
	for i, d := range variants {
		out[i] = d.rows(v.rows)
	}
	return out
}

// header returns an empty Selection that describes the validation.
func (v *validation) header() *Selection {
	sel := &Selection{Folds: v.k, Repeats: v.repeats, Rows: len(v.rows), Split: v.split, Loss: "mse", Score: "r2"}
	if v.classify {
		sel.Loss, sel.Score = "log-loss", "accuracy"
	}
	return sel
}

// heldOut is a fold's loss and score.
type heldOut struct {
	loss, score float64
	diverged    bool
	// pred holds the predictions for the fold's test rows on the scale
	// the machine fits (before a log target is mapped back), and mean a
	// regression's mean of the training rows' targets on that scale,
	// which the fit learned them about.
	pred *mat.Dense
	mean []float64
}

// selectSettings scores every pair of costs and bandwidths of the deep
// machine's folds d, and the best setting of the shallow machine if not
// nil, on the folds of val, for each of d's variants of the data (the
// same rows, the targets on another scale), and returns the selection
// with the calibration of its best candidate. It waits for the fits of
// d's start, if any. When the shallow machine competes, the deep machine
// races it (see race): the shallow machine wins most of the panel's
// tables, and the deep machine's fits are most of the time of a
// selection.
func selectSettings(d *deepFolds, val *validation, s Settings, shallow *shallowFit) (*Selection, calibration, error) {
	sel := val.header()
	if s.Progress != nil {
		what := ""
		if len(d.variants) > 1 {
			what = ", targets on the linear and the log scale"
		}
		if sel.Repeats > 1 {
			what += fmt.Sprintf(", repeated %d times", sel.Repeats)
		}
		fmt.Fprintf(s.Progress, "tabular: choosing the cost and bandwidth among %d settings%s by %d-fold cross-validation on %d rows\n",
			len(d.costs)*len(d.bandwidths), what, sel.Folds, len(val.rows))
	}
	if shallow != nil {
		d.startAhead()
		defer d.stopAhead() // left running when the race fails
	}
	if err := d.wait(); err != nil {
		return nil, calibration{}, err
	}
	var shallowLosses, shallowScores []float64
	if shallow != nil {
		for f := range val.folds {
			h := shallow.heldOut(f)
			shallowLosses, shallowScores = append(shallowLosses, h.loss), append(shallowScores, h.score)
		}
	}
	folds, raced := len(val.folds), false
	if shallow != nil {
		var err error
		if folds, raced, err = d.race(val, shallowLosses, s.Progress); err != nil {
			return nil, calibration{}, err
		}
	} else if err := d.run(0, folds); err != nil {
		return nil, calibration{}, err
	}
	sel.Best = -1
	d.gather(sel, folds, raced)
	if shallow != nil {
		sel.add(shallow.sel.Candidates[shallow.sel.Best], shallowLosses, shallowScores, s.Progress)
	}
	if sel.Best < 0 {
		return nil, calibration{}, errors.New("tabular: cross-validation: no setting was scored on every fold: each diverged on some fold or was skipped over the budget")
	}
	if shallow != nil && !raced {
		shallow.deep = d.averageDeep(sel, shallow, val)
	}
	if sel.Candidates[sel.Best].Shallow {
		return sel, shallow.cal, nil
	}
	return sel, d.calibration(sel.Best), nil
}

// deepFolds are the deep machine's fits of a selection. One job fits one
// fold of one variant at one bandwidth along the costs from the smallest
// to the largest, each fit starting where the previous one ended: the
// most flexible machine first, then shrunk step by step. The warm start
// makes the larger costs cheap; the other direction, from the most
// regularised machine down, stays stuck near it (docs/learner.md).
type deepFolds struct {
	variants   []problemData
	folds      []crossval.Fold
	arch       kernel.Architecture
	costs      []float64
	bandwidths []float64
	path       []int // the costs from the smallest up
	s          Settings
	// out holds the held-out scores of job (v*len(bandwidths)+b)*len(folds)+f
	// at each cost, nil until fitted.
	out [][]heldOut
	// claimed marks the jobs that a run has taken, fitted or not.
	claimed []bool
	mu      sync.Mutex
	done    int
	last    time.Time
	// first, while the first fold is fitted in the background (see
	// start), receives the error of those fits; ahead likewise for the
	// second fold (see startAhead), whose fits stop once stop is set.
	first, ahead chan error
	stop         atomic.Bool
	// probe, if not nil, races first at probeAnchors (see withProbe).
	probe *deepFolds
}

// probeAnchors is the number of anchors of the race's probe, and
// probeSlack how much more the deep machine's loss must exceed the
// shallow machine's there than in the race itself for the probe to stop
// it (see withProbe).
const (
	probeAnchors = DeepAnchors / 2
	probeSlack   = 0.02
)

// withProbe returns d, which races the shallow machine, with a probe:
// the same folds at probeAnchors anchors, which the race fits first,
// through its first probeFolds folds, and which stops the race where the
// shallow machine leads by probeSlack more than the race's own margins
// there. Elsewhere the race runs at d's anchors as if there were no
// probe, so that its choices move only where the probe stops a race the
// full folds would have continued. Most races stop within probeFolds
// folds, and a fit at half the anchors costs about three fifths of one
// at DeepAnchors. Without the default anchors, or with no more than
// probeFolds folds in a split of k, d has no probe.
func (d *deepFolds) withProbe(k int) *deepFolds {
	if d.s.Anchors == 0 && k > probeFolds {
		s := d.s
		s.Anchors = probeAnchors
		d.probe = newDeepFolds(d.variants, d.folds, d.arch, d.costs, d.bandwidths, s)
	}
	return d
}

func newDeepFolds(variants []problemData, folds []crossval.Fold, arch kernel.Architecture, costs, bandwidths []float64, s Settings) *deepFolds {
	d := &deepFolds{variants: variants, folds: folds, arch: arch, costs: costs, bandwidths: bandwidths, s: s,
		path: numeric.Indices(len(costs)), last: time.Now()}
	slices.SortStableFunc(d.path, func(a, b int) int { return cmpFloat(costs[a], costs[b]) })
	d.out = make([][]heldOut, len(variants)*len(bandwidths)*len(folds))
	d.claimed = make([]bool, len(d.out))
	return d
}

// run fits, in parallel, the jobs of folds from to to-1 of every variant
// and bandwidth that no run has taken yet. Jobs not started by the
// deadline are left unfitted.
func (d *deepFolds) run(from, to int) error {
	return d.fit(d.claim(from, to), d.s.Workers, false, nil)
}

// claim returns the jobs of folds from to to-1 that no run has taken,
// and takes them.
func (d *deepFolds) claim(from, to int) []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	var jobs []int
	for job := range d.out {
		if f := job % len(d.folds); f >= from && f < to && !d.claimed[job] {
			d.claimed[job] = true
			jobs = append(jobs, job)
		}
	}
	return jobs
}

// fit fits jobs on workers goroutines; quiet ones report no progress
// (see report), and their fits end early, unfitted, once stop, if not
// nil, is set.
func (d *deepFolds) fit(jobs []int, workers int, quiet bool, stop *atomic.Bool) error {
	k, nb := len(d.folds), len(d.bandwidths)
	return parallel.Run(len(jobs), workers, func(i int) error {
		if d.s.deadline.After(time.Time{}) && time.Now().After(d.s.deadline) {
			return nil // over the budget: the job's candidates are skipped
		}
		job := jobs[i]
		b, f := job/k%nb, job%k
		a := d.arch
		a.Bandwidth = d.bandwidths[b]
		res, err := fitPath(d.variants[job/(k*nb)], d.folds[f], a, d.costs, d.path, d.s, uint64(job%(k*nb)), stop)
		if err != nil {
			return fmt.Errorf("tabular: cross-validation fold %d, bandwidth %g: %w", f+1, d.bandwidths[b], err)
		}
		d.out[job] = res
		d.report(quiet)
		return nil
	})
}

// start fits the first fold of every variant and bandwidth in the
// background, while the caller chooses the shallow machine: that fold is
// the race's first stage, a single fit when there is one variant and one
// bandwidth, which would leave the second core idle. The fits do not
// report progress, which the caller's writes would interleave with; wait
// returns their error.
func (d *deepFolds) start() {
	if d.probe != nil {
		d.probe.start()
		return
	}
	d.first = make(chan error, 1)
	jobs := d.claim(0, 1)
	go func() { d.first <- d.fit(jobs, d.s.Workers, true, nil) }()
}

// wait waits for the fits that start began, if any, and returns their
// error; d may be nil.
func (d *deepFolds) wait() error {
	if d == nil {
		return nil
	}
	if d.probe != nil {
		return d.probe.wait()
	}
	if d.first == nil {
		return nil
	}
	err := <-d.first
	d.first = nil
	return err
}

// startAhead fits the second fold in the background, on one goroutine,
// while the first fold that start began is still fitting beside it
// after the shallow machine's choice: the race fits the second fold
// next unless the first leaves the deep machine behind (then stopAhead
// ends it), and the second core would idle until then. The fits are the
// ones run would make.
func (d *deepFolds) startAhead() {
	if d.probe != nil {
		d.probe.startAhead()
		return
	}
	if d.first == nil || len(d.folds) < 2 {
		return
	}
	select {
	case err := <-d.first: // the first fold is fitted: nothing to overlap
		d.first <- err
		return
	default:
	}
	d.ahead = make(chan error, 1)
	jobs := d.claim(1, 2)
	go func() { d.ahead <- d.fit(jobs, 1, true, &d.stop) }()
}

// waitAhead waits for the fits that startAhead began, if any, and
// returns their error.
func (d *deepFolds) waitAhead() error {
	if d.ahead == nil {
		return nil
	}
	err := <-d.ahead
	d.ahead = nil
	return err
}

// stopAhead ends the fits that startAhead began, if any, and waits for
// them: the race will not use them.
func (d *deepFolds) stopAhead() {
	if d.probe != nil {
		d.probe.stopAhead()
	}
	if d.ahead != nil {
		d.stop.Store(true)
		_ = d.waitAhead() // the fits' error, if any, is of no use
	}
}

// report counts a finished job and writes the progress about once a
// second, but not for a quiet job, which fits in the background (see
// start) while the caller writes.
func (d *deepFolds) report(quiet bool) {
	if d.s.Progress == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done++; !quiet && time.Since(d.last) >= time.Second {
		d.last = time.Now()
		fmt.Fprintf(d.s.Progress, "tabular: cross-validation: %d of %d fits\n", d.done*len(d.costs), len(d.out)*len(d.costs))
	}
}

// gather adds the deep candidates to sel, scored on their first folds
// folds, Raced if raced, in the order variant, bandwidth, cost.
func (d *deepFolds) gather(sel *Selection, folds int, raced bool) {
	k := len(d.folds)
	losses, scores := make([]float64, folds), make([]float64, folds)
	for v, vd := range d.variants {
		for b, bw := range d.bandwidths {
			for c, cost := range d.costs {
				cand := Candidate{Cost: cost, Bandwidth: bw, LogTarget: vd.back != nil, Raced: raced}
				for f := range folds {
					job := d.out[(v*len(d.bandwidths)+b)*k+f]
					if job == nil {
						cand.Skipped = true
						continue
					}
					cand.Diverged = cand.Diverged || job[c].diverged
					losses[f], scores[f] = job[c].loss, job[c].score
				}
				sel.add(cand, losses, scores, d.s.Progress)
			}
		}
	}
}

// calibration returns the calibration of deep candidate i (in the order
// of gather), fitted to its held-out predictions.
func (d *deepFolds) calibration(i int) calibration {
	return calibrate(d.heldOutPreds(i))
}

// heldOutPreds returns the held-out predictions of deep candidate i on
// each fold, on the fit scale, the means its fits learned about (nil for
// a classifier) and the folds' held-out rows.
func (d *deepFolds) heldOutPreds(i int) (preds, means []*mat.Dense, parts []problemData) {
	k, nb, nc := len(d.folds), len(d.bandwidths), len(d.costs)
	v, b, c := i/(nb*nc), i/nc%nb, i%nc
	preds, means, parts = make([]*mat.Dense, k), make([]*mat.Dense, k), make([]problemData, k)
	for f := range k {
		h := d.out[(v*nb+b)*k+f][c]
		preds[f] = h.pred
		parts[f] = d.variants[v].rows(d.folds[f].Test)
		if h.mean != nil {
			means[f] = mat.NewDense(len(d.folds[f].Test), len(h.mean), nil)
			for i := range len(d.folds[f].Test) {
				means[f].SetRow(i, h.mean)
			}
		}
	}
	if d.variants[v].labels != nil {
		means = nil
	}
	return preds, means, parts
}

// raceMargin is how many standard errors the shallow machine must lead
// the best deep candidate by on the first of repeated splits for the
// others not to be fitted: the standard errors of the mean log ratio of
// their fold losses. Ratios, not differences: the folds of a few dozen
// rows differ in scale, and on one fold in five a deep fit may land far
// off, which the differences' standard error would take for noise; a deep
// machine ten times worse on every fold is clearly behind.
const raceMargin = 2.0

// probeFolds and probeMargin race the deep machine on every table: it is
// fitted on the first fold first, and on the next probeFolds-1 only if its
// best candidate's loss there is at most 1 + firstMargin times the shallow
// machine's; then on the others only if its best candidate's loss summed
// over the first probeFolds folds is at most 1 + probeMargin times the
// shallow machine's. Most deep fits of a selection lose, and the first
// folds tell most of them apart; the wins a margin of 0 after probeFolds
// folds gives up were ties within 1%. docs/learner-panel.md has the
// replays of the panels' selections that chose these values.
const (
	probeFolds  = 3
	probeMargin = 0.0
	firstMargin = 0.03
)

// race fits the deep machine's folds in stages while the shallow machine,
// of held-out losses shallow, may leave it behind: the first fold, then
// the first probeFolds folds (see probeMargin), then the rest of the
// first split, then, on repeated splits, the others (see raceMargin). A
// probe, if d has one (see withProbe), races its first probeFolds folds
// first. It returns the number of folds fitted and whether the deep
// machine was left behind before the last.
func (d *deepFolds) race(val *validation, shallow []float64, progress io.Writer) (int, bool, error) {
	if probe := d.probe; probe != nil {
		d.probe = nil
		folds, behind, err := probe.stages(val, shallow, probeSlack, probeFolds, progress)
		probe.stopAhead()
		if err != nil || behind {
			d.out = probe.out // the raced candidates' record: the probe's losses
			return folds, behind, err
		}
		// Past the probe, the race passes its first stages too, most of
		// the time: their folds are fitted at once, in parallel.
		if err := d.run(0, probeFolds); err != nil {
			return 0, false, err
		}
	}
	return d.stages(val, shallow, 0, len(val.folds), progress)
}

// stages races the folds up to last (see race), the deep machine left
// behind where the shallow machine leads by the race's margins, plus
// slack in the stages before the last fold of the first split.
func (d *deepFolds) stages(val *validation, shallow []float64, slack float64, last int, progress io.Writer) (int, bool, error) {
	k, all, from := val.k, len(val.folds), 0
	for _, to := range []int{1, min(probeFolds, k), k, all} {
		if to <= from {
			continue
		}
		if to > last {
			break
		}
		if err := d.run(from, to); err != nil {
			return 0, false, err
		}
		if to > 1 {
			if err := d.waitAhead(); err != nil {
				return 0, false, err
			}
		}
		from = to
		if to == all {
			break
		}
		probe, margin := to < k, probeMargin+slack
		if to == 1 {
			margin = firstMargin + slack
		}
		if probe && shallowAhead(d.out, shallow, to, all, len(d.costs), margin) || !probe && shallowLeads(d.out, shallow, to, all, len(d.costs)) {
			d.stopAhead()
			if progress != nil {
				why := fmt.Sprintf("more than %g standard errors on the first split", raceMargin)
				if probe {
					why = fmt.Sprintf("more than %g%% on the first %d folds", 100*margin, to)
				}
				if slack > 0 {
					why += fmt.Sprintf(" at %d anchors", d.s.Anchors)
				}
				fmt.Fprintf(progress, "tabular: the shallow machine leads the deep one by %s; the others are not fitted\n", why)
			}
			return to, true, nil
		}
	}
	return from, false, nil
}

// bestDeep returns the job and the cost of the deep candidate of lowest
// loss summed over folds 0 to k0-1, among the fits out that hold a job
// per variant, bandwidth and fold of k, each scored at costs costs, with
// that sum; job -1 if none was fitted on all of them without diverging.
func bestDeep(out [][]heldOut, k0, k, costs int) (job, cost int, loss float64) {
	job, loss = -1, math.Inf(1)
	for j := 0; j < len(out); j += k {
		for c := range costs {
			var sum float64
			for f := range k0 {
				if h := out[j+f]; h == nil || h[c].diverged {
					sum = math.Inf(1)
					break
				}
				sum += out[j+f][c].loss
			}
			if sum < loss {
				job, cost, loss = j, c, sum
			}
		}
	}
	return job, cost, loss
}

// shallowAhead reports whether the shallow machine, of held-out losses
// shallow on folds 0 to k0-1, is ahead of every deep candidate there by
// more than margin of its loss.
func shallowAhead(out [][]heldOut, shallow []float64, k0, k, costs int, margin float64) bool {
	job, _, deep := bestDeep(out, k0, k, costs)
	var sum float64
	for _, v := range shallow[:k0] {
		sum += v
	}
	return job >= 0 && deep > (1+margin)*sum
}

// shallowLeads reports whether the shallow machine, of held-out losses
// shallow on folds 0 to k0-1, leads the best deep candidate there: a
// lower mean loss, and a mean log ratio of the deep candidate's losses to
// the shallow machine's more than raceMargin standard errors above 0. The deep
// fits out hold a job per variant, bandwidth and fold of k, each scored
// at every cost.
func shallowLeads(out [][]heldOut, shallow []float64, k0, k, costs int) bool {
	job, c, _ := bestDeep(out, k0, k, costs)
	if job < 0 {
		return false
	}
	ratios := make([]float64, k0)
	var behind float64
	for f := range k0 {
		deep := out[job+f][c].loss
		behind += deep - shallow[f]
		ratios[f] = math.Log(max(deep, minRaceLoss) / max(shallow[f], minRaceLoss))
	}
	mean, std := stat.MeanStdDev(ratios, nil)
	return behind > 0 && mean > raceMargin*std/math.Sqrt(float64(k0))
}

// minRaceLoss bounds the losses below in the race's ratios, which a
// perfect fold would make infinite.
const minRaceLoss = 1e-12

// add appends cand with the mean and standard deviation of its fold
// losses and scores, unless it diverged or was skipped, makes it the best
// if its loss is the lowest so far, and reports it to progress, if not
// nil.
func (sel *Selection) add(cand Candidate, losses, scores []float64, progress io.Writer) {
	if !cand.Diverged && !cand.Skipped {
		cand.Loss, cand.LossStd = meanStd(losses)
		cand.Score, cand.ScoreStd = meanStd(scores)
		if !cand.Raced && (sel.Best < 0 || cand.Loss < sel.Candidates[sel.Best].Loss) {
			sel.Best = len(sel.Candidates)
		}
	}
	sel.Candidates = append(sel.Candidates, cand)
	if progress != nil {
		fmt.Fprintf(progress, "tabular: %s: %s\n", cand.setting(), cand.scores(sel))
	}
}

// meanStd returns the mean and the sample standard deviation of x, 0
// for a single value.
func meanStd(x []float64) (mean, std float64) {
	if len(x) == 1 {
		return x[0], 0
	}
	return stat.MeanStdDev(x, nil)
}

// setting describes the candidate's settings for the progress lines.
func (c Candidate) setting() string {
	s := fmt.Sprintf("cost %g, bandwidth %g", c.Cost, c.Bandwidth)
	if c.KernelPenalty != 0 {
		s += fmt.Sprintf(", kernel penalty %g times", c.KernelPenalty)
	}
	if c.Shallow {
		s = "shallow " + s
	}
	if c.LogTarget {
		s += ", log target"
	}
	return s
}

// scores describes the candidate's scores for the progress lines.
func (c Candidate) scores(sel *Selection) string {
	switch {
	case c.Diverged:
		return "diverged"
	case c.Skipped:
		return "skipped: over the budget"
	case c.Raced:
		return fmt.Sprintf("on the first split %s %.4g ± %.2g, %s %.4g ± %.2g; not fitted on the others", sel.Loss, c.Loss, c.LossStd, sel.Score, c.Score, c.ScoreStd)
	}
	return fmt.Sprintf("%s %.4g ± %.2g, %s %.4g ± %.2g", sel.Loss, c.Loss, c.LossStd, sel.Score, c.Score, c.ScoreStd)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// errStopped ends the fits of a fold that the race no longer needs (see
// deepFolds.startAhead).
var errStopped = errors.New("tabular: the fold's fits were stopped")

// fitPath fits the training part of a fold at the costs in the order of
// path, warm-starting each fit from the previous one, and returns the
// held-out loss and score at each cost (indexed like costs). It returns
// errStopped once stop, if not nil, is set.
func fitPath(d problemData, fold crossval.Fold, arch kernel.Architecture, costs []float64, path []int, s Settings, job uint64, stop *atomic.Bool) ([]heldOut, error) {
	train, test := d.rows(fold.Train), d.rows(fold.Test)
	nt, inputs := train.x.Dims()
	chosen := anchorRows(Deep, train.x, s, s.Seed+job)
	var span *inputSpan
	if wide(nt, inputs) {
		var err error
		if span, err = newInputSpan(train.x.(*mat.Dense)); err != nil {
			return nil, err
		}
		train.x, test.x = span.coords(), span.reduce(test.x.(*mat.Dense))
	}
	anchors := pickRows(train.x, chosen)
	p := kernel.Problem{X: train.x, Y: train.targets(), Labels: train.labels}
	if len(chosen) < nt {
		p.Anchors = chosen
	}
	// A regression's fit learns the targets about their mean on its own
	// training rows, as the final fit learns them about the mean of all
	// the rows: the held-out rows' targets do not enter the prediction.
	var offset []float64
	if p.Y != nil {
		offset = weightedMean(p.Y, nil, float64(nt))
		centred := mat.DenseCopyOf(p.Y)
		centred.Apply(func(_, j int, v float64) float64 { return v - offset[j] }, centred)
		p.Y = centred
	}
	out := make([]heldOut, len(costs))
	var params []float64
	for _, c := range path {
		p.Cost = costs[c]
		o, err := kernel.NewObjective(arch, p)
		if err != nil {
			return nil, err
		}
		if params == nil {
			params = initial(o, span, arch, len(chosen), rand.New(rand.NewPCG(s.Seed+job, initStream)))
		}
		settings := s.deepOptim()
		settings.MaxIter, settings.LossTol = selectionMaxIter, selectionLossTol
		if stop != nil {
			settings.Iteration = func(int, float64, []float64) error {
				if stop.Load() {
					return errStopped
				}
				return nil
			}
		}
		r, err := optim.Minimize(o.Func, params, settings)
		var diverged *optim.DivergedError
		switch {
		case errors.As(err, &diverged):
			out[c].diverged = true
			params = nil // start the next cost afresh
			continue
		case err != nil:
			return nil, err
		}
		params = r.X
		pred := o.Machine(params, anchors).Predict(nil, test.x)
		if offset != nil {
			pred.Apply(func(_, j int, v float64) float64 { return v + offset[j] }, pred)
		}
		raw := mat.DenseCopyOf(pred)
		if d.back != nil {
			d.back(pred)
		}
		out[c] = heldOutOf(pred, test)
		out[c].pred, out[c].mean = raw, offset
	}
	return out, nil
}

// heldOutOf returns the loss and score of predictions pred on held-out
// rows d: for regression the mean squared error (averaged over outputs)
// and R^2 (likewise); for classification the mean log-loss of the softmax
// of pred and the accuracy.
func heldOutOf(pred *mat.Dense, d problemData) heldOut {
	n, k := pred.Dims()
	w := d.w
	if w == nil {
		w = make([]float64, n)
		for i := range w {
			w[i] = 1
		}
	}
	total := floats.Sum(w)
	if d.labels == nil {
		var mse, r2 float64
		for j := range k {
			yj := mat.Col(nil, j, d.y)
			mean := stat.Mean(yj, w)
			var sse, sst float64
			for i, v := range yj {
				sse += w[i] * (pred.At(i, j) - v) * (pred.At(i, j) - v)
				sst += w[i] * (v - mean) * (v - mean)
			}
			mse += sse / total
			if sst > 0 {
				r2 += 1 - sse/sst
			}
		}
		return heldOut{loss: mse / float64(k), score: r2 / float64(k)}
	}
	var loss float64
	for i, l := range d.labels {
		row := pred.RawRowView(i)
		top := floats.MaxIdx(row)
		// log(sum exp(row)) - row[l], shifted by the top score to stay finite.
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - row[top])
		}
		loss += w[i] * (math.Log(sum) + row[top] - row[l])
	}
	return heldOut{loss: loss / total, score: accuracy(pred, d)}
}

// accuracy returns the share of the held-out rows d (weighted) whose
// label has the highest of their scores pred, the first on a tie.
func accuracy(pred *mat.Dense, d problemData) float64 {
	var correct float64
	for i, l := range d.labels {
		if floats.MaxIdx(pred.RawRowView(i)) == l {
			correct += weight(d.w, i)
		}
	}
	return correct / sumOr(d.w, len(d.labels))
}
