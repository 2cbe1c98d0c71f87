//go:build linux

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestServeSignals sends serve, in a process of its own that reads its
// directory once an hour, SIGHUP after a model file has appeared: the
// model is served at once and the process lives on (SIGHUP ended it,
// with the requests in flight); then SIGTERM, on which it exits with
// status 0.
func TestServeSignals(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_cls_train.csv", "-target", "color", "-cost", "0.1", "-bandwidth", "1",
		"-model", filepath.Join(dir, "m.json")); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	url, child := startServe(t, dir, "MACHINES_SERVE_FLAGS=-poll 1h")
	data, err := os.ReadFile(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".new"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".new"), filepath.Join(dir, "new.json")); err != nil {
		t.Fatal(err)
	}
	if err := child.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/v2/models/new/ready")
		if err != nil {
			t.Fatalf("after SIGHUP: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if i == 500 {
			t.Fatalf("the model added before SIGHUP is not ready 5 s after: %d", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v, want exit status 0", err)
	}
}
