//go:build unix

package budget

import "syscall"

// OpenFiles returns the most files, sockets included, that the process
// may hold open (its soft limit, which Go raises to the hard one at
// start), and whether the system tells it.
func OpenFiles() (int, bool) {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil || l.Cur > 1<<30 {
		return 0, false
	}
	return int(l.Cur), true
}
