//go:build unix

package budget

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time, user and system, that the process has
// used so far, and whether the system tells it. Unlike wall time it does
// not run on while other processes hold the processors.
func CPUTime() (time.Duration, bool) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
