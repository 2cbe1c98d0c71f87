package testutil

import (
	"fmt"
	"testing"
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
