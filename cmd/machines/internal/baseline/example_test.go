package baseline_test

import (
	"fmt"
	"log"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/dataset"
)

func ExampleKernelRidge() {
	// The paper's surface fitting task: train on the 6×6 grid, test on
	// the 101×101 grid of the same square.
	X, y := dataset.PolynomialGrid(6)
	Xt, yt := dataset.PolynomialGrid(101)

	var m baseline.KernelRidge // zero Settings: choose sigma and lambda by LOO
	if err := m.Fit(X, mat.NewDense(len(y), 1, y)); err != nil {
		log.Fatal(err)
	}
	pred := m.Predict(nil, Xt)

	var sse float64
	for i, want := range yt {
		d := pred.At(i, 0) - want
		sse += d * d
	}
	rmse := math.Sqrt(sse / float64(len(yt)))
	fmt.Println("parameters:", m.Params())
	fmt.Println("test RMSE below 0.01:", rmse < 0.01)

	// Output:
	// parameters: 36
	// test RMSE below 0.01: true
}
