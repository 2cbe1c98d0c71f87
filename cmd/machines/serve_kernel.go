package main

import (
	"fmt"
	"sync"

	"github.com/parametric-machines/machines/internal/serve"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/onnx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// kernelKind is the kind of the model files of fit for serve.
func kernelKind() serve.Kind {
	return serve.Kind{Format: modelFormat.Name, Load: loadKernelModel}
}

// kernelModel serves a model of fit with its encoder, as predict applies
// it: a request and predict give the same numbers for the same rows.
type kernelModel struct {
	md   *modelFile
	meta serve.Metadata
	// predictors keeps a kernel.Predictor per goroutine at work.
	predictors sync.Pool
}

// loadKernelModel reads a model file of fit. Its inputs are those of
// the model's ONNX export: one per feature column, of shape [-1, 1],
// FP64 for a numeric column (null for a missing cell) and BYTES for the
// others, the cell's text. Its outputs are "prediction" for regression
// and "scores", "probabilities" and "label" for classification.
func loadKernelModel(path string) (serve.Model, error) {
	md, err := readModel(path)
	if err != nil {
		return nil, err
	}
	km := &kernelModel{md: md}
	km.predictors.New = func() any { return md.Machine.NewPredictor() }
	meta := serve.Metadata{Platform: "machines_kernel"}
	for i, f := range md.Features {
		datatype := serve.FP64
		if md.Encoder != nil && md.Encoder.Rules()[i].Kind != "numeric" {
			datatype = serve.BYTES
		}
		meta.Inputs = append(meta.Inputs, serve.TensorSpec{Name: f, Datatype: datatype, Shape: []int{-1, 1}})
	}
	if md.Task == taskRegression {
		// The bounds of predict -interval join "prediction" here.
		meta.Outputs = []serve.TensorSpec{{Name: onnx.OutputPrediction, Datatype: serve.FP64, Shape: []int{-1, 1}}}
	} else {
		k := len(md.Classes)
		meta.Outputs = []serve.TensorSpec{
			{Name: onnx.OutputScores, Datatype: serve.FP64, Shape: []int{-1, k}},
			{Name: onnx.OutputProbabilities, Datatype: serve.FP64, Shape: []int{-1, k}},
			{Name: onnx.OutputLabel, Datatype: serve.BYTES, Shape: []int{-1}},
		}
	}
	km.meta = meta
	return km, nil
}

func (km *kernelModel) Metadata() serve.Metadata { return km.meta }

// Prepare encodes the feature columns as predict does; a model file of
// version 1, without an encoder, takes numbers only.
func (km *kernelModel) Prepare(rows *serve.Rows, in []serve.Tensor) error {
	md := km.md
	n := in[0].Shape[0]
	rows.Reset(n, md.Machine.Inputs())
	x := mat.NewDense(n, md.Machine.Inputs(), rows.Data)
	for j, t := range in {
		if md.Encoder == nil {
			if err := copyNumbers(x, j, t); err != nil {
				return err
			}
			continue
		}
		w, err := md.Encoder.EncodeColumn(x, j, t.Numbers, t.Texts)
		if err != nil {
			return err
		}
		if w != nil {
			rows.Warnings = append(rows.Warnings, w.String())
		}
	}
	return nil
}

// copyNumbers copies the numbers of t into column j of x, for a model
// file of version 1.
func copyNumbers(x *mat.Dense, j int, t serve.Tensor) error {
	for i, v := range t.Numbers {
		if v != v {
			return fmt.Errorf("input %q, row %d: null, but this model (a version 1 file) takes numbers only", t.Name, i+1)
		}
		x.Set(i, j, v)
	}
	return nil
}

func (km *kernelModel) Infer(rows *serve.Rows) ([]serve.Tensor, error) {
	p := km.predictors.Get().(*kernel.Predictor)
	pred := p.Predict(nil, mat.NewDense(rows.N, rows.Width(), rows.Data))
	km.predictors.Put(p)
	n, k := pred.Dims()
	scores := serve.Tensor{Name: onnx.OutputPrediction, Datatype: serve.FP64, Shape: []int{n, k}, Numbers: pred.RawMatrix().Data}
	if km.md.Task == taskRegression {
		return []serve.Tensor{scores}, nil
	}
	scores.Name = onnx.OutputScores
	probs := serve.Tensor{Name: onnx.OutputProbabilities, Datatype: serve.FP64, Shape: []int{n, k}, Numbers: make([]float64, n*k)}
	labels := serve.Tensor{Name: onnx.OutputLabel, Datatype: serve.BYTES, Shape: []int{n}, Texts: make([]string, n)}
	for i := range n {
		// As predictionRecords does: the label is the most probable class.
		p := probs.Numbers[i*k : (i+1)*k]
		softmaxTo(p, pred.RawRowView(i))
		labels.Texts[i] = km.md.Classes[floats.MaxIdx(p)]
	}
	return []serve.Tensor{scores, probs, labels}, nil
}
