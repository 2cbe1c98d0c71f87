// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"fmt"
	"strings"
	"testing"
)

// Panics runs f and returns the panic value as text, if it panicked.
func Panics(f func()) (msg string, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			msg, panicked = fmt.Sprint(r), true
		}
	}()
	f()
	return "", false
}

// CheckPanic fails t unless f panics with a message containing want.
func CheckPanic(t testing.TB, f func(), want string) {
	t.Helper()
	msg, ok := Panics(f)
	switch {
	case !ok:
		t.Errorf("no panic, want one mentioning %q", want)
	case !strings.Contains(msg, want):
		t.Errorf("panic %q, want one mentioning %q", msg, want)
	}
}
