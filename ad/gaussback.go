package ad

import "fmt"

// The Gaussian's backward pass reads its upstream gradient dc once: in
// one pass over the rows it forms w = dc .* k, adds dc to the gradient
// of the kernel it was added to, and sums w's rows and columns, rather
// than four passes over a matrix of anchors by points.
//
// The sums are added in a fixed order, the same with or without the
// assembly: a column's sum takes the rows four at a time, ((w0 + w1) +
// (w2 + w3)), then the rest one by one; a row's sum keeps eight partial
// sums, lane l taking the columns j = l mod 8 below the row's length
// rounded down to a multiple of 8, adds them pairwise (backLanes), then
// the remaining columns in turn.

// backRows sets w = dc .* k (m x n matrices, row-major), adds dc to prev
// or, with set, copies it there (prev may be nil), and sets rows and
// cols to the sums of w's rows and columns. lanes holds 8m scratch
// values.
func backRows[T Float](w, dc, k, prev []T, set bool, rows, cols, lanes []T, m, n int) {
	size := m * n
	if len(w) < size || len(dc) < size || len(k) < size || prev != nil && len(prev) < size || len(rows) < m || len(cols) < n || len(lanes) < 8*m {
		panic(fmt.Errorf("%w: ad: Gaussian backward pass of a %dx%d kernel on %d, %d, %d, %d elements", ErrShape, m, n, len(w), len(dc), len(k), len(prev)))
	}
	cols, lanes = cols[:n], lanes[:8*m]
	clear(cols)
	clear(lanes)
	n8, first := n&^7, 0
	if wd, ok := any(w).([]float64); ok && backVec && n8 > 0 && m >= 4 {
		var pd []float64
		if prev != nil {
			pd = any(prev).([]float64)
		}
		first = m &^ 3
		kernel := backRowsKernel
		if back512 {
			kernel = backRowsKernel512
		}
		kernel(wd, any(dc).([]float64), any(k).([]float64), pd, n, any(cols).([]float64), any(lanes).([]float64), first/4, n8, backMode(prev != nil, set))
	}
	backRowsGo(w, dc, k, prev, set, n, first, m, 0, n8, cols, lanes, 8)
	for i := range m {
		rows[i] = backLanes(lanes[8*i : 8*i+8])
	}
	backRowsGo(w, dc, k, prev, set, n, 0, m, n8, n, cols, rows, 1)
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

// backLanes adds a row's eight partial sums pairwise.
func backLanes[T Float](l []T) T {
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

// backRowsGo is backRows' pass over rows [i0, i1) and columns [j0, j1)
// of matrices with ld columns, in the order the assembly takes: rows
// four at a time from i0, then one by one. It adds w[i][j] to
// acc[i*lanes + j mod lanes], lanes being 8 (the partial sums of rows)
// or 1 (a row's sum itself).
func backRowsGo[T Float](w, dc, k, prev []T, set bool, ld, i0, i1, j0, j1 int, cols, acc []T, lanes int) {
	i := i0
	for ; i+4 <= i1; i += 4 {
		for j := j0; j < j1; j++ {
			var s [4]T
			for r := range s {
				s[r] = backElem(w, dc, k, prev, set, (i+r)*ld+j)
				acc[(i+r)*lanes+(j&(lanes-1))] += s[r]
			}
			cols[j] += (s[0] + s[1]) + (s[2] + s[3])
		}
	}
	for ; i < i1; i++ {
		for j := j0; j < j1; j++ {
			x := backElem(w, dc, k, prev, set, i*ld+j)
			acc[i*lanes+(j&(lanes-1))] += x
			cols[j] += x
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
