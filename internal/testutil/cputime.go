package testutil

import (
	"time"

	"github.com/parametric-machines/machines/internal/budget"
)

// started is when the process started, near enough.
var started = time.Now()

// CPUTime returns the CPU time, user and system, that the process has
// used so far, so that a bound on it holds on a loaded machine; the wall
// time since the process started where the system does not tell.
func CPUTime() time.Duration {
	if d, ok := budget.CPUTime(); ok {
		return d
	}
	return time.Since(started)
}
