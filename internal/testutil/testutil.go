// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"fmt"
	"os"
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

// Missing skips t because the external data it needs (what) is absent,
// with err saying why; under CI (the environment variable CI is "true")
// it fails t instead, since CI installs every dependency and a skip there
// would hide a broken install.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing under CI: %v", what, err)
	}
	t.Skipf("%s is missing: %v", what, err)
}
