package finite_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
)

// A dense machine on the filtration [2, 3, 1]: its stable state is built
// in three steps, and its backward pass is one more solve.
func ExampleNewDense() {
	m, err := finite.NewDense[float64]([]int{2, 3, 1}, finite.Tanh, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		panic(err)
	}
	var g ad.Graph[float64]
	p := m.Bind(&g, nil, nil)
	// Two samples of the input block, a row each; the other 4 channels
	// start at 0.
	y0 := g.Param(ad.Matrix(2, 2, []float64{1, 0.5, -1, 2}), nil)
	z := m.Apply(&g, p, y0, nil)
	out := g.SelectCols(z, []int{5}) // the last block
	loss := g.Sum(out)
	g.Backward(loss)
	fmt.Println("state:", z.Value.Shape, "weight:", m.WeightShape(), "parameters:", m.Params())
	fmt.Println("gradient of the weight's first row (unused):", p.W.Grad.Data[:6])
	// Output:
	// state: [2 6] weight: [6 6] parameters: 11
	// gradient of the weight's first row (unused): [0 0 0 0 0 0]
}

// A 1-D convolutional machine: 3 samples of signals of 8 positions with
// one input channel, samples first as in every batch of the library.
func ExampleNewConv() {
	m, err := finite.NewConv[float32]([]int{1, 4, 4}, finite.Tanh, []int{2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		panic(err)
	}
	var g ad.Graph[float32]
	y0 := ad.NewTensor[float32](3, 1, 8)
	y0.Data[1*8+4] = 1 // an impulse at position 4 of sample 1
	z := m.Apply(&g, m.Bind(&g, nil, nil), g.Input(y0), nil)
	s, err := m.NewSolver(8)
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", s.Steps(), "state:", z.Value.Shape)
	_, err = m.NewSolver(4)
	fmt.Println(err)
	// Output:
	// steps: 3 state: [3 9 8]
	// finite: shape mismatch: conv machine with kernel size 5 along dimension 0 given signals of shape [4]: shorter than the kernel
}
