//go:build unix

package budget

import (
	"syscall"
	"testing"
)

// TestOpenFiles checks that OpenFiles reads the soft limit on open
// files, and follows it when it changes.
func TestOpenFiles(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	lower := l
	lower.Cur = min(l.Cur, 1000) - 1
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lower); err != nil {
		t.Skip(err)
	}
	if n, ok := OpenFiles(); !ok || n != int(lower.Cur) {
		t.Errorf("OpenFiles() = %d, %v, want %d, true", n, ok, lower.Cur)
	}
}
