package matmul_test

import (
	"fmt"

	"github.com/parametric-machines/machines/internal/matmul"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// F64 takes the arguments of blas64.Gemm: here c = 2·aᵀ·b + c, with a
// stored 3×2 and read transposed. The entries are small integers, so the
// result is exact whichever kernel computes it.
func ExampleF64() {
	a := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{
		1, 4,
		2, 5,
		3, 6,
	}}
	b := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{
		1, 0,
		0, 1,
		1, 1,
	}}
	c := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{
		100, 100,
		100, 100,
	}}
	matmul.F64(blas.Trans, blas.NoTrans, 2, a, b, 1, c)
	for i := range c.Rows {
		fmt.Println(c.Data[i*c.Stride : i*c.Stride+c.Cols])
	}

	// Output:
	// [108 110]
	// [120 122]
}

// F32 is the same product in float32, the element type of the image
// models; beta = 0 overwrites c.
func ExampleF32() {
	a := blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: []float32{
		1, 2, 3,
		4, 5, 6,
	}}
	b := blas32.General{Rows: 3, Cols: 1, Stride: 1, Data: []float32{1, 1, -1}}
	c := blas32.General{Rows: 2, Cols: 1, Stride: 1, Data: make([]float32, 2)}
	matmul.F32(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
	fmt.Println(c.Data)

	// Output:
	// [0 3]
}
