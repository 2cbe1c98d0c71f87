// Package testutil holds helpers shared by the tests of several packages.
package testutil

import "fmt"

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
