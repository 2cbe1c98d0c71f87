package machines_test

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/parametric-machines/machines"
)

// A two-layer perceptron is the sum of two square-zero machines on the space
// input ⊕ hidden ⊕ output. Its stable state holds the activations of every
// layer, and the layered solve is the forward pass.
func ExampleSum() {
	input := machines.Span{Lo: 0, Hi: 2}
	hidden := machines.Span{Lo: 2, Hi: 4}
	output := machines.Span{Lo: 4, Hi: 5}

	w1 := mat.NewDense(2, 2, []float64{
		1, -1,
		1, 1,
	})
	w2 := mat.NewDense(2, 1, []float64{1, 2})
	layer1 := &machines.Block{
		In: []machines.Span{input}, Out: []machines.Span{hidden},
		F: func(dst, src *mat.Dense) {
			dst.Mul(src, w1)
			dst.Apply(func(_, _ int, v float64) float64 { return max(v, 0) }, dst) // ReLU
		},
	}
	layer2 := &machines.Block{
		In: []machines.Span{hidden}, Out: []machines.Span{output},
		F: func(dst, src *mat.Dense) { dst.Mul(src, w2) },
	}
	net := &machines.Sum{Terms: []machines.Machine{layer2, layer1}}

	// Two samples; the initial condition places each input in M.
	g := mat.NewDense(2, 5, []float64{
		1, 2, 0, 0, 0,
		3, -1, 0, 0, 0,
	})
	var h mat.Dense
	res, err := net.StableState(&h, g, machines.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("h =\n%v\n", mat.Formatted(&h))
	fmt.Println("depth:", res.Depth)
	layers, _ := machines.Dependencies(net.Terms, 5).Layers()
	fmt.Println("layers of terms:", layers)

	// Output:
	// h =
	// ⎡ 1   2   3   1   5⎤
	// ⎣ 3  -1   2   0   2⎦
	// depth: 2
	// layers of terms: [[1] [0]]
}

// A contraction has infinite depth, but its iteration converges to the
// stable state geometrically.
func ExampleStableState() {
	// f(h) = tanh(h)/2 is a contraction with Lipschitz constant 1/2.
	f := machines.Func(func(dst, h *mat.Dense) {
		dst.Apply(func(_, _ int, v float64) float64 { return math.Tanh(v) / 2 }, h)
	})
	g := mat.NewDense(1, 2, []float64{0.5, -3})
	var h mat.Dense
	res, err := machines.StableState(&h, f, g, machines.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("h = %.6f\n", mat.Formatted(&h))
	fmt.Printf("converged after %d iterations (measured depth %d)\n", res.Iterations, res.Depth)

	// The same iteration diverges for f(h) = 2h, which is no contraction.
	double := machines.Func(func(dst, h *mat.Dense) { dst.Scale(2, h) })
	_, err = machines.StableState(&h, double, g, machines.Settings{MaxIter: 10})
	var ce *machines.ConvergenceError
	fmt.Println(errors.As(err, &ce), err)

	// Output:
	// h = [ 0.843947  -3.499087]
	// converged after 20 iterations (measured depth 19)
	// true machines: stable state did not converge in 10 iterations (last residual 3072)
}

// A machine that never reads what it writes is square-zero: its stable
// state is g + f(g), found in one step.
func ExampleSquareZero() {
	// f copies coordinate 0 into coordinate 1, scaled by 10.
	f := machines.Func(func(dst, h *mat.Dense) {
		dst.Zero()
		for i := range h.RawMatrix().Rows {
			dst.Set(i, 1, 10*h.At(i, 0))
		}
	})
	g := mat.NewDense(2, 2, []float64{1, 1, 2, 0})
	var h mat.Dense
	res, _ := machines.StableState(&h, machines.SquareZero{Machine: f}, g, machines.Settings{})
	fmt.Printf("h =\n%v\ndepth %d in %d iteration\n", mat.Formatted(&h), res.Depth, res.Iterations)

	// Output:
	// h =
	// ⎡ 1  11⎤
	// ⎣ 2  20⎦
	// depth 1 in 1 iteration
}

func ExampleGraph_Layers() {
	// A diamond: 1 and 2 depend on 0, and 3 depends on both.
	g := machines.NewGraph(4)
	g.AddEdge(0, 1)
	g.AddEdge(0, 2)
	g.AddEdge(1, 3)
	g.AddEdge(2, 3)
	fmt.Println(g.Layers())

	// Closing the loop 3 -> 0 leaves no layering.
	g.AddEdge(3, 0)
	fmt.Println(g.Layers())

	// Output:
	// [[0] [1 2] [3]] <nil>
	// [] machines: dependency cycle 0 -> 1 -> 3 -> 0
}
