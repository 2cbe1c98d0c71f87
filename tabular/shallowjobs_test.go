package tabular

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestShallowJobs checks that shallowJobs runs every job once, each
// after the jobs of its setting that it needs, and returns the first
// error in the jobs' order without waiting forever when one fails.
func TestShallowJobs(t *testing.T) {
	errJob := errors.New("job failed")
	for _, c := range []struct {
		n, parts, workers int
		failBasis         int // the setting whose basis fails, -1 none
		failSolver        int // the setting whose last solver fails, -1 none
	}{
		{n: 9, parts: 1, workers: 2, failBasis: -1, failSolver: -1},
		{n: 3, parts: 5, workers: 3, failBasis: -1, failSolver: -1},
		{n: 5, parts: 2, workers: 1, failBasis: -1, failSolver: -1},
		{n: 1, parts: 1, workers: 4, failBasis: -1, failSolver: -1},
		{n: 4, parts: 3, workers: 2, failBasis: 3, failSolver: -1},
		{n: 4, parts: 3, workers: 2, failBasis: -1, failSolver: 2},
	} {
		t.Run(fmt.Sprintf("n%d,parts%d,workers%d,fail%d,%d", c.n, c.parts, c.workers, c.failBasis, c.failSolver), func(t *testing.T) {
			built := make([]atomic.Bool, c.n)
			solved := make([]atomic.Int32, c.n)
			scored := make([]atomic.Int32, c.n)
			var early atomic.Int32 // jobs that ran before what they need
			// A job that fails takes longer, so that the jobs that need
			// it are claimed, and wait, before it fails.
			basis := func(i int) error {
				time.Sleep(time.Millisecond) // long enough for a job that does not wait to overtake it
				if i == c.failBasis {
					time.Sleep(20 * time.Millisecond)
					built[i].Store(true)
					return errJob
				}
				built[i].Store(true)
				return nil
			}
			solver := func(i, part int) error {
				if !built[i].Load() {
					early.Add(1)
				}
				time.Sleep(time.Millisecond / 2)
				if i == c.failSolver && part == c.parts-1 {
					time.Sleep(20 * time.Millisecond)
					solved[i].Add(1)
					return errJob
				}
				solved[i].Add(1)
				return nil
			}
			score := func(i int) error {
				if solved[i].Load() != int32(c.parts) {
					early.Add(1)
				}
				scored[i].Add(1)
				return nil
			}
			err := shallowJobs(c.n, c.parts, c.workers, basis, solver, score)
			if early.Load() != 0 {
				t.Errorf("%d jobs ran before what they need", early.Load())
			}
			if c.failBasis < 0 && c.failSolver < 0 {
				if err != nil {
					t.Fatal(err)
				}
				for i := range c.n {
					if solved[i].Load() != int32(c.parts) || scored[i].Load() != 1 {
						t.Errorf("setting %d: %d solvers and %d scores ran, want %d and 1", i, solved[i].Load(), scored[i].Load(), c.parts)
					}
				}
				return
			}
			if err != errJob {
				t.Fatalf("got error %v, want the failed job's", err)
			}
			if i := c.failBasis; i >= 0 && solved[i].Load() != 0 {
				t.Errorf("setting %d: %d solvers ran after its basis failed", i, solved[i].Load())
			}
			for _, i := range []int{c.failBasis, c.failSolver} {
				if i >= 0 && scored[i].Load() != 0 {
					t.Errorf("setting %d was scored after a job it needs failed", i)
				}
			}
		})
	}
}

// TestShallowJobsOvertake checks that a free worker runs the jobs of a
// setting already built rather than waiting for a slow basis: the basis
// of setting 0 returns only once setting 1 has been scored on the other
// worker. (The wait's limit guards against a scheduler that would hang
// here; it is not a measure of speed.)
func TestShallowJobsOvertake(t *testing.T) {
	scored1 := make(chan struct{})
	basis := func(i int) error {
		if i == 0 {
			select {
			case <-scored1:
			case <-time.After(10 * time.Second):
				t.Error("setting 1 was not scored while setting 0's basis was built")
			}
		}
		return nil
	}
	solver := func(i, part int) error { return nil }
	score := func(i int) error {
		if i == 1 {
			close(scored1)
		}
		return nil
	}
	if err := shallowJobs(2, 3, 2, basis, solver, score); err != nil {
		t.Fatal(err)
	}
}
