package dataset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// epoch collects the batches of one epoch.
func epoch(b *dataset.Batches) [][]int {
	var batches [][]int
	for {
		idx, ok := b.Next()
		if !ok {
			if idx != nil {
				panic("Next returned indices with ok false")
			}
			return batches
		}
		batches = append(batches, slices.Clone(idx))
	}
}

func TestBatches(t *testing.T) {
	for _, test := range []struct {
		n, size  int
		dropLast bool
		batches  int // per epoch
	}{
		{n: 10, size: 3, batches: 4},
		{n: 10, size: 3, dropLast: true, batches: 3},
		{n: 9, size: 3, batches: 3},
		{n: 9, size: 3, dropLast: true, batches: 3},
		{n: 100, size: 1, batches: 100},
		{n: 100, size: 7, batches: 15},
		{n: 1, size: 5, batches: 1},
		{n: 4, size: 5, dropLast: true, batches: 0},
		{n: 5, size: 5, dropLast: true, batches: 1},
		{n: 0, size: 4, batches: 0},
	} {
		t.Run(fmt.Sprintf("n=%d/size=%d/droplast=%t", test.n, test.size, test.dropLast), func(t *testing.T) {
			b := dataset.NewBatches(test.n, test.size, rand.New(rand.NewPCG(1, 1)))
			b.DropLast = test.dropLast
			if b.Epoch() != 0 {
				t.Errorf("epoch %d before the first call to Next", b.Epoch())
			}
			if b.Len() != test.batches {
				t.Errorf("Len() = %d, want %d", b.Len(), test.batches)
			}
			// Indices covered by an epoch.
			covered := test.n
			if test.dropLast {
				covered -= test.n % test.size
			}
			var orders [][]int
			for e := 1; e <= 4; e++ {
				batches := epoch(b)
				if b.Epoch() != e {
					t.Errorf("epoch %d: Epoch() = %d", e, b.Epoch())
				}
				if len(batches) != test.batches {
					t.Errorf("epoch %d: %d batches, want %d", e, len(batches), test.batches)
				}
				for k, idx := range batches {
					if len(idx) != test.size && (test.dropLast || k != len(batches)-1) {
						t.Errorf("epoch %d: batch %d of %d has size %d, want %d",
							e, k, len(batches), len(idx), test.size)
					}
				}
				order := slices.Concat(batches...)
				sorted := slices.Sorted(slices.Values(order))
				if len(sorted) != covered || len(slices.Compact(slices.Clone(sorted))) != covered ||
					(covered > 0 && (sorted[0] < 0 || sorted[covered-1] >= test.n)) {
					t.Errorf("epoch %d covers %v, want %d distinct indices in [0,%d)", e, sorted, covered, test.n)
				}
				if !test.dropLast && !slices.Equal(sorted, seq(test.n)) {
					t.Errorf("epoch %d covers %v, want each of 0..%d once", e, sorted, test.n-1)
				}
				orders = append(orders, order)
			}
			// With 10 or more indices, the chance that two epochs of four
			// share their order is below 1e-5: with the fixed seed, they
			// must not.
			if test.n >= 10 {
				for i := range orders {
					for j := range i {
						if slices.Equal(orders[i], orders[j]) {
							t.Errorf("epochs %d and %d have the same order %v", j+1, i+1, orders[i])
						}
					}
				}
			}
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestBatchesSeeded(t *testing.T) {
	run := func(seed uint64) [][]int {
		b := dataset.NewBatches(50, 8, rand.New(rand.NewPCG(seed, seed)))
		return slices.Concat(epoch(b), epoch(b), epoch(b))
	}
	a, b := run(1), run(1)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("two runs with the same seed differ:\n%v\n%v", a, b)
	}
	if c := run(2); slices.EqualFunc(a, c, slices.Equal) {
		t.Error("runs with seeds 1 and 2 give the same batches")
	}
}

// TestBatchesStable checks that a batch stays valid during its epoch.
func TestBatchesStable(t *testing.T) {
	b := dataset.NewBatches(10, 4, rand.New(rand.NewPCG(1, 1)))
	first, _ := b.Next()
	want := slices.Clone(first)
	for {
		if _, ok := b.Next(); !ok {
			break
		}
	}
	if !slices.Equal(first, want) {
		t.Errorf("first batch changed from %v to %v during its epoch", want, first)
	}
	if cap(first) != len(first) {
		t.Errorf("batch of length %d has capacity %d: appending to it would overwrite the next", len(first), cap(first))
	}
}

func ExampleNewBatches() {
	b := dataset.NewBatches(7, 3, rand.New(rand.NewPCG(1, 1)))
	for range 2 {
		for {
			idx, ok := b.Next()
			if !ok {
				break
			}
			fmt.Println("epoch", b.Epoch(), "batch", idx)
		}
	}

	// Output:
	// epoch 1 batch [1 2 3]
	// epoch 1 batch [5 4 0]
	// epoch 1 batch [6]
	// epoch 2 batch [4 5 2]
	// epoch 2 batch [6 3 1]
	// epoch 2 batch [0]
}
