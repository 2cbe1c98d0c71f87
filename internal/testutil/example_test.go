package testutil_test

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/internal/testutil"
)

// A solver's test measures its error against the exact solution at
// several step sizes and checks the order of convergence: here Euler's
// method for y' = -y, y(0) = 1, whose order is 1, and Heun's, whose
// order is 2.
func ExampleOrder() {
	exact := func(dst []float64, t float64) { dst[0] = math.Exp(-t) }
	// solve integrates y' = -y on [0, 1] in n steps, each multiplying y
	// by the growth factor g of the method, and stores the states one
	// row per time, as the solvers do.
	solve := func(n int, g float64) (ts, ys []float64) {
		y := 1.0
		for k := range n + 1 {
			ts, ys = append(ts, float64(k)/float64(n)), append(ys, y)
			y *= g
		}
		return ts, ys
	}
	var hs, euler, heun []float64
	for _, n := range []int{10, 20, 40, 80} {
		h := 1 / float64(n)
		hs = append(hs, h)
		ts, ys := solve(n, 1-h)
		euler = append(euler, testutil.MaxErr(ts, ys, exact))
		ts, ys = solve(n, 1-h+h*h/2)
		heun = append(heun, testutil.MaxErr(ts, ys, exact))
	}
	fmt.Printf("Euler: order %.1f\n", testutil.Order(hs, euler))
	fmt.Printf("Heun:  order %.1f\n", testutil.Order(hs, heun))

	// Output:
	// Euler: order 1.0
	// Heun:  order 2.0
}

// Panics turns a panic into a message that a test can compare.
func ExamplePanics() {
	msg, panicked := testutil.Panics(func() {
		var s []int
		_ = s[3]
	})
	fmt.Printf("%v %q\n", panicked, msg)
	msg, panicked = testutil.Panics(func() {})
	fmt.Printf("%v %q\n", panicked, msg)

	// Output:
	// true "runtime error: index out of range [3] with length 0"
	// false ""
}
