//go:build unix

package tabular

import (
	"syscall"
	"time"
)

// cpuSeconds returns the CPU time of the process so far, user and
// system, in seconds; 0 where the system does not tell.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
