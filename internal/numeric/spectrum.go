package numeric

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// SymSpectrum is the eigendecomposition A = V diag(Values) V^T of a
// symmetric matrix that EigenSym computes, with V kept as its factors:
// the reflectors of the reduction to tridiagonal form, A = Q T Q^T, and
// the plane rotations and swaps that diagonalise T, T = W diag(Values)
// W^T, V = Q W. It maps a few vectors to the eigenbasis and back
// (ToEigen, FromEigen) without forming V, whose n^3 products (dorgtr's
// and the rotations' on n rows) are most of EigenSym's time after the
// reduction. The values are EigenSym's, bit for bit, and the maps agree
// with its vectors' to rounding.
type SymSpectrum struct {
	Values []float64 // in ascending order
	r      *reduction
	log    rotationLog
}

// rotationLog holds the steps of the diagonalisation of T, in the order
// taken: runs of plane rotations, then the swaps of the sort.
type rotationLog struct {
	runs  []rotationRun
	swaps [][2]int
}

// rotationRun is a call of tridiagonal.rotate: the rotations c[j], s[j]
// of the rows first+j and first+j+1, in increasing order of j if
// forward, else decreasing.
type rotationRun struct {
	forward bool
	first   int
	c, s    []float64
}

// NewSymSpectrum returns the spectrum of a, or false if the iteration
// did not converge.
func NewSymSpectrum(a *mat.SymDense) (*SymSpectrum, bool) {
	n := a.SymmetricDim()
	if n == 1 {
		return &SymSpectrum{Values: []float64{a.At(0, 0)}}, true
	}
	sp := &SymSpectrum{r: reduce(a)}
	t := sp.r.tridiagonal()
	t.log = &sp.log
	if !t.solve() {
		return nil, false
	}
	sp.r.unscale()
	sp.Values = sp.r.w
	return sp, true
}

// ToEigen returns V^T b, b's coordinates in the eigenbasis (n x k).
func (sp *SymSpectrum) ToEigen(b *mat.Dense) *mat.Dense {
	x := mat.DenseCopyOf(b)
	if sp.r == nil {
		return x
	}
	sp.reflect(blas.Trans, x)
	for _, run := range sp.log.runs {
		for i := range run.c {
			j := len(run.c) - 1 - i
			if run.forward {
				j = i
			}
			rotateTwo(x, run.first+j, run.c[j], run.s[j])
		}
	}
	for _, sw := range sp.log.swaps {
		swapRows(x, sw[0], sw[1])
	}
	return x
}

// FromEigen returns V f, the vectors whose coordinates in the eigenbasis
// are f (n x k): ToEigen's steps undone in reverse order.
func (sp *SymSpectrum) FromEigen(f *mat.Dense) *mat.Dense {
	x := mat.DenseCopyOf(f)
	if sp.r == nil {
		return x
	}
	for i := len(sp.log.swaps) - 1; i >= 0; i-- {
		swapRows(x, sp.log.swaps[i][0], sp.log.swaps[i][1])
	}
	for i := len(sp.log.runs) - 1; i >= 0; i-- {
		run := sp.log.runs[i]
		for l := range run.c {
			j := l
			if run.forward {
				j = len(run.c) - 1 - l
			}
			rotateTwo(x, run.first+j, run.c[j], -run.s[j])
		}
	}
	sp.reflect(blas.NoTrans, x)
	return x
}

// reflect sets x to Q x, or Q^T x with trans, as dormtr does for a
// reduction of the lower triangle: the reflectors act on the rows after
// the first.
func (sp *SymSpectrum) reflect(trans blas.Transpose, x *mat.Dense) {
	var impl gonum.Implementation
	r := sp.r
	n := r.n
	raw := x.RawMatrix()
	k := raw.Cols
	work := []float64{0}
	impl.Dormqr(blas.Left, trans, n-1, k, n-1, r.q[n:], n, r.tau[:n-1], raw.Data[raw.Stride:], raw.Stride, work, -1)
	work = make([]float64, int(work[0]))
	impl.Dormqr(blas.Left, trans, n-1, k, n-1, r.q[n:], n, r.tau[:n-1], raw.Data[raw.Stride:], raw.Stride, work, len(work))
}

// rotateTwo applies the rotation c, s to the rows j and j+1 of x, as
// tridiagonal.rotate does to those of its vectors' transpose.
func rotateTwo(x *mat.Dense, j int, c, s float64) {
	if c != 1 || s != 0 {
		rotateRows(x.RawRowView(j), x.RawRowView(j+1), c, s)
	}
}

// swapRows swaps the rows i and k of x.
func swapRows(x *mat.Dense, i, k int) {
	a, b := x.RawRowView(i), x.RawRowView(k)
	for j := range a {
		a[j], b[j] = b[j], a[j]
	}
}
