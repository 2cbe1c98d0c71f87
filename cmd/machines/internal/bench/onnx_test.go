package bench

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/sculpt"
)

func TestONNXSuite(t *testing.T) {
	ws, err := Suite("onnx")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name != "onnx-library" || ws[1].Name != "onnx-runtime" || ws[1].measure == nil {
		t.Fatalf("onnx suite %+v", ws)
	}
	for _, w := range ws {
		if w.Items != 256 || w.ItemName != "images" || w.Procs != 0 {
			t.Errorf("%s: %d %s per unit on %d procs, want 256 images on one", w.Name, w.Items, w.ItemName, w.Procs)
		}
	}
}

func TestONNXMissingModel(t *testing.T) {
	defer func(path string) { SculptedModel = path }(SculptedModel)
	SculptedModel = filepath.Join(t.TempDir(), "absent.json")
	for _, w := range ONNXWorkloads() {
		_, err := Run(w, 1)
		if err == nil || !strings.Contains(err.Error(), "bench: "+w.Name+": the onnx suite needs a sculpted machine") {
			t.Errorf("%s without a model: %v", w.Name, err)
		}
	}
}

// TestONNXInference sculpts a machine briefly and times both workloads
// once: the runtime's check of its logits against the library's passes,
// and both report images per second.
func TestONNXInference(t *testing.T) {
	if testing.Short() {
		t.Skip("sculpts a machine")
	}
	train, err := dataset.LoadIDX(FashionMNIST, "train")
	if err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		testutil.Missing(t, "node", err)
	}
	defer func(m, rt string) { SculptedModel, ONNXRuntime = m, rt }(SculptedModel, ONNXRuntime)
	ONNXRuntime = filepath.Join("..", "..", "..", "..", "onnx", "runtime")
	if _, err := os.Stat(filepath.Join(ONNXRuntime, "node_modules", "onnxruntime-node")); err != nil {
		testutil.Missing(t, "onnxruntime-node (npm install --ignore-scripts in onnx/runtime)", err)
	}
	test, err := dataset.LoadIDXClasses(FashionMNIST, "t10k", train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := sculpt.Run(train, test, sculpt.Config{Epochs: 2, NoFinetune: true, Lambda: 0.3, MaxTrain: 2000, MaxTest: 10, Seed: 1, Out: out}); err != nil {
		t.Fatal(err)
	}
	SculptedModel = filepath.Join(out, sculpt.ModelFile)
	for _, w := range ONNXWorkloads() {
		r, err := Run(w, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reps < 1 || math.Abs(r.PerSecond*r.Median().Seconds()-256) > 1e-6 || r.Item != "images" {
			t.Errorf("%s: %+v, want 256 images a unit", w.Name, r)
		}
		t.Logf("%s: %.0f images/s", w.Name, r.PerSecond)
	}
}

func TestMaxRelDiff(t *testing.T) {
	for _, tc := range []struct {
		got  []float64
		want []float32
		d    float64
	}{
		{[]float64{1, -2}, []float32{1, -2}, 0},
		{[]float64{1.5, -4}, []float32{1, -4}, 0.125},
		{[]float64{1}, []float32{1, 2}, math.NaN()},
		{[]float64{math.NaN(), 1}, []float32{1, 1}, math.NaN()},
	} {
		d := maxRelDiff(tc.got, tc.want)
		if d != tc.d && !(math.IsNaN(d) && math.IsNaN(tc.d)) {
			t.Errorf("maxRelDiff(%v, %v) = %g, want %g", tc.got, tc.want, d, tc.d)
		}
	}
}
