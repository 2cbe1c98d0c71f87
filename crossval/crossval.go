package crossval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
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
		panic(fmt.Errorf("%w: crossval: %d folds of %d rows", ad.ErrShape, k, n))
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
		panic(fmt.Errorf("%w: crossval: %d folds of %d rows", ad.ErrShape, k, n))
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

// Grouped returns k folds of the rows whose groups are groups: every row
// of a group falls in the same test part, so that a model is never judged
// on a group it was trained on. The groups, shuffled by the seed, are
// dealt largest first to the test part with the fewest rows so far. It
// panics unless 2 <= k <= the number of distinct groups.
func Grouped(groups []int, k int, seed uint64) []Fold {
	rows := map[int][]int{}
	for r, g := range groups {
		rows[g] = append(rows[g], r)
	}
	if k < 2 || k > len(rows) {
		panic(fmt.Errorf("%w: crossval: %d folds of %d groups", ad.ErrValue, k, len(rows)))
	}
	ids := make([]int, 0, len(rows))
	for g := range rows {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	rnd := rand.New(rand.NewPCG(seed, seedStream))
	rnd.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	slices.SortStableFunc(ids, func(a, b int) int { return len(rows[b]) - len(rows[a]) })
	fold := make([]int, len(groups))
	size := make([]int, k)
	for _, g := range ids {
		f := 0
		for i := range size {
			if size[i] < size[f] {
				f = i
			}
		}
		size[f] += len(rows[g])
		for _, r := range rows[g] {
			fold[r] = f
		}
	}
	return split(fold, k)
}

// Forward returns k folds of the rows whose times are times that move
// forward in time: the rows, in the order of their times, are cut into
// k+1 blocks of about equal size, never between rows of equal time, and
// fold i is trained on blocks 0..i and tested on block i+1, so that a
// model is judged only on rows later than all it was trained on. It
// panics unless k >= 2, and returns an error for a time that is NaN,
// which has no place in time, and when ties in time leave fewer than k+1
// blocks.
func Forward(times []float64, k int) ([]Fold, error) {
	if k < 2 {
		panic(fmt.Errorf("%w: crossval: %d forward folds", ad.ErrValue, k))
	}
	if r := slices.IndexFunc(times, math.IsNaN); r >= 0 {
		return nil, fmt.Errorf("crossval: the time of row %d is NaN", r)
	}
	n := len(times)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case times[a] < times[b]:
			return -1
		case times[a] > times[b]:
			return 1
		}
		return 0
	})
	// block[i] is the block of the i-th row in time; a cut may only
	// fall where the time changes.
	block := make([]int, n)
	b := 0
	for i := 1; i < n; i++ {
		if times[order[i]] != times[order[i-1]] && b < k && i >= (b+1)*n/(k+1) {
			b++
		}
		block[i] = b
	}
	if b < k {
		return nil, fmt.Errorf("crossval: the %d rows' times cut into %d blocks, too few for %d forward folds", n, b+1, k)
	}
	folds := make([]Fold, k)
	for f := range folds {
		for i, r := range order {
			switch {
			case block[i] <= f:
				folds[f].Train = append(folds[f].Train, r)
			case block[i] == f+1:
				folds[f].Test = append(folds[f].Test, r)
			}
		}
		slices.Sort(folds[f].Train)
		slices.Sort(folds[f].Test)
	}
	return folds, nil
}
