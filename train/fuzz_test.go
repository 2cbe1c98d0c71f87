package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/optim"
)

// FuzzResume feeds a run arbitrary files as its checkpoint, in place of
// the one a run of one epoch wrote (testdata/checkpoint.json, the seed):
// the run must refuse them with an error or resume and finish its
// second epoch, never panic.
func FuzzResume(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "checkpoint.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	x, y := regressionData(16, 6)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "checkpoint.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Run[float64](newLinear[float64](x, y, 8), 16, Config{Epochs: 2, Batch: 8, Optimizer: &optim.Adam{}, Checkpoint: path})
		if err == nil && len(res.Epochs) != 2 {
			t.Fatalf("%d epochs after resuming, want 2", len(res.Epochs))
		}
	})
}

// TestResumeLegacy resumes from the fuzz seed, a checkpoint written
// before the module's envelope ("format": "machines-train-checkpoint"),
// as a run does from one of today's.
func TestResumeLegacy(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "checkpoint.json")
	if err := os.WriteFile(path, seed, 0o644); err != nil {
		t.Fatal(err)
	}
	x, y := regressionData(16, 6)
	res, err := Run[float64](newLinear[float64](x, y, 8), 16, Config{Epochs: 2, Batch: 8, Optimizer: &optim.Adam{}, Checkpoint: path})
	if err != nil || len(res.Epochs) != 2 {
		t.Fatalf("resuming from a version 1 checkpoint: %d epochs, %v", len(res.Epochs), err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"format":"machines","kind":"train-checkpoint","version":2,`; !strings.HasPrefix(string(data), want) {
		t.Errorf("the checkpoint written after resuming begins %.60s, want %s", data, want)
	}
}
