package tabular

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Solve fits the plan's machine to the rows that acc adds up: the ridge
// regression on the features of every row, in closed form, with the
// sample's calibration and intervals, bounded to the range of every
// row's targets. Its cost is the sample's, or, when acc holds out at
// least 1,000 rows and fits as many, the one of StreamCosts of lowest
// squared error on those held-out rows when fitted to the others
// (Report.HeldOutCost). A plan with more anchors than its sample's fit
// chooses their count there too, among the counts that streamCounts
// gives, in order: a count is kept while its lowest held-out error
// falls below the count's before by more than growMargin of it, as
// growAnchors keeps a count in memory, and 1,600 is tried only where
// worthTrying says. The choice takes one eigendecomposition of each
// count's Gram matrix, kept as its factors (numeric.SymSpectrum), which
// gives the fit of every cost; the fit of all the rows at the cost
// chosen is a Cholesky factorisation (solutionAt). With the sample's
// cost and anchors it is the fit that Fit makes of the same rows with
// the plan's anchors and settings, up to rounding. The Report warns of
// what encoding the rows met that the sample's encoding never did
// (Stats.Log), and of a regression target whose range reaches far beyond
// its sample's values, as a typo the sample missed does (see farBound).
func (p *Plan) Solve(acc *Stats) (*Model, *Report, error) {
	if err := p.check(acc); err != nil {
		return nil, nil, err
	}
	if acc.HeldOut != nil {
		if err := p.check(acc.HeldOut); err != nil {
			return nil, nil, fmt.Errorf("held out: %w", err)
		}
	}
	if acc.Rows == 0 || !(acc.Weight > 0) {
		return nil, nil, errors.New("tabular: no row with a target and a weight above 0 was added to the stats")
	}
	count, cost, toC := p.base(), p.model.Fit.Cost, p.toC
	var hc *HeldOutCost
	if h := acc.HeldOut; h != nil && h.Rows >= heldOutMin && acc.Rows-h.Rows >= heldOutMin && h.Weight > 0 && acc.Weight > h.Weight {
		var err error
		if hc, toC, err = p.chooseAnchors(acc); err != nil {
			return nil, nil, err
		}
		count, cost = hc.Anchors, hc.Costs[floats.MinIdx(hc.Losses)]
	}
	d := p.inputs()
	beta, intercept, err := p.solutionAt(acc.all().prefix(d+count), toC, cost)
	if err != nil {
		return nil, nil, err
	}
	m := p.model.Machine
	anchors := m.Anchors
	if count != p.base() {
		anchors = p.anchors().Slice(0, count, 0, d).(*mat.Dense)
	}
	// The linear features are the inputs as they are (see linearFactor):
	// a streamed table has more than 5 rows per input unless it has
	// thousands of inputs.
	b := &shallowBasis{sigma: m.Bandwidth, inputs: d, lin: 1, toC: toC}
	km, intercept := b.machineOf(beta, intercept, anchors, p.cal)
	fitted := &Machine{Machine: km, Quantiles: m.Quantiles, Input: m.Input, Output: withIntercept(p.out, intercept), LogTarget: m.LogTarget}
	if m.Range != nil && acc.Low != nil {
		fitted.Range = widenedRange(mat.NewDense(2, len(acc.Low), slices.Concat(acc.Low, acc.High)))
	}
	md := *p.model
	fr := *md.Fit
	fr.Rows, fr.Dropped, fr.Cost, fr.Anchors = acc.Rows, acc.Dropped, cost, count
	md.Fit, md.Machine = &fr, fitted
	rep := p.report
	rep.Rows, rep.Dropped, rep.HeldOutCost, rep.Result.Cost, rep.Result.Anchors = acc.Rows, acc.Dropped, hc, cost, count
	rep.Warnings = slices.Concat(readWarnings(acc), p.encodeWarnings(acc), farWarnings(p.far, acc.Low, acc.High, md.TargetNames()))
	if hc != nil {
		// The held-out rows chose the cost, not the sample's leave-one-out.
		rep.Result.CostRows = 0
	}
	rep.Training = Evaluation{Task: md.Task, Rows: acc.Rows, Notes: []string{"not measured: the rows were added up without being kept"}}
	return &md, &rep, nil
}

// check reports why s, decoded perhaps, are not stats of the plan.
func (p *Plan) check(s *Stats) error {
	width, k := p.Width(), p.Outputs()
	switch {
	case len(s.Z) != width || len(s.ZZ) != width*width || len(s.ZY) != width*k || len(s.Y) != k || len(s.YY) != k:
		return fmt.Errorf("tabular: stats of %d features and %d outputs for a plan of %d and %d", len(s.Z), len(s.Y), width, k)
	case s.Low != nil && (len(s.Low) != k || len(s.High) != k):
		return fmt.Errorf("tabular: stats of the ranges of %d targets for a plan of %d", len(s.Low), k)
	case s.Log != nil && s.Log.Columns() != len(p.model.Encoder.Features()):
		return fmt.Errorf("tabular: stats of the encoding of %d columns for a plan of %d", s.Log.Columns(), len(p.model.Encoder.Features()))
	case s.Rows < 0 || s.Dropped < 0 || s.Weight < 0 || s.ReadMore < 0:
		return fmt.Errorf("tabular: stats of %d rows, %d dropped, of weight %v, %d warnings left out", s.Rows, s.Dropped, s.Weight, s.ReadMore)
	}
	return nil
}

// inputs returns the number of the machine's inputs.
func (p *Plan) inputs() int {
	_, d := p.model.Machine.Anchors.Dims()
	return d
}

// fits returns the solutions, beta (features by outputs) and the
// intercept, of the ridge regression of the rows that acc adds up, the
// sums of the features of the plan's first anchors whose basis is toC,
// at each of the costs, as ridge.solution makes them of the rows
// themselves.
func (p *Plan) fits(acc *Stats, toC *mat.Dense, costs []float64) ([]*mat.Dense, [][]float64, error) {
	return p.normal(acc, toC).fits(acc.Rows, costs)
}

// solutionAt returns beta (features by outputs) and the intercept of
// the ridge regression at one cost of the rows that acc adds up, as
// fits makes them, from a Cholesky factorisation of the Gram matrix
// plus rows times cost rather than its eigendecomposition, which only
// the choice of the cost needs: up to rounding and the directions of
// eigenvalues below eigenFloor, which fits leaves out and this shrinks
// by the cost. Where rounding makes the penalised matrix not positive
// definite, as a cost too small for the features' scale may, it is
// fits's solution.
func (p *Plan) solutionAt(acc *Stats, toC *mat.Dense, cost float64) (*mat.Dense, []float64, error) {
	n := p.normal(acc, toC)
	nc := float64(acc.Rows) * cost
	for i := range n.gram.SymmetricDim() {
		n.gram.SetSym(i, i, n.gram.At(i, i)+nc)
	}
	if chol, ok := lapack64.Potrf(n.gram.RawSymmetric()); ok {
		beta := mat.DenseCopyOf(n.zy)
		lapack64.Potrs(chol, beta.RawMatrix())
		r := &ridge{mean: n.mean}
		return beta, r.intercept(projection{mean: n.dy}, beta), nil
	}
	// The factorisation overwrote the Gram matrix.
	betas, intercepts, err := p.fits(acc, toC, []float64{cost})
	if err != nil {
		return nil, nil, err
	}
	return betas[0], intercepts[0], nil
}

// normalSums are the sums of a ridge regression, in the features that
// it fits (see Plan.toBasis): the Gram matrix of the features about
// their mean, their products with the targets about theirs, the
// features' mean and the targets' mean.
type normalSums struct {
	gram     *mat.SymDense
	zy       *mat.Dense
	mean, dy []float64
}

// normal returns the sums of the ridge regression of the rows that acc
// adds up, the sums of the features of the plan's first anchors whose
// basis is toC. The weights are scaled to mean 1, as Fit scales them.
func (p *Plan) normal(acc *Stats, toC *mat.Dense) *normalSums {
	width, k := len(acc.Z), p.Outputs()
	scale := float64(acc.Rows) / acc.Weight
	dz := make([]float64, width) // the rows' mean, less the shift
	mean := make([]float64, width)
	for j := range dz {
		dz[j] = acc.Z[j] / acc.Weight
		mean[j] = p.shift[j] + dz[j]
	}
	dy := make([]float64, k)
	for j := range dy {
		dy[j] = acc.Y[j] / acc.Weight
	}
	gram := mat.NewDense(width, width, nil)
	for i := range width {
		for j := i; j < width; j++ {
			v := scale * (acc.ZZ[i*width+j] - acc.Weight*dz[i]*dz[j])
			gram.Set(i, j, v)
			gram.Set(j, i, v)
		}
	}
	zy := mat.NewDense(width, k, nil)
	zy.Apply(func(i, j int, _ float64) float64 {
		return scale * (acc.ZY[i*k+j] - acc.Weight*dz[i]*dy[j])
	}, zy)
	// The sums are of the kernel's values at the anchors; the ridge
	// regression's features are their coordinates in the anchors' basis.
	t := p.toBasis(toC)
	_, q := t.Dims()
	var tg, g mat.Dense
	mul(&tg, t.T(), gram)
	mul(&g, &tg, t)
	sym := mat.NewSymDense(q, nil)
	for i := range q {
		for j := i; j < q; j++ {
			sym.SetSym(i, j, (g.At(i, j)+g.At(j, i))/2)
		}
	}
	n := &normalSums{gram: sym, zy: new(mat.Dense), mean: make([]float64, q), dy: dy}
	mul(n.zy, t.T(), zy)
	mat.NewVecDense(q, n.mean).MulVec(t.T(), mat.NewVecDense(width, mean))
	return n
}

// fits returns the solutions, beta and the intercept, of the ridge
// regression of the sums n of the given rows at each of the costs: from
// one eigendecomposition of their Gram matrix, kept as its factors,
// which maps the targets' products and the solutions of every cost to
// and from its eigenbasis without forming its eigenvectors.
func (n *normalSums) fits(rows int, costs []float64) ([]*mat.Dense, [][]float64, error) {
	sp, ok := numeric.NewSymSpectrum(n.gram)
	if !ok {
		return nil, nil, errors.New("tabular: eigendecomposition of the features' Gram matrix failed")
	}
	r := &ridge{rows: rows, mean: n.mean, e: sp.Values}
	top := slices.Max(r.e)
	for i, v := range r.e {
		if !(v > eigenFloor*top) || math.IsNaN(v) {
			r.e[i] = 0
		}
	}
	pr := projection{mean: n.dy, t: sp.ToEigen(n.zy)}
	q, k := pr.t.Dims()
	coef := mat.NewDense(q, k*len(costs), nil)
	for i, c := range costs {
		coef.Slice(0, q, i*k, (i+1)*k).(*mat.Dense).Copy(r.coefficients(pr, c))
	}
	all := sp.FromEigen(coef)
	betas, intercepts := make([]*mat.Dense, len(costs)), make([][]float64, len(costs))
	for i := range costs {
		betas[i] = mat.DenseCopyOf(all.Slice(0, q, i*k, (i+1)*k))
		intercepts[i] = r.intercept(pr, betas[i])
	}
	return betas, intercepts, nil
}

// heldOutMin is the fewest held-out rows, and rows to fit, on which
// Solve chooses the cost.
const heldOutMin = 1000

// StreamCosts returns the costs among which Solve chooses on the rows
// held out: the shallow machine's costs and smaller ones, down to 1e-10, since the
// more rows there are the less a machine needs the penalty. Each call
// returns a fresh slice.
func StreamCosts() []float64 {
	return append([]float64{1e-10, 3e-10, 1e-9, 3e-9, 1e-8, 3e-8, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5}, shallowCosts()...)
}

// HeldOutCost is how Solve chose the cost, and the count of anchors,
// on the rows that the stats held out.
type HeldOutCost struct {
	// Rows are the held-out rows; Costs the costs tried and Losses their
	// mean squared errors there, on the scale the machine fits, at the
	// count of anchors chosen.
	Rows          int
	Costs, Losses []float64
	// Sample is the cost the plan's sample chose.
	Sample float64
	// Anchors is the count of anchors chosen; Counts are the counts
	// tried, in order, and CountLosses their lowest mean squared errors
	// on the held-out rows; nil for a plan of one count.
	Anchors     int
	Counts      []int     `json:",omitempty"`
	CountLosses []float64 `json:",omitempty"`
}

// counts returns the counts of the plan's anchors among which Solve
// chooses: the sample's fit's, then ShallowAnchors's doublings above it
// and below the plan's anchors, then all of them (see streamCounts).
func (p *Plan) counts() []int {
	base, all := p.base(), p.Anchors()
	counts := []int{base}
	for m := 2 * ShallowAnchors; m < all; m *= 2 {
		if m > base {
			counts = append(counts, m)
		}
	}
	if all > base {
		counts = append(counts, all)
	}
	return counts
}

// chooseAnchors returns how Solve chooses the count of anchors and the
// cost on the rows that acc holds out, and the basis of the count
// chosen.
func (p *Plan) chooseAnchors(acc *Stats) (*HeldOutCost, *mat.Dense, error) {
	counts := p.counts()
	var tried []*HeldOutCost
	var bases []*mat.Dense
	i, err := stepCounts(counts, func(m int) (float64, error) {
		toC := p.toC
		if m != p.base() {
			var err error
			if toC, err = p.basis(m); err != nil {
				return 0, err
			}
		}
		hc, err := p.chooseCost(acc, m, toC)
		if err != nil {
			return 0, err
		}
		tried, bases = append(tried, hc), append(bases, toC)
		return hc.Losses[floats.MinIdx(hc.Losses)], nil
	})
	if err != nil {
		return nil, nil, err
	}
	best := tried[i]
	if len(counts) > 1 {
		for _, hc := range tried {
			best.Counts, best.CountLosses = append(best.Counts, hc.Anchors), append(best.CountLosses, hc.Losses[floats.MinIdx(hc.Losses)])
		}
	}
	return best, bases[i], nil
}

// stepCounts returns the index of the count of anchors that Solve keeps
// among counts, try returning the lowest held-out loss of each: it tries
// them in order, and keeps each whose loss falls below the loss of the
// count kept before it by more than growMargin of it, as lossFall asks
// in memory, and stops at the first it does not keep or that
// worthTrying does not try, or at an error of try. It tries the first
// always and keeps it.
func stepCounts(counts []int, try func(m int) (float64, error)) (int, error) {
	kept, fall := 0, math.Inf(1) // the count kept last and the relative fall of its loss
	best, err := try(counts[0])
	if err != nil {
		return 0, err
	}
	for i := 1; i < len(counts) && worthTrying(counts[i], fall); i++ {
		loss, err := try(counts[i])
		if err != nil {
			return 0, err
		}
		if !(loss < (1-growMargin)*best) {
			break
		}
		kept, fall, best = i, (best-loss)/best, loss
	}
	return kept, nil
}

// chooseCost returns the cost of StreamCosts whose machine on the
// plan's first m anchors, whose basis is toC, fitted to the rows of acc
// less those it holds out, has the lowest squared error on those.
func (p *Plan) chooseCost(acc *Stats, m int, toC *mat.Dense) (*HeldOutCost, error) {
	w := p.inputs() + m
	all := acc.prefix(w)
	h := all.HeldOut
	train := *all
	train.Rows, train.Weight, train.HeldOut = acc.Rows-h.Rows, acc.Weight-h.Weight, nil
	hc := &HeldOutCost{Rows: h.Rows, Costs: StreamCosts(), Sample: p.model.Fit.Cost, Anchors: m}
	betas, intercepts, err := p.fits(&train, toC, hc.Costs)
	if err != nil {
		return nil, err
	}
	t := p.toBasis(toC)
	for i, beta := range betas {
		var bu mat.Dense
		mul(&bu, t, beta)
		hc.Losses = append(hc.Losses, h.loss(&bu, intercepts[i], p.shift[:w])/h.Weight)
	}
	return hc, nil
}

// prefix returns the stats of the first w features of s, and of its
// held-out rows: s itself when it has w.
func (s *Stats) prefix(w int) *Stats {
	width := len(s.Z)
	if w == width {
		return s
	}
	k := len(s.Y)
	q := *s
	q.Z, q.ZY, q.ZZ = s.Z[:w], s.ZY[:w*k], make([]float64, w*w)
	for i := range w {
		copy(q.ZZ[i*w:(i+1)*w], s.ZZ[i*width:i*width+w])
	}
	if s.HeldOut != nil {
		q.HeldOut = s.HeldOut.prefix(w)
	}
	return &q
}

// all returns the stats of every row of s: its sums plus those it holds
// out.
func (s *Stats) all() *Stats {
	h := s.HeldOut
	if h == nil {
		return s
	}
	a := *s
	a.HeldOut = nil
	a.Z, a.ZZ, a.ZY, a.Y, a.YY = added(s.Z, h.Z), added(s.ZZ, h.ZZ), added(s.ZY, h.ZY), added(s.Y, h.Y), added(s.YY, h.YY)
	return &a
}

// added returns a + b, of the same length.
func added(a, b []float64) []float64 {
	return floats.AddTo(make([]float64, len(a)), a, b)
}

// loss returns the weighted sum over the rows of s of the squared
// errors, summed over the outputs, of the predictions b + z beta of
// their features z (beta: features by outputs), whose sums s holds
// less shift.
func (s *Stats) loss(beta *mat.Dense, b, shift []float64) float64 {
	width, k := beta.Dims()
	var sum float64
	for j := range k {
		col := mat.Col(nil, j, beta)
		c := b[j] + floats.Dot(shift, col)
		var zy, quad float64
		for i, v := range col {
			zy += v * s.ZY[i*k+j]
			quad += v * v * s.ZZ[i*width+i]
			for l := i + 1; l < width; l++ {
				quad += 2 * v * col[l] * s.ZZ[i*width+l]
			}
		}
		sum += s.YY[j] - 2*(c*s.Y[j]+zy) + c*c*s.Weight + 2*c*floats.Dot(col, s.Z) + quad
	}
	return sum
}
