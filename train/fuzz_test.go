package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/optim"
)

// FuzzResume feeds a run arbitrary files as its checkpoint, in place of
// those a run of one epoch wrote (testdata/checkpoint-v*.json, the seeds):
// the run must refuse them with an error or resume and finish its
// second epoch, never panic.
func FuzzResume(f *testing.F) {
	for _, name := range checkpointFixtures {
		seed, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
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

// checkpointFixtures are checkpoints of every version, each written by
// a run of one epoch of two minibatches of 8: version 1 before the
// module's envelope ("format": "machines-train-checkpoint"), version 2
// in it.
var checkpointFixtures = []string{"checkpoint-v1.json", "checkpoint-v2.json"}

// TestResumeEveryVersion resumes from a checkpoint of every version as
// a run does from one of today's, and writes today's.
func TestResumeEveryVersion(t *testing.T) {
	for _, name := range checkpointFixtures {
		t.Run(name, func(t *testing.T) {
			seed, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "checkpoint.json")
			if err := os.WriteFile(path, seed, 0o644); err != nil {
				t.Fatal(err)
			}
			x, y := regressionData(16, 6)
			res, err := Run[float64](newLinear[float64](x, y, 8), 16, Config{Epochs: 2, Batch: 8, Optimizer: &optim.Adam{}, Checkpoint: path})
			if err != nil || len(res.Epochs) != 2 || res.Resumed != 1 {
				t.Fatalf("resuming: %d epochs, %d resumed, %v", len(res.Epochs), res.Resumed, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"format":"machines","kind":"train-checkpoint","version":2,`; !strings.HasPrefix(string(data), want) {
				t.Errorf("the checkpoint written after resuming begins %.60s, want %s", data, want)
			}
		})
	}
}
