//go:build !unix

package testutil

import "time"

// started is when the process started, near enough.
var started = time.Now()

// CPUTime returns the wall time since the process started, where the
// system does not tell a process its CPU time.
func CPUTime() time.Duration { return time.Since(started) }
