package ad_test

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
)

// A least-squares loss and its gradient. The same code builds the graph in
// float64 or float32: only the type argument changes.
func Example() {
	fmt.Println(leastSquares[float64]())
	fmt.Println(leastSquares[float32]())
	// Output:
	// 16.6667 [-17.3333 -41.3333]
	// 16.6667 [-17.3333 -41.3333]
}

// leastSquares returns the mean of (w.x - y)^2 over the samples x, the
// rows of a batch, and its gradient with respect to w, formatted.
func leastSquares[T ad.Float]() (loss, grad string) {
	var g ad.Graph[T]
	w := g.Param(ad.Matrix(1, 2, []T{1, -1}), nil)
	x := g.Input(ad.Matrix(3, 2, []T{1, 4, 2, 5, 3, 6}))
	y := g.Input(ad.Matrix(3, 1, []T{0, 1, 2}))
	l := g.MSE(g.MatMul(x, w, false, true), y)
	g.Backward(l)
	return fmt.Sprintf("%.6g", l.Scalar()), fmt.Sprintf("%.6g", w.Grad.Data)
}
