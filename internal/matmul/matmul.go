// Package matmul is the engine's matrix product: gonum's blas32.Gemm and
// blas64.Gemm with the same arguments, computed by AVX/FMA kernels in
// assembly where the processor has those instructions.
//
// gonum's pure-Go Gemm runs its inner loops through axpy and dot
// routines, which leave most of a vector unit idle; BenchmarkGemm
// measures the difference. The kernels follow
// the usual layout of fast products: op(B) is copied, kc rows at a time,
// into panels nr columns wide (16 float32 or 8 float64: two registers),
// op(A) into panels mr = 6 rows high (times alpha), and a 6 x nr tile of
// C is accumulated in twelve registers while the two panels stream by.
// Edge tiles are computed into a scratch tile from zero-padded panels
// and added to C.
//
// Thin products, with a dimension below 8, have kernels of their own in
// float64 where they pay (see thin.go), products of a few columns are
// turned into thin products that pay (see fewColumns), and the rest go
// to gonum;
// float32 products of a matrix with a transposed one of at most 16 rows
// are inner products of rows (see dots.go). Everything goes to gonum
// without the kernels: other architectures, the build
// tag noasm, or a processor without AVX and FMA.
package matmul

import (
	"fmt"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// F32 computes c = alpha*op(a)*op(b) + beta*c, as blas32.Gemm does. It
// panics if the shapes do not match, which blas32.Gemm does not check
// for b.
func F32(tA, tB blas.Transpose, alpha float32, a, b blas32.General, beta float32, c blas32.General) {
	if !withKernels(tA, tB, alpha, matrix32(a), matrix32(b), beta, matrix32(c), &pool32) {
		blas32.Gemm(tA, tB, alpha, a, b, beta, c)
	}
}

// F64 computes c = alpha*op(a)*op(b) + beta*c, as blas64.Gemm does. It
// panics if the shapes do not match, which blas64.Gemm does not check
// for b.
func F64(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	switch {
	case withKernels(tA, tB, alpha, matrix64(a), matrix64(b), beta, matrix64(c), &pool64):
	case useKernels && tB == blas.NoTrans && c.Cols < fewCols && c.Rows >= fewCols:
		fewColumns(tA, alpha, a, b, beta, c)
	default:
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
	}
}

// withKernels checks the arguments and computes the product with the
// kernels if they pay; it reports false, having done nothing, when gonum
// should compute it instead.
func withKernels[T float](tA, tB blas.Transpose, alpha T, a, b matrix[T], beta T, c matrix[T], pool *sync.Pool) bool {
	check(tA, tB, a, b, c)
	if !useKernels {
		return false
	}
	if thin(tA, a, c) {
		if a, ok := any(a).(matrix[float64]); ok {
			return thin64(tA, tB, float64(alpha), a, any(b).(matrix[float64]), float64(beta), any(c).(matrix[float64]))
		}
		return false
	}
	if c32, ok := any(c).(matrix[float32]); ok && tA == blas.NoTrans && tB != blas.NoTrans && c.Cols <= dotsCols {
		dotsNT(any(alpha).(float32), any(a).(matrix[float32]), any(b).(matrix[float32]), any(beta).(float32), c32)
		return true
	}
	product(tA != blas.NoTrans, tB != blas.NoTrans, alpha, a, b, beta, c, pool, false)
	return true
}

// Gram adds a^T a to the upper triangle of c, the columns of a by the
// columns of a, leaving the entries below the diagonal as they are, as
// blas64.Syrk(blas.Trans, 1, a, 1, c) does for c.Uplo blas.Upper. With
// the kernels it computes only the tiles that reach the upper triangle,
// about half of the products of the whole square.
func Gram(a blas64.General, c blas64.Symmetric) {
	if c.Uplo != blas.Upper {
		panic("matmul: Gram of a lower triangle")
	}
	g := matrix64(a)
	out := matrix[float64]{Rows: c.N, Cols: c.N, Data: c.Data, Stride: c.Stride}
	check(blas.Trans, blas.NoTrans, g, g, out)
	if !useKernels || thin(blas.Trans, g, out) {
		blas64.Syrk(blas.Trans, 1, a, 1, c)
		return
	}
	product(true, false, 1, g, g, 1, out, &pool64, true)
}

type float interface{ ~float32 | ~float64 }

// matrix is blas32.General or blas64.General: rows x cols, row-major
// with the given stride.
type matrix[T float] struct {
	Rows, Cols int
	Data       []T
	Stride     int
}

func matrix32(g blas32.General) matrix[float32] {
	return matrix[float32]{Rows: g.Rows, Cols: g.Cols, Data: g.Data, Stride: g.Stride}
}

func matrix64(g blas64.General) matrix[float64] {
	return matrix[float64]{Rows: g.Rows, Cols: g.Cols, Data: g.Data, Stride: g.Stride}
}

// Tile and block sizes, in elements. A kc x nr panel of B (16 KiB) stays
// in the L1 cache while the kernel runs down the mr-row panels of an mc x
// kc block of A (96 or 192 KiB, in L2).
const (
	mr = 6
	kc = 256
	mc = 96
	nc = 256
)

// nr is the width of a tile: two vector registers.
func nr[T float]() int {
	var x T
	return 64 / int(unsafe.Sizeof(x))
}

// scratch holds the packed panels of one call.
type scratch[T float] struct {
	a    [mc * kc]T
	b    [kc * nc]T
	tile [mr * 16]T
}

var (
	pool32 = sync.Pool{New: func() any { return new(scratch[float32]) }}
	pool64 = sync.Pool{New: func() any { return new(scratch[float64]) }}
)

func check[T float](tA, tB blas.Transpose, a, b, c matrix[T]) {
	m, k := a.Rows, a.Cols
	if tA != blas.NoTrans {
		m, k = k, m
	}
	kb, n := b.Rows, b.Cols
	if tB != blas.NoTrans {
		kb, n = n, kb
	}
	if m != c.Rows || n != c.Cols || k != kb {
		panic(fmt.Sprintf("matmul: op(a) %dx%d times op(b) %dx%d into c %dx%d", m, k, kb, n, c.Rows, c.Cols))
	}
	for _, g := range []struct {
		name string
		m    matrix[T]
	}{{"a", a}, {"b", b}, {"c", c}} {
		if g.m.Rows < 0 || g.m.Cols < 0 || g.m.Stride < max(1, g.m.Cols) {
			panic(fmt.Sprintf("matmul: %s is %dx%d with stride %d", g.name, g.m.Rows, g.m.Cols, g.m.Stride))
		}
		if g.m.Rows > 0 && g.m.Cols > 0 && len(g.m.Data) < (g.m.Rows-1)*g.m.Stride+g.m.Cols {
			panic(fmt.Sprintf("matmul: %s is %dx%d with stride %d but holds %d elements", g.name, g.m.Rows, g.m.Cols, g.m.Stride, len(g.m.Data)))
		}
	}
}

// thin reports whether a product has a dimension below 8, where copying
// the panels costs more than it saves and gonum's loops are faster: the
// kernel machines' products are of this kind, a few rows or a few
// features times a square matrix.
func thin[T float](tA blas.Transpose, a, c matrix[T]) bool {
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	return c.Rows < 8 || c.Cols < 8 || k < 8
}

// product computes c = alpha*op(a)*op(b) + beta*c with the kernels, on
// arguments that check has passed; with upper, only the entries of c on
// or above its diagonal, the others being left as they are (c square,
// beta 1).
func product[T float](tA, tB bool, alpha T, a, b matrix[T], beta T, c matrix[T], pool *sync.Pool, upper bool) {
	m, n, k := c.Rows, c.Cols, a.Cols
	if tA {
		k = a.Rows
	}
	if m == 0 || n == 0 {
		return
	}
	scale(beta, c)
	if k == 0 || alpha == 0 {
		return
	}
	s := pool.Get().(*scratch[T])
	defer pool.Put(s)
	for j0 := 0; j0 < n; j0 += nc {
		nb := min(nc, n-j0)
		for p0 := 0; p0 < k; p0 += kc {
			kk := min(kc, k-p0)
			packB(s.b[:], tB, b, p0, kk, j0, nb)
			for i0 := 0; i0 < m && !(upper && i0 >= j0+nb); i0 += mc {
				mb := min(mc, m-i0)
				packA(s.a[:], tA, alpha, a, i0, mb, p0, kk)
				macroKernel(s, kk, mb, nb, c, i0, j0, upper)
			}
		}
	}
}

// scale sets c = beta*c; beta 0 clears c whatever it held, NaN included.
func scale[T float](beta T, c matrix[T]) {
	if beta == 1 {
		return
	}
	for i := range c.Rows {
		row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packA copies alpha times the rows [i0, i0+mb) and columns [p0, p0+kk)
// of op(a) into dst as panels of mr rows: panel r holds, for every p,
// the mr entries of column p, the rows past mb being zero.
func packA[T float](dst []T, trans bool, alpha T, a matrix[T], i0, mb, p0, kk int) {
	for r0 := 0; r0 < mb; r0 += mr {
		panel := dst[r0*kk : (r0+mr)*kk]
		rows := min(mr, mb-r0)
		if rows < mr {
			clear(panel)
		}
		if trans {
			// op(a)[i, p] = a[p, i]: the panel's column p is a piece of
			// row p0+p of a.
			for p := range kk {
				off := (p0+p)*a.Stride + i0 + r0
				dst := panel[p*mr : p*mr+rows]
				for r, x := range a.Data[off : off+rows] {
					dst[r] = alpha * x
				}
			}
			continue
		}
		for r := range rows {
			i := i0 + r0 + r
			for p, x := range a.Data[i*a.Stride+p0 : i*a.Stride+p0+kk] {
				panel[p*mr+r] = alpha * x
			}
		}
	}
}

// packB copies the rows [p0, p0+kk) and columns [j0, j0+nb) of op(b) into
// dst as panels of nr columns: panel j holds, for every p, the nr entries
// of row p, the columns past nb being zero.
func packB[T float](dst []T, trans bool, b matrix[T], p0, kk, j0, nb int) {
	w := nr[T]()
	if rest := nb % w; rest > 0 {
		clear(dst[(nb-rest)*kk : (nb-rest+w)*kk])
	}
	if trans {
		for c0 := 0; c0 < nb; c0 += w {
			panel := dst[c0*kk : (c0+w)*kk]
			// op(b)[p, j] = b[j, p]
			for c := range min(w, nb-c0) {
				off := (j0+c0+c)*b.Stride + p0
				for p, x := range b.Data[off : off+kk] {
					panel[p*w+c] = x
				}
			}
		}
		return
	}
	// Row p of op(b) in turn, read once, its pieces to each panel.
	for p := range kk {
		row := b.Data[(p0+p)*b.Stride+j0 : (p0+p)*b.Stride+j0+nb]
		c0 := 0
		for ; c0+w <= nb; c0 += w {
			// A whole row of the panel, 64 bytes.
			*(*[64]byte)(unsafe.Pointer(&dst[c0*kk+p*w])) = *(*[64]byte)(unsafe.Pointer(&row[c0]))
		}
		if c0 < nb {
			copy(dst[c0*kk+p*w:c0*kk+p*w+nb-c0], row[c0:])
		}
	}
}

// macroKernel adds the product of the packed blocks, mb x kk times kk x
// nb, to c at (i0, j0), one tile at a time; with upper, only to the
// entries of c on or above its diagonal, skipping the tiles below it.
func macroKernel[T float](s *scratch[T], kk, mb, nb int, c matrix[T], i0, j0 int, upper bool) {
	w := nr[T]()
	for c0 := 0; c0 < nb; c0 += w {
		bp := s.b[c0*kk : (c0+w)*kk]
		cols := min(w, nb-c0)
		for r0 := 0; r0 < mb; r0 += mr {
			ap := s.a[r0*kk : (r0+mr)*kk]
			rows := min(mr, mb-r0)
			// The tile's rows and columns of c: with upper, rows after
			// the last column are left out, the first column below the
			// first row of a tile that crosses the diagonal.
			i, j := i0+r0, j0+c0
			if upper && i > j+cols-1 {
				break
			}
			off := i*c.Stride + j
			if rows == mr && cols == w && !(upper && i+mr-1 > j) {
				kernel(kk, ap, bp, c.Data[off:], c.Stride)
				continue
			}
			tile := s.tile[:mr*w]
			clear(tile)
			kernel(kk, ap, bp, tile, w)
			for r := range rows {
				from := 0
				if upper {
					from = max(0, i+r-j)
				}
				if from >= cols {
					break
				}
				dst := c.Data[off+r*c.Stride+from : off+r*c.Stride+cols]
				for j, x := range tile[r*w+from : r*w+cols] {
					dst[j] += x
				}
			}
		}
	}
}

// kernel adds to the 6 x nr tile of c with row stride ldc the product of
// the packed panels a (k x 6, by columns) and b (k x nr, by rows). It
// checks the lengths the assembly relies on.
func kernel[T float](k int, a, b, c []T, ldc int) {
	w := nr[T]()
	if len(a) < k*mr || len(b) < k*w || ldc < w || len(c) < (mr-1)*ldc+w {
		panic(fmt.Sprintf("matmul: kernel on panels of %d and %d elements for k=%d, tile of %d with stride %d", len(a), len(b), k, len(c), ldc))
	}
	switch a := any(a).(type) {
	case []float32:
		kernel6x16(k, a, any(b).([]float32), any(c).([]float32), ldc)
	case []float64:
		kernel6x8(k, a, any(b).([]float64), any(c).([]float64), ldc)
	}
}
