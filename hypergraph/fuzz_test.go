package hypergraph

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReadSpec feeds ReadSpec arbitrary files: it must refuse them with
// an error, never panic, or return a spec that builds a machine and
// writes out and reads back the same.
func FuzzReadSpec(f *testing.F) {
	for _, name := range []string{"perceptron.json", "resnet.json", "unet.json", "cyclic.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSpec(bytes.NewReader(data))
		if err != nil {
			return
		}
		if _, err := FromSpec[float32](s); err != nil {
			t.Fatalf("a spec that reads does not build: %v", err)
		}
		path := filepath.Join(t.TempDir(), "s.json")
		if err := SaveSpec(path, s); err != nil {
			t.Fatalf("a spec that reads does not save: %v", err)
		}
		back, err := LoadSpec(path)
		if err != nil {
			t.Fatalf("a saved spec does not load: %v", err)
		}
		s.setHeader()
		if !reflect.DeepEqual(back.Vertices, s.Vertices) || !reflect.DeepEqual(back.Edges, s.Edges) {
			t.Fatal("the spec changed in a round trip")
		}
	})
}
