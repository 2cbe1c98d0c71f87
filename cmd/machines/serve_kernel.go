package main

import (
	"fmt"
	"math"
	"sync"

	"github.com/parametric-machines/machines/internal/serve"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/onnx"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// kernelKinds are the kinds of the model files of fit for serve, in the
// envelope and before it, whose regression models give prediction
// intervals of the given level.
func kernelKinds(interval float64) []serve.Kind {
	load := func(path string) (serve.Model, error) { return loadKernelModel(path, interval) }
	return []serve.Kind{{Format: modelFormat.Name, Kind: modelFormat.Kind, Load: load}, {Format: modelFormat.Legacy, Load: load}}
}

// kernelModel serves a model of fit with its encoder, as predict applies
// it: a request and predict give the same numbers for the same rows.
type kernelModel struct {
	md   *modelFile
	meta serve.Metadata
	// halfWidth holds the half widths of the intervals, as predict
	// -interval computes them, or nil for a model without them.
	halfWidth []float64
	// predictors keeps a kernel.Predictor per goroutine at work.
	predictors sync.Pool
}

// loadKernelModel reads a model file of fit. Its inputs are those of
// the model's ONNX export: one per feature column, of shape [-1, 1],
// FP64 for a numeric column (null for a missing cell) and BYTES for the
// others, the cell's text. Its outputs are "prediction" for regression,
// with "lower" and "upper", the ends of the prediction interval of the
// given level, when the model holds enough held-out residuals for it;
// and "scores", "probabilities" and "label" for classification.
func loadKernelModel(path string, interval float64) (serve.Model, error) {
	md, err := readModel(path)
	if err != nil {
		return nil, err
	}
	km := &kernelModel{md: md}
	meta := serve.Metadata{Platform: "machines_kernel"}
	if md.Task == taskRegression && md.Intervals != nil {
		// Without enough residuals for the level the model is served
		// without its interval, and every answer says why.
		if km.halfWidth, err = intervalHalfWidth(md, path, interval, true); err != nil {
			meta.Warnings = append(meta.Warnings, fmt.Sprintf("no lower and upper: serve -interval %v needs at least %v held-out residuals (%v)",
				interval, math.Ceil(interval/(1-interval)), err))
		}
	}
	km.predictors.New = func() any { return md.Machine.NewPredictor() }
	for i, f := range md.Features {
		datatype := serve.FP64
		if md.Encoder != nil && md.Encoder.Rules()[i].Kind != "numeric" {
			datatype = serve.BYTES
		}
		meta.Inputs = append(meta.Inputs, serve.TensorSpec{Name: f, Datatype: datatype, Shape: []int{-1, 1}})
	}
	if md.Task == taskRegression {
		k := md.Machine.Outputs()
		meta.Outputs = []serve.TensorSpec{{Name: onnx.OutputPrediction, Datatype: serve.FP64, Shape: []int{-1, k}}}
		if km.halfWidth != nil {
			meta.Outputs = append(meta.Outputs,
				serve.TensorSpec{Name: onnx.OutputLower, Datatype: serve.FP64, Shape: []int{-1, k}},
				serve.TensorSpec{Name: onnx.OutputUpper, Datatype: serve.FP64, Shape: []int{-1, k}})
		}
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
	defer km.predictors.Put(p)
	x := mat.NewDense(rows.N, rows.Width(), rows.Data)
	if km.halfWidth != nil {
		pred, lower, upper := p.PredictInterval(nil, nil, nil, x, km.halfWidth)
		return []serve.Tensor{fp64Tensor(onnx.OutputPrediction, pred), fp64Tensor(onnx.OutputLower, lower), fp64Tensor(onnx.OutputUpper, upper)}, nil
	}
	pred := p.Predict(nil, x)
	n, k := pred.Dims()
	scores := fp64Tensor(onnx.OutputPrediction, pred)
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

// fp64Tensor returns the output of the given name holding m.
func fp64Tensor(name string, m *mat.Dense) serve.Tensor {
	n, k := m.Dims()
	return serve.Tensor{Name: name, Datatype: serve.FP64, Shape: []int{n, k}, Numbers: m.RawMatrix().Data}
}
