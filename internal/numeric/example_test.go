package numeric_test

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// The eigenvalues of a symmetric matrix, and a check that names the
// first entry that is not a finite number.
func ExampleEigenSym() {
	a := mat.NewSymDense(2, []float64{2, 1, 1, 2})
	values, _, ok := numeric.EigenSym(a)
	fmt.Printf("%.4g %v\n", values, ok)

	x := mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()})
	fmt.Println(numeric.CheckFinite("kernel: input", x))
	// Output:
	// [1 3] true
	// kernel: input row 1, column 1 is NaN
}
