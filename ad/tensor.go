package ad

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Float is the element type of tensors: float64 where precision matters,
// float32 where throughput does (see the package documentation).
type Float interface {
	~float32 | ~float64
}

// Tensor is a dense row-major array of floating-point numbers.
type Tensor[T Float] struct {
	Shape []int
	Data  []T
}

// NewTensor returns a zeroed tensor of the given shape.
func NewTensor[T Float](shape ...int) *Tensor[T] {
	n := 1
	for _, s := range shape {
		if s < 0 {
			panic(fmt.Errorf("%w: ad: negative dimension in shape %v", ErrShape, shape))
		}
		n *= s
	}
	return &Tensor[T]{Shape: append([]int(nil), shape...), Data: make([]T, n)}
}

// View returns a tensor of the given shape that shares data, which must
// have exactly the right length. Views let many parameter tensors live in
// one flat vector, the form optimisers work on.
func View[T Float](data []T, shape ...int) *Tensor[T] {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n != len(data) {
		panic(fmt.Errorf("%w: ad: view of %d values as shape %v", ErrShape, len(data), shape))
	}
	return &Tensor[T]{Shape: append([]int(nil), shape...), Data: data}
}

// Matrix returns a rows x cols tensor holding a copy of data in row-major
// order; data may be nil for a zero matrix.
func Matrix[T Float](rows, cols int, data []T) *Tensor[T] {
	t := NewTensor[T](rows, cols)
	if data != nil {
		if len(data) != rows*cols {
			panic(fmt.Errorf("%w: ad: %d values for a %dx%d matrix", ErrShape, len(data), rows, cols))
		}
		copy(t.Data, data)
	}
	return t
}

// Rows returns the number of rows of a matrix (its first dimension).
func (t *Tensor[T]) Rows() int { t.mustMatrix(); return t.Shape[0] }

// Cols returns the number of columns of a matrix (its second dimension).
func (t *Tensor[T]) Cols() int { t.mustMatrix(); return t.Shape[1] }

// At returns the element at row i, column j of a matrix.
func (t *Tensor[T]) At(i, j int) T { t.mustMatrix(); return t.Data[i*t.Shape[1]+j] }

// Len returns the number of elements.
func (t *Tensor[T]) Len() int { return len(t.Data) }

// Zero sets every element to 0.
func (t *Tensor[T]) Zero() { clear(t.Data) }

func (t *Tensor[T]) mustMatrix() {
	if len(t.Shape) != 2 {
		panic(fmt.Errorf("%w: ad: shape %v is not a matrix", ErrShape, t.Shape))
	}
}

func (t *Tensor[T]) sameShape(u *Tensor[T]) bool {
	if len(t.Shape) != len(u.Shape) {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i] != u.Shape[i] {
			return false
		}
	}
	return true
}

// FromMatrix returns a float64 tensor holding a copy of the matrix a.
func FromMatrix(a mat.Matrix) *Tensor[float64] {
	r, c := a.Dims()
	return View(mat.DenseCopyOf(a).RawMatrix().Data, r, c)
}
