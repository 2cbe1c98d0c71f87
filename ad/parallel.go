package ad

import (
	"runtime"

	"github.com/parametric-machines/machines/internal/parallel"
)

// parallelWork is the work (roughly, floating-point operations) below
// which an operation runs on one goroutine: smaller ones finish in less
// time than it takes to start and join goroutines. At this size the
// Gaussian of a kernel machine on a few hundred points stays on one
// goroutine, and one on thousands of points takes every core.
const parallelWork = 1 << 18

// workers returns the number of goroutines for an operation of the given
// work over n independent rows: 1 below parallelWork, else up to
// GOMAXPROCS.
func workers(n, work int) int {
	if work < parallelWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), n))
}

// inParallel calls body on p consecutive ranges of [0, n) that together
// cover it, each a job of the module's worker pool, and waits for them.
func inParallel(n, p int, body func(first, last int)) {
	parallel.Run(p, p, func(w int) error {
		body(w*n/p, (w+1)*n/p)
		return nil
	})
}
