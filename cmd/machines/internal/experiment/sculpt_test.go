package experiment

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

// TestSculptQuick runs the quick sculpt experiment on Fashion-MNIST: it
// prunes some edges, keeps the pruned machine's accuracy equal to the
// unpruned one's and well above chance, and writes its report and
// pictures.
func TestSculptQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a convolutional network")
	}
	if _, err := os.Stat(filepath.Join(DefaultImageData, "train-labels-idx1-ubyte.gz")); err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	dir := t.TempDir()
	r, err := Run("sculpt", Config{Out: dir, Seed: 1, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Sculpt
	if s == nil {
		t.Fatal("no sculpt report")
	}
	if !(s.EdgesLive < s.EdgesInitial) || s.EdgesLive == 0 {
		t.Errorf("edges %d -> %d, want some but not all pruned", s.EdgesInitial, s.EdgesLive)
	}
	if s.AccuracyPruned != s.AccuracyUnpruned || s.AccuracyPruned < 0.6 {
		t.Errorf("accuracy pruned %v, unpruned %v, want them equal and above 0.6", s.AccuracyPruned, s.AccuracyUnpruned)
	}
	if _, err := os.Stat(filepath.Join(dir, "sculpt.json")); err != nil {
		t.Error(err)
	}
	if len(r.Figures) == 0 {
		t.Error("no figures")
	}
	for _, f := range r.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}
