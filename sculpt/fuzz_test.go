package sculpt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// checkpointFixtures are the checkpoint of a small run in every version
// that readCheckpoint reads: versions 3 and 4 before the module's
// envelope ("format": "machines-sculpt-checkpoint"), version 3 without
// the number of workers, and version 5 in the envelope. The run wrote
// version 4; the others are its file with their header.
var checkpointFixtures = []string{"checkpoint-v3.json", "checkpoint-v4.json", "checkpoint-v5.json"}

// fixtureRun returns the architecture and the settings of the run that
// wrote the checkpoint fixtures.
func fixtureRun(t testing.TB) (*Arch, Settings) {
	seed, err := os.ReadFile(filepath.Join("testdata", checkpointFixtures[len(checkpointFixtures)-1]))
	if err != nil {
		t.Fatal(err)
	}
	var ck savedState
	if err := json.Unmarshal(seed, &ck); err != nil {
		t.Fatal(err)
	}
	return Generous(ck.Arch.Input[0], ck.Arch.Input[1], ck.Arch.Input[2], ck.Arch.Classes, ck.Arch.Nodes, ck.Arch.Channels), ck.Settings
}

// TestReadEveryVersion reads a checkpoint of every version, as a resumed
// run does: its epochs, weights and pruned edges, and the number of
// workers where the version records it.
func TestReadEveryVersion(t *testing.T) {
	a, s := fixtureRun(t)
	for i, name := range checkpointFixtures {
		t.Run(name, func(t *testing.T) {
			st, was, err := readCheckpoint(filepath.Join("testdata", name), a, s)
			if err != nil {
				t.Fatal(err)
			}
			if wantWorkers := min(i, 1); len(st.History) == 0 || len(st.Weights) != len(a.Edges) || was.Workers != wantWorkers {
				t.Errorf("%d epochs, %d edges with weights of %d, %d workers (want %d)", len(st.History), len(st.Weights), len(a.Edges), was.Workers, wantWorkers)
			}
		})
	}
}

// FuzzReadCheckpoint feeds readCheckpoint arbitrary files in place of the
// checkpoints of a small run (checkpointFixtures, the seeds): it must
// refuse them with an error, never panic, or return a state that a
// resumed run can use: every edge's weights of the right length, within
// reach of training, pruned edges of the architecture, and some edge
// live.
func FuzzReadCheckpoint(f *testing.F) {
	a, s := fixtureRun(f)
	for _, name := range checkpointFixtures {
		seed, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), CheckpointFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, _, err := readCheckpoint(path, a, s)
		if err != nil {
			return
		}
		for i, e := range a.Edges {
			if len(st.Weights[e.Name]) != a.EdgeParams(i) {
				t.Fatalf("edge %s has %d weights, want %d", e.Name, len(st.Weights[e.Name]), a.EdgeParams(i))
			}
		}
		if err := plausibleWeights(st, s); err != nil {
			t.Fatal(err)
		}
		if live, _, _ := a.Count(st.Pruned); live == 0 || len(st.History) == 0 {
			t.Fatalf("%d live edges and %d epochs accepted", live, len(st.History))
		}
	})
}
