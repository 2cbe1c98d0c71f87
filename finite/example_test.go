package finite_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
)

// A dense machine on the filtration [2, 3, 1] as a layer: its stable
// state is built in three steps, its backward pass is one more solve,
// and its parameters are the 11 weights the filtration uses.
func ExampleLayer() {
	layer := finite.Layer[float64]{Kind: finite.Dense, Dims: []int{2, 3, 1}, Activation: ad.Tanh}
	var ps ad.Params[float64]
	var g ad.Graph[float64]
	s := ad.NewScope(&g, &ps, "machine", rand.New(rand.NewPCG(1, 1)))
	out, err := layer.Init(s, [][]int{{2}})
	if err != nil {
		panic(err)
	}
	// Two samples of the input block, a row each; the other 4 channels
	// start at 0.
	y0 := g.Param(ad.Matrix(2, 2, []float64{1, 0.5, -1, 2}), nil)
	z, err := layer.Apply(s, []*ad.Node[float64]{y0})
	if err != nil {
		panic(err)
	}
	loss := g.Sum(g.SelectCols(z[0], []int{5})) // the last block
	g.Backward(loss)
	fmt.Println("output:", out, "state:", z[0].Value.Shape)
	fmt.Println("parameters:", ps.Names(), ps.Len())
	fmt.Println("gradient of y0 is set:", y0.Grad.Data[0] != 0)
	// Output:
	// output: [[6]] state: [2 6]
	// parameters: [machine.weight] 11
	// gradient of y0 is set: true
}

// A 1-D convolutional machine's solver: its forward solve takes one step
// per block, and signals shorter than its kernel are refused.
func ExampleNewConv() {
	m, err := finite.NewConv[float32]([]int{1, 4, 4}, ad.Tanh, []int{2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		panic(err)
	}
	s, err := m.NewSolver(8)
	if err != nil {
		panic(err)
	}
	y0 := ad.NewTensor[float32](1, 8*3) // 3 samples of one channel, samples fastest
	y0.Data[4*3+1] = 1                  // an impulse at position 4 of sample 1
	_, z := s.Forward(y0, nil)
	fmt.Println("steps:", s.Steps(), "state:", z.Shape, "parameters:", m.NumParams())
	_, err = m.NewSolver(4)
	fmt.Println(err)
	// Output:
	// steps: 3 state: [9 24] parameters: 120
	// shape mismatch: conv machine with kernel size 5 along dimension 0 given signals of shape [4]: shorter than the kernel
}
