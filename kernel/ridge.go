package kernel

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
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
// rows' standardised inputs, the anchors, their squared distances, and
// the inputs' Gram matrix when the features may outnumber the rows.
type shallowInputs struct {
	x, anchors *mat.Dense
	toAnchors  *mat.Dense    // n x m: squared distances from the rows to the anchors
	between    *mat.Dense    // m x m: between the anchors
	xx         *mat.SymDense // x x^T if the inputs and the anchors outnumber the rows, else nil
}

// newShallowInputs returns the shared part of the bases for the rows x
// and the anchors.
func newShallowInputs(x, anchors *mat.Dense) *shallowInputs {
	n, d := x.Dims()
	m, _ := anchors.Dims()
	in := &shallowInputs{x: x, anchors: anchors, toAnchors: mat.NewDense(n, m, nil), between: mat.NewDense(m, m, nil)}
	for i := range m {
		for j := i; j < m; j++ {
			v := sqDistance(anchors.RawRowView(i), anchors.RawRowView(j))
			in.between.Set(i, j, v)
			in.between.Set(j, i, v)
		}
	}
	for i := range n {
		row, xi := in.toAnchors.RawRowView(i), x.RawRowView(i)
		for j := range m {
			row[j] = sqDistance(xi, anchors.RawRowView(j))
		}
	}
	if wide(n, d+m) {
		in.xx = gram(x)
	}
	return in
}

// shallowBasis holds, for one bandwidth, the features Z = [X, Psi] of the
// training rows, or their coordinates in the span of those rows when the
// features outnumber the rows, and the map from the coefficients of Psi
// to those of the anchors.
type shallowBasis struct {
	sigma  float64
	inputs int
	z      *mat.Dense // n x p: the inputs, then the anchor features; or their coordinates
	toC    *mat.Dense // m x r: the anchor coefficients c = toC * beta_psi
	// span, if not nil, is the span of the features [X, Psi] whose
	// coordinates z holds, and x and psi are those features.
	span   *rowSpan
	x, psi *mat.Dense
}

// ridge solves the ridge regression on some rows of a basis at every
// cost from one eigendecomposition of their weighted Gram matrix
// Z^T W Z = V diag(e) V^T.
type ridge struct {
	rows int
	e    []float64
	v    *mat.Dense // V, p x p
	zv   *mat.Dense // Z V on the rows
	w    []float64  // the rows' weights, nil for 1
}

// eigenFloor is the relative size below which eigenvalues of the anchors'
// kernel matrix are dropped: their directions are numerically in the span
// of the others, and keeping them would divide by rounding errors.
const eigenFloor = 1e-10

// newShallowBasis returns the basis of bandwidth sigma for the rows and
// anchors of in.
func newShallowBasis(in *shallowInputs, sigma float64) (*shallowBasis, error) {
	n, d := in.x.Dims()
	m, _ := in.anchors.Dims()
	gamma := 1 / (2 * sigma * sigma)
	kmm := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			kmm.SetSym(i, j, math.Exp(-gamma*in.between.At(i, j)))
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
	knm.Apply(func(_, _ int, v float64) float64 { return math.Exp(-gamma * v) }, in.toAnchors)
	b := &shallowBasis{sigma: sigma, inputs: d, toC: toC}
	psi := mat.NewDense(n, r, nil)
	psi.Mul(knm, toC)
	if in.xx != nil && wide(n, d+r) {
		g := mat.NewSymDense(n, nil)
		g.SymOuterK(1, psi)
		g.AddSym(g, in.xx)
		sp, err := newRowSpan(g)
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

// features returns the coefficients of the features [X, Psi] whose
// coordinates in the basis are beta (p x k).
func (b *shallowBasis) features(beta *mat.Dense) *mat.Dense {
	if b.span == nil {
		return beta
	}
	var alpha mat.Dense
	alpha.Mul(b.span.inv, beta)
	_, d := b.x.Dims()
	_, r := b.psi.Dims()
	_, k := beta.Dims()
	out := mat.NewDense(d+r, k, nil)
	out.Slice(0, d, 0, k).(*mat.Dense).Mul(b.x.T(), &alpha)
	out.Slice(d, d+r, 0, k).(*mat.Dense).Mul(b.psi.T(), &alpha)
	return out
}

// ridge returns the solver on the listed rows of the basis (nil: all)
// with weights w (nil: 1), one per listed row.
func (b *shallowBasis) ridge(rows []int, w []float64) (*ridge, error) {
	z := b.z
	if rows != nil {
		z = pickRows(b.z, rows)
	}
	n, p := z.Dims()
	zw := z
	if w != nil {
		zw = mat.DenseCopyOf(z)
		for i := range n {
			row := zw.RawRowView(i)
			for j := range row {
				row[j] *= math.Sqrt(w[i])
			}
		}
	}
	gram := mat.NewSymDense(p, nil)
	gram.SymOuterK(1, zw.T())
	var eig mat.EigenSym
	if !eig.Factorize(gram, true) {
		return nil, errors.New("kernel: eigendecomposition of the features' Gram matrix failed")
	}
	r := &ridge{rows: n, e: eig.Values(nil), v: new(mat.Dense), zv: new(mat.Dense), w: w}
	for i, v := range r.e {
		r.e[i] = max(v, 0)
	}
	eig.VectorsTo(r.v)
	r.zv.Mul(z, r.v)
	return r, nil
}

// sqDistance returns the squared distance between u and v.
func sqDistance(u, v []float64) float64 {
	d := floats.Distance(u, v, 2)
	return d * d
}

// project returns V^T Z^T W y, the weighted targets of the rows in the
// eigenbasis, p x k.
func (r *ridge) project(y mat.Matrix) *mat.Dense {
	wy := mat.DenseCopyOf(y)
	if r.w != nil {
		wy.Apply(func(i, _ int, v float64) float64 { return r.w[i] * v }, wy)
	}
	var t mat.Dense
	t.Mul(r.zv.T(), wy)
	return &t
}

// coefficients returns the ridge solution at the given cost for the
// targets whose projection is t, in the eigenbasis: diag(1/(e + n cost)) t.
func (r *ridge) coefficients(t *mat.Dense, cost float64) *mat.Dense {
	var wt mat.Dense
	wt.Apply(func(i, _ int, v float64) float64 { return v / (r.e[i] + float64(r.rows)*cost) }, t)
	return &wt
}

// predict returns the predictions at the given cost for the rows zt of
// the basis (nil: the solver's own rows).
func (r *ridge) predict(zt *mat.Dense, t *mat.Dense, cost float64) *mat.Dense {
	var pred mat.Dense
	if zt == nil {
		pred.Mul(r.zv, r.coefficients(t, cost))
		return &pred
	}
	var beta mat.Dense
	beta.Mul(r.v, r.coefficients(t, cost))
	pred.Mul(zt, &beta)
	return &pred
}

// looPredictions writes to dst (n x k) the leave-one-out predictions at
// the given cost for the targets y, whose projection is t: each row's
// prediction by the machine fitted to the other rows, from the fitted
// value and the leverage w_i z_i^T (Z^T W Z + n cost I)^-1 z_i. It
// returns false if some row's leverage is 1, where leaving it out is
// undefined.
func (r *ridge) looPredictions(dst *mat.Dense, y mat.Matrix, t *mat.Dense, cost float64) bool {
	dst.Copy(r.predict(nil, t, cost))
	n, k := dst.Dims()
	nc := float64(r.rows) * cost
	for i := range n {
		var h float64
		for j, v := range r.zv.RawRowView(i) {
			h += v * v / (r.e[j] + nc)
		}
		if r.w != nil {
			h *= r.w[i]
		}
		slack := 1 - h
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

// machine returns the shallow machine of basis b fitted by the solver r
// on all its rows to the targets of projection t at the given cost,
// calibrated, with the anchors' inputs as anchors.
func (b *shallowBasis) machine(r *ridge, t *mat.Dense, cost float64, anchors *mat.Dense, cal calibration) *Machine {
	var coef mat.Dense
	coef.Mul(r.v, r.coefficients(t, cost))
	beta := b.features(&coef) // p x k
	cal.apply(beta, cal.residuals == nil)
	d := b.inputs
	p, k := beta.Dims()
	a := mat.DenseCopyOf(beta.Slice(0, d, 0, k).T())
	m, _ := anchors.Dims()
	c := mat.NewDense(k, m, nil)
	c.Mul(beta.Slice(d, p, 0, k).T(), b.toC.T())
	return &Machine{Architecture: Architecture{Dims: []int{d, k}, Bandwidth: b.sigma}, A: a, C: c, Anchors: mat.DenseCopyOf(anchors), InputBlock: true}
}
