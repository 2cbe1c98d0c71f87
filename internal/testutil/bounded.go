package testutil

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"
)

// HeapBytes returns the bytes of the heap's objects, live or not yet
// swept: what a guard watches grow.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Bounded runs f and panics, from another goroutine, which ends the test
// binary at once, if f grows the heap by more than maxHeap bytes or the
// process spends more than maxTime of CPU time (CPUTime) while f runs:
// CPU time, so that a loaded machine does not trip it. It is for tests
// of refusals: work that
// should be refused before it starts could otherwise exhaust the
// memory of a machine shared with others, or run for hours, before the
// test could fail.
func Bounded(what string, maxHeap uint64, maxTime time.Duration, f func()) {
	runtime.GC()
	base := HeapBytes()
	done := make(chan struct{})
	start := CPUTime()
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if h := HeapBytes(); h > base && h-base > maxHeap {
					panic(fmt.Sprintf("%s: the heap grew by %d MiB, more than %d MiB", what, (h-base)>>20, maxHeap>>20))
				}
				if d := CPUTime() - start; d > maxTime {
					panic(fmt.Sprintf("%s: still running after %v of CPU time", what, d))
				}
			}
		}
	}()
	defer close(done)
	f()
}
