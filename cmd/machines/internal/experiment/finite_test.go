package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestShift runs the quick shift experiment: both machines' held-out
// loss falls, and the report and the loss file have their shapes.
func TestShift(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models")
	}
	dir := t.TempDir()
	r, err := Run("shift", Config{Out: dir, Seed: 1, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Models) != 2 || len(r.Figures) != 4 {
		t.Fatalf("report %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "shift.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Models []struct {
			Name        string
			Params      int
			InitialLoss float64 `json:"initial_loss"`
			FinalLoss   float64 `json:"final_loss"`
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Models) != 2 {
		t.Fatalf("shift.json: %s", b)
	}
	for _, m := range got.Models {
		if m.Params <= 0 || !(m.FinalLoss < m.InitialLoss/3) {
			t.Errorf("%s: %d parameters, loss %v -> %v, want it to fall to a third or less", m.Name, m.Params, m.InitialLoss, m.FinalLoss)
		}
	}
	for _, f := range r.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}

// TestDepth runs the depth experiment: one picture per step of each
// solve, 4 for the conv machine and 16 for the recurrent one.
func TestDepth(t *testing.T) {
	dir := t.TempDir()
	r, err := Run("depth", Config{Out: dir, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Models) != 2 || r.Models[0].Iterations != 4 || r.Models[1].Iterations != 16 || len(r.Figures) != 4 {
		t.Errorf("report %+v", r)
	}
}
