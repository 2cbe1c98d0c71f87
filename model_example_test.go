package machines_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// frontSpec is the front end: a 3x3 convolution to 4 channels, ReLU,
// and 2x2 max pooling, as a hypergraph spec.
const frontSpec = `{
  "format": "machines-hypergraph", "version": 1,
  "vertices": [
    {"name": "image", "shape": [1, 8, 8]},
    {"name": "features", "shape": [4, 8, 8], "activation": "relu"},
    {"name": "pooled", "shape": [4, 4, 4]}
  ],
  "edges": [
    {"name": "conv", "kind": "conv3x3", "sources": ["image"], "targets": ["features"]},
    {"name": "pool", "kind": "maxpool", "sources": ["features"], "targets": ["pooled"]}
  ]
}`

// barModel returns a model that classifies 8x8 images as a horizontal or
// a vertical bar: a hypergraph front end, a convolutional machine of
// finite depth and a kernel-machine head, one composition of three
// families of machines with its parameters in one set.
func barModel(seed uint64) (*model.Model[float64], error) {
	spec, err := hypergraph.ReadSpec(strings.NewReader(frontSpec))
	if err != nil {
		return nil, err
	}
	front, err := hypergraph.FromSpec[float64](spec)
	if err != nil {
		return nil, err
	}
	m := model.New[float64](rand.New(rand.NewPCG(seed, 1)))
	h := m.Add("front", front, m.Input("image", 1, 8, 8))
	h = m.Add("conv", finite.Layer[float64]{Kind: finite.Conv, Dims: []int{4, 4}, Activation: ad.Tanh, Pad: []int{1, 1}}, h)
	h = m.Add("flat", hypergraph.Flatten[float64](), h)
	m.Add("head", kernel.Layer[float64]{Architecture: kernel.Architecture{Dims: []int{3, 3, 2}}, Anchors: 8, Cost: 1e-3}, h)
	return m, m.Err()
}

// bars returns n noisy 8x8 images of a bar, horizontal (class 0) or
// vertical (class 1), at a random row or column: a batch n x 1 x 8 x 8.
func bars(n int, seed uint64) (*ad.Tensor[float64], []int) {
	rnd := rand.New(rand.NewPCG(seed, 2))
	x, classes := ad.NewTensor[float64](n, 1, 8, 8), make([]int, n)
	for i := range n {
		img := x.Data[i*64 : (i+1)*64]
		at := rnd.IntN(8)
		for k := range 8 {
			if i%2 == 0 {
				img[at*8+k] = 1
			} else {
				img[k*8+at] = 1
			}
		}
		for k := range img {
			img[k] += 0.3 * rnd.NormFloat64()
		}
		classes[i] = i % 2
	}
	return x, classes
}

// One model mixing three families of machines, trained end to end by the
// library's training loop (its minibatches of 16 leave a last one of 12,
// and validation batches of 4: the model computes each on its own
// samples), evaluated, saved, and loaded into a fresh copy that predicts
// the same.
func Example_model() {
	x, classes := bars(96, 1)
	test, testClasses := bars(32, 2)
	m, err := barModel(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("parameters:", strings.Join(m.Params().Names(), " "))
	res, err := train.Run[float64](m.Classifier(classes, x), len(classes), train.Config{
		Epochs: 20, Batch: 16, Validation: 0.2, Optimizer: &optim.Adam{LR: 0.01},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	score, err := m.Classifier(testClasses, test).Evaluate(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("trained %d epochs; test accuracy %.0f%%\n", len(res.Epochs), 100*score.Accuracy)

	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "bars.json")
	if err := m.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	again, err := model.Load[float64](path)
	if err != nil {
		fmt.Println(err)
		return
	}
	want, _ := m.Predict(test)
	got, _ := again.Predict(test)
	fmt.Println("loaded model predicts the same:", slices.Equal(got[0].Data, want[0].Data))
	// Output:
	// parameters: front.conv.weight conv.weight head.weight head.coef head.anchors
	// trained 15 epochs; test accuracy 100%
	// loaded model predicts the same: true
}
