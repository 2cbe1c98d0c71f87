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
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// frontSpec is the front end: a 3x3 convolution to 4 channels, ReLU,
// and 2x2 max pooling, as a hypergraph.
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

// barModel classifies 8x8 images as a horizontal or a vertical bar: a
// hypergraph front end, a convolutional machine of finite depth and a
// kernel-machine head, one graph and one parameter set.
type barModel struct {
	params ad.Params[float64]
	g      ad.Graph[float64]
	x      *ad.Tensor[float64] // the minibatch: batch x 1 x 8 x 8
	labels []int
	logits *ad.Node[float64]
	loss   *ad.Node[float64]
	images [][]float64
	// classes of the images, for training
	classes []int
}

const barBatch = 16

func newBarModel(seed uint64, images [][]float64, classes []int) (*barModel, error) {
	rnd := rand.New(rand.NewPCG(seed, 1))
	m := &barModel{x: ad.NewTensor[float64](barBatch, 1, 8, 8), labels: make([]int, barBatch), images: images, classes: classes}
	spec, err := hypergraph.ReadSpec(strings.NewReader(frontSpec))
	if err != nil {
		return nil, err
	}
	front, err := hypergraph.FromSpec[float64](spec, seed)
	if err != nil {
		return nil, err
	}
	conv, err := finite.NewConv[float64]([]int{4, 4}, finite.Tanh, []int{1, 1}, rnd)
	if err != nil {
		return nil, err
	}
	head, err := kernel.NewLayer(kernel.Architecture{Dims: []int{3, 3, 2}}, 8*16, 8, rnd)
	if err != nil {
		return nil, err
	}
	g := &m.g
	// Every batch has its samples first: images N x 1 x 8 x 8 in, pooled
	// features N x 4 x 4 x 4, the machine's state N x 8 x 4 x 4, and a row
	// of 128 features per image for the head.
	pooled := front.Build(g, front.Use(g, &m.params, "front"), []*ad.Node[float64]{g.Input(m.x)})[0]
	z := conv.Apply(g, conv.Use(g, &m.params, "conv"), pooled, nil)
	logits, reg := head.Apply(g, &m.params, "head", g.Reshape(z, barBatch, 8*16))
	m.logits = logits
	m.loss = g.Add(g.SoftmaxCrossEntropy(logits, m.labels), g.Scale(reg, 1e-3))
	return m, nil
}

func (m *barModel) Params() *ad.Params[float64] { return &m.params }

// Loss implements train.Model.
func (m *barModel) Loss(batch []int, backward bool) (float64, error) {
	m.load(batch)
	m.g.Forward()
	if backward {
		m.g.Backward(m.loss)
	}
	return m.loss.Scalar(), nil
}

func (m *barModel) load(batch []int) {
	for j, i := range batch {
		copy(m.x.Data[j*64:(j+1)*64], m.images[i])
		m.labels[j] = m.classes[i]
	}
}

// predict returns the class scores of the images listed in batch.
func (m *barModel) predict(batch []int) []float64 {
	m.load(batch)
	m.g.Forward()
	return slices.Clone(m.logits.Value.Data)
}

// bars returns n noisy 8x8 images of a bar, horizontal (class 0) or
// vertical (class 1), at a random row or column.
func bars(n int, seed uint64) (images [][]float64, classes []int) {
	rnd := rand.New(rand.NewPCG(seed, 2))
	for i := range n {
		img := make([]float64, 64)
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
		images, classes = append(images, img), append(classes, i%2)
	}
	return images, classes
}

// One model mixing three families of machines, trained end to end by the
// library's training loop, saved, and loaded into a fresh copy that
// predicts the same.
func Example_model() {
	images, classes := bars(128, 1)
	model, err := newBarModel(1, images, classes)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("parameters:", strings.Join(model.params.Names(), " "))
	// The first 96 images train (20 of them validate), the last 32 test.
	res, err := train.Run[float64](model, 96, train.Config{
		Epochs: 20, Batch: barBatch, Validation: 0.2, Optimizer: &optim.Adam{LR: 0.01},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	test := [][]int{seq(96, 112), seq(112, 128)}
	correct := 0
	for _, batch := range test {
		scores := model.predict(batch)
		for j, i := range batch {
			if (scores[2*j+1] > scores[2*j]) == (classes[i] == 1) {
				correct++
			}
		}
	}
	fmt.Printf("trained %d epochs; test accuracy %d/32\n", len(res.Epochs), correct)

	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "bars.json")
	if err := model.params.Save(path); err != nil {
		fmt.Println(err)
		return
	}
	again, err := newBarModel(2, images, classes) // other initial weights
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := again.params.Load(path); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("loaded model predicts the same:", slices.Equal(again.predict(test[0]), model.predict(test[0])))
	// Output:
	// parameters: front.conv.0 conv.weight head.a head.c head.anchors
	// trained 17 epochs; test accuracy 32/32
	// loaded model predicts the same: true
}

func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}
