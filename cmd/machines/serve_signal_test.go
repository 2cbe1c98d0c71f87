//go:build linux

package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestServeLogGone runs serve, in a process of its own logging a line
// per request, with its standard error a pipe whose reader has gone, as
// when a log collector dies: it serves on without its log (SIGPIPE
// ended it at its first line).
func TestServeLogGone(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "../../model/testdata/legacy.machine.json", filepath.Join(dir, "m.json"))
	child := exec.Command(os.Args[0], "-test.run=^TestServeChild$")
	child.Env = append(os.Environ(), "MACHINES_SERVE_CHILD="+dir, "MACHINES_SERVE_FLAGS=-log-level DEBUG")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	child.Stderr = w
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "serve: listening on ") {
		t.Fatalf("serve wrote %q, %v", line, err)
	}
	url := "http://" + strings.TrimSpace(strings.TrimPrefix(line, "serve: listening on "))
	for range 3 {
		resp, err := http.Get(url + "/v2/models/m")
		if err != nil {
			t.Fatalf("serve without its log: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("serve without its log: %d", resp.StatusCode)
		}
	}
}
