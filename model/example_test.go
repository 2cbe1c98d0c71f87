package model_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// A model with a shortcut: two classes of points in the plane, a dense layer
// and its input summed into one space, and a kernel-machine head. The
// model trains with train.Run, is evaluated, and describes itself.
func Example() {
	rnd := rand.New(rand.NewPCG(1, 1))
	x := ad.NewTensor[float64](60, 2)
	labels := make([]int, 60)
	for i := range labels {
		labels[i] = i % 2
		r := 1 + 2*float64(labels[i]) + 0.3*rnd.NormFloat64()
		a := 2 * math.Pi * rnd.Float64()
		x.Data[2*i], x.Data[2*i+1] = r*math.Cos(a), r*math.Sin(a)
	}

	m := model.New[float64](nil)
	in := m.Input("point", 2)
	h := m.Add("dense", hypergraph.Linear[float64]{Out: []int{2}, Bias: true}, in)
	m.Into(h, "shortcut", hypergraph.Each[float64]{Kind: "identity"}, in)
	m.Add("logits", kernel.Layer[float64]{Architecture: kernel.Architecture{Dims: []int{2, 4, 2}}, Anchors: 8}, h)

	task := m.Classifier(labels, x)
	if _, err := train.Run[float64](task, task.Len(), train.Config{Epochs: 100, Batch: 16, Optimizer: &optim.Adam{LR: 0.05}}); err != nil {
		fmt.Println(err)
		return
	}
	score, err := task.Evaluate(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	names, shapes := m.Outputs()
	fmt.Println("outputs:", names, shapes)
	fmt.Println("parameters:", m.Params().Names(), m.NumParams())
	fmt.Printf("training accuracy %.2f\n", score.Accuracy)
	// Output:
	// outputs: [logits] [[2]]
	// parameters: [dense.weight dense.bias logits.weight logits.coef logits.anchors] 86
	// training accuracy 1.00
}
