package optim_test

import (
	"fmt"
	"log"

	"github.com/parametric-machines/machines/optim"
)

// Minimize takes the loss and its gradient in one function, so that work
// shared between them is done once. The Rosenbrock function has its
// minimum 0 at (1, 1) at the end of a long curved valley.
func ExampleMinimize() {
	rosenbrock := func(x, grad []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		grad[0] = -2*a - 400*x[0]*b
		grad[1] = 200 * b
		return a*a + 100*b*b
	}
	x0 := []float64{-1.2, 1}
	res, err := optim.Minimize(rosenbrock, x0, optim.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("minimiser (%.4f, %.4f), loss below 1e-12: %v, converged: %v\n",
		res.X[0], res.X[1], res.Loss < 1e-12, res.Converged)
	fmt.Println("x0 unchanged:", x0)

	// Output:
	// minimiser (1.0000, 1.0000), loss below 1e-12: true, converged: true
	// x0 unchanged: [-1.2 1]
}

// A stepper updates the parameters in place from a gradient, as a
// minibatch loop calls it. Here Adam minimises |x - (3, -2)|², whose
// gradient is 2(x - (3, -2)).
func ExampleAdam_Step() {
	target := []float64{3, -2}
	x := make([]float64, 2)
	grad := make([]float64, 2)
	adam := &optim.Adam{LR: 0.1}
	for range 500 {
		for i := range x {
			grad[i] = 2 * (x[i] - target[i])
		}
		adam.Step(x, grad)
	}
	fmt.Printf("x = (%.3f, %.3f)\n", x[0], x[1])

	// Output:
	// x = (3.000, -2.000)
}
