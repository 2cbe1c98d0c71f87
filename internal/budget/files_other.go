//go:build !unix

package budget

// OpenFiles returns false: the most files the process may hold open is
// not read on this system.
func OpenFiles() (int, bool) { return 0, false }
