package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
)

// Example builds the mixed model and runs two random images through it
// untrained: its parameters, and one row of 10 logits per image.
func Example() {
	m := mixed()
	rnd := rand.New(rand.NewPCG(1, 1))
	x := &ad.Tensor[f32]{Shape: []int{2, 1, 28, 28}, Data: make([]f32, 2*28*28)}
	for i := range x.Data {
		x.Data[i] = f32(rnd.Float64())
	}
	logits, err := m.Predict(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.NumParams(), "parameters;", "logits", logits[0].Shape)
	// Output:
	// 30336 parameters; logits [2 10]
}
