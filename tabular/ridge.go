package tabular

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/internal/matmul"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
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

// shallowInputs holds what the bases of every bandwidth share: the
// rows' linear features (their standardised inputs times the linear
// factor), the anchors, their squared distances, and the linear
// features' Gram matrix when the features may outnumber the rows.
type shallowInputs struct {
	x, anchors *mat.Dense
	toAnchors  *mat.Dense    // n x m: squared distances from the rows to the anchors
	between    *mat.Dense    // m x m: between the anchors
	xx         *mat.SymDense // x x^T if the inputs and the anchors outnumber the rows, else nil
	lin        float64       // the linear factor: x is the inputs times lin
	// laplacian says the kernel is the Laplacian: toAnchors and between
	// then hold the distances' sums of absolute differences.
	laplacian bool
}

// linearFactor returns the factor of the shallow machine's linear
// features on n training rows of d inputs, as encoded: 1/sqrt(d) on a
// wide table (at most wideRowsPerInput rows per input), else 1. Its
// linear part W x is then penalised d times more than its kernel part,
// and its kernel x.x'/d has a mean diagonal of 1 on standardised
// inputs, as the Gaussians' has, rather than d. Penalised alike, the d
// coefficients of a wide table's linear part outweighed the kernel
// part, and the selection chose a large cost to tame them that smoothed
// the kernel part too; on narrower tables the factor lost as much as it
// gained (docs/learner-panel.md).
func linearFactor(n, d int) float64 {
	if d == 0 || n > wideRowsPerInput*d {
		return 1
	}
	return 1 / math.Sqrt(float64(d))
}

// newShallowInputs returns the shared part of the bases for the rows x
// and the anchors, the linear features being x times lin (see
// linearFactor), for the Laplacian kernel or the Gaussian.
func newShallowInputs(x, anchors *mat.Dense, lin float64, laplacian bool) *shallowInputs {
	n, d := x.Dims()
	m, _ := anchors.Dims()
	in := &shallowInputs{x: x, anchors: anchors, toAnchors: mat.NewDense(n, m, nil), between: mat.NewDense(m, m, nil), lin: lin, laplacian: laplacian}
	for i := range m {
		for j := i; j < m; j++ {
			v := kernelDistance(anchors.RawRowView(i), anchors.RawRowView(j), in.laplacian)
			in.between.Set(i, j, v)
			in.between.Set(j, i, v)
		}
	}
	for i := range n {
		row, xi := in.toAnchors.RawRowView(i), x.RawRowView(i)
		for j := range m {
			row[j] = kernelDistance(xi, anchors.RawRowView(j), in.laplacian)
		}
	}
	if lin != 1 {
		in.x = mat.DenseCopyOf(x)
		in.x.Scale(lin, in.x)
	}
	if wide(n, d+m) {
		in.xx = gram(in.x)
	}
	return in
}

// shallowBasis holds, for one bandwidth, the features Z = [X, Psi] of the
// training rows, or their coordinates in the span of those rows when the
// features outnumber the rows, and the map from the coefficients of Psi
// to those of the anchors.
type shallowBasis struct {
	sigma     float64
	laplacian bool
	inputs    int
	lin       float64    // the linear factor of the inputs in z (see linearFactor)
	z         *mat.Dense // n x p: the inputs, then the anchor features; or their coordinates
	toC       *mat.Dense // m x r: the anchor coefficients c = toC * beta_psi
	// span, if not nil, is the span of the features [X, Psi] whose
	// coordinates z holds, and x and psi are those features.
	span   *rowSpan
	x, psi *mat.Dense
	// all is the solver of all the rows, with the weights of the
	// selection that built the basis: leave-one-out and the folds that
	// part the rows are scored from it.
	all *ridge
}

// ridge solves, on some rows of a basis with weights w_i, the ridge
// regression with an intercept: it minimises
//
//	sum_i w_i (y_i - b - z_i beta)^2 + n cost |beta|^2
//
// over the intercept b, which the penalty leaves free, and beta, at every
// cost from one eigendecomposition of the rows' weighted Gram matrix
// about their weighted mean, Zc^T W Zc = V diag(e) V^T. The intercept
// is the fit's own: each fit of the selection, on the rows it is given,
// learns it from them, as the final machine learns it from all the rows.
type ridge struct {
	rows  int
	mean  []float64 // the rows' weighted mean, one entry per feature
	e     []float64 // the eigenvalues, those below eigenFloor times the largest set to 0
	v     *mat.Dense
	zv    *mat.Dense // Zc V, one row per row
	w     []float64  // the rows' weights, nil for 1
	total float64    // their sum
}

// projection is a set of targets as a ridge solver sees them: their
// weighted mean over the rows, and V^T Zc^T W (y - mean).
type projection struct {
	mean []float64
	t    *mat.Dense // p x k
}

// significantEigen returns the eigenvalues and eigenvectors of g, named
// what in the error if the decomposition fails, and the indices of the
// eigenvalues above eigenFloor times the largest: the others are rounding
// errors.
func significantEigen(g *mat.SymDense, what string) (vals []float64, u *mat.Dense, keep []int, err error) {
	vals, u, ok := numeric.EigenSym(g)
	if !ok {
		return nil, nil, nil, fmt.Errorf("tabular: eigendecomposition of %s failed", what)
	}
	top := slices.Max(vals)
	for i, v := range vals {
		if v > eigenFloor*top {
			keep = append(keep, i)
		}
	}
	return vals, u, keep, nil
}

// eigenFloor is the relative size below which eigenvalues of a Gram
// matrix are dropped, and the pivot at which the factorisation of the
// anchors' kernel matrix (of diagonal 1) stops: their directions are
// numerically in the span of the others, and keeping them would divide
// by rounding errors.
const eigenFloor = 1e-10

// newShallowBasis returns the basis of bandwidth sigma for the rows and
// anchors of in, its kernel features multiplied by weight: 1, or 0 for
// the linear machine (see hedgeLinear). On the features [lin x, weight
// psi] the ridge penalty is cost (|W|^2 / lin^2 + the RKHS norm /
// weight^2). The map to the anchors' coefficients takes the weight in,
// and the machine's linear part the linear factor lin, so that the
// machine fitted has the usual form. Its Gaussians are numeric.NegExp's,
// as the machine's own (package ad) and the streamed fit's: several at
// a time, within a few ulp of math.Exp.
func newShallowBasis(in *shallowInputs, sigma, weight float64) (*shallowBasis, error) {
	n, _ := in.x.Dims()
	gamma := kernelGamma(sigma, in.laplacian)
	toC, err := anchorBasis(in.between, gamma)
	if err != nil {
		return nil, err
	}
	toC.Scale(weight, toC)
	_, r := toC.Dims()
	knm := mat.DenseCopyOf(in.toAnchors)
	numeric.NegExp(knm.RawMatrix().Data, gamma) // n x m, contiguous
	psi := mat.NewDense(n, r, nil)
	mul(psi, knm, toC)
	return basisOf(in, sigma, toC, psi)
}

// basisOf returns the basis of bandwidth sigma on the rows of in whose
// kernel features are psi and whose map to the anchors' coefficients is
// toC.
func basisOf(in *shallowInputs, sigma float64, toC, psi *mat.Dense) (*shallowBasis, error) {
	n, d := in.x.Dims()
	_, r := psi.Dims()
	b := &shallowBasis{sigma: sigma, inputs: d, lin: in.lin, toC: toC, laplacian: in.laplacian}
	if in.xx != nil && wide(n, d+r) {
		// The coordinates are those of the rows about their mean, which
		// the intercept makes free: the leave-one-out solver of the
		// unweighted rows is then diagonal in them.
		g := mat.NewSymDense(n, nil)
		g.SymOuterK(1, psi)
		g.AddSym(g, in.xx)
		sp, err := newRowSpan(centred(g))
		if err != nil {
			return nil, err
		}
		b.z, b.span, b.x, b.psi = sp.coords, sp, in.x, psi
		return b, nil
	}
	b.z = mat.NewDense(n, d+r, nil)
	b.z.Slice(0, n, 0, d).(*mat.Dense).Copy(in.x)
	b.z.Slice(0, n, d, d+r).(*mat.Dense).Copy(psi)
	return b, nil
}

// anchorBasis returns the map from the coordinates of the anchors'
// features in an orthonormal basis of their span to the anchors'
// coefficients, for the anchors' squared distances between and the
// kernel exp(-gamma d^2). The Cholesky factorisation of their kernel
// matrix with complete pivoting, P^T K P = U^T U, stops at the first
// pivot below eigenFloor: the anchors left then have features in the
// span of the others up to rounding errors. The rows of the pivot
// anchors are U^-1, which makes their features orthonormal (U^-T K U^-1
// = I on them), and the others' are 0. It costs a fraction of an
// eigendecomposition of the kernel matrix, which would span the same
// features. Its Gaussians are numeric.NegExp's, as the basis's.
func anchorBasis(between *mat.Dense, gamma float64) (*mat.Dense, error) {
	m, _ := between.Dims()
	k := mat.DenseCopyOf(between)
	numeric.NegExp(k.RawMatrix().Data, gamma) // m x m, contiguous
	kmm := mat.NewSymDense(m, k.RawMatrix().Data)
	piv := make([]int, m)
	t, rank, _ := lapack64.Pstrf(kmm.RawSymmetric(), piv, eigenFloor, make([]float64, 2*m))
	if rank == 0 {
		return nil, errors.New("tabular: the anchors' kernel matrix is 0")
	}
	u := mat.NewTriDense(rank, mat.Upper, nil)
	for i := range rank {
		for j := i; j < rank; j++ {
			u.SetTri(i, j, t.Data[i*t.Stride+j])
		}
	}
	if err := u.InverseTri(u); err != nil {
		return nil, fmt.Errorf("tabular: the anchors' kernel matrix: %w", err)
	}
	toC := mat.NewDense(m, rank, nil)
	for k := range rank {
		row := toC.RawRowView(piv[k])
		for j := k; j < rank; j++ {
			row[j] = u.At(k, j)
		}
	}
	return toC, nil
}

// features returns the coefficients of the features [X, Psi] and the
// intercept of the fit whose coefficients of the basis's coordinates
// are beta (p x k), with the intercept b.
func (b *shallowBasis) features(beta *mat.Dense, intercept []float64) (*mat.Dense, []float64) {
	if b.span == nil {
		return beta, intercept
	}
	// The coordinates are those of the features less their mean mu over
	// the rows, Q^T (z - mu) with Q = (Z - mu)^T inv, so that the fit is
	// b + (z - mu)^T Q beta, whose coefficients of z are (Z - mu)^T
	// inv beta.
	var alpha mat.Dense
	mul(&alpha, b.span.inv, beta)
	n, d := b.x.Dims()
	_, r := b.psi.Dims()
	_, k := beta.Dims()
	mean := weightedMean(&alpha, nil, float64(n))
	alpha.Apply(func(_, j int, v float64) float64 { return v - mean[j] }, &alpha)
	out := mat.NewDense(d+r, k, nil)
	mul(out.Slice(0, d, 0, k).(*mat.Dense), b.x.T(), &alpha)
	mul(out.Slice(d, d+r, 0, k).(*mat.Dense), b.psi.T(), &alpha)
	mu := slices.Concat(weightedMean(b.x, nil, float64(n)), weightedMean(b.psi, nil, float64(n)))
	shifted := slices.Clone(intercept)
	for j := range k {
		shifted[j] -= floats.Dot(mu, mat.Col(nil, j, out))
	}
	return out, shifted
}

// centred returns the Gram matrix of the rows about their mean, P g P
// with P = I - 1 1^T / n, from their Gram matrix g.
func centred(g *mat.SymDense) *mat.SymDense {
	n := g.SymmetricDim()
	rowMean := make([]float64, n)
	for i := range n {
		for j := range n {
			rowMean[i] += g.At(i, j)
		}
		rowMean[i] /= float64(n)
	}
	all := floats.Sum(rowMean) / float64(n)
	c := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			c.SetSym(i, j, g.At(i, j)-rowMean[i]-rowMean[j]+all)
		}
	}
	return c
}

// ridge returns the solver on the listed rows of the basis (nil: all)
// with weights w (nil: 1), one per listed row.
func (b *shallowBasis) ridge(rows []int, w []float64) (*ridge, error) {
	if b.span != nil && rows == nil && w == nil {
		// The coordinates of all the rows about their mean, which is
		// 0: their Gram matrix is diag(lambda).
		n, q := b.z.Dims()
		return &ridge{rows: n, mean: make([]float64, q), e: slices.Clone(b.span.values), v: identity(q), zv: b.z, total: float64(n)}, nil
	}
	r := &ridge{w: w, zv: new(mat.Dense)}
	zc, gram := r.centre(b.z, rows)
	var ok bool
	if r.e, r.v, ok = numeric.EigenSym(gram); !ok {
		return nil, errors.New("tabular: eigendecomposition of the features' Gram matrix failed")
	}
	top := slices.Max(r.e)
	for i, v := range r.e {
		if !(v > eigenFloor*top) {
			r.e[i] = 0 // rounding errors: the rows have no extent there
		}
	}
	mul(r.zv, zc, r.v)
	return r, nil
}

// centre sets r's rows, total weight and mean from the listed rows of z
// (nil: all), with r's weights, and returns those rows about the mean,
// Zc, and their weighted Gram matrix Zc^T W Zc.
func (r *ridge) centre(z *mat.Dense, rows []int) (*mat.Dense, *mat.SymDense) {
	if rows != nil {
		z = pickRows(z, rows)
	}
	n, p := z.Dims()
	r.rows, r.total = n, float64(n)
	if r.w != nil {
		r.total = floats.Sum(r.w)
	}
	r.mean = weightedMean(z, r.w, r.total)
	zc := mat.NewDense(n, p, nil)
	for i := range n {
		row := zc.RawRowView(i)
		for j, v := range z.RawRowView(i) {
			row[j] = v - r.mean[j]
		}
	}
	zw := zc
	if r.w != nil {
		zw = mat.NewDense(n, p, nil)
		zw.Apply(func(i, _ int, v float64) float64 { return v * math.Sqrt(r.w[i]) }, zc)
	}
	gram := mat.NewSymDense(p, nil)
	matmul.Gram(zw.RawMatrix(), gram.RawSymmetric())
	return zc, gram
}

// solutionAt returns beta (p x k) and the intercept of the ridge
// regression of the targets y of the listed rows of the basis (nil:
// all) with weights w (nil: 1) at one cost, from a Cholesky
// factorisation of Zc^T W Zc + rows cost I rather than the eigenvectors
// that every cost and leave-one-out need: what ridge and solution
// return, up to rounding and the directions of eigenvalues below
// eigenFloor, which solution leaves out and this shrinks by cost. The
// cost must be positive.
func (b *shallowBasis) solutionAt(rows []int, w []float64, y mat.Matrix, cost float64) (*mat.Dense, []float64, error) {
	if !(cost > 0) {
		panic("tabular: solutionAt needs a positive cost")
	}
	r := &ridge{w: w}
	zc, gram := r.centre(b.z, rows)
	if rows != nil {
		y = pickRows(y, rows)
	}
	_, p := zc.Dims()
	nc := float64(r.rows) * cost
	for i := range p {
		gram.SetSym(i, i, gram.At(i, i)+nc)
	}
	pr := projection{mean: weightedMean(y, w, r.total)}
	wy := mat.DenseCopyOf(y)
	wy.Apply(func(i, j int, v float64) float64 { return r.weight(i) * (v - pr.mean[j]) }, wy)
	beta := new(mat.Dense)
	mul(beta, zc.T(), wy)
	chol, ok := lapack64.Potrf(gram.RawSymmetric())
	if !ok {
		return nil, nil, errors.New("tabular: Cholesky factorisation of the features' penalised Gram matrix failed")
	}
	lapack64.Potrs(chol, beta.RawMatrix())
	return beta, r.intercept(pr, beta), nil
}

// identity returns the n x n identity matrix.
func identity(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// weightedMean returns the mean of the rows of z with weights w (nil:
// 1) of sum total.
func weightedMean(z mat.Matrix, w []float64, total float64) []float64 {
	n, p := z.Dims()
	mean := make([]float64, p)
	d, dense := z.(*mat.Dense)
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if dense { // the same sums, without a call per entry
			for j, v := range d.RawRowView(i) {
				mean[j] += wi * v
			}
			continue
		}
		for j := range p {
			mean[j] += wi * z.At(i, j)
		}
	}
	floats.Scale(1/total, mean)
	return mean
}

// sqDistance returns the squared distance between u and v, of the same
// length: the sum of the squared differences, without the scaling that
// guards floats.Distance's norm against overflow, which its square would
// undo.
func sqDistance(u, v []float64) float64 {
	v = v[:len(u)]
	var s float64
	for i, ui := range u {
		d := ui - v[i]
		s += d * d
	}
	return s
}

// project returns the projection of the targets y of the rows.
func (r *ridge) project(y mat.Matrix) projection {
	pr := projection{mean: weightedMean(y, r.w, r.total)}
	wy := mat.DenseCopyOf(y)
	wy.Apply(func(i, j int, v float64) float64 {
		if r.w != nil {
			return r.w[i] * (v - pr.mean[j])
		}
		return v - pr.mean[j]
	}, wy)
	pr.t = new(mat.Dense)
	mul(pr.t, r.zv.T(), wy)
	return pr
}

// coefficients returns the solution beta at the given cost for the
// targets of projection pr, in the eigenbasis: diag(1/(e + n cost)) t,
// and 0 where e is 0 and the rows say nothing.
func (r *ridge) coefficients(pr projection, cost float64) *mat.Dense {
	nc := float64(r.rows) * cost
	return r.filtered(pr, func(e float64) float64 { return 1 / (e + nc) })
}

// filtered returns diag(f(e)) t for the targets of projection pr, 0
// where e is 0.
func (r *ridge) filtered(pr projection, f func(e float64) float64) *mat.Dense {
	var c mat.Dense
	c.Apply(func(i, _ int, v float64) float64 {
		if r.e[i] == 0 {
			return 0
		}
		return v * f(r.e[i])
	}, pr.t)
	return &c
}

// interpolates reports whether the features and the intercept fit any
// targets of the solver's rows exactly at cost 0: they span as many
// directions as there are rows.
func (r *ridge) interpolates() bool {
	rank := 1 // the intercept
	for _, e := range r.e {
		if e > 0 {
			rank++
		}
	}
	return rank >= r.rows
}

// solution returns beta (p x k) and the intercept at the given cost for
// the targets of projection pr.
func (r *ridge) solution(pr projection, cost float64) (*mat.Dense, []float64) {
	var beta mat.Dense
	mul(&beta, r.v, r.coefficients(pr, cost))
	return &beta, r.intercept(pr, &beta)
}

// intercept returns the intercept of the solution beta (p x k) about the
// solver's mean and the targets' mean pr.mean: mean_y - mean beta.
func (r *ridge) intercept(pr projection, beta *mat.Dense) []float64 {
	b := slices.Clone(pr.mean)
	for j := range b {
		b[j] -= mat.Dot(mat.NewVecDense(len(r.mean), r.mean), beta.ColView(j))
	}
	return b
}

// inBasis returns the rows zt of the basis about the solver's mean, in
// its eigenbasis: (zt - mean) V, what predict takes. Predicting from them
// costs a product with the p x k coefficients per cost instead of
// forming beta = V coefficients, p x p times p x k, first.
func (r *ridge) inBasis(zt *mat.Dense) *mat.Dense {
	var ztv mat.Dense
	zc := mat.DenseCopyOf(zt)
	zc.Apply(func(_, j int, v float64) float64 { return v - r.mean[j] }, zc)
	mul(&ztv, zc, r.v)
	return &ztv
}

// predict returns the predictions at the given cost for rows of the basis
// given by inBasis (nil: the solver's own rows): beta = V coefficients and
// the intercept mean_y - mean beta make them (zt - mean) V coefficients +
// mean_y.
func (r *ridge) predict(ztv *mat.Dense, pr projection, cost float64) *mat.Dense {
	if ztv == nil {
		ztv = r.zv
	}
	var pred mat.Dense
	mul(&pred, ztv, r.coefficients(pr, cost))
	pred.Apply(func(_, j int, v float64) float64 { return v + pr.mean[j] }, &pred)
	return &pred
}

// leaveOneOut holds what the leave-one-out predictions of a solver's
// rows for targets y, whose projection is pr, share at every cost: the
// fit at cost 0 and each row's part of 1 - h_i that the features cannot
// fit (see predictions). A selection scores each at 13 costs.
type leaveOneOut struct {
	r      *ridge
	y      mat.Matrix
	pr     projection
	fitted *mat.Dense // the fit at cost 0, less the mean; nil when the features interpolate
	unfit  []float64  // 1 - w_i / sum(w) - sum_j w_i zv_ij^2 / e_j; nil when they interpolate
}

// leaveOneOut returns the parts of the leave-one-out predictions of the
// solver's rows for the targets y, of projection pr, that no cost
// changes.
func (r *ridge) leaveOneOut(y mat.Matrix, pr projection) *leaveOneOut {
	n, _ := r.zv.Dims()
	l := &leaveOneOut{r: r, y: y, pr: pr}
	if r.interpolates() {
		return l
	}
	inv := make([]float64, len(r.e)) // 1/e, 0 where e is 0
	for j, e := range r.e {
		if e > 0 {
			inv[j] = 1 / e
		}
	}
	l.fitted = new(mat.Dense)
	mul(l.fitted, r.zv, r.filtered(pr, func(e float64) float64 { return 1 / e }))
	l.unfit = l.shrunk(make([]float64, n), inv)
	for i, fit := range l.unfit {
		wi := r.weight(i)
		l.unfit[i] = 1 - wi/r.total - wi*fit
	}
	return l
}

// predictions writes to dst (n x k) the leave-one-out predictions at
// the given cost: each row's prediction by the fit to the other rows
// (with the same penalty n cost |beta|^2, and an intercept of their
// own), y_i - r_i / (1 - h_i) from the residual r_i of the fit to all
// the rows and the leverage
//
//	h_i = w_i / sum(w) + w_i zc_i^T (Zc^T W Zc + n cost I)^-1 zc_i,
//
// which is exact. Near interpolation, where a wide table's rows are
// fitted almost exactly at a small cost, both r_i and 1 - h_i are
// differences of nearly equal numbers, and their ratio would be
// rounding errors over rounding errors. Each is computed instead as the
// sum of two terms that are not: the part that the features cannot fit
// at all, exactly 0 when they interpolate the rows, and what the penalty
// leaves of the rest,
//
//	r_i = (y_i - mean - sum_j zv_ij t_j / e_j) + sum_j zv_ij t_j n cost / (e_j (e_j + n cost)),
//	1 - h_i = (1 - w_i / sum(w) - sum_j w_i zv_ij^2 / e_j) + sum_j w_i zv_ij^2 n cost / (e_j (e_j + n cost)).
//
// The first terms are l's, computed once for every cost. It returns
// false if some row's leverage is 1, where leaving it out is undefined.
func (l *leaveOneOut) predictions(dst *mat.Dense, cost float64) bool {
	r, y, pr := l.r, l.y, l.pr
	n, k := dst.Dims()
	nc := float64(r.rows) * cost
	shrink := func(e float64) float64 { return nc / (e * (e + nc)) }
	var resid mat.Dense // what the penalty leaves of the residuals
	mul(&resid, r.zv, r.filtered(pr, shrink))
	if l.fitted != nil {
		for i := range n {
			row, fit := resid.RawRowView(i), l.fitted.RawRowView(i)
			for j := range row {
				row[j] = row[j] + y.At(i, j) - pr.mean[j] - fit[j]
			}
		}
	}
	// shrink(e) per eigenvalue, 0 where e is 0: the rows' sums below
	// then only multiply.
	shrinks := make([]float64, len(r.e))
	for j, e := range r.e {
		if e > 0 {
			shrinks[j] = shrink(e)
		}
	}
	slacks := l.shrunk(make([]float64, n), shrinks)
	for i, slack := range slacks {
		slack *= r.weight(i)
		if l.unfit != nil {
			slack += max(l.unfit[i], 0)
		}
		if !(slack > 1e-12) {
			return false
		}
		out, res := dst.RawRowView(i), resid.RawRowView(i)
		for j := range k {
			out[j] = y.At(i, j) - res[j]/slack
		}
	}
	return true
}

// shrunk sets dst[i] to the sum over j of zv_ij^2 shrinks[j], in the
// order of j, and returns dst. Four rows at a time: each row's sum is a
// chain of additions, each waiting for the one before, and four chains
// keep the processor busy where one would leave it waiting.
func (l *leaveOneOut) shrunk(dst, shrinks []float64) []float64 {
	zv := l.r.zv
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		r0, r1, r2, r3 := zv.RawRowView(i), zv.RawRowView(i+1), zv.RawRowView(i+2), zv.RawRowView(i+3)
		var s0, s1, s2, s3 float64
		for j, g := range shrinks {
			s0 += r0[j] * r0[j] * g
			s1 += r1[j] * r1[j] * g
			s2 += r2[j] * r2[j] * g
			s3 += r3[j] * r3[j] * g
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < len(dst); i++ {
		var s float64
		for j, v := range zv.RawRowView(i) {
			s += v * v * shrinks[j]
		}
		dst[i] = s
	}
	return dst
}

// heldRows are rows that a fold holds out, as the solver of all the
// rows sees them: their coordinates in its eigenbasis, on the
// eigenvalues that are not 0, and, unless the features interpolate the
// rows, the part of I - H_FF that they cannot fit, which no cost changes
// (see heldFold.predictions).
type heldRows struct {
	rows  []int
	e     []float64  // the eigenvalues that are not 0
	z     *mat.Dense // len(rows) x max(len(e), 1); a column of 0 when e is empty
	unfit *mat.Dense // len(rows) x len(rows), nil when the features interpolate
}

// held returns the rows test as the solver sees them.
func (r *ridge) held(test []int) *heldRows {
	h := &heldRows{rows: test}
	var keep []int
	for j, e := range r.e {
		if e > 0 {
			keep = append(keep, j)
			h.e = append(h.e, e)
		}
	}
	m := len(test)
	h.z = mat.NewDense(m, max(len(keep), 1), nil)
	for a, i := range test {
		row := r.zv.RawRowView(i)
		for l, j := range keep {
			h.z.Set(a, l, row[j])
		}
	}
	if r.interpolates() {
		return h
	}
	h.unfit = new(mat.Dense)
	mul(h.unfit, h.scaled(nil, func(e float64) float64 { return -1 / e }), h.z.T())
	for b, i := range test {
		w := r.weight(i)
		for a := range m {
			h.unfit.Set(a, b, (h.unfit.At(a, b)-1/r.total)*w)
		}
		h.unfit.Set(b, b, h.unfit.At(b, b)+1)
	}
	return h
}

// scaled returns z diag(f(e)) in dst, which it allocates if nil.
func (h *heldRows) scaled(dst *mat.Dense, f func(e float64) float64) *mat.Dense {
	m, q := h.z.Dims()
	if dst == nil {
		dst = mat.NewDense(m, q, nil)
	}
	g := make([]float64, q) // 0 past the eigenvalues, on the column of 0
	for l, e := range h.e {
		g[l] = f(e)
	}
	for a := range m {
		out, row := dst.RawRowView(a), h.z.RawRowView(a)
		for l, v := range row {
			out[l] = v * g[l]
		}
	}
	return dst
}

// weight returns the weight of row i.
func (r *ridge) weight(i int) float64 {
	if r.w == nil {
		return 1
	}
	return r.w[i]
}

// heldFold holds what the predictions of the rows h held out, for the
// targets y of all the solver's rows, whose projection is pr, share at
// every cost: pr's t on the eigenvalues that are not 0 and, unless the
// features interpolate the rows, the held-out rows' fit at cost 0 less
// the mean (see predictions). A selection scores each fold at 13 costs.
type heldFold struct {
	r      *ridge
	y      mat.Matrix
	pr     projection
	h      *heldRows
	t      *mat.Dense // max(len(h.e), 1) x k
	fitted *mat.Dense // len(h.rows) x k; nil when the features interpolate
	// shrunk, slack, resid and ipiv are predictions' scratch, which
	// each cost overwrites.
	shrunk, slack, resid *mat.Dense
	ipiv                 []int
}

// heldFold returns the parts of the predictions of the rows h for the
// targets y, of projection pr, that no cost changes.
func (r *ridge) heldFold(y mat.Matrix, pr projection, h *heldRows) *heldFold {
	_, k := pr.t.Dims()
	o := &heldFold{r: r, y: y, pr: pr, h: h, t: mat.NewDense(max(len(h.e), 1), k, nil)}
	for l, j := 0, 0; j < len(r.e); j++ {
		if r.e[j] > 0 {
			o.t.SetRow(l, pr.t.RawRowView(j))
			l++
		}
	}
	if h.unfit != nil {
		o.fitted = new(mat.Dense)
		mul(o.fitted, h.scaled(nil, func(e float64) float64 { return 1 / e }), o.t)
	}
	return o
}

// predictions writes to dst (len(h.rows) x k) the predictions of the
// held-out rows h by the fit to the solver's other rows, with an
// intercept of their own and the penalty (rows - len(h.rows)) cost
// |beta|^2, as their own solver would fit them, from the fit to all the
// rows: with H the hat matrix of that fit (weights W) and F the rows
// held out,
//
//	yhat_F = y_F - (I - H_FF)^-1 (y_F - fit_F),
//
// which is exact for a penalised least-squares fit and costs a system of
// len(h.rows) rows per cost instead of a solver per fold. As in
// leaveOneOut, the residuals and I - H_FF are each the sum of the
// part that the features cannot fit, exactly 0 when they interpolate the
// rows, and what the penalty leaves of the rest. It returns false if
// I - H_FF is singular, where leaving the rows out is undefined.
func (o *heldFold) predictions(dst *mat.Dense, cost float64) bool {
	r, y, pr, h, t := o.r, o.y, o.pr, o.h, o.t
	m, k := dst.Dims()
	nc := float64(r.rows-m) * cost
	if o.shrunk == nil {
		o.slack, o.resid, o.ipiv = new(mat.Dense), new(mat.Dense), make([]int, m)
	}
	o.shrunk = h.scaled(o.shrunk, func(e float64) float64 { return nc / (e * (e + nc)) })
	shrunk, slack, resid := o.shrunk, o.slack, o.resid // resid: y_F - fit_F
	mul(slack, shrunk, h.z.T())                        // I - H_FF
	mul(resid, shrunk, t)
	for b, i := range h.rows {
		w := r.weight(i)
		for a := range m {
			slack.Set(a, b, slack.At(a, b)*w)
		}
	}
	if h.unfit != nil {
		slack.Add(slack, h.unfit)
		for a, i := range h.rows {
			for j := range k {
				resid.Set(a, j, resid.At(a, j)+y.At(i, j)-pr.mean[j]-o.fitted.At(a, j))
			}
		}
	}
	// LU without gonum's estimate of the condition number, which costs
	// as much as the factorisation here: a nearly singular system makes
	// predictions far off, whose loss is then never chosen.
	if !lapack64.Getrf(slack.RawMatrix(), o.ipiv) {
		return false
	}
	luSolve(slack.RawMatrix(), o.ipiv, resid.RawMatrix())
	for a, i := range h.rows {
		for j := range k {
			dst.Set(a, j, y.At(i, j)-resid.At(a, j))
		}
	}
	return true
}

// luSolve sets b to the solution X of A X = b, from the LU factors of
// A and their pivots that lapack64.Getrf returns: lapack64.Getrs with
// blas.NoTrans, bit for bit, the same operations in the same order. A
// fold's systems have a column or a few (one per output), where Getrs's
// triangular solves call a vector routine for each entry of the factors.
func luSolve(lu blas64.General, ipiv []int, b blas64.General) {
	n, k := b.Rows, b.Cols
	row := func(m blas64.General, i int) []float64 { return m.Data[i*m.Stride : i*m.Stride+m.Cols] }
	for i, p := range ipiv[:n] {
		if p != i {
			bi, bp := row(b, i), row(b, p)
			for c := range bi {
				bi[c], bp[c] = bp[c], bi[c]
			}
		}
	}
	for i := range n { // L, of unit diagonal
		bi := row(b, i)
		for j, v := range lu.Data[i*lu.Stride : i*lu.Stride+i] {
			if v != 0 {
				for c, u := range row(b, j)[:k] {
					bi[c] += -v * u
				}
			}
		}
	}
	for i := n - 1; i >= 0; i-- { // U
		bi := row(b, i)
		for jj, v := range lu.Data[i*lu.Stride+i+1 : i*lu.Stride+n] {
			if v != 0 {
				for c, u := range row(b, i+1+jj)[:k] {
					bi[c] += -v * u
				}
			}
		}
		t := 1 / lu.Data[i*lu.Stride+i]
		for c := range bi {
			bi[c] *= t
		}
	}
}

// machine returns the shallow machine of basis b fitted by the solver r
// on all its rows to the targets of projection pr at the given cost,
// calibrated, with the anchors' inputs as anchors, and its intercept on
// the scale it fits, calibrated too.
func (b *shallowBasis) machine(r *ridge, pr projection, cost float64, anchors *mat.Dense, cal calibration) (*kernel.Machine, []float64) {
	beta, intercept := r.solution(pr, cost)
	return b.machineOf(beta, intercept, anchors, cal)
}

// machineOf returns the shallow machine of basis b whose solution, in
// the basis's coordinates, is beta and the intercept, as machine does.
func (b *shallowBasis) machineOf(beta *mat.Dense, intercept []float64, anchors *mat.Dense, cal calibration) (*kernel.Machine, []float64) {
	beta, intercept = b.features(beta, intercept) // p x k
	classify := cal.residuals == nil
	cal.scale(beta, classify)
	cal.apply(mat.NewDense(1, len(intercept), intercept), classify)
	d := b.inputs
	p, k := beta.Dims()
	a := mat.DenseCopyOf(beta.Slice(0, d, 0, k).T())
	a.Scale(b.lin, a)
	m, _ := anchors.Dims()
	c := mat.NewDense(k, m, nil)
	mul(c, beta.Slice(d, p, 0, k).T(), b.toC.T())
	return &kernel.Machine{Architecture: kernel.Architecture{Dims: []int{d, k}, Bandwidth: b.sigma, Laplacian: b.laplacian}, A: a, C: c, Anchors: mat.DenseCopyOf(anchors), InputBlock: true}, intercept
}
