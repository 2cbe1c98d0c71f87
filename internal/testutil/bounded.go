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
// binary at once, if f grows the heap by more than maxHeap bytes or
// runs for longer than maxTime. It is for tests of refusals: work that
// should be refused before it starts could otherwise exhaust the
// memory of a machine shared with others, or run for hours, before the
// test could fail.
func Bounded(what string, maxHeap uint64, maxTime time.Duration, f func()) {
	runtime.GC()
	base := HeapBytes()
	done := make(chan struct{})
	go func() {
		deadline := time.After(maxTime)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-deadline:
				panic(fmt.Sprintf("%s: still running after %v", what, maxTime))
			case <-tick.C:
				if h := HeapBytes(); h > base && h-base > maxHeap {
					panic(fmt.Sprintf("%s: the heap grew by %d MiB, more than %d MiB", what, (h-base)>>20, maxHeap>>20))
				}
			}
		}
	}()
	defer close(done)
	f()
}
