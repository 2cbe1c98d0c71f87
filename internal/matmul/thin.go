package matmul

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Thin float64 products, with a dimension below 8, have kernels of their
// own. The packed kernels would pad the small dimension to a tile and
// copy the large operands; gonum runs them as one AXPY or dot product
// per pair of rows, two elements per instruction, with the long rows of
// c or b going through the cache once per term. The kernel machines'
// products are of this kind: c K, with c a few rows of coefficients and
// K a kernel matrix of 100 anchors by thousands of points, and the
// products of its backward pass.
//
// axpyRows computes a whole row of c at once, keeping 16 columns in
// registers while the rows of b go by; dots4 computes the inner products
// of a row of a with four rows of b at once. Both do gonum's operations
// in gonum's order, four elements per instruction: each product is
// rounded and then added (no fused multiply-add), the terms of an AXPY
// sequence in turn, a dot product in gonum's four partial sums. So the
// results are those of gonum's serial loops, bit for bit, and a fit
// follows the same path as before these kernels, three times faster
// (BenchmarkThin). (gonum splits the inner dimension of products with b
// transposed into blocks of 64 when it computes them in parallel, for
// large matrices; there the sums differ in rounding.)

// thin64 computes c = alpha*op(a)*op(b) + beta*c for a thin product with
// the thin kernels and reports true, or reports false, having done
// nothing, if they do not apply: a and b both transposed, or too few
// columns of op(b) to fill the kernels' tiles.
func thin64(tA, tB blas.Transpose, alpha float64, a, b matrix[float64], beta float64, c matrix[float64]) bool {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	switch {
	case tB == blas.NoTrans && n >= 16:
		scale(beta, c)
		if alpha == 0 || k == 0 || m == 0 {
			return true
		}
		// op(a)[i,l] is a[i*Stride+l] or, transposed, a[l*Stride+i].
		sinc, step := 1, a.Stride
		if tA != blas.NoTrans {
			sinc, step = a.Stride, 1
		}
		i, from := 0, 0
		if use512 && n >= 32 {
			// Three rows at once read b once for the three.
			from = n &^ 31
			for ; i+3 <= m; i += 3 {
				axpyRows3(c.Data[i*c.Stride:], c.Stride, from, b.Data, b.Stride, a.Data[i*step:], sinc, step, k, alpha)
				for r := i; r < i+3; r++ {
					axpyRowFrom(c.Data[r*c.Stride:r*c.Stride+n], from, b, a.Data[r*step:], sinc, k, alpha)
				}
			}
		}
		for ; i < m; i++ {
			axpyRowFrom(c.Data[i*c.Stride:i*c.Stride+n], 0, b, a.Data[i*step:], sinc, k, alpha)
		}
		return true
	case tA == blas.NoTrans && tB != blas.NoTrans && n >= 4:
		scale(beta, c)
		if alpha == 0 || m == 0 {
			return true
		}
		var lanes [48]float64
		r, from := 0, 0
		if use512 && k >= 4 {
			// Three rows at once read b once for the three.
			from = n &^ 3
			for ; r+3 <= m; r += 3 {
				dotRows3(c, r, from, a, k, b, alpha, &lanes)
				for rr := r; rr < r+3; rr++ {
					dotRow(c.Data[rr*c.Stride:rr*c.Stride+n], from, a.Data[rr*a.Stride:rr*a.Stride+k], b, alpha, lanes[:16])
				}
			}
		}
		for ; r < m; r++ {
			dotRow(c.Data[r*c.Stride:r*c.Stride+n], 0, a.Data[r*a.Stride:r*a.Stride+k], b, alpha, lanes[:16])
		}
		return true
	}
	return false
}

// axpyRows adds alpha*s[l*sinc] * b[l*ldb:][:len(c)] to c for l = 0..k-1
// in turn, len(c) being a multiple of 16: with AVX-512 32 columns at a
// time, then the rest 16 at a time. It checks the lengths the assembly
// relies on.
func axpyRows(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64) {
	if len(c)%16 != 0 || k > 0 && (len(b) < (k-1)*ldb+len(c) || len(s) < (k-1)*sinc+1) {
		panic(fmt.Sprintf("matmul: axpyRows of %d columns, %d terms on %d elements of b (stride %d) and %d of s (stride %d)", len(c), k, len(b), ldb, len(s), sinc))
	}
	if len(c) == 0 || k == 0 {
		return
	}
	if use512 {
		n := len(c) &^ 31
		if n > 0 {
			axpyRowsKernel512(c[:n], b, ldb, s, sinc, k, alpha)
		}
		c, b = c[n:], b[n:]
		if len(c) == 0 {
			return
		}
	}
	axpyRowsKernel(c, b, ldb, s, sinc, k, alpha)
}

// axpyRowFrom is axpyRows on the columns of row from the column from on,
// its last len(row) mod 16 columns in Go.
func axpyRowFrom(row []float64, from int, b matrix[float64], s []float64, sinc, k int, alpha float64) {
	n16 := len(row) &^ 15
	axpyRows(row[from:n16], b.Data[from:], b.Stride, s, sinc, k, alpha)
	axpyRowsGo(row[n16:], b.Data[n16:], b.Stride, s, sinc, k, alpha)
}

// axpyRows3 is axpyRows on the first n columns of three rows of c,
// c[r*ldc:], whose scalars are s[r*step:], for r < 3, with AVX-512: the
// rows of b are read once for the three. n is a multiple of 32. It
// checks the lengths the assembly relies on.
func axpyRows3(c []float64, ldc, n int, b []float64, ldb int, s []float64, sinc, step, k int, alpha float64) {
	if n%32 != 0 || len(c) < 2*ldc+n || k > 0 && (len(b) < (k-1)*ldb+n || len(s) < 2*step+(k-1)*sinc+1) {
		panic(fmt.Sprintf("matmul: axpyRows3 of %d columns (stride %d), %d terms on %d elements of b (stride %d) and %d of s (strides %d, %d)", n, ldc, k, len(b), ldb, len(s), sinc, step))
	}
	if n == 0 || k == 0 {
		return
	}
	axpyRows3Kernel512(c, ldc, n, b, ldb, s, sinc, step, k, alpha)
}

// axpyRowsGo is axpyRows in Go, for any length of c: the rows of b in
// turn, as the kernel takes them, rather than a column of b at a time,
// which read a row of b per element of c and made the tail of a row
// (its last len(c) mod 16 columns) cost as much as the rest.
func axpyRowsGo(c, b []float64, ldb int, s []float64, sinc, k int, alpha float64) {
	for l := range k {
		as := alpha * s[l*sinc]
		for j, v := range b[l*ldb : l*ldb+len(c)] {
			c[j] += as * v
		}
	}
}

// dots4 sets lanes[4q:4q+4] to the four partial sums of the inner
// product of a with b[q*ldb:][:len(a)] for q < 4: lane j sums the
// products of the elements 4p+j below len(a) rounded down to a multiple
// of 4. finishDot completes them.
func dots4(lanes, a, b []float64, ldb int) {
	if len(lanes) < 16 || len(b) < 3*ldb+len(a) || ldb < len(a) {
		panic(fmt.Sprintf("matmul: dots4 of %d elements on %d elements of b with stride %d", len(a), len(b), ldb))
	}
	dots4Kernel(lanes, a[:len(a)&^3], b, ldb)
}

// dotRow adds alpha times the inner products of ar with the rows of b
// from the row from on to cr's elements, lanes being 16 scratch values.
func dotRow(cr []float64, from int, ar []float64, b matrix[float64], alpha float64, lanes []float64) {
	i := from
	for ; i+4 <= len(cr); i += 4 {
		dots4(lanes, ar, b.Data[i*b.Stride:], b.Stride)
		for q := range 4 {
			cr[i+q] += alpha * finishDot(lanes[4*q:4*q+4], ar, b.Data[(i+q)*b.Stride:])
		}
	}
	for ; i < len(cr); i++ {
		dots4Go(lanes[:4], ar, b.Data[i*b.Stride:], 0, 1)
		cr[i] += alpha * finishDot(lanes[:4], ar, b.Data[i*b.Stride:])
	}
}

// dotRows3 adds alpha times the inner products of rows r to r+2 of a
// (k elements each) with the rows of b below to to those rows of c.
func dotRows3(c matrix[float64], r, to int, a matrix[float64], k int, b matrix[float64], alpha float64, lanes *[48]float64) {
	for i := 0; i < to; i += 4 {
		dots12(lanes[:], a.Data[r*a.Stride:], a.Stride, k, b.Data[i*b.Stride:], b.Stride)
		for rr := range 3 {
			ar := a.Data[(r+rr)*a.Stride : (r+rr)*a.Stride+k]
			cr := c.Data[(r+rr)*c.Stride:]
			for q := range 4 {
				cr[i+q] += alpha * finishDot(lanes[16*rr+4*q:16*rr+4*q+4], ar, b.Data[(i+q)*b.Stride:])
			}
		}
	}
}

// dots12 is dots4 for the three rows of a, a[r*lda:][:k] for r < 3, at
// once, with AVX-512: lanes[16r:16r+16] are row r's. It checks the
// lengths the assembly relies on.
func dots12(lanes, a []float64, lda, k int, b []float64, ldb int) {
	k4 := k &^ 3
	if len(lanes) < 48 || len(a) < 2*lda+k || lda < k || len(b) < 3*ldb+k || ldb < k {
		panic(fmt.Sprintf("matmul: dots12 of %d elements on %d elements of a (stride %d) and %d of b (stride %d)", k, len(a), lda, len(b), ldb))
	}
	dots12Kernel(lanes, a[:k4], lda, b, ldb)
}

// dots4Go is dots4 in Go for rows of b of any number (len(lanes)/4).
func dots4Go(lanes, a, b []float64, ldb, rows int) {
	a = a[:len(a)&^3]
	for q := range rows {
		s := lanes[4*q : 4*q+4]
		clear(s)
		bq := b[q*ldb : q*ldb+len(a)]
		for p := 0; p < len(a); p += 4 {
			for j := range 4 {
				s[j] += a[p+j] * bq[p+j]
			}
		}
	}
}

// finishDot returns the inner product of a and b[:len(a)] from the four
// partial sums of dots4, as gonum's DotUnitary ends: the last len(a)%4
// products go into the first sum, and the sums are added in pairs.
func finishDot(lanes, a, b []float64) float64 {
	s0 := lanes[0]
	for l := len(a) &^ 3; l < len(a); l++ {
		s0 += a[l] * b[l]
	}
	return (lanes[1] + lanes[3]) + (s0 + lanes[2])
}

// fewCols bounds the products that fewColumns computes: c of fewer
// columns, and at least as many rows.
const fewCols = 16

// fewColumns computes c = alpha*op(a)*b + beta*c in float64 for c of
// fewer than fewCols columns and at least fewCols rows, which thin64
// declines: the fits of a few targets. gonum computes such a product as
// one AXPY of the few elements of a row of c per term. With a not
// transposed, the columns of b are copied into rows and c is made of
// inner products of rows (thin64's dots4); with a transposed, c^T = b^T a
// is one AXPY of a whole row of a per term (thin64's axpyRows). The
// kernel machines' ridge solvers spent a fifth of the CPU time of a fit
// of 2,000 rows in such products. Unlike thin64's, these sums are not
// gonum's to the bit: the terms are rounded and added in another order.
func fewColumns(tA blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n, k := c.Rows, c.Cols, b.Rows
	if tA == blas.NoTrans {
		bt := blas64.General{Rows: n, Cols: k, Stride: max(1, k), Data: make([]float64, n*k)}
		for l := range k {
			for j, v := range b.Data[l*b.Stride : l*b.Stride+n] {
				bt.Data[j*k+l] = v
			}
		}
		F64(blas.NoTrans, blas.Trans, alpha, a, bt, beta, c)
		return
	}
	ct := blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, n*m)}
	F64(blas.Trans, blas.NoTrans, alpha, b, a, 0, ct)
	for i := range m {
		row := c.Data[i*c.Stride : i*c.Stride+n]
		for j := range row {
			if beta == 0 {
				row[j] = ct.Data[j*m+i]
			} else {
				row[j] = beta*row[j] + ct.Data[j*m+i]
			}
		}
	}
}
