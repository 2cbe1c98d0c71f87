package testutil

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestPanics(t *testing.T) {
	if msg, ok := Panics(func() { panic("boom") }); !ok || msg != "boom" {
		t.Errorf("Panics of a panic = %q, %v", msg, ok)
	}
	if msg, ok := Panics(func() {}); ok || msg != "" {
		t.Errorf("Panics of a quiet function = %q, %v", msg, ok)
	}
}

// recorder is a testing.TB that keeps the failures reported to it.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func TestCheckPanic(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
		want string
		fail bool
	}{
		{"matching panic", func() { panic("bad shape [2 3]") }, "shape [2 3]", false},
		{"other panic", func() { panic("bad shape [2 3]") }, "negative", true},
		{"no panic", func() {}, "anything", true},
	} {
		r := &recorder{TB: t}
		CheckPanic(r, c.f, c.want)
		if got := len(r.failures) > 0; got != c.fail {
			t.Errorf("%s: failed %v (%q), want %v", c.name, got, r.failures, c.fail)
		}
	}
}

// TestBounded checks that Bounded lets bounded work finish. That it ends
// the binary for unbounded work is checked in a child process.
func TestBounded(t *testing.T) {
	if what := os.Getenv("TESTUTIL_BOUNDED"); what != "" {
		Bounded(what, 64<<20, 200*time.Millisecond, func() {
			var keep [][]byte
			for spins := 0; ; spins++ {
				if what == "time" {
					continue // spins, spending CPU time
				}
				keep = append(keep, make([]byte, 1<<20))
			}
		})
		return
	}
	ran := false
	Bounded("small work", 64<<20, time.Minute, func() { ran = true })
	if !ran {
		t.Error("f did not run")
	}
	for _, tc := range []struct{ what, want string }{
		{"heap", "heap: the heap grew by"},
		{"time", "of CPU time"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBounded$")
		cmd.Env = append(os.Environ(), "TESTUTIL_BOUNDED="+tc.what)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("unbounded %s: error %v, output %.300s; want a panic saying %q", tc.what, err, out, tc.want)
		}
	}
}

func TestCheckGradient(t *testing.T) {
	// f(x) = x0² + 3·x0·x1, ∇f = (2x0 + 3x1, 3x0).
	f := func(x []float64) float64 { return x[0]*x[0] + 3*x[0]*x[1] }
	x := []float64{0.5, -2}
	for _, c := range []struct {
		name string
		got  []float64
		fail bool
	}{
		{"exact", []float64{-5, 1.5}, false},
		{"one entry off", []float64{-5, 1.6}, true},
		{"too short", []float64{-5}, true},
	} {
		r := &recorder{TB: t}
		CheckGradient(r, c.got, f, x, 1e-6)
		if got := len(r.failures) > 0; got != c.fail {
			t.Errorf("%s: failed %v (%q), want %v", c.name, got, r.failures, c.fail)
		}
	}
	if x[0] != 0.5 || x[1] != -2 {
		t.Errorf("x changed to %v", x)
	}
}

// nopCloser is a buffer that the announcement can close.
type nopCloser struct{ *strings.Builder }

func (nopCloser) Close() error { return nil }

// TestMissingAnnounces checks that a skip for a missing dependency is
// written to the terminal once, whatever the number of tests it skips.
func TestMissingAnnounces(t *testing.T) {
	t.Setenv("CI", "")
	var tty strings.Builder
	defer func(open func() (io.WriteCloser, error)) { terminal = open }(terminal)
	terminal = func() (io.WriteCloser, error) { return nopCloser{&tty}, nil }
	what := "a test-only tool (install: apt-get install tool)"
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			Missing(t, what, os.ErrNotExist)
			t.Error("Missing did not skip")
		})
	}
	if got := strings.Count(tty.String(), what); got != 1 {
		t.Errorf("the terminal got %q, want %q once", tty.String(), what)
	}
}
