package ad

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
)

// combine says how a Gaussian op merges its kernel with a previous one.
type combine int

const (
	alone combine = iota
	plus
	times
)

// gaussian keeps its scratch between calls so that replaying the graph
// allocates nothing.
type gaussian[T Float] struct {
	gamma   float64 // 1/(2 sigma^2), kept in float64 for the exponential
	combine combine
	k       *Tensor[T] // the kernel values when they are combined with a previous kernel
	w       *Tensor[T] // upstream gradient times kernel value, in the graph's scratch
	rows    []T        // the sums of w's rows
	cols    []T        // the sums of w's columns
}

// Gaussian returns the m x n matrix of Gaussian kernel values between the
// columns of v (d x m) and the columns of u (d x n):
//
//	out[i][j] = exp(-|v_i - u_j|^2 / (2 sigma^2)).
//
// When v and u are the same node the matrix is symmetric and only half of
// the exponentials are computed: the exponential dominates the cost of the
// finite-depth kernel machine.
func (g *Graph[T]) Gaussian(v, u *Node[T], sigma T) *Node[T] {
	return g.gaussian(alone, nil, v, u, sigma)
}

// AddGaussian returns k + Gaussian(v, u, sigma) as one operation: the
// additive kernel of a filtration accumulates level by level, and fusing
// the sum saves a pass over the matrix and a gradient buffer.
func (g *Graph[T]) AddGaussian(k, v, u *Node[T], sigma T) *Node[T] {
	return g.gaussian(plus, k, v, u, sigma)
}

// MulGaussian returns the elementwise product k .* Gaussian(v, u, sigma)
// as one operation, for multiplicative kernels.
func (g *Graph[T]) MulGaussian(k, v, u *Node[T], sigma T) *Node[T] {
	return g.gaussian(times, k, v, u, sigma)
}

func (g *Graph[T]) gaussian(c combine, k, v, u *Node[T], sigma T) *Node[T] {
	if v.Value.Rows() != u.Value.Rows() {
		panic(fmt.Errorf("%w: ad: Gaussian of points of dimension %d and %d", ErrShape, v.Value.Rows(), u.Value.Rows()))
	}
	if !(sigma > 0) {
		panic(fmt.Errorf("%w: ad: Gaussian bandwidth %v, want > 0", ErrValue, sigma))
	}
	m, n := v.Value.Cols(), u.Value.Cols()
	s := float64(sigma)
	o := &gaussian[T]{gamma: 1 / (2 * s * s), combine: c, w: g.scratchTensor(m, n), rows: make([]T, m), cols: make([]T, n)}
	if c == alone {
		return g.apply(o, []int{m, n}, v, u)
	}
	if k.Value.Rows() != m || k.Value.Cols() != n {
		panic(fmt.Errorf("%w: ad: combining a kernel of shape %v with a %dx%d Gaussian", ErrShape, k.Value.Shape, m, n))
	}
	o.k = NewTensor[T](m, n)
	return g.apply(o, []int{m, n}, v, u, k)
}

func (o *gaussian[T]) forward(out *Node[T]) {
	v, u := out.inputs[0].Value, out.inputs[1].Value
	d, m, n := v.Rows(), v.Cols(), u.Cols()
	sym := out.inputs[0] == out.inputs[1]
	k := out.Value.Data
	var dst, prev []T
	if o.combine != alone {
		k, dst, prev = o.k.Data, k, out.inputs[2].Value.Data
	}
	// A row is combined with the previous kernel as soon as it is
	// computed, while it is in the cache; the rows of a symmetric kernel
	// are completed by the later rows, and combined at the end.
	rowDst := dst
	if sym {
		rowDst = nil
	}
	if p := workers(m, m*n*(d+4)); p > 1 {
		o.kernelRowsParallel(k, v, u, sym, rowDst, prev, p)
	} else {
		o.kernelRows(k, v, u, sym, rowDst, prev, 0, m)
	}
	if sym && dst != nil {
		o.merge(dst, prev, k)
	}
}

// merge sets dst to the previous kernel prev combined with k.
func (o *gaussian[T]) merge(dst, prev, k []T) {
	if o.combine == plus {
		addTo(dst, prev, k)
		return
	}
	dst, k = dst[:len(prev)], k[:len(prev)]
	for i, p := range prev {
		dst[i] = p * k[i]
	}
}

// kernelRows writes rows first to last-1 of the Gaussian kernel between
// the columns of v and of u to k, and for a symmetric kernel (v is u)
// their mirror images below the diagonal. Row i writes only row i and
// the entries (j, i) with j > i, so disjoint ranges can run at once.
// With dst it merges each row with the previous kernel prev into dst.
func (o *gaussian[T]) kernelRows(k []T, v, u *Tensor[T], sym bool, dst, prev []T, first, last int) {
	d, m, n := v.Rows(), v.Cols(), u.Cols()
	for i := first; i < last; i++ {
		lo := 0
		if sym {
			k[i*n+i] = 1
			lo = i + 1
		}
		row := k[i*n+lo : (i+1)*n]
		sqDist(row, v.Data[i:], m, d, u.Data[lo:], n)
		negExp(row, o.gamma)
		if sym {
			for j, e := range row {
				k[(lo+j)*n+i] = e
			}
		}
		if dst != nil {
			o.merge(dst[i*n:(i+1)*n], prev[i*n:(i+1)*n], row)
		}
	}
}

// kernelRowsParallel is kernelRows over all the rows on p goroutines. It
// is a function of its own so that the variables of forward, which the
// goroutines would otherwise capture, stay on the stack.
func (o *gaussian[T]) kernelRowsParallel(k []T, v, u *Tensor[T], sym bool, dst, prev []T, p int) {
	inParallel(v.Cols(), p, func(first, last int) { o.kernelRows(k, v, u, sym, dst, prev, first, last) })
}

// setsGrads marks the Gaussian as overwriting or zeroing its inputs'
// stale gradients itself.
func (o *gaussian[T]) setsGrads() {}

func (o *gaussian[T]) backward(out *Node[T]) {
	v, u := out.inputs[0], out.inputs[1]
	m, n := v.Value.Cols(), u.Value.Cols()
	// w is the upstream gradient times the kernel value (for a product
	// with a previous kernel, times that kernel too: the output).
	// The previous kernel's gradient, when it is stale, is overwritten.
	kv := out.Value.Data
	var prev []T
	set := false
	if o.combine == plus {
		kv = o.k.Data
		if p := out.inputs[2]; p.Grad != nil {
			prev, set = p.Grad.Data, p.takeStale()
		}
	}
	if p := out.inputs[len(out.inputs)-1]; o.combine == times && p.Grad != nil {
		p.clearStale()
		for i, d := range out.Grad.Data {
			p.Grad.Data[i] += d * o.k.Data[i]
		}
	}
	backRows(o.w.Data, out.Grad.Data, kv, prev, set, o.cols, m, n)
	out.inputs[0].clearStale()
	out.inputs[1].clearStale()
	c := T(2 * o.gamma) // 1/sigma^2
	if v == u {
		// Both gradients land on the same points: with S = W + W^T,
		// du_j = c * sum_i S_ij (u_i - u_j), one product instead of two.
		w := o.w.Data
		for i := range m {
			for j := range i {
				s := w[i*n+j] + w[j*n+i]
				w[i*n+j], w[j*n+i] = s, s
			}
			w[i*n+i] *= 2
		}
		colSums(o.cols, o.w)
		o.addGrad(u.Grad, v.Value, u.Value, o.w, blas.NoTrans, c, o.cols)
		return
	}
	if u.Grad != nil {
		// du_j = c * sum_i w_ij (v_i - u_j)
		o.addGrad(u.Grad, v.Value, u.Value, o.w, blas.NoTrans, c, o.cols)
	}
	if v.Grad != nil {
		// dv_i = c * sum_j w_ij (u_j - v_i)
		rowSums(o.rows, o.w)
		o.addGrad(v.Grad, u.Value, v.Value, o.w, blas.Trans, c, o.rows)
	}
}

// addGrad adds c * (other * op(w) - self .* sums) to dst, sums being the
// sums of op(w)'s columns: the gradient of the kernel with respect to
// the points self, whose partners are the points other.
func (o *gaussian[T]) addGrad(dst, other, self, w *Tensor[T], t blas.Transpose, c T, sums []T) {
	gemm(blas.NoTrans, t, c, other, w, 1, dst)
	n := self.Cols()
	for r := range self.Rows() {
		dr, xr := dst.Data[r*n:(r+1)*n], self.Data[r*n:(r+1)*n]
		for j, sj := range sums[:n] {
			dr[j] -= c * xr[j] * sj
		}
	}
}

// sqDist sets dst[j] to the squared distance between the point x (d
// coordinates with stride incX) and column j of the matrix u (d rows,
// row stride ldu), adding one coordinate at a time so that the loops run
// over contiguous memory. For float64 the assembly takes 32 (AVX-512)
// or 16 (AVX2) columns at a time where it can; it rounds every operation
// as the loop does.
func sqDist[T Float](dst, x []T, incX, d int, u []T, ldu int) {
	if d == 0 {
		clear(dst)
		return
	}
	if len(x) < (d-1)*incX+1 || len(u) < (d-1)*ldu+len(dst) {
		panic(fmt.Errorf("%w: ad: squared distances in %d dimensions to %d columns in %d elements with stride %d", ErrShape, d, len(dst), len(u), ldu))
	}
	if dd, ok := any(dst).([]float64); ok && gaussVec {
		xd, ud := any(x).([]float64), any(u).([]float64)
		n := 0
		if gauss512 {
			if n = len(dd) &^ 31; n > 0 {
				sqDistKernel512(dd[:n], xd, incX, d, ud, ldu)
			}
		}
		if n16 := len(dd) &^ 15; n16 > n {
			sqDistKernel(dd[n:n16], xd, incX, d, ud[n:], ldu)
			n = n16
		}
		sqDistGo(dd[n:], xd, incX, d, ud[n:], ldu)
		return
	}
	sqDistGo(dst, x, incX, d, u, ldu)
}

// sqDistGo is sqDist's loop.
func sqDistGo[T Float](dst, x []T, incX, d int, u []T, ldu int) {
	for r := range d {
		xr, ur := x[r*incX], u[r*ldu:r*ldu+len(dst)]
		if r == 0 {
			for j, y := range ur {
				dst[j] = (xr - y) * (xr - y)
			}
			continue
		}
		for j, y := range ur {
			dst[j] += (xr - y) * (xr - y)
		}
	}
}
