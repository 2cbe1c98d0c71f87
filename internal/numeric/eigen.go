package numeric

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// EigenSym returns the eigenvalues of the symmetric matrix a in ascending
// order and its eigenvectors, the columns of vectors in the same order,
// or false if the iteration did not converge. It computes LAPACK's
// dsyev (dsytrd, dorgtr, dsteqr) by gonum's routines, on the lower
// triangle where gonum's mat.EigenSym reduces the upper one, so that the
// two agree to rounding. Where dsteqr applies each
// plane rotation to two columns of the row-major eigenvectors, a strided
// access, EigenSym applies it to two rows of their transpose, which are
// contiguous and which rotateRows runs several elements per instruction.
func EigenSym(a *mat.SymDense) (values []float64, vectors *mat.Dense, ok bool) {
	n := a.SymmetricDim()
	if n == 1 {
		return []float64{a.At(0, 0)}, mat.NewDense(1, 1, []float64{1}), true
	}
	r := reduce(a)
	var impl gonum.Implementation
	impl.Dorgtr(blas.Lower, n, r.q, n, r.tau, r.work[2*n:], r.nb*n)
	t := r.tridiagonal()
	t.zt = transpose(r.q, n)
	if !t.solve() {
		return nil, nil, false
	}
	r.unscale()
	return r.w, mat.NewDense(n, n, transpose(t.zt, n)), true
}

// reduction is a symmetric matrix of dimension n > 1 reduced to
// tridiagonal form by dsytrd on its lower triangle, A = Q T Q^T: the
// reflectors of Q in q and tau, T's diagonal w and off-diagonal e, and
// the factor sigma by which A was scaled first.
type reduction struct {
	n     int
	q     []float64
	w, e  []float64
	tau   []float64
	sigma float64
	work  []float64
	nb    int
}

// reduce returns the reduction of a to tridiagonal form, as dsyev
// makes it.
func reduce(a *mat.SymDense) *reduction {
	n := a.SymmetricDim()
	sd := mat.NewSymDense(n, nil)
	sd.CopySym(a)
	q := sd.RawSymmetric().Data
	w := make([]float64, n)
	var impl gonum.Implementation
	// As dsyev, scale a into the range where the iteration neither
	// overflows nor underflows.
	const (
		safmin = 0x1p-1022
		eps    = 0x1p-52
		smlnum = safmin / eps
		bignum = 1 / smlnum
	)
	rmin, rmax := math.Sqrt(smlnum), math.Sqrt(bignum)
	nb := impl.Ilaenv(1, "DSYTRD", "U", n, -1, -1, -1)
	work := make([]float64, (nb+2)*n)
	anrm := impl.Dlansy(lapack.MaxAbs, blas.Upper, n, q, n, work)
	sigma := 1.0
	if anrm > 0 && anrm < rmin {
		sigma = rmin / anrm
	} else if anrm > rmax {
		sigma = rmax / anrm
	}
	if sigma != 1 {
		impl.Dlascl(lapack.UpperTri, 0, 0, 1, sigma, n, n, q, n)
	}
	// The reduction reads the lower triangle, on which gonum's row-major
	// Dsytrd is the faster.
	for i := range n {
		for j := range i {
			q[i*n+j] = q[j*n+i]
		}
	}
	e, tau := make([]float64, n), make([]float64, n)
	impl.Dsytrd(blas.Lower, n, q, n, w, e, tau, work[2*n:], nb*n)
	return &reduction{n: n, q: q, w: w, e: e, tau: tau, sigma: sigma, work: work, nb: nb}
}

// tridiagonal returns the tridiagonal matrix T of the reduction, which
// shares its diagonal and off-diagonal.
func (r *reduction) tridiagonal() *tridiagonal {
	return &tridiagonal{n: r.n, d: r.w, e: r.e, c: make([]float64, r.n-1), s: make([]float64, r.n-1)}
}

// unscale scales T's eigenvalues, in w, back to those of A.
func (r *reduction) unscale() {
	if r.sigma != 1 {
		for i := range r.w {
			r.w[i] *= 1 / r.sigma
		}
	}
}

// transpose returns the transpose of the n x n row-major matrix a.
func transpose(a []float64, n int) []float64 {
	t := make([]float64, n*n)
	for i := range n {
		for j, v := range a[i*n : i*n+n] {
			t[j*n+i] = v
		}
	}
	return t
}

// tridiagonal is the symmetric tridiagonal matrix of diagonal d and
// off-diagonal e that dsteqr diagonalises by implicit QL and QR steps,
// accumulating its rotations in the rows of zt, and the rotations of a
// step, c and s. Without zt, it records its rotations and the swaps of
// its sort in log instead.
type tridiagonal struct {
	n           int
	d, e, zt    []float64
	c, s        []float64
	steps, most int // the steps taken, and at most
	log         *rotationLog
}

// The constants of dsteqr: the machine's precision and the range of
// magnitudes its steps keep a block within.
var (
	steqrEps2   = 0x1p-53 * 0x1p-53
	steqrSafmin = 0x1p-1022
	steqrSsfmax = math.Sqrt(1/steqrSafmin) / 3
	steqrSsfmin = math.Sqrt(steqrSafmin) / steqrEps2
)

// solve diagonalises t, as dsteqr with compz 'V' does: it splits the
// matrix into unreduced blocks and takes QL or QR steps on each until its
// off-diagonal vanishes, then sorts the eigenvalues in increasing order
// with their vectors. It returns false after 30 n steps without
// convergence, or true unsorted if the blocks met then.
func (t *tridiagonal) solve() bool {
	n, d, e := t.n, t.d, t.e
	t.most = 30 * n
	for l1 := 0; ; {
		if l1 > n-1 {
			t.sort()
			return true
		}
		if l1 > 0 {
			e[l1-1] = 0
		}
		m := l1
		for ; m < n-1; m++ {
			test := math.Abs(e[m])
			if test == 0 {
				break
			}
			if test <= (math.Sqrt(math.Abs(d[m]))*math.Sqrt(math.Abs(d[m+1])))*0x1p-53 {
				e[m] = 0
				break
			}
		}
		l, lend := l1, m
		l1 = m + 1
		if lend != l {
			t.block(l, lend)
		}
		if t.steps >= t.most {
			break
		}
	}
	for _, v := range e[:n-1] {
		if v != 0 {
			return false
		}
	}
	return true
}

// block diagonalises the unreduced block of rows l to lend, scaled into
// range first, by QL steps if its last diagonal entry is the larger in
// magnitude, else by QR steps. Each block is scaled by its own norm, as
// LAPACK does; gonum's dsteqr scales back a block after one that needed
// scaling (of entries beyond about 1e150 or below 1e-120) by that one's.
func (t *tridiagonal) block(l, lend int) {
	var impl gonum.Implementation
	d, e := t.d, t.e
	lsv, lendsv := l, lend
	anorm := impl.Dlanst(lapack.MaxAbs, lend-l+1, d[l:], e[l:])
	to := anorm
	switch {
	case anorm == 0:
		return
	case anorm > steqrSsfmax:
		to = steqrSsfmax
	case anorm < steqrSsfmin:
		to = steqrSsfmin
	}
	if to != anorm {
		impl.Dlascl(lapack.General, 0, 0, anorm, to, lend-l+1, 1, d[l:], 1)
		impl.Dlascl(lapack.General, 0, 0, anorm, to, lend-l, 1, e[l:], 1)
	}
	if math.Abs(d[lend]) < math.Abs(d[l]) {
		l, lend = lendsv, lsv
	}
	if lend > l {
		t.ql(l, lend)
	} else {
		t.qr(l, lend)
	}
	if to != anorm {
		impl.Dlascl(lapack.General, 0, 0, to, anorm, lendsv-lsv+1, 1, d[lsv:], 1)
		impl.Dlascl(lapack.General, 0, 0, to, anorm, lendsv-lsv, 1, e[lsv:], 1)
	}
}

// ql takes dsteqr's QL steps on the block of rows l to lend > l.
func (t *tridiagonal) ql(l, lend int) {
	var impl gonum.Implementation
	d, e := t.d, t.e
	for {
		m := lend
		for k := l; k < lend; k++ {
			v := math.Abs(e[k])
			if v*v <= (steqrEps2*math.Abs(d[k]))*math.Abs(d[k+1])+steqrSafmin {
				m = k
				break
			}
		}
		if m < lend {
			e[m] = 0
		}
		p := d[l]
		switch {
		case m == l:
			l++
		case m == l+1:
			d[l], d[l+1], t.c[l], t.s[l] = impl.Dlaev2(d[l], e[l], d[l+1])
			t.rotate(false, l, 2)
			e[l] = 0
			l += 2
		case t.steps == t.most:
			return
		default:
			t.steps++
			g := (d[l+1] - p) / (2 * e[l])
			r := impl.Dlapy2(g, 1)
			g = d[m] - p + e[l]/(g+math.Copysign(r, g))
			s, c := 1.0, 1.0
			p = 0
			for i := m - 1; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				c, s, r = impl.Dlartg(g, f)
				if i != m-1 {
					e[i+1] = r
				}
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				t.c[i], t.s[i] = c, -s
			}
			t.rotate(false, l, m-l+1)
			d[l] -= p
			e[l] = g
		}
		if l > lend {
			return
		}
	}
}

// qr takes dsteqr's QR steps on the block of rows lend to l > lend.
func (t *tridiagonal) qr(l, lend int) {
	var impl gonum.Implementation
	d, e := t.d, t.e
	for {
		m := lend
		for k := l; k > lend; k-- {
			v := math.Abs(e[k-1])
			if v*v <= (steqrEps2*math.Abs(d[k])*math.Abs(d[k-1]) + steqrSafmin) {
				m = k
				break
			}
		}
		if m > lend {
			e[m-1] = 0
		}
		p := d[l]
		switch {
		case m == l:
			l--
		case m == l-1:
			d[l-1], d[l], t.c[m], t.s[m] = impl.Dlaev2(d[l-1], e[l-1], d[l])
			t.rotate(true, l-1, 2)
			e[l-1] = 0
			l -= 2
		case t.steps == t.most:
			return
		default:
			t.steps++
			g := (d[l-1] - p) / (2 * e[l-1])
			r := impl.Dlapy2(g, 1)
			g = d[m] - p + (e[l-1])/(g+math.Copysign(r, g))
			s, c := 1.0, 1.0
			p = 0
			for i := m; i < l; i++ {
				f, b := s*e[i], c*e[i]
				c, s, r = impl.Dlartg(g, f)
				if i != m {
					e[i-1] = r
				}
				g = d[i] - p
				r = (d[i+1]-g)*s + 2*c*b
				p = s * r
				d[i] = g + p
				g = c*r - b
				t.c[i], t.s[i] = c, s
			}
			t.rotate(true, m, l-m+1)
			d[l] -= p
			e[l-1] = g
		}
		if l < lend {
			return
		}
	}
}

// rotate applies the count-1 rotations c[first+j], s[first+j] to the
// rows first+j and first+j+1 of zt, in increasing order of j if forward,
// else decreasing: dlasr's right-hand side of variable pivot, applied to
// the transpose.
func (t *tridiagonal) rotate(forward bool, first, count int) {
	if t.zt == nil {
		t.log.runs = append(t.log.runs, rotationRun{forward: forward, first: first, c: slices.Clone(t.c[first : first+count-1]), s: slices.Clone(t.s[first : first+count-1])})
		return
	}
	n := t.n
	for k := range count - 1 {
		j := first + count - 2 - k
		if forward {
			j = first + k
		}
		c, s := t.c[j], t.s[j]
		if c != 1 || s != 0 {
			rotateRows(t.zt[j*n:j*n+n], t.zt[(j+1)*n:(j+1)*n+n], c, s)
		}
	}
}

// sort orders the eigenvalues increasingly by selection, swapping their
// vectors along, as dsteqr does.
func (t *tridiagonal) sort() {
	n, d := t.n, t.d
	for i := range n - 1 {
		k, p := i, d[i]
		for j := i + 1; j < n; j++ {
			if d[j] < p {
				k, p = j, d[j]
			}
		}
		if k != i {
			d[k], d[i] = d[i], p
			if t.zt == nil {
				t.log.swaps = append(t.log.swaps, [2]int{i, k})
				continue
			}
			a, b := t.zt[i*n:i*n+n], t.zt[k*n:k*n+n]
			for j := range a {
				a[j], b[j] = b[j], a[j]
			}
		}
	}
}

// rotateRows sets y to c y - s x and x to s y + c x, element by element,
// as dlasr does: in assembly where the processor allows, on several
// elements at a time with the same operations.
func rotateRows(x, y []float64, c, s float64) {
	if rotVec8 {
		k := len(x) &^ 7
		rotX8(x[:k], y[:k], c, s)
		x, y = x[k:], y[k:]
	}
	if rotVec {
		k := len(x) &^ 3
		rotX4(x[:k], y[:k], c, s)
		x, y = x[k:], y[k:]
	}
	rotGo(x, y, c, s)
}

// rotGo is rotateRows without assembly.
func rotGo(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for i, u := range x {
		v := y[i]
		y[i] = c*v - s*u
		x[i] = s*v + c*u
	}
}
