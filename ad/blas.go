package ad

import (
	"fmt"
	"unsafe"

	"github.com/parametric-machines/machines/internal/matmul"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// The BLAS routines come in a float32 and a float64 version. The helpers
// below choose one by a type switch on the data, once per call, so that
// the loops over elements run inside gonum at full speed for either type;
// matrix products go through internal/matmul, which is faster than
// gonum where the processor has AVX and FMA.
// A named float type (one whose underlying type is float32 or float64)
// is passed to the routine of its underlying type as a view of the same
// memory.

// gemm computes c = alpha*op(a)*op(b) + beta*c for matrices.
func gemm[T Float](tA, tB blas.Transpose, alpha T, a, b *Tensor[T], beta T, c *Tensor[T]) {
	switch cd := any(c.Data).(type) {
	case []float64:
		ad, bd := any(a.Data).([]float64), any(b.Data).([]float64)
		matmul.F64(tA, tB, float64(alpha), general64(a, ad), general64(b, bd), float64(beta), general64(c, cd))
	case []float32:
		ad, bd := any(a.Data).([]float32), any(b.Data).([]float32)
		matmul.F32(tA, tB, float32(alpha), general32(a, ad), general32(b, bd), float32(beta), general32(c, cd))
	default:
		if single[T]() {
			gemm(tA, tB, float32(alpha), retype[float32](a), retype[float32](b), float32(beta), retype[float32](c))
		} else {
			gemm(tA, tB, float64(alpha), retype[float64](a), retype[float64](b), float64(beta), retype[float64](c))
		}
	}
}

// dot returns the inner product of x and y.
func dot[T Float](x, y []T) T {
	switch xd := any(x).(type) {
	case []float64:
		yd := any(y).([]float64)
		return T(blas64.Dot(blas64.Vector{N: len(xd), Inc: 1, Data: xd}, blas64.Vector{N: len(yd), Inc: 1, Data: yd}))
	case []float32:
		yd := any(y).([]float32)
		return T(blas32.Dot(blas32.Vector{N: len(xd), Inc: 1, Data: xd}, blas32.Vector{N: len(yd), Inc: 1, Data: yd}))
	default:
		if single[T]() {
			return T(dot(retypeSlice[float32](x), retypeSlice[float32](y)))
		}
		return T(dot(retypeSlice[float64](x), retypeSlice[float64](y)))
	}
}

// axpy adds alpha*x to y.
func axpy[T Float](alpha T, x, y []T) {
	switch xd := any(x).(type) {
	case []float64:
		yd := any(y).([]float64)
		blas64.Axpy(float64(alpha), blas64.Vector{N: len(xd), Inc: 1, Data: xd}, blas64.Vector{N: len(yd), Inc: 1, Data: yd})
	case []float32:
		yd := any(y).([]float32)
		blas32.Axpy(float32(alpha), blas32.Vector{N: len(xd), Inc: 1, Data: xd}, blas32.Vector{N: len(yd), Inc: 1, Data: yd})
	default:
		if single[T]() {
			axpy(float32(alpha), retypeSlice[float32](x), retypeSlice[float32](y))
		} else {
			axpy(float64(alpha), retypeSlice[float64](x), retypeSlice[float64](y))
		}
	}
}

// addTo sets dst = a + b elementwise: gonum's floats.AddTo for float64,
// addVec32 for float32, both in assembly on amd64.
func addTo[T Float](dst, a, b []T) {
	if d, ok := any(dst).([]float64); ok {
		floats.AddTo(d, any(a).([]float64), any(b).([]float64))
		return
	}
	if single[T]() {
		addVec32(retypeSlice[float32](dst), retypeSlice[float32](a), retypeSlice[float32](b))
		return
	}
	addTo(retypeSlice[float64](dst), retypeSlice[float64](a), retypeSlice[float64](b))
}

// general64 and general32 view a matrix with the given data as a BLAS
// general matrix.
func general64[T Float](t *Tensor[T], data []float64) blas64.General {
	t.mustMatrix()
	return blas64.General{Rows: t.Shape[0], Cols: t.Shape[1], Stride: t.Shape[1], Data: data}
}

func general32[T Float](t *Tensor[T], data []float32) blas32.General {
	t.mustMatrix()
	return blas32.General{Rows: t.Shape[0], Cols: t.Shape[1], Stride: t.Shape[1], Data: data}
}

// single reports whether T is a 32-bit float.
func single[T Float]() bool {
	var x T
	return unsafe.Sizeof(x) == 4
}

// retypeSlice views x as a slice of U, which must have the same
// underlying type as T.
func retypeSlice[U, T Float](x []T) []U {
	var u U
	var t T
	if unsafe.Sizeof(u) != unsafe.Sizeof(t) {
		panic(fmt.Errorf("%w: ad: retyping between floats of different widths", ErrValue))
	}
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// retype views t as a tensor of U, which must have the same underlying
// type as T.
func retype[U, T Float](t *Tensor[T]) *Tensor[U] {
	return &Tensor[U]{Shape: t.Shape, Data: retypeSlice[U](t.Data)}
}
