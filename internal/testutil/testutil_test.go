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
