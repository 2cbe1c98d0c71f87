package ad

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
)

// Tensor is a dense row-major array of float64.
type Tensor struct {
	Shape []int
	Data  []float64
}

// NewTensor returns a zeroed tensor of the given shape.
func NewTensor(shape ...int) *Tensor {
	n := 1
	for _, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("ad: negative dimension in shape %v", shape))
		}
		n *= s
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: make([]float64, n)}
}

// View returns a tensor of the given shape that shares data, which must
// have exactly the right length. Views let many parameter tensors live in
// one flat vector, the form optimisers work on.
func View(data []float64, shape ...int) *Tensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n != len(data) {
		panic(fmt.Sprintf("ad: view of %d values as shape %v", len(data), shape))
	}
	return &Tensor{Shape: append([]int(nil), shape...), Data: data}
}

// Matrix returns a rows x cols tensor holding a copy of data in row-major
// order; data may be nil for a zero matrix.
func Matrix(rows, cols int, data []float64) *Tensor {
	t := NewTensor(rows, cols)
	if data != nil {
		if len(data) != rows*cols {
			panic(fmt.Sprintf("ad: %d values for a %dx%d matrix", len(data), rows, cols))
		}
		copy(t.Data, data)
	}
	return t
}

// Rows returns the number of rows of a matrix (its first dimension).
func (t *Tensor) Rows() int { t.mustMatrix(); return t.Shape[0] }

// Cols returns the number of columns of a matrix (its second dimension).
func (t *Tensor) Cols() int { t.mustMatrix(); return t.Shape[1] }

// At returns the element at row i, column j of a matrix.
func (t *Tensor) At(i, j int) float64 { t.mustMatrix(); return t.Data[i*t.Shape[1]+j] }

// Len returns the number of elements.
func (t *Tensor) Len() int { return len(t.Data) }

// Zero sets every element to 0.
func (t *Tensor) Zero() { clear(t.Data) }

func (t *Tensor) mustMatrix() {
	if len(t.Shape) != 2 {
		panic(fmt.Sprintf("ad: shape %v is not a matrix", t.Shape))
	}
}

func (t *Tensor) sameShape(u *Tensor) bool {
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

// general views a matrix as a BLAS general matrix sharing its data.
func (t *Tensor) general() blas64.General {
	t.mustMatrix()
	return blas64.General{Rows: t.Shape[0], Cols: t.Shape[1], Stride: t.Shape[1], Data: t.Data}
}
