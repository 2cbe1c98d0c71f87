package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no flags", nil, 2, "missing required flags -model, -onnx"},
		{"no output", []string{"-model", "testdata/model_valid.json"}, 2, "missing required flag -onnx"},
		{"unknown kind", []string{"-model", "testdata/model_bad_kind.json", "-onnx", out}, 1, `unknown model kind "neural-net"`},
		{"hypergraph", []string{"-model", file("h.json", `{"format": "machines-hypergraph-machine", "version": 1}`), "-onnx", out}, 1,
			"hypergraph machines are not exported to ONNX yet"},
		{"finite", []string{"-model", file("f.json", `{"format": "machines-finite-machine", "version": 1}`), "-onnx", out}, 1,
			"finite machines are not exported to ONNX yet"},
		{"checkpoint", []string{"-model", file("c.json", `{"format": "machines-sculpt-checkpoint", "version": 1}`), "-onnx", out}, 1,
			"not a model"},
		{"no file", []string{"-model", filepath.Join(dir, "absent.json"), "-onnx", out}, 1, "no such file"},
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
