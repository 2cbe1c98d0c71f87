package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parametric-machines/machines/crossval"

	"gonum.org/v1/gonum/mat"
)

// A shallow machine has dims [d, k]: its first block is the standardised
// input itself (A_0 = I), and its output is a linear part plus one level of
// Gaussians on the anchors,
//
//	h_1 = W x + sum_j K(x, s_j) c_j.
//
// With A_0 fixed the loss, mean squared error plus cost * (|W|^2 + the RKHS
// norm), is a ridge regression on the features [x, psi(x)], where psi maps
// x to the coordinates of K(x, .) in an orthonormal basis of the anchors'
// span, so its minimiser and its leave-one-out residuals at every cost
// follow from one eigendecomposition per bandwidth.

// shallowBasis holds, for one bandwidth, the features Z = [X, Psi] of the
// training rows and the eigendecomposition Z^T Z = V diag(e) V^T, from
// which the fit and the leave-one-out residuals at every cost follow.
type shallowBasis struct {
	sigma  float64
	inputs int
	z      *mat.Dense // n x p: the inputs, then the anchor features
	toC    *mat.Dense // m x r: the anchor coefficients c = toC * beta_psi
	e      []float64  // eigenvalues of Z^T Z, p
	zv     *mat.Dense // Z V, n x p
	zv2    *mat.Dense // its squared entries
	v      *mat.Dense // V, p x p
}

// eigenFloor is the relative size below which eigenvalues of the anchors'
// kernel matrix are dropped: their directions are numerically in the span
// of the others, and keeping them would divide by rounding errors.
const eigenFloor = 1e-10

// newShallowBasis returns the basis of bandwidth sigma for the rows of x
// (standardised inputs) and the anchors, rows of x.
func newShallowBasis(x *mat.Dense, anchors *mat.Dense, sigma float64) (*shallowBasis, error) {
	n, d := x.Dims()
	m, _ := anchors.Dims()
	kmm := mat.NewSymDense(m, nil)
	gamma := 1 / (2 * sigma * sigma)
	kern := func(u, v []float64) float64 { return math.Exp(-gamma * sqDistance(u, v)) }
	for i := range m {
		for j := i; j < m; j++ {
			kmm.SetSym(i, j, kern(anchors.RawRowView(i), anchors.RawRowView(j)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(kmm, true) {
		return nil, errors.New("kernel: eigendecomposition of the anchors' kernel matrix failed")
	}
	vals := eig.Values(nil)
	var u mat.Dense
	eig.VectorsTo(&u)
	top := slices.Max(vals)
	var keep []int
	for i, v := range vals {
		if v > eigenFloor*top {
			keep = append(keep, i)
		}
	}
	r := len(keep)
	toC := mat.NewDense(m, r, nil)
	for k, i := range keep {
		s := 1 / math.Sqrt(vals[i])
		for a := range m {
			toC.Set(a, k, u.At(a, i)*s)
		}
	}
	knm := mat.NewDense(n, m, nil)
	for i := range n {
		row := knm.RawRowView(i)
		xi := x.RawRowView(i)
		for j := range m {
			row[j] = kern(xi, anchors.RawRowView(j))
		}
	}
	p := d + r
	z := mat.NewDense(n, p, nil)
	z.Slice(0, n, 0, d).(*mat.Dense).Copy(x)
	z.Slice(0, n, d, p).(*mat.Dense).Mul(knm, toC)
	gram := mat.NewSymDense(p, nil)
	gram.SymOuterK(1, z.T())
	if !eig.Factorize(gram, true) {
		return nil, errors.New("kernel: eigendecomposition of the features' Gram matrix failed")
	}
	b := &shallowBasis{sigma: sigma, inputs: d, z: z, toC: toC, e: eig.Values(nil), v: new(mat.Dense)}
	for i, v := range b.e {
		b.e[i] = max(v, 0)
	}
	eig.VectorsTo(b.v)
	b.zv = new(mat.Dense)
	b.zv.Mul(z, b.v)
	b.zv2 = new(mat.Dense)
	b.zv2.MulElem(b.zv, b.zv)
	return b, nil
}

func sqDistance(u, v []float64) float64 {
	var s float64
	for i, a := range u {
		e := a - v[i]
		s += e * e
	}
	return s
}

// project returns V^T Z^T y, the targets in the eigenbasis, p x k.
func (b *shallowBasis) project(y mat.Matrix) *mat.Dense {
	var t mat.Dense
	t.Mul(b.zv.T(), y)
	return &t
}

// weights returns 1/(e + n cost) for the eigenvalues.
func (b *shallowBasis) weights(cost float64) []float64 {
	n, _ := b.z.Dims()
	w := make([]float64, len(b.e))
	for i, e := range b.e {
		w[i] = 1 / (e + float64(n)*cost)
	}
	return w
}

// looPredictions writes to dst (n x k) the leave-one-out predictions at
// the given cost for the targets y, whose projection is t. It returns
// false if some row's leverage is 1, where leaving it out is undefined.
func (b *shallowBasis) looPredictions(dst *mat.Dense, y mat.Matrix, t *mat.Dense, cost float64) bool {
	w := b.weights(cost)
	var wt mat.Dense
	wt.Apply(func(i, _ int, v float64) float64 { return w[i] * v }, t)
	dst.Mul(b.zv, &wt) // the fitted values
	var h mat.VecDense
	h.MulVec(b.zv2, mat.NewVecDense(len(w), w))
	n, k := dst.Dims()
	for i := range n {
		slack := 1 - h.AtVec(i)
		if !(slack > 1e-12) {
			return false
		}
		for j := range k {
			yij := y.At(i, j)
			dst.Set(i, j, yij-(yij-dst.At(i, j))/slack)
		}
	}
	return true
}

// machine returns the shallow machine fitted to the targets (projection
// t) at the given cost, with the anchors' inputs as anchors.
func (b *shallowBasis) machine(t *mat.Dense, cost float64, anchors *mat.Dense, cal calibration) *Machine {
	w := b.weights(cost)
	var wt, beta mat.Dense
	wt.Apply(func(i, _ int, v float64) float64 { return w[i] * v }, t)
	beta.Mul(b.v, &wt) // p x k
	cal.apply(&beta, cal.residuals == nil)
	d := b.inputs
	p, k := beta.Dims()
	a := mat.NewDense(d+k, d, nil)
	for i := range d {
		a.Set(i, i, 1)
	}
	a.Slice(d, d+k, 0, d).(*mat.Dense).Copy(beta.Slice(0, d, 0, k).T())
	m, _ := anchors.Dims()
	c := mat.NewDense(k, m, nil)
	c.Mul(beta.Slice(d, p, 0, k).T(), b.toC.T())
	return &Machine{Architecture: Architecture{Dims: []int{d, k}, Bandwidth: b.sigma}, A: a, C: c, Anchors: mat.DenseCopyOf(anchors)}
}

// medianDistance returns the median distance between distinct rows of
// x, or 1 if they all coincide.
func medianDistance(x *mat.Dense) float64 {
	n, _ := x.Dims()
	var ds []float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			if v := sqDistance(x.RawRowView(i), x.RawRowView(j)); v > 0 {
				ds = append(ds, v)
			}
		}
	}
	if len(ds) == 0 {
		return 1
	}
	slices.Sort(ds)
	return math.Sqrt(ds[len(ds)/2])
}

var _ = fmt.Sprint

// The shallow machine's candidates: every cost of ShallowCosts at every
// bandwidth of ShallowBandwidths times the median distance between the
// anchors (standardised inputs). The package documentation says how they
// were chosen.
var (
	ShallowCosts      = []float64{1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3, 10, 30, 100}
	ShallowBandwidths = []float64{0.25, 0.35, 0.5, 0.71, 1, 1.41, 2, 4, 8}
)

// shallowFit is the outcome of the shallow selection: its candidates and
// what refits the best.
type shallowFit struct {
	sel        *Selection
	best       Candidate
	basis      *shallowBasis
	t          *mat.Dense
	outputs    int
	anchors    *mat.Dense
	anchorRows []int
	cal        calibration
}

// selectShallow scores the shallow machine at every cost of ShallowCosts
// and every bandwidth of ShallowBandwidths times the median distance
// between the anchors, on each scale of the targets tried, by the exact
// leave-one-out residuals, and keeps the best with its calibration.
func selectShallow(p *prepared, outputs int, s Settings) (*shallowFit, error) {
	variants := p.variants()
	x := mat.DenseCopyOf(variants[0].x)
	n, _ := x.Dims()
	anchorRows := seedAnchors(x, allRows(n), anchorCount(n, s.Anchors), rand.New(rand.NewPCG(s.Seed, anchorStream)))
	anchors := pickRows(x, anchorRows)
	med := medianDistance(anchors)
	sel := &Selection{Folds: n, Repeats: 1, Rows: n, Loss: "mse", Score: "r2", Best: -1}
	if variants[0].labels != nil {
		sel.Loss, sel.Score = "log-loss", "accuracy"
	}
	for _, f := range ShallowBandwidths {
		b, err := newShallowBasis(x, anchors, f*med)
		if err != nil {
			return nil, err
		}
		for _, v := range variants {
			y, t := b.targets(v, outputs)
			_, k := y.Dims()
			pred := mat.NewDense(n, k, nil)
			for _, c := range ShallowCosts {
				cand := Candidate{Cost: c, Bandwidth: f * med, LogTarget: v.back != nil, Shallow: true}
				if !b.looPredictions(pred, y, t, c) {
					cand.Diverged = true
				} else {
					if v.labels != nil {
						// Classifiers are judged with calibrated
						// scores: least squares scores are not logits.
						pred.Scale(fitLogitScale(pred, v.labels), pred)
					}
					if v.back != nil {
						v.back(pred)
					}
					h := evaluate(pred, v)
					cand.Loss, cand.Score = h.loss, h.score
					if sel.Best < 0 || cand.Loss < sel.Candidates[sel.Best].Loss {
						sel.Best = len(sel.Candidates)
					}
				}
				sel.Candidates = append(sel.Candidates, cand)
			}
		}
	}
	if sel.Best < 0 {
		return nil, errors.New("kernel: leave-one-out: every setting of the shallow machine diverged")
	}
	if s.Progress != nil {
		best := sel.Candidates[sel.Best]
		fmt.Fprintf(s.Progress, "kernel: leave-one-out over %d settings of the shallow machine chose %s: %s\n", len(sel.Candidates), best.setting(), best.scores(sel))
	}
	return newShallowFit(sel, variants, outputs, anchors, anchorRows)
}

// newShallowFit rebuilds the basis of the best candidate of sel and
// calibrates it on its leave-one-out predictions.
func newShallowFit(sel *Selection, variants []problemData, outputs int, anchors *mat.Dense, anchorRows []int) (*shallowFit, error) {
	best := sel.Candidates[sel.Best]
	x := mat.DenseCopyOf(variants[0].x)
	n, _ := x.Dims()
	b, err := newShallowBasis(x, anchors, best.Bandwidth)
	if err != nil {
		return nil, err
	}
	v := variants[0]
	if best.LogTarget {
		v = variants[len(variants)-1]
	}
	y, t := b.targets(v, outputs)
	_, k := y.Dims()
	pred := mat.NewDense(n, k, nil)
	b.looPredictions(pred, y, t, best.Cost)
	return &shallowFit{sel: sel, best: best, basis: b, t: t, outputs: outputs, anchors: anchors, anchorRows: anchorRows,
		cal: calibrate([]*mat.Dense{pred}, []problemData{v})}, nil
}

// result returns the fitted shallow machine and res completed for it.
func (f *shallowFit) result(p *prepared, res Result, begin time.Time) (*Machine, Result, error) {
	classify := p.linear.labels != nil
	m := f.basis.machine(f.t, f.best.Cost, f.anchors, f.cal)
	m.Input, m.Output, m.LogTarget = p.in, p.scaling(f.best.LogTarget), f.best.LogTarget
	res.Dims, res.Cost, res.Bandwidth, res.LogTarget = m.Dims, f.best.Cost, f.best.Bandwidth, f.best.LogTarget
	res.Anchors, res.Shallow = len(f.anchorRows), true
	res.Converged, res.Status = true, "closed form"
	res.Calibration = f.cal.record(classify)
	res.Seconds = time.Since(begin).Seconds()
	return m, res, nil
}

// targets returns the targets the machine fits for v, one-hot labels for
// a classifier, and their projection on the basis.
func (b *shallowBasis) targets(v problemData, outputs int) (mat.Matrix, *mat.Dense) {
	y := v.targets()
	if v.labels != nil {
		y = oneHot(v.labels, outputs)
	}
	return y, b.project(y)
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

// heldOut fits the chosen setting to the training rows of a fold and
// returns its loss and score on the test rows; rows maps the fold's rows,
// which index v, to the rows of the basis.
func (f *shallowFit) heldOut(v problemData, rows []int, fold crossval.Fold) heldOut {
	b := f.basis
	_, p := b.z.Dims()
	ztr := pickRows(b.z, pick(rows, fold.Train))
	zte := pickRows(b.z, pick(rows, fold.Test))
	train, test := v.rows(fold.Train), v.rows(fold.Test)
	y := train.targets()
	if v.labels != nil {
		y = oneHot(train.labels, f.outputs)
	}
	gram := mat.NewSymDense(p, nil)
	gram.SymOuterK(1, ztr.T())
	nt := float64(len(fold.Train))
	for i := range p {
		gram.SetSym(i, i, gram.At(i, i)+nt*f.best.Cost)
	}
	var chol mat.Cholesky
	if !chol.Factorize(gram) {
		return heldOut{diverged: true}
	}
	var zty, beta, pred mat.Dense
	zty.Mul(ztr.T(), y)
	if err := chol.SolveTo(&beta, &zty); err != nil {
		return heldOut{diverged: true}
	}
	pred.Mul(zte, &beta)
	f.cal.apply(&pred, v.labels != nil)
	if v.back != nil {
		v.back(&pred)
	}
	return evaluate(&pred, test)
}

func pick(rows, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}

// calibration is what the held-out predictions of the chosen setting say
// about it: how much to shrink a regression's predictions towards the
// mean, or by what factor to scale a classifier's scores, and the
// absolute residuals that conformal intervals are made of.
type calibration struct {
	// factor multiplies the machine's outputs on the scale it fits: the
	// logit scale of a classifier (softmax(factor * scores) has the
	// lowest held-out log-loss), or the shrinkage of a regression.
	factor []float64
	// residuals holds, for each output of a regression, the sorted
	// absolute held-out residuals on the fit scale after the factor.
	residuals [][]float64
}

// calibrate returns the calibration of held-out predictions preds (on the
// fit scale) of the rows of parts.
func calibrate(preds []*mat.Dense, parts []problemData) calibration {
	_, k := preds[0].Dims()
	var all mat.Dense
	var labels []int
	var ys []mat.Matrix
	for i, p := range preds {
		if i == 0 {
			all.CloneFrom(p)
		} else {
			var st mat.Dense
			st.Stack(&all, p)
			all.CloneFrom(&st)
		}
		labels = append(labels, parts[i].labels...)
		if parts[i].labels == nil {
			ys = append(ys, parts[i].targets())
		}
	}
	if labels != nil {
		return calibration{factor: []float64{fitLogitScale(&all, labels)}}
	}
	y := mat.DenseCopyOf(ys[0])
	for _, m := range ys[1:] {
		var st mat.Dense
		st.Stack(y, m)
		y = &st
	}
	n, _ := all.Dims()
	c := calibration{factor: make([]float64, k), residuals: make([][]float64, k)}
	for j := range k {
		f := 1.0
		var py, pp float64
		for i := range n {
			py += all.At(i, j) * y.At(i, j)
			pp += all.At(i, j) * all.At(i, j)
		}
		if pp > 0 {
			f = math.Max(0, math.Min(1, py/pp))
		}
		c.factor[j] = f
		r := make([]float64, n)
		for i := range n {
			r[i] = math.Abs(y.At(i, j) - f*all.At(i, j))
		}
		slices.Sort(r)
		c.residuals[j] = r
	}
	return c
}

// apply multiplies the outputs pred on the fit scale by the factors.
func (c calibration) record(classify bool) Calibration {
	if classify {
		return Calibration{LogitScale: c.factor[0]}
	}
	return Calibration{Shrinkage: c.factor, Residuals: c.residuals}
}

func (c calibration) apply(pred *mat.Dense, classify bool) {
	pred.Apply(func(_, j int, v float64) float64 {
		if classify {
			return v * c.factor[0]
		}
		return v * c.factor[j]
	}, pred)
}

// scaleOutputs multiplies the output block of m by the factors: the rows
// of A and C that make it.
func (c calibration) scaleOutputs(m *Machine, classify bool) {
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
