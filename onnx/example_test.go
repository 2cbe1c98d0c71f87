package onnx_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/onnx"
	"gonum.org/v1/gonum/mat"
)

// A kernel machine fitted to a table with a numeric column that has a gap
// and a categorical column becomes an ONNX model whose inputs are the
// table's columns as they are.
func ExampleKernel() {
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
	features := []string{"size", "colour"}
	enc, _, err := dataset.FitEncoder(f, features, nil)
	if err != nil {
		log.Fatal(err)
	}
	x, _, err := enc.Transform(f, nil)
	if err != nil {
		log.Fatal(err)
	}
	tg, err := f.Target("price", false)
	if err != nil {
		log.Fatal(err)
	}
	m, _, err := kernel.FitRegression(x, mat.NewDense(len(tg.Values), 1, tg.Values),
		kernel.Settings{Costs: []float64{0.1}, Bandwidths: []float64{1}, MaxIter: 20})
	if err != nil {
		log.Fatal(err)
	}

	model, err := onnx.Kernel(onnx.KernelModel{Machine: m, Encoder: enc, Features: features, Target: "price"})
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range model.GetGraph().GetInput() {
		fmt.Printf("input %s: %s\n", in.GetName(), in.GetDocString())
	}
	for _, out := range model.GetGraph().GetOutput() {
		fmt.Printf("output %s: %s\n", out.GetName(), out.GetDocString())
	}
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
