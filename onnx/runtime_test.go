package onnx

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

// tensorJSON is a tensor as runtime/run.js reads and prints it; a nil
// number is NaN.
type tensorJSON struct {
	Type string `json:"type"`
	Dims []int  `json:"dims"`
	Data []any  `json:"data"`
}

// doubles returns the tensor's numbers, NaN for null.
func (t tensorJSON) doubles() []float64 {
	v := make([]float64, len(t.Data))
	for i, d := range t.Data {
		if f, ok := d.(float64); ok {
			v[i] = f
		} else {
			v[i] = math.NaN()
		}
	}
	return v
}

func doubleColumn(v []float64) tensorJSON {
	data := make([]any, len(v))
	for i, x := range v {
		if !math.IsNaN(x) {
			data[i] = x
		}
	}
	return tensorJSON{Type: "double", Dims: []int{len(v), 1}, Data: data}
}

func stringColumn(v []string) tensorJSON {
	data := make([]any, len(v))
	for i, s := range v {
		data[i] = s
	}
	return tensorJSON{Type: "string", Dims: []int{len(v), 1}, Data: data}
}

// runtimeDir holds run.js and, once "npm install --ignore-scripts" has
// run there, ONNX Runtime's Node binding.
const runtimeDir = "runtime"

// needRuntime skips t, or fails it under CI, unless node and ONNX
// Runtime's Node binding are installed.
func needRuntime(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testutil.Missing(t, "node", err)
	}
	if _, err := os.Stat(filepath.Join(runtimeDir, "node_modules", "onnxruntime-node")); err != nil {
		testutil.Missing(t, "onnxruntime-node (install: cd onnx/runtime && npm install --ignore-scripts)", err)
	}
}

// runModel runs the model file path in ONNX Runtime on inputs and returns
// its outputs.
func runModel(t *testing.T, path string, inputs map[string]tensorJSON) map[string]tensorJSON {
	t.Helper()
	return runModels(t, []runJob{{Model: path, Inputs: inputs}})[0]
}

// runJob is a model file and its inputs, as run.js reads them.
type runJob struct {
	Model  string                `json:"model"`
	Inputs map[string]tensorJSON `json:"inputs"`
}

// runModels runs the jobs in one process of ONNX Runtime and returns the
// outputs of each.
func runModels(t *testing.T, jobs []runJob) []map[string]tensorJSON {
	t.Helper()
	for i, j := range jobs {
		abs, err := filepath.Abs(j.Model)
		if err != nil {
			t.Fatal(err)
		}
		jobs[i].Model = abs
	}
	in, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "run.js")
	cmd.Dir = runtimeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ONNX Runtime on %d models: %v\n%s", len(jobs), err, stderr.Bytes())
	}
	var outputs []map[string]tensorJSON
	if err := json.Unmarshal(out, &outputs); err != nil || len(outputs) != len(jobs) {
		t.Fatalf("ONNX Runtime on %d models printed %q: %v", len(jobs), out, err)
	}
	return outputs
}

// python is Debian's Python, whose python3-onnx holds ONNX's checker.
const python = "/usr/bin/python3"

// onnxImport tells, once per test binary, whether python imports onnx.
var onnxImport = sync.OnceValue(func() error { return exec.Command(python, "-c", "import onnx").Run() })

// checkModel validates the model files paths with ONNX's own checker,
// with full checking of the operators' types and shapes, in one process.
func checkModel(t *testing.T, paths ...string) {
	t.Helper()
	if err := onnxImport(); err != nil {
		testutil.Missing(t, "python3-onnx (install: apt-get install python3-onnx)", errors.Join(err, errors.New("cannot import onnx in "+python)))
	}
	script := `import sys, onnx
for path in sys.argv[1:]:
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
    except Exception as e:
        sys.exit(path + ": " + str(e))`
	if out, err := exec.Command(python, append([]string{"-c", script}, paths...)...).CombinedOutput(); err != nil {
		t.Errorf("ONNX's checker refuses a model: %v\n%s", err, out)
	}
}

// relDiff returns the relative difference of a and b, |a-b| / max(|a|,
// |b|), 0 if both are 0 and +Inf if only one is NaN.
func relDiff(a, b float64) float64 {
	switch {
	case math.IsNaN(a) && math.IsNaN(b), a == b:
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return math.Inf(1)
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}
