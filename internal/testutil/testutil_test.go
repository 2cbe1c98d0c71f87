package testutil

import "testing"

func TestPanics(t *testing.T) {
	if msg, ok := Panics(func() { panic("boom") }); !ok || msg != "boom" {
		t.Errorf("Panics of a panic = %q, %v", msg, ok)
	}
	if msg, ok := Panics(func() {}); ok || msg != "" {
		t.Errorf("Panics of a quiet function = %q, %v", msg, ok)
	}
}
