package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

// TestTabularEverywhere checks that a model fitted in Go with package
// tabular is read by every command that reads model files, which
// predict what Go predicts, and that a model of machines fit loads in Go
// and predicts what predict writes; and that the zero Options fit what
// fit without flags fits.
func TestTabularEverywhere(t *testing.T) {
	for _, tc := range []struct{ data, target string }{
		{"testdata/fit_reg_train.csv", "y"},
		{"testdata/fit_cls_train.csv", "color"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			dir := t.TempDir()
			f, err := dataset.LoadFrame(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			md, _, err := tabular.Fit(f, []string{tc.target}, tabular.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fromGo := filepath.Join(dir, "go.json")
			if err := md.Save(fromGo); err != nil {
				t.Fatal(err)
			}
			fromCmd := filepath.Join(dir, "cmd.json")
			if code, _, stderr := fitTestRun("fit", "-data", tc.data, "-target", tc.target, "-model", fromCmd); code != 0 {
				t.Fatalf("fit exited with %d: %s", code, stderr)
			}
			var preds [][][]string
			for _, path := range []string{fromGo, fromCmd} {
				for _, args := range [][]string{
					{"score", "-model", path, "-data", tc.data},
					{"explain", "-model", path, "-data", tc.data, "-repeats", "2"},
					{"export", "-model", path, "-onnx", filepath.Join(dir, "m.onnx")},
				} {
					if code, _, stderr := fitTestRun(args...); code != 0 {
						t.Errorf("%s exited with %d: %s", args[0], code, stderr)
					}
				}
				// serve decodes the bytes it read once, not the file again.
				if data, err := os.ReadFile(path); err != nil {
					t.Fatal(err)
				} else if _, err := loadKernelModel(filepath.Join(dir, "gone.json"), data, 0.9); err != nil {
					t.Errorf("serve: %v", err)
				}
				out := filepath.Join(dir, "pred.csv")
				if code, _, stderr := fitTestRun("predict", "-model", path, "-data", tc.data, "-out", out, "-interval", "0.8"); code != 0 {
					t.Fatalf("predict exited with %d: %s", code, stderr)
				}
				loaded, err := tabular.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				p, _, err := loaded.PredictInterval(f, 0.8)
				if err != nil {
					t.Fatal(err)
				}
				want := append([][]string{loaded.PredictionHeader(true)}, loaded.PredictionRecords(p)...)
				got := fitTestReadCSV(t, out)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("%s: predict wrote %q, Go predicts %q", filepath.Base(path), got, want)
				}
				preds = append(preds, got)
			}
			if !slices.EqualFunc(preds[0], preds[1], slices.Equal) {
				t.Errorf("the zero Options predict %q, fit without flags %q", preds[0], preds[1])
			}
		})
	}
}
