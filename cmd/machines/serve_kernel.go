package main

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/parametric-machines/machines/cmd/machines/internal/serve"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// kernelKinds are the kinds of the model files of fit for serve, in the
// envelope and before it, whose models give prediction intervals or sets
// of the given level.
func kernelKinds(interval float64) []serve.Kind {
	load := func(path string, data []byte) (serve.Model, error) { return loadKernelModel(path, data, interval) }
	return []serve.Kind{{Format: jsonfile.Envelope, Kind: tabular.Kind, Load: load}, {Format: tabular.LegacyFormat, Load: load}}
}

// kernelModel serves a tabular model with its encoder, as predict
// applies it: a request and predict give the same numbers for the same
// rows.
type kernelModel struct {
	md   *tabular.Model
	meta serve.Metadata
	// level is the level of the intervals, as predict -interval gives
	// them, or 0 for a model served without them.
	level float64
	// predictors keeps a tabular.Predictor per goroutine at work.
	predictors sync.Pool
}

// loadKernelModel decodes data, the model file of fit at path. Its inputs are those of
// the model's ONNX export: one per feature column, of shape [-1, 1],
// FP64 for a numeric column (null for a missing cell) and BYTES for the
// others, the cell's text. Its outputs are "prediction" for regression,
// with "lower" and "upper", the ends of the prediction interval of the
// given level, when the model holds enough held-out residuals for it;
// and "scores", "probabilities" and "label" for classification, with
// "set", the prediction set of the level, when it holds enough held-out
// scores for it.
func loadKernelModel(path string, data []byte, interval float64) (serve.Model, error) {
	md, err := tabular.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err) // as tabular.Load says it
	}
	km := &kernelModel{md: md}
	meta := serve.Metadata{Platform: "machines_kernel"}
	if err := md.CheckLevel(interval); err == nil {
		km.level = interval
	} else if md.Intervals != nil {
		// Without enough residuals for the level the model is served
		// without its intervals or sets, and every answer says why.
		what := "lower and upper"
		if md.Task == tabular.Classification {
			what = "set"
		}
		meta.Warnings = append(meta.Warnings, fmt.Sprintf("no %s: serve -interval %v needs at least %v held-out residuals (%v)",
			what, interval, math.Ceil(interval/(1-interval)), err))
	}
	km.predictors.New = func() any { return md.Machine.NewPredictor() }
	for i, f := range md.Features {
		datatype := serve.FP64
		if md.Encoder != nil && md.Encoder.Rules()[i].Kind != "numeric" {
			datatype = serve.BYTES
		}
		meta.Inputs = append(meta.Inputs, serve.TensorSpec{Name: f, Datatype: datatype, Shape: []int{-1, 1}})
	}
	if md.Task == tabular.Regression {
		k := md.Machine.Outputs()
		meta.Outputs = []serve.TensorSpec{{Name: onnx.OutputPrediction, Datatype: serve.FP64, Shape: []int{-1, k}}}
		if km.level != 0 {
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
		if km.level != 0 {
			meta.Outputs = append(meta.Outputs, serve.TensorSpec{Name: outputSet, Datatype: serve.BYTES, Shape: []int{-1}})
		}
	}
	km.meta = meta
	return km, nil
}

func (km *kernelModel) Metadata() serve.Metadata { return km.meta }

// Prepare encodes the feature columns as predict does.
func (km *kernelModel) Prepare(rows *serve.Rows, in []serve.Tensor) error {
	md := km.md
	n := in[0].Shape[0]
	rows.Reset(n, md.Machine.Inputs())
	x := mat.NewDense(n, md.Machine.Inputs(), rows.Data)
	for j, t := range in {
		w, err := md.EncodeColumn(x, j, t.Numbers, t.Texts)
		if err != nil {
			return err
		}
		if w != nil {
			rows.Warnings = append(rows.Warnings, w.String())
		}
	}
	return nil
}

func (km *kernelModel) Infer(rows *serve.Rows) ([]serve.Tensor, error) {
	p := km.predictors.Get().(*tabular.Predictor)
	defer km.predictors.Put(p)
	x := mat.NewDense(rows.N, rows.Width(), rows.Data)
	pred, err := km.md.PredictEncoded(p, x, km.level)
	if err != nil {
		return nil, err
	}
	if km.md.Task == tabular.Regression {
		out := []serve.Tensor{fp64Tensor(onnx.OutputPrediction, pred.Values)}
		if pred.Lower != nil {
			out = append(out, fp64Tensor(onnx.OutputLower, pred.Lower), fp64Tensor(onnx.OutputUpper, pred.Upper))
		}
		return out, nil
	}
	n := len(pred.Labels)
	labels := serve.Tensor{Name: onnx.OutputLabel, Datatype: serve.BYTES, Shape: []int{n}, Texts: pred.Labels}
	out := []serve.Tensor{fp64Tensor(onnx.OutputScores, pred.Scores), fp64Tensor(onnx.OutputProbabilities, pred.Values), labels}
	if pred.Sets != nil {
		sets := serve.Tensor{Name: outputSet, Datatype: serve.BYTES, Shape: []int{n}, Texts: make([]string, n)}
		for i, set := range pred.Sets {
			sets.Texts[i] = strings.Join(set, "|")
		}
		out = append(out, sets)
	}
	return out, nil
}

// outputSet names a classifier's output of prediction sets, as predict
// -interval writes them: the classes separated by |.
const outputSet = "set"

// fp64Tensor returns the output of the given name holding m.
func fp64Tensor(name string, m *mat.Dense) serve.Tensor {
	n, k := m.Dims()
	return serve.Tensor{Name: name, Datatype: serve.FP64, Shape: []int{n, k}, Numbers: m.RawMatrix().Data}
}
