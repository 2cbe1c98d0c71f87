package tabular

import (
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/internal/matmul"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Tables with more columns than rows are fitted in the span of their
// rows. A machine's data loss sees its augmenter A only through A x on
// the training rows (their states, and the anchors', which are training
// rows too), so the part of A orthogonal to the rows' span only adds to
// the penalty |A|^2: the optimum's augmenter lies in that span (the
// representer theorem). Every solve then works on the rows' coordinates
// in an orthonormal basis of their span, at most as many as the rows,
// instead of on the columns, and the machine is mapped back to the
// columns at the end. The same holds for the shallow machine's features,
// whose coefficients lie in the span of the training rows' features.

// rowSpan is an orthonormal basis Q of the span of the rows of a matrix
// Z, n x p, found from their Gram matrix Z Z^T = U diag(lambda) U^T: the
// rows' coordinates in it are U diag(sqrt(lambda)), and the vector of
// the span with coordinates c is Z^T U diag(1/sqrt(lambda)) c.
type rowSpan struct {
	coords *mat.Dense // n x q: the rows' coordinates
	inv    *mat.Dense // n x q: U diag(1/sqrt(lambda))
	values []float64  // lambda, q
}

// newRowSpan returns the span of the rows whose Gram matrix is g. It
// drops the directions whose eigenvalues fall below eigenFloor times the
// largest: rounding errors of that size make them up.
func newRowSpan(g *mat.SymDense) (*rowSpan, error) {
	vals, u, keep, err := significantEigen(g, "the rows' Gram matrix")
	if err != nil {
		return nil, err
	}
	n := len(vals)
	if len(keep) == 0 {
		// Every row is 0: one coordinate, 0 for each of them.
		return &rowSpan{coords: mat.NewDense(n, 1, nil), inv: mat.NewDense(n, 1, nil), values: []float64{0}}, nil
	}
	s := &rowSpan{coords: mat.NewDense(n, len(keep), nil), inv: mat.NewDense(n, len(keep), nil)}
	for k, j := range keep {
		s.values = append(s.values, vals[j])
		root := math.Sqrt(vals[j])
		for i := range n {
			s.coords.Set(i, k, u.At(i, j)*root)
			s.inv.Set(i, k, u.At(i, j)/root)
		}
	}
	return s, nil
}

// wide reports whether a solve on rows of that many columns is cheaper in
// the span of the rows: they have more columns than there are rows.
func wide(rows, cols int) bool { return cols > rows }

// gram returns x x^T.
func gram(x *mat.Dense) *mat.SymDense {
	n, _ := x.Dims()
	g := mat.NewDense(n, n, nil)
	mul(g, x, x.T())
	return mat.NewSymDense(n, g.RawMatrix().Data)
}

// crossGram returns a b^T.
func crossGram(a, b *mat.Dense) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	c := mat.NewDense(na, nb, nil)
	mul(c, a, b.T())
	return c
}

// mul sets dst, empty or of the product's shape, to a b, where a and b
// are *mat.Dense or their transposes, with the engine's matrix product
// (internal/matmul) rather than gonum's pure-Go one: the shallow
// machine's solvers spent a fifth of the CPU time of a fit of 2,000 rows
// in gonum's products, most of them of a few columns.
func mul(dst *mat.Dense, a, b mat.Matrix) {
	ga, ta := general(a)
	gb, tb := general(b)
	m, _ := a.Dims()
	_, n := b.Dims()
	if dst.IsEmpty() {
		dst.ReuseAs(m, n)
	} else if r, c := dst.Dims(); r != m || c != n {
		panic(mat.ErrShape)
	}
	matmul.F64(ta, tb, 1, ga, gb, 0, dst.RawMatrix())
}

// general returns the storage of a, a *mat.Dense or its transpose, and
// whether it is transposed.
func general(a mat.Matrix) (blas64.General, blas.Transpose) {
	if t, ok := a.(mat.Transpose); ok {
		return t.Matrix.(*mat.Dense).RawMatrix(), blas.Trans
	}
	return a.(*mat.Dense).RawMatrix(), blas.NoTrans
}

// inputSpan holds the span of a deep machine's training inputs when they
// have more columns than rows: the machine is fitted to their coordinates,
// and its augmenter mapped back to the columns.
type inputSpan struct {
	rows *mat.Dense // the training inputs, n x d
	span *rowSpan
	q    *mat.Dense // the orthonormal basis, d x q
}

// newInputSpan returns the span of the rows of x, n x d.
func newInputSpan(x *mat.Dense) (*inputSpan, error) {
	sp, err := newRowSpan(gram(x))
	if err != nil {
		return nil, err
	}
	var q mat.Dense
	mul(&q, x.T(), sp.inv)
	return &inputSpan{rows: x, span: sp, q: &q}, nil
}

// coords returns the coordinates of the training inputs.
func (s *inputSpan) coords() *mat.Dense { return s.span.coords }

// reduce returns the coordinates of the rows of x, new inputs: their
// projections on the span, x Q.
func (s *inputSpan) reduce(x *mat.Dense) *mat.Dense {
	var c mat.Dense
	mul(&c, crossGram(x, s.rows), s.span.inv)
	return &c
}

// expand returns the augmenter a Q^T on the columns of the augmenter a
// on the coordinates.
func (s *inputSpan) expand(a *mat.Dense) *mat.Dense {
	var full mat.Dense
	mul(&full, a, s.q.T())
	return &full
}

// initial returns the starting point of a deep machine's fit of loss o
// with the given number of anchors: its augmenter drawn by span.init (on
// the span of the rows if span is not nil) and its coefficients zero. The
// machine then starts as a linear map of the inputs, every level's state
// A x, and its kernel parts grow from zero: from coefficients drawn at
// random the selection's fits, which stop at selectionMaxIter, reached a
// higher loss (docs/learner-panel.md).
func initial(o objective, span *inputSpan, arch kernel.Architecture, anchors int, rnd *rand.Rand) []float64 {
	params := span.init(o, arch, anchors, rnd)
	clear(params[len(params)-(arch.Size()-arch.Dims[0])*anchors:])
	return params
}

// init returns initial parameters of o, the loss of a machine of
// architecture arch with the given number of anchors: those of o.Init if
// s is nil, and otherwise, on the coordinates, the projection on the
// span of the initial point that kernel.Objective.Init draws on the columns, so
// that the fit starts where the fit on the columns starts, less the part
// that only the penalty sees.
func (s *inputSpan) init(o objective, arch kernel.Architecture, anchors int, rnd *rand.Rand) []float64 {
	if s == nil {
		return o.Init(nil, rnd)
	}
	size := arch.Size()
	d, q := s.q.Dims()
	full := arch.InitParams(nil, d, anchors, rnd)
	params := make([]float64, arch.NumParams(q, anchors))
	na := size * q
	copy(params[na:], full[size*d:])
	mul(mat.NewDense(size, q, params[:na]), mat.NewDense(size, d, full[:size*d]), s.q)
	return params
}
