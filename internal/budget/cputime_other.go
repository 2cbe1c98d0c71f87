//go:build !unix

package budget

import "time"

// CPUTime returns false: the process's CPU time is not read on this
// system.
func CPUTime() (time.Duration, bool) { return 0, false }
