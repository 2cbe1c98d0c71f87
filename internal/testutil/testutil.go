// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// PanicError runs f and returns the error it panics with: nil if it
// returns, an error saying so if it panics with a value that is not an
// error (the library's panics carry errors of ad's kinds).
func PanicError(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if err, _ = r.(error); err == nil {
				err = fmt.Errorf("a panic with %v, not an error", r)
			}
		}
	}()
	f()
	return nil
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

// Missing skips t because an external dependency (what) is absent, err
// saying why; what should say how to install it. Under CI (CI=true) it
// fails t instead: CI installs every dependency, and a skip there would
// hide a broken install.
//
// go test shows nothing of a passing package's output without -v, so the
// first skip of each dependency is also written to the terminal.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing under CI: %v", what, err)
	}
	announce(what)
	t.Skipf("%s is missing: %v", what, err)
}

// announced holds the dependencies whose skips this process has
// announced.
var announced sync.Map

// terminal opens the terminal that go test was started from; it fails
// when there is none, as under CI or a pipe.
var terminal = func() (io.WriteCloser, error) {
	return os.OpenFile("/dev/tty", os.O_WRONLY, 0)
}

// announce writes to the terminal, once per process and dependency, that
// this test binary skips the checks that need what.
func announce(what string) {
	if _, done := announced.LoadOrStore(what, true); done {
		return
	}
	w, err := terminal()
	if err != nil {
		return
	}
	defer w.Close()
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	fmt.Fprintf(w, "%s: skipping the checks that need %s\n", pkg, what)
}
