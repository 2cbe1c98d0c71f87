package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// TestExport fits a messy table and exports the model: the ONNX file's
// inputs are the table's feature columns with the types the package
// documents. Package onnx checks the models' outputs in ONNX Runtime.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	model, out := filepath.Join(dir, "model.json"), filepath.Join(dir, "model.onnx")
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_messy_train.csv", "-target", "y",
		"-id", "name", "-ignore", "note", "-cost", "0.1", "-bandwidth", "1", "-model", model); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	code, stdout, stderr := fitTestRun("export", "-model", model, "-onnx", out)
	if code != 0 {
		t.Fatalf("export exited with %d: %s", code, stderr)
	}
	if want := "export: wrote " + out + ": inputs group, flag, x; outputs prediction\n"; stdout != want {
		t.Errorf("export printed %q, want %q", stdout, want)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	var got []string
	for _, in := range m.GetGraph().GetInput() {
		got = append(got, in.GetName()+":"+onnxpb.TensorProto_DataType(in.GetType().GetTensorType().GetElemType()).String())
	}
	if want := []string{"group:STRING", "flag:STRING", "x:DOUBLE"}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
}

// TestExportMachines exports a saved hypergraph machine, a saved model
// with a layer of every kind and saved finite machines, in float32 and
// float64: the ONNX file's inputs and outputs are the model's with the
// element type asked for. Package onnx checks the models' outputs in
// ONNX Runtime.
func TestExportMachines(t *testing.T) {
	dir := t.TempDir()
	spec, err := hypergraph.LoadSpec("../../hypergraph/testdata/unet.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := model.FromSpec[float32](spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	unet := filepath.Join(dir, "unet.json")
	if err := h.Save(unet); err != nil {
		t.Fatal(err)
	}
	recur, err := finite.NewRecur[float64]([]int{1, 3}, ad.Tanh, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	recurPath := filepath.Join(dir, "recur.json")
	if err := recur.Save(recurPath); err != nil {
		t.Fatal(err)
	}
	every := saveEveryKind(t, dir, 0)
	out := filepath.Join(dir, "out.onnx")
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		input  string // name and element type of the first input
	}{
		{"every kind", []string{"-model", every}, "inputs image; outputs logits", "image:FLOAT"},
		{"every kind float64", []string{"-model", every, "-float64"}, "inputs image; outputs logits", "image:DOUBLE"},
		{"hypergraph", []string{"-model", unet}, "inputs image; outputs mask, logits", "image:FLOAT"},
		{"hypergraph float64", []string{"-model", unet, "-float64"}, "inputs image; outputs mask, logits", "image:DOUBLE"},
		{"recurrent", []string{"-model", recurPath, "-shape", "9"}, "inputs y0; outputs z", "y0:FLOAT"},
		{"recurrent float64", []string{"-model", recurPath, "-shape", "9", "-float64"}, "inputs y0; outputs z", "y0:DOUBLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := fitTestRun(append([]string{"export", "-onnx", out}, tc.args...)...)
			if code != 0 {
				t.Fatalf("export exited with %d: %s", code, stderr)
			}
			if want := "export: wrote " + out + ": " + tc.stdout + "\n"; stdout != want {
				t.Errorf("export printed %q, want %q", stdout, want)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var m onnxpb.ModelProto
			if err := proto.Unmarshal(data, &m); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			in := m.GetGraph().GetInput()[0]
			if got := in.GetName() + ":" + onnxpb.TensorProto_DataType(in.GetType().GetTensorType().GetElemType()).String(); got != tc.input {
				t.Errorf("first input %s, want %s", got, tc.input)
			}
		})
	}
}

// saveEveryKind saves, in dir, a model with a layer of every kind a
// model file holds: hypergraph's kinds, finite convolutional, recurrent
// and dense machines, an infinite-depth layer solved with tolerance tol
// (0 for RK4), a neural ODE, a spec-built hypergraph machine and a
// kernel-machine head. It returns the file's path.
func saveEveryKind(t *testing.T, dir string, tol float64) string {
	t.Helper()
	spec, err := hypergraph.LoadSpec("../../hypergraph/testdata/perceptron.json")
	if err != nil {
		t.Fatal(err)
	}
	perceptron, err := hypergraph.FromSpec[float32](spec)
	if err != nil {
		t.Fatal(err)
	}
	type f32 = float32
	m := model.New[f32](nil)
	h := m.Add("conv", hypergraph.Conv[f32]{Out: []int{2}}, m.Input("image", 1, 4, 4))
	h = m.Add("machine", finite.Layer[f32]{Kind: finite.Conv, Dims: []int{2, 2}, Pad: []int{1, 1}, Activation: ad.ReLU6, Scale: finite.ScalePerChannel}, h)
	h = m.Add("recur", finite.Layer[f32]{Kind: finite.Recur, Dims: []int{4, 2}, Pad: []int{2}, TimeBlock: 1, Activation: ad.Tanh}, m.Add("signal", hypergraph.Reshape[f32]{Shape: []int{4, -1}}, h))
	h = m.Add("dense", finite.Layer[f32]{Kind: finite.Dense, Dims: []int{96, 4}, Activation: ad.Tanh}, m.Add("flat", hypergraph.Flatten[f32](), h))
	h = m.Add("down", hypergraph.Linear[f32]{Out: []int{4}, Bias: true}, h)
	h = m.Add("flow", infinite.Layer[f32]{Architecture: infinite.Architecture{Anchors: 3, MaxFreq: 2, Steps: 2, Tol: tol}}, h)
	h = m.Add("perceptron", perceptron, m.Add("ode", ode.Layer[f32]{Steps: 2}, h))
	m.Add("logits", kernel.Layer[f32]{Architecture: kernel.Architecture{Dims: []int{3, 2}}, Anchors: 5}, h)
	path := filepath.Join(dir, fmt.Sprintf("every-kind-%g.json", tol))
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportErrors checks that export names what it cannot do.
func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	out := filepath.Join(dir, "out.onnx")
	conv := filepath.Join(dir, "conv.json")
	m, err := finite.NewConv[float64]([]int{1, 2}, ad.Tanh, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(conv); err != nil {
		t.Fatal(err)
	}
	recur := filepath.Join(dir, "recur.json")
	r, err := finite.NewRecur[float64]([]int{1, 3}, ad.Tanh, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Save(recur); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flags", nil, 2, "missing required flags -model, -onnx"},
		// 1,092 bytes a time step in float32: 1.1 KB measured.
		{"long recurrent signal", []string{"-model", recur, "-onnx", out, "-shape", "9000000"}, 2,
			"-shape 9000000: the recurrent machine unrolled over 9000000 time steps would make an ONNX file of about 9.8 GB, more than the 2 GiB"},
		{"no output", []string{"-model", "testdata/model_valid.json"}, 2, "missing required flag -onnx"},
		{"unknown kind", []string{"-model", "testdata/model_bad_kind.json", "-onnx", out}, 1, `unknown model kind "neural-net"`},
		{"adaptive solve", []string{"-model", saveEveryKind(t, dir, 1e-3), "-onnx", out}, 1,
			"layer flow: an infinite-depth layer solved adaptively (Tol 0.001) is not exported"},
		{"hypergraph spec", []string{"-model", "../../hypergraph/testdata/unet.json", "-onnx", out}, 1,
			"a hypergraph spec (\"machines-hypergraph\") has no weights to export"},
		{"broken hypergraph", []string{"-model", file("h.json", `{"format": "machines-hypergraph-machine", "version": 1}`), "-onnx", out}, 1,
			`no "spec"`},
		{"finite without shape", []string{"-model", conv, "-onnx", out}, 2, "a conv machine: -shape L"},
		{"finite short", []string{"-model", conv, "-onnx", out, "-shape", "2"}, 1, "shorter than the kernel"},
		{"bad shape", []string{"-model", conv, "-onnx", out, "-shape", "8,x"}, 2, `-shape 8,x: entry 2 is "x"`},
		{"shape of a kernel model", []string{"-model", "testdata/model_valid.json", "-onnx", out, "-shape", "8"}, 2, "only finite machines take a signal shape"},
		{"float64 kernel model", []string{"-model", "testdata/model_valid.json", "-onnx", out, "-float64"}, 2, "kernel machines are always exported in float64"},
		{"checkpoint", []string{"-model", file("c.json", `{"format": "machines-sculpt-checkpoint", "version": 1}`), "-onnx", out}, 1,
			"not a model"},
		{"no file", []string{"-model", filepath.Join(dir, "absent.json"), "-onnx", out}, 2, "no such file"},
		{"truncated", []string{"-model", "testdata/model_truncated.json", "-onnx", out}, 1, "model_truncated.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := fitTestRun(append([]string{"export"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
