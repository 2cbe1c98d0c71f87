package parallel

import (
	"runtime"
	"sync"
)

// Run calls job(0), ..., job(jobs-1) on workers goroutines (0 means
// runtime.GOMAXPROCS(0)) and returns nil if all succeed. Jobs must be
// independent. Once one fails, jobs not yet started are skipped and Run
// returns the error of the lowest-numbered job that failed.
func Run(jobs, workers int, job func(i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, jobs)
	errs := make([]error, jobs)
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := failed
				mu.Unlock()
				if i >= jobs || stop {
					return
				}
				if err := job(i); err != nil {
					errs[i] = err
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
