package crossval

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// Fold is one split of the rows 0..n-1: a model is fitted on Train and
// evaluated on Test. Both are in increasing order.
type Fold struct {
	Train, Test []int
}

// seedStream keeps the fold shuffle's random stream apart from the other
// users of a seed.
const seedStream = 0x63726f7373

// KFold returns k folds of n rows: a seeded shuffle cut into k test parts
// whose sizes differ by at most one. It panics unless 2 <= k <= n.
func KFold(n, k int, seed uint64) []Fold {
	if k < 2 || k > n {
		panic(fmt.Sprintf("crossval: %d folds of %d rows", k, n))
	}
	perm := rand.New(rand.NewPCG(seed, seedStream)).Perm(n)
	fold := make([]int, n)
	for i, r := range perm {
		fold[r] = i % k
	}
	return split(fold, k)
}

// Stratified returns k folds of the rows whose classes are labels: the
// rows of each class are shuffled and dealt to the folds in turn, the next
// class continuing where the previous one stopped, so every fold holds each
// class in proportion (a class with fewer rows than folds is missing from
// some test parts) and the test parts' sizes differ by at most one. It
// panics unless 2 <= k <= len(labels).
func Stratified(labels []int, k int, seed uint64) []Fold {
	n := len(labels)
	if k < 2 || k > n {
		panic(fmt.Sprintf("crossval: %d folds of %d rows", k, n))
	}
	rnd := rand.New(rand.NewPCG(seed, seedStream))
	byClass := map[int][]int{}
	for r, l := range labels {
		byClass[l] = append(byClass[l], r)
	}
	classes := make([]int, 0, len(byClass))
	for l := range byClass {
		classes = append(classes, l)
	}
	slices.Sort(classes)
	fold := make([]int, n)
	next := 0
	for _, l := range classes {
		rows := byClass[l]
		rnd.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, r := range rows {
			fold[r] = next
			next = (next + 1) % k
		}
	}
	return split(fold, k)
}

func split(fold []int, k int) []Fold {
	folds := make([]Fold, k)
	for r, f := range fold {
		for i := range folds {
			if i == f {
				folds[i].Test = append(folds[i].Test, r)
			} else {
				folds[i].Train = append(folds[i].Train, r)
			}
		}
	}
	return folds
}

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
