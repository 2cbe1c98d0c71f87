package crossval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

// checkPartition fails unless the folds' test parts partition 0..n-1 with
// sizes differing by at most one and each train part is the complement of
// its test part.
func checkPartition(t *testing.T, folds []Fold, n int) {
	t.Helper()
	seen := make([]int, n)
	lo, hi := n, 0
	for i, f := range folds {
		if !slices.IsSorted(f.Train) || !slices.IsSorted(f.Test) {
			t.Errorf("fold %d: rows not in increasing order", i)
		}
		if len(f.Train)+len(f.Test) != n {
			t.Errorf("fold %d: %d train + %d test rows, want %d", i, len(f.Train), len(f.Test), n)
		}
		in := map[int]bool{}
		for _, r := range f.Test {
			seen[r]++
			in[r] = true
		}
		for _, r := range f.Train {
			if in[r] {
				t.Errorf("fold %d: row %d in both parts", i, r)
			}
		}
		lo, hi = min(lo, len(f.Test)), max(hi, len(f.Test))
	}
	for r, c := range seen {
		if c != 1 {
			t.Errorf("row %d in %d test parts, want 1", r, c)
		}
	}
	if hi-lo > 1 {
		t.Errorf("test parts of %d to %d rows", lo, hi)
	}
}

func TestKFold(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{10, 2}, {11, 5}, {5, 5}, {103, 7}} {
		t.Run(fmt.Sprintf("n=%d,k=%d", tc.n, tc.k), func(t *testing.T) {
			folds := KFold(tc.n, tc.k, 1)
			if len(folds) != tc.k {
				t.Fatalf("%d folds, want %d", len(folds), tc.k)
			}
			checkPartition(t, folds, tc.n)
			if !slices.Equal(folds[0].Test, KFold(tc.n, tc.k, 1)[0].Test) {
				t.Error("same seed, different folds")
			}
		})
	}
	// A shuffle, not consecutive blocks, and one that depends on the seed.
	a, b := KFold(100, 2, 1)[0].Test, KFold(100, 2, 2)[0].Test
	if slices.Equal(a, b) || slices.Equal(a, allRows(50)) {
		t.Errorf("seeds 1 and 2 give the same first fold %v", a)
	}
}

func TestStratified(t *testing.T) {
	// 60 of class 0, 30 of class 1, 3 of class 2 (fewer than the folds).
	var labels []int
	for i := range 93 {
		switch {
		case i%31 == 30:
			labels = append(labels, 2)
		case i%3 == 0:
			labels = append(labels, 1)
		default:
			labels = append(labels, 0)
		}
	}
	count := func(rows []int, class int) int {
		c := 0
		for _, r := range rows {
			if labels[r] == class {
				c++
			}
		}
		return c
	}
	total := []int{count(allRows(93), 0), count(allRows(93), 1), count(allRows(93), 2)}
	folds := Stratified(labels, 5, 1)
	checkPartition(t, folds, len(labels))
	for i, f := range folds {
		for class, n := range total {
			got := count(f.Test, class)
			if lo := n / 5; got < lo || got > lo+1 {
				t.Errorf("fold %d: %d test rows of class %d (of %d), want %d or %d", i, got, class, n, lo, lo+1)
			}
		}
	}
}

func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		f          func()
	}{
		{"one fold", "1 folds of 10 rows", func() { KFold(10, 1, 0) }},
		{"more folds than rows", "4 folds of 3 rows", func() { KFold(3, 4, 0) }},
		{"stratified", "3 folds of 2 rows", func() { Stratified([]int{0, 1}, 3, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}

func TestGrouped(t *testing.T) {
	groups := []int{5, 5, 5, 1, 1, 2, 2, 2, 2, 3, 4, 4, 7, 7, 7}
	folds := Grouped(groups, 3, 1)
	seen := make([]int, len(groups))
	for f, fold := range folds {
		inTest := map[int]bool{}
		for _, r := range fold.Test {
			seen[r]++
			inTest[groups[r]] = true
		}
		for _, r := range fold.Train {
			if inTest[groups[r]] {
				t.Errorf("fold %d: group %d is in both parts", f, groups[r])
			}
		}
		if len(fold.Train)+len(fold.Test) != len(groups) {
			t.Errorf("fold %d covers %d rows", f, len(fold.Train)+len(fold.Test))
		}
		if len(fold.Test) < 4 || len(fold.Test) > 6 {
			t.Errorf("fold %d tests %d rows, want about a third", f, len(fold.Test))
		}
	}
	for r, c := range seen {
		if c != 1 {
			t.Errorf("row %d is tested %d times", r, c)
		}
	}
}

func TestForward(t *testing.T) {
	times := []float64{3, 1, 2, 2, 5, 4, 6, 8, 7, 9, 9, 10}
	folds, err := Forward(times, 3)
	if err != nil {
		t.Fatal(err)
	}
	for f, fold := range folds {
		if len(fold.Test) == 0 {
			t.Fatalf("fold %d tests nothing", f)
		}
		latest := math.Inf(-1)
		for _, r := range fold.Train {
			latest = math.Max(latest, times[r])
		}
		for _, r := range fold.Test {
			if times[r] <= latest {
				t.Errorf("fold %d tests row %d at time %v, not after its training rows (up to %v)", f, r, times[r], latest)
			}
		}
		if f > 0 && len(fold.Train) <= len(folds[f-1].Train) {
			t.Errorf("fold %d trains on %d rows, no more than fold %d", f, len(fold.Train), f-1)
		}
	}
	if _, err := Forward([]float64{1, 1, 1, 2, 2, 2}, 3); err == nil {
		t.Error("two distinct times cut into four blocks")
	}
	// A NaN compares false with every time: sorted among them, it let a
	// fold test on times before those it trained on.
	times[2] = math.NaN()
	if _, err := Forward(times, 3); err == nil || !strings.Contains(err.Error(), "row 2 is NaN") {
		t.Errorf("a NaN time: error %v, want one naming row 2", err)
	}
}
