package hypergraph

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzLoad feeds Load arbitrary files: it must refuse them with an
// error, never panic or allocate parameters the file does not hold, or
// return a machine that saves and loads back with the same parameters.
// The seed corpus, in testdata/fuzz/FuzzLoad, holds a saved machine and
// a small file whose spec calls for 2^28 parameters.
func FuzzLoad(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "tiny.machine.json")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load[float32](path)
		if err != nil {
			return
		}
		again := filepath.Join(dir, "again.json")
		if err := m.Save(again); err != nil {
			t.Fatalf("a loaded machine does not save: %v", err)
		}
		back, err := Load[float32](again)
		if err != nil {
			t.Fatalf("a saved machine does not load: %v", err)
		}
		if !slices.Equal(back.Params(), m.Params()) {
			t.Fatal("the parameters changed in a round trip")
		}
	})
}
