//go:build unix

package serve

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFO checks that a FIFO among the model files, there at the start
// or made while the server runs, blocks neither the start nor the
// scans: it is reported as a file that is not a model, and the other
// models are served.
func TestFIFO(t *testing.T) {
	s, dir := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	if err := syscall.Mkfifo(filepath.Join(dir, "f.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}
	writeModel(t, dir, "b", testFile{Value: 2, Width: 1})
	if err := syscall.Mkfifo(filepath.Join(dir, "g.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A new server whose directory holds FIFOs from the start.
	s2, err := New(Config{Dir: dir, Kinds: []Kind{testKind()}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, srv := range []*Server{s, s2} {
		if status, got := do(t, srv, "GET", "/v2/models/f/ready", ""); status != 400 || !strings.Contains(got, "not a regular file") {
			t.Errorf("FIFO f: %d %s", status, got)
		}
		if status, got := do(t, srv, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 200 {
			t.Errorf("model a beside the FIFO: %d %s", status, got)
		}
	}
	if status, got := do(t, s2, "POST", "/v2/models/b/infer", testRequest([]float64{1})); status != 200 {
		t.Errorf("model b, added with the FIFO: %d %s", status, got)
	}
}
