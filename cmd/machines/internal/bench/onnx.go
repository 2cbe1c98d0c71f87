package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/sculpt"
)

// SculptedModel is the saved sculpted machine that the onnx suite
// times: by default the sculpt-model.json that "machines sculpt" writes
// into its default output directory.
var SculptedModel = filepath.Join("out", sculpt.ModelFile)

// ONNXRuntime is the directory of time.js and of ONNX Runtime's Node
// binding (installed there by "npm install --ignore-scripts"): the
// repository's onnx/runtime, seen from its root.
var ONNXRuntime = filepath.Join("onnx", "runtime")

// onnxBatch is the number of images of one inference of the onnx suite.
const onnxBatch = 256

// onnxTol bounds the difference between ONNX Runtime's logits and the
// library's, relative to their largest magnitude, in float32.
const onnxTol = 1e-5

// ONNXWorkloads returns the workloads of the onnx suite: one inference of
// the first 256 Fashion-MNIST test images (from FashionMNIST) through the
// sculpted machine saved in SculptedModel, in float32 on one thread.
// onnx-library is the library's forward pass, the graph built once and
// recomputed, as sculpt evaluates a machine; onnx-runtime is the machine
// exported by package onnx and run in ONNX Runtime through its Node
// binding, timed by ONNXRuntime/time.js as Run times the library. Before
// timing, onnx-runtime checks that the runtime's logits differ from the
// library's by at most 1e-5 of their largest magnitude.
func ONNXWorkloads() []Workload {
	unit := fmt.Sprintf("inference, batch %d", onnxBatch)
	return []Workload{
		{Name: "onnx-library", Dtype: "float32", Unit: unit, Items: onnxBatch, ItemName: "images",
			Reference: "the library's forward pass", setup: libraryInference},
		{Name: "onnx-runtime", Dtype: "float32", Unit: unit, Items: onnxBatch, ItemName: "images",
			Reference: "ONNX Runtime (Node), 1 thread", measure: runtimeInference},
	}
}

// sculptedBatch loads the sculpted machine and the suite's images.
func sculptedBatch() (*model.Model[float32], *ad.Tensor[float32], error) {
	m, err := model.Load[float32](SculptedModel)
	if err != nil {
		return nil, nil, fmt.Errorf("the onnx suite needs a sculpted machine (machines sculpt writes out/%s; bench -model names another): %w", sculpt.ModelFile, err)
	}
	im, err := dataset.LoadIDX(FashionMNIST, "t10k")
	if err != nil {
		return nil, nil, fmt.Errorf("the onnx suite needs Fashion-MNIST in %s (Debian package dataset-fashion-mnist): %w", FashionMNIST, err)
	}
	x := ad.NewTensor[float32](onnxBatch, im.NumChannels(), im.Rows, im.Cols)
	for i := range onnxBatch {
		im.Image32(x.Data[i*im.ImageLen():(i+1)*im.ImageLen()], i)
	}
	return m, x, nil
}

// forward builds the graph of m on x once, with the parameters as
// constants, and returns it with the logits.
func forward(m *model.Model[float32], x *ad.Tensor[float32]) (*ad.Graph[float32], *ad.Node[float32], error) {
	var g ad.Graph[float32]
	mc, err := m.Machine()
	if err != nil {
		return nil, nil, err
	}
	out, err := mc.Apply(ad.NewScope(&g, m.Params().WithGrads(nil), "", nil), []*ad.Node[float32]{g.Input(x)})
	if err != nil {
		return nil, nil, err
	}
	return &g, out[0], nil
}

func libraryInference() (func(), error) {
	m, x, err := sculptedBatch()
	if err != nil {
		return nil, err
	}
	g, _, err := forward(m, x)
	if err != nil {
		return nil, err
	}
	return g.Forward, nil
}

// runtimeInference exports the sculpted machine, times it in ONNX
// Runtime with time.js and checks its logits against the library's.
func runtimeInference(runs int) (measurement, error) {
	m, x, err := sculptedBatch()
	if err != nil {
		return measurement{}, err
	}
	script := filepath.Join(ONNXRuntime, "time.js")
	if _, err := os.Stat(filepath.Join(ONNXRuntime, "node_modules", "onnxruntime-node")); err != nil {
		return measurement{}, fmt.Errorf("the onnx suite needs node and ONNX Runtime's Node binding (npm install --ignore-scripts in %s, and run from the repository's root): %w", ONNXRuntime, err)
	}
	proto, err := onnx.Model(m)
	if err != nil {
		return measurement{}, err
	}
	dir, err := os.MkdirTemp("", "bench-onnx")
	if err != nil {
		return measurement{}, err
	}
	defer os.RemoveAll(dir)
	modelPath, inputPath := filepath.Join(dir, "sculpted.onnx"), filepath.Join(dir, "input.f32")
	if err := onnx.Write(modelPath, proto); err != nil {
		return measurement{}, err
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, x.Data); err != nil {
		return measurement{}, err
	}
	if err := os.WriteFile(inputPath, buf.Bytes(), 0o644); err != nil {
		return measurement{}, err
	}
	dims := make([]string, len(x.Shape))
	for i, d := range x.Shape {
		dims[i] = strconv.Itoa(d)
	}
	cmd := exec.Command("node", script, modelPath, inputPath, strings.Join(dims, ","), strconv.Itoa(runs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return measurement{}, fmt.Errorf("node %s: %w: %s", script, err, stderr.Bytes())
	}
	var res struct {
		MedianNS int64 `json:"median_ns"`
		Reps     int   `json:"reps"`
		Outputs  map[string]struct {
			Data []float64 `json:"data"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return measurement{}, fmt.Errorf("node %s printed %q: %w", script, out, err)
	}
	_, logits, err := forward(m, x)
	if err != nil {
		return measurement{}, err
	}
	names, _ := m.Outputs()
	name := names[0]
	if d := maxRelDiff(res.Outputs[name].Data, logits.Value.Data); !(d <= onnxTol) {
		return measurement{}, fmt.Errorf("ONNX Runtime's %s differ from the library's by %.3g of their largest magnitude, want at most %g", name, d, onnxTol)
	}
	return measurement{median: time.Duration(res.MedianNS), reps: res.Reps}, nil
}

// maxRelDiff returns the largest difference between got and want
// relative to want's largest magnitude, NaN if their lengths differ.
func maxRelDiff(got []float64, want []float32) float64 {
	if len(got) != len(want) {
		return math.NaN()
	}
	var diff, scale float64
	for i, w := range want {
		diff = math.Max(diff, math.Abs(got[i]-float64(w)))
		scale = math.Max(scale, math.Abs(float64(w)))
	}
	return diff / scale
}
