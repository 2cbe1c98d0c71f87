package scale_test

import (
	"fmt"

	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

func ExampleFitQuantileMap() {
	// Concentrations, skewed to the right, and a 0/1 column.
	x := mat.NewDense(5, 2, []float64{
		95, 0,
		175, 1,
		250, 0,
		500, 1,
		1000, 0,
	})
	q := scale.FitQuantileMap(x)
	for _, v := range []float64{95, 212.5, 1000, 2000} {
		fmt.Printf("%g -> %.2f\n", v, q.TransformValue(0, v))
	}
	fmt.Println("0/1 column mapped:", q.Knots[1] != nil)
	// Output:
	// 95 -> 0.10
	// 212.5 -> 0.40
	// 1000 -> 0.90
	// 2000 -> 0.90
	// 0/1 column mapped: false
}
