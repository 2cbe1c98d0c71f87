//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// running reports whether a process of id pid runs: signal 0 checks
// that it exists without disturbing it, and a process of another user,
// which may not be signalled, exists too.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
