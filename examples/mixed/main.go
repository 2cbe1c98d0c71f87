// Mixed trains one model made of four families of machines on 5,000
// Fashion-MNIST images: a hypergraph convolutional front end, a finite
// convolutional machine, an infinite-depth kernel layer and a
// kernel-machine head. It prints the test accuracy on the 10,000 test
// images, saves the model as one file, reloads it and prints the same
// accuracy, and exports it as one ONNX file.
//
//	go run ./examples/mixed -data /usr/share/datasets/fashion-mnist -out DIR
//
// It writes DIR/mixed.model.json, DIR/mixed.onnx (input "image", N x 1 x
// 28 x 28; output "logits") and DIR/mixed.json: the accuracies before and
// after the reload, the parameter count and the logits of the first 100
// test images.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

type f32 = float32

func main() {
	data := flag.String("data", "/usr/share/datasets/fashion-mnist", "folder of the IDX files")
	out := flag.String("out", "out", "folder of the results")
	flag.Parse()
	x, y := dataset.Tensor[f32](must(dataset.LoadIDX(*data, "train")), 5000)
	xt, yt := dataset.Tensor[f32](must(dataset.LoadIDX(*data, "t10k")), 0)

	m := mixed()
	must(train.Run[f32](m.Classifier(y, x), len(y), train.Config{Epochs: 2, Batch: 32, Optimizer: &optim.Adam{LR: 0.003}, Progress: os.Stderr}))
	before := must(m.Classifier(yt, xt).Evaluate(0))
	check(os.MkdirAll(*out, 0o755))
	check(m.Save(filepath.Join(*out, "mixed.model.json")))
	after := must(must(model.Load[f32](filepath.Join(*out, "mixed.model.json"))).Classifier(yt, xt).Evaluate(0))
	fmt.Printf("test accuracy %.4f; after reloading %.4f; %d parameters\n", before.Accuracy, after.Accuracy, m.NumParams())

	check(onnx.Write(filepath.Join(*out, "mixed.onnx"), must(onnx.Model(m))))
	logits := must(m.Predict(&ad.Tensor[f32]{Shape: []int{100, 1, 28, 28}, Data: xt.Data[:100*28*28]}))
	check(os.WriteFile(filepath.Join(*out, "mixed.json"), must(json.MarshalIndent(map[string]any{"accuracy": before.Accuracy,
		"accuracy_reloaded": after.Accuracy, "params": m.NumParams(), "logits": logits[0]}, "", " ")), 0o644))
}

// mixed returns the model: four families of machines, one after the other.
func mixed() *model.Model[f32] {
	m := model.New[f32](nil)
	h := m.Add("front", hypergraph.Conv[f32]{Out: []int{16}}, m.Input("image", 1, 28, 28))
	h = m.Add("pool1", hypergraph.Each[f32]{Kind: "maxpool"}, m.Add("relu", hypergraph.Each[f32]{Kind: "relu"}, h))
	h = m.Add("machine", finite.Layer[f32]{Kind: finite.Conv, Dims: []int{16, 16}, Pad: []int{1, 1}, Activation: ad.Tanh}, h)
	h = m.Add("down", hypergraph.Linear[f32]{Out: []int{16}, Bias: true}, m.Add("flat", hypergraph.Flatten[f32](), m.Add("pool2", hypergraph.Each[f32]{Kind: "maxpool"}, h)))
	h = m.Add("flow", infinite.Layer[f32]{Architecture: infinite.Architecture{Anchors: 16, MaxFreq: 2, Steps: 4}}, h)
	m.Add("logits", kernel.Layer[f32]{Architecture: kernel.Architecture{Dims: []int{16, 16, 10}}, Anchors: 32}, h)
	return m
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
