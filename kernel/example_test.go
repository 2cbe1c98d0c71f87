package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// A machine of depth two fitted to 12 samples of sin on [-3, 3]: the
// objective is the paper's loss, the mean squared error plus Cost times
// the regulariser, anchored at every sample as the representer theorem
// prescribes, and L-BFGS minimises it.
func ExampleNewObjective() {
	const n = 12
	x, y := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		v := -3 + 6*float64(i)/(n-1)
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(v))
	}
	obj, err := kernel.NewObjective(kernel.Architecture{Dims: []int{1, 2, 1}}, kernel.Problem{X: x, Y: y, Cost: 1e-4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fit, err := optim.Minimize(obj.Func, obj.Init(nil, rand.New(rand.NewPCG(1, 0))), optim.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := obj.Machine(fit.X, x)
	pred := m.Predict(nil, mat.NewDense(2, 1, []float64{-1, 0.5}))
	fmt.Printf("%d parameters; sin(-1) = %.2f: %.2f; sin(0.5) = %.2f: %.2f\n",
		obj.Len(), math.Sin(-1), pred.At(0, 0), math.Sin(0.5), pred.At(1, 0))
	// Output:
	// 40 parameters; sin(-1) = -0.84: -0.84; sin(0.5) = 0.48: 0.48
}
