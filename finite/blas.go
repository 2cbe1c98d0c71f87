package finite

import (
	"fmt"
	"unsafe"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/matmul"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// block is a rectangular part of a row-major matrix: rows [r0, r1) and
// columns [c0, c1) of a matrix with the given stride (its full number of
// columns). The solves multiply such parts in place, without copying.
type block[T Float] struct {
	data           []T
	stride         int
	r0, r1, c0, c1 int
}

func part[T Float](data []T, stride, r0, r1, c0, c1 int) block[T] {
	return block[T]{data, stride, r0, r1, c0, c1}
}

func (b block[T]) rows() int { return b.r1 - b.r0 }
func (b block[T]) cols() int { return b.c1 - b.c0 }

// slice returns the data of the part as BLAS wants it: from its first
// element to its last.
func (b block[T]) slice() []T {
	return b.data[b.r0*b.stride+b.c0 : (b.r1-1)*b.stride+b.c1]
}

// gemm computes c += op(a)*op(b) on parts of matrices, through the
// engine's internal/matmul. Empty products do nothing.
func gemm[T Float](tA, tB blas.Transpose, a, b, c block[T]) {
	k := a.cols()
	if tA == blas.Trans {
		k = a.rows()
	}
	if c.rows() == 0 || c.cols() == 0 || k == 0 {
		return
	}
	if c.rows()*c.cols()*k <= smallProduct {
		gemmSmall(tA == blas.Trans, tB == blas.Trans, k, a, b, c)
		return
	}
	if single[T]() {
		matmul.F32(tA, tB, 1, gen32(a), gen32(b), 1, gen32(c))
		return
	}
	matmul.F64(tA, tB, 1, gen64(a), gen64(b), 1, gen64(c))
}

// smallProduct is the number of multiply-adds below which a product is
// computed by plain loops: the small machines' blocks are a few channels
// wide, and the BLAS call costs more than the arithmetic.
const smallProduct = 512

// gemmSmall computes c += op(a)*op(b) by plain loops.
func gemmSmall[T Float](ta, tb bool, k int, a, b, c block[T]) {
	// Element (i, l) of op(a) is a.data[ab + i*ai + l*al], and so on.
	ab, ai, al := a.r0*a.stride+a.c0, a.stride, 1
	if ta {
		ai, al = al, ai
	}
	bb, bl, bj := b.r0*b.stride+b.c0, b.stride, 1
	if tb {
		bl, bj = bj, bl
	}
	n := c.cols()
	if tb && !ta {
		// Inner products of rows of a with rows of b, both contiguous.
		for i := range c.rows() {
			ar := a.data[ab+i*ai:][:k]
			row := c.data[(c.r0+i)*c.stride+c.c0:][:n]
			for j := range row {
				br := b.data[bb+j*b.stride:][:k]
				var acc T
				for l, x := range ar {
					acc += x * br[l]
				}
				row[j] += acc
			}
		}
		return
	}
	for i := range c.rows() {
		row := c.data[(c.r0+i)*c.stride+c.c0:][:n]
		for l := range k {
			x := a.data[ab+i*ai+l*al]
			if x == 0 {
				continue
			}
			off := bb + l*bl
			if bj == 1 {
				for j, y := range b.data[off : off+n] {
					row[j] += x * y
				}
				continue
			}
			for j := range row {
				row[j] += x * b.data[off+j*bj]
			}
		}
	}
}

func gen32[T Float](b block[T]) blas32.General {
	return blas32.General{Rows: b.rows(), Cols: b.cols(), Stride: b.stride, Data: retype[float32](b.slice())}
}

func gen64[T Float](b block[T]) blas64.General {
	return blas64.General{Rows: b.rows(), Cols: b.cols(), Stride: b.stride, Data: retype[float64](b.slice())}
}

// single reports whether T is a 32-bit float.
func single[T Float]() bool {
	var x T
	return unsafe.Sizeof(x) == 4
}

// retype views x as a slice of U, a float of the same width as T.
func retype[U, T Float](x []T) []U {
	var u U
	var t T
	if unsafe.Sizeof(u) != unsafe.Sizeof(t) {
		panic(fmt.Errorf("%w: finite: retyping between floats of different widths", ad.ErrValue))
	}
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}
