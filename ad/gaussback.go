package ad

import "fmt"

// The Gaussian's backward pass reads its upstream gradient dc once: in
// one pass over the rows it forms w = dc .* k, adds dc to the gradient
// of the kernel it was added to and sums w's columns, rather than three
// passes over a matrix of anchors by points. The columns' sums take the
// rows four at a time, ((w0 + w1) + (w2 + w3)), then the rest one by
// one, as colSums does; the rows' sums, a chain of additions from left
// to right, are rowSums' pass over w, so the gradients are those of the
// separate loops bit for bit.

// backRows sets w = dc .* k (m x n matrices, row-major), adds dc to prev
// or, with set, copies it there (prev may be nil), and sets cols to the
// sums of w's columns.
func backRows[T Float](w, dc, k, prev []T, set bool, cols []T, m, n int) {
	size := m * n
	if len(w) < size || len(dc) < size || len(k) < size || prev != nil && len(prev) < size || len(cols) < n {
		panic(fmt.Errorf("%w: ad: Gaussian backward pass of a %dx%d kernel on %d, %d, %d, %d elements", ErrShape, m, n, len(w), len(dc), len(k), len(prev)))
	}
	cols = cols[:n]
	clear(cols)
	n8, first := n&^7, 0
	if wd, ok := any(w).([]float64); ok && gaussVec && n8 > 0 && m >= 4 {
		var pd []float64
		if prev != nil {
			pd = any(prev).([]float64)
		}
		first = m &^ 3
		kernel := backRowsKernel
		if gauss512 {
			kernel = backRowsKernel512
		}
		kernel(wd, any(dc).([]float64), any(k).([]float64), pd, n, any(cols).([]float64), first/4, n8, backMode(prev != nil, set))
	}
	backRowsGo(w, dc, k, prev, set, n, first, m, 0, n8, cols)
	backRowsGo(w, dc, k, prev, set, n, 0, m, n8, n, cols)
}

// backMode tells backRowsKernel what to do with prev: 0 leave it, 1 add
// dc to it, 2 copy dc there.
func backMode(hasPrev, set bool) int {
	switch {
	case !hasPrev:
		return 0
	case set:
		return 2
	}
	return 1
}

// backRowsGo is backRows' pass over rows [i0, i1) and columns [j0, j1)
// of matrices with ld columns, in the order the assembly takes: rows
// four at a time from i0, then one by one.
func backRowsGo[T Float](w, dc, k, prev []T, set bool, ld, i0, i1, j0, j1 int, cols []T) {
	i := i0
	for ; i+4 <= i1; i += 4 {
		for j := j0; j < j1; j++ {
			var s [4]T
			for r := range s {
				s[r] = backElem(w, dc, k, prev, set, (i+r)*ld+j)
			}
			cols[j] += (s[0] + s[1]) + (s[2] + s[3])
		}
	}
	for ; i < i1; i++ {
		for j := j0; j < j1; j++ {
			cols[j] += backElem(w, dc, k, prev, set, i*ld+j)
		}
	}
}

// backElem sets w[p] = dc[p] * k[p], adds dc[p] to prev[p] or copies it
// there, and returns w[p].
func backElem[T Float](w, dc, k, prev []T, set bool, p int) T {
	x := dc[p]
	if prev != nil {
		if set {
			prev[p] = x
		} else {
			prev[p] += x
		}
	}
	w[p] = x * k[p]
	return w[p]
}

// colSums sets dst to the sums of the columns of w. Adding four rows at
// a time makes the plain loop as fast as an assembly AXPY per row, and
// faster for short rows.
func colSums[T Float](dst []T, w *Tensor[T]) {
	m, n := w.Rows(), w.Cols()
	dst = dst[:n]
	clear(dst)
	i := 0
	for ; i+4 <= m; i += 4 {
		r0 := w.Data[i*n : (i+1)*n]
		r1 := w.Data[(i+1)*n : (i+2)*n][:n]
		r2 := w.Data[(i+2)*n : (i+3)*n][:n]
		r3 := w.Data[(i+3)*n : (i+4)*n][:n]
		for j, x := range r0 {
			dst[j] += (x + r1[j]) + (r2[j] + r3[j])
		}
	}
	for ; i < m; i++ {
		for j, x := range w.Data[i*n : (i+1)*n] {
			dst[j] += x
		}
	}
}

// rowSums sets dst to the sums of the rows of w, each added from left to
// right. One row's sum is a chain of dependent additions, so four rows
// go at once: the four chains overlap.
func rowSums[T Float](dst []T, w *Tensor[T]) {
	m, n := w.Rows(), w.Cols()
	i := 0
	for ; i+4 <= m; i += 4 {
		r0 := w.Data[i*n : (i+1)*n]
		r1 := w.Data[(i+1)*n : (i+2)*n][:len(r0)]
		r2 := w.Data[(i+2)*n : (i+3)*n][:len(r0)]
		r3 := w.Data[(i+3)*n : (i+4)*n][:len(r0)]
		var s0, s1, s2, s3 T
		for j, x := range r0 {
			s0 += x
			s1 += r1[j]
			s2 += r2[j]
			s3 += r3[j]
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < m; i++ {
		var s T
		for _, x := range w.Data[i*n : (i+1)*n] {
			s += x
		}
		dst[i] = s
	}
}
