package onnx_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"github.com/parametric-machines/machines/tabular"
)

// printInterface prints the documentation of the inputs and outputs of
// the model m.
func printInterface(m *onnxpb.ModelProto) {
	for _, in := range m.GetGraph().GetInput() {
		fmt.Printf("input %s: %s\n", in.GetName(), in.GetDocString())
	}
	for _, out := range m.GetGraph().GetOutput() {
		fmt.Printf("output %s: %s\n", out.GetName(), out.GetDocString())
	}
}

// A tabular model fitted to a table with a numeric column that has a
// gap and a categorical column becomes an ONNX model whose inputs are the
// table's columns as they are.
func ExampleTabular() {
	table := `size,colour,price
1.5,red,10
2.0,blue,14
,red,11
3.1,green,20
2.2,blue,15
`
	f, err := dataset.ReadFrame(strings.NewReader(table), "prices.csv")
	if err != nil {
		log.Fatal(err)
	}
	md, _, err := tabular.Fit(f, []string{"price"}, tabular.Options{Costs: []float64{0.1}, Bandwidths: []float64{1}, MaxIter: 20})
	if err != nil {
		log.Fatal(err)
	}

	model, err := onnx.Tabular(md, 0)
	if err != nil {
		log.Fatal(err)
	}
	printInterface(model)
	dir, err := os.MkdirTemp("", "onnx")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := onnx.Write(filepath.Join(dir, "prices.onnx"), model); err != nil {
		log.Fatal(err)
	}

	// Output:
	// input size: numeric: a double, NaN where the cell is missing
	// input colour: categorical: a string, one of the levels "blue", "green", "red", another text (no level) or a missing cell's text
	// output prediction: the predicted price
}

// A model built from a hypergraph spec, here a residual block, becomes
// an ONNX model with an input and an output per input and output space
// and a dynamic batch; the layer into a space no output reads is left
// out.
func ExampleModel() {
	spec, err := hypergraph.ReadSpec(strings.NewReader(`{
	  "format": "machines-hypergraph", "version": 1,
	  "inputs": ["x"], "outputs": ["y"],
	  "vertices": [
	    {"name": "x", "shape": [1, 8, 8]},
	    {"name": "h", "shape": [4, 8, 8], "activation": "relu6"},
	    {"name": "y", "shape": [1, 8, 8]},
	    {"name": "unused", "shape": [1, 4, 4]}
	  ],
	  "edges": [
	    {"name": "in", "kind": "conv3x3", "sources": ["x"], "targets": ["h"]},
	    {"name": "out", "kind": "conv3x3", "sources": ["h"], "targets": ["y"]},
	    {"name": "shortcut", "kind": "identity", "sources": ["x"], "targets": ["y"]},
	    {"name": "pool", "kind": "maxpool", "sources": ["x"], "targets": ["unused"]}
	  ]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	m, err := model.FromSpec[float32](spec, nil)
	if err != nil {
		log.Fatal(err)
	}
	proto, err := onnx.Model(m)
	if err != nil {
		log.Fatal(err)
	}
	printInterface(proto)
	var ops []string
	for _, n := range proto.GetGraph().GetNode() {
		ops = append(ops, n.GetOpType())
	}
	fmt.Println("operators:", strings.Join(ops, " "))

	// Output:
	// input x: space x: images of shape [N, 1, 8, 8]
	// output y: space y: its state with activation identity, images of shape [N, 1, 8, 8]
	// operators: Conv Clip Conv Add Identity
}

// A model of several families, a finite convolutional machine, an
// infinite-depth kernel layer on a fixed grid and a kernel-machine head,
// becomes one ONNX model. The infinite-depth layer is unrolled: two RK4
// steps of four stages, each a Gaussian of the batch against the
// anchors' states, computed in float64 between two casts, as the library
// computes it.
func ExampleModel_layers() {
	m := model.New[float32](nil)
	h := m.Add("machine", finite.Layer[float32]{Kind: finite.Conv, Dims: []int{1, 2}, Pad: []int{1, 1}, Activation: ad.Tanh},
		m.Input("image", 1, 6, 6))
	h = m.Add("down", hypergraph.Linear[float32]{Out: []int{4}}, m.Add("flat", hypergraph.Flatten[float32](), h))
	h = m.Add("flow", infinite.Layer[float32]{Architecture: infinite.Architecture{Anchors: 8, MaxFreq: 2, Steps: 2}}, h)
	m.Add("logits", kernel.Layer[float32]{Architecture: kernel.Architecture{Dims: []int{4, 3}}, Anchors: 16}, h)
	proto, err := onnx.Model(m)
	if err != nil {
		log.Fatal(err)
	}
	printInterface(proto)
	ops := map[string]int{}
	for _, n := range proto.GetGraph().GetNode() {
		ops[n.GetOpType()]++
	}
	fmt.Printf("Gaussians (Exp): %d, casts: %d\n", ops["Exp"], ops["Cast"])

	// Output:
	// input image: space image: images of shape [N, 1, 6, 6]
	// output logits: space logits: its state with activation identity, vectors of shape [N, 3]
	// Gaussians (Exp): 9, casts: 2
}

// A recurrent finite machine unrolls, for signals of a given length, time
// step by time step and block by block.
func ExampleFinite() {
	m, err := finite.NewRecur[float64]([]int{1, 2, 2}, ad.Tanh, 3, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		log.Fatal(err)
	}
	model, err := onnx.Finite(m, 10)
	if err != nil {
		log.Fatal(err)
	}
	printInterface(model)
	products := 0
	for _, n := range model.GetGraph().GetNode() {
		if n.GetOpType() == "MatMul" {
			products++
		}
	}
	fmt.Println("products:", products)

	// Output:
	// input y0: the input block, of shape [N, 1, 10]
	// output z: the stable state of every block, of shape [N, 5, 10]
	// products: 28
}
