package sculpt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadCheckpoint feeds readCheckpoint arbitrary files in place of the
// checkpoint of a small run (testdata/checkpoint.json, the seed): it
// must refuse them with an error, never panic, or return a state that a
// resumed run can use: every edge's weights of the right length, within
// reach of training, pruned edges of the architecture, and some edge
// live.
func FuzzReadCheckpoint(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "checkpoint.json"))
	if err != nil {
		f.Fatal(err)
	}
	var ck checkpoint
	if err := json.Unmarshal(seed, &ck); err != nil {
		f.Fatal(err)
	}
	a := Generous(ck.Arch.Input[0], ck.Arch.Input[1], ck.Arch.Input[2], ck.Arch.Classes, ck.Arch.Nodes, ck.Arch.Channels)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), CheckpointFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, _, err := readCheckpoint(path, a, ck.Settings)
		if err != nil {
			return
		}
		for i, e := range a.Edges {
			if len(st.Weights[e.Name]) != a.EdgeParams(i) {
				t.Fatalf("edge %s has %d weights, want %d", e.Name, len(st.Weights[e.Name]), a.EdgeParams(i))
			}
		}
		if err := plausibleWeights(st, ck.Settings); err != nil {
			t.Fatal(err)
		}
		if live, _, _ := a.Count(st.Pruned); live == 0 || len(st.History) == 0 {
			t.Fatalf("%d live edges and %d epochs accepted", live, len(st.History))
		}
	})
}
