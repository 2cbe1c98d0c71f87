//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time, user and system, that the process has
// used so far. Unlike wall time it does not run on while other
// processes hold the processors, so a bound on it holds on a loaded
// machine.
func CPUTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
