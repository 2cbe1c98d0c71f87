package tabular

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

func TestAnchorCount(t *testing.T) {
	for _, tc := range []struct{ n, setting, auto, want int }{
		{50, 0, ShallowAnchors, 50},
		{ShallowAnchors, 0, ShallowAnchors, ShallowAnchors},
		{5000, 0, ShallowAnchors, ShallowAnchors},
		{5000, 0, DeepAnchors, DeepAnchors},
		{5000, 300, DeepAnchors, 300},
		{20, 300, ShallowAnchors, 20},
	} {
		if got := anchorCount(tc.n, tc.setting, tc.auto); got != tc.want {
			t.Errorf("anchorCount(%d, %d, %d) = %d, want %d", tc.n, tc.setting, tc.auto, got, tc.want)
		}
	}
}

// TestFamilyAnchors checks that each family takes its own number of
// anchors by default: the deep machine fewer, as its fits cost rows x
// anchors per iteration.
func TestFamilyAnchors(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(3, 3)), 120, 0.1)
	for _, tc := range []struct {
		name string
		s    Settings
		want int
	}{
		{"shallow", Settings{Family: Shallow}, ShallowAnchors},
		{"deep", Settings{Family: Deep, Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 5}, DeepAnchors},
		{"set", Settings{Family: Shallow, Anchors: 30}, 30},
	} {
		_, res, err := FitRegression(x, y, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Anchors != tc.want {
			t.Errorf("%s: %d anchors, want %d", tc.name, res.Anchors, tc.want)
		}
	}
}

// TestSeedAnchorsSpread checks that k-means++ seeding puts one anchor in
// each of k far-apart clusters of unequal size. Uniform sampling would
// miss the small clusters most of the time.
func TestSeedAnchorsSpread(t *testing.T) {
	sizes := []int{200, 20, 5, 2}
	var rows [][]float64
	var cluster []int
	rnd := rand.New(rand.NewPCG(8, 8))
	for c, size := range sizes {
		for range size {
			rows = append(rows, []float64{100*float64(c) + rnd.Float64(), rnd.Float64()})
			cluster = append(cluster, c)
		}
	}
	x := mat.NewDense(len(rows), 2, slices.Concat(rows...))
	for seed := range uint64(20) {
		got := seedAnchors(x, numeric.Indices(len(rows)), len(sizes), rand.New(rand.NewPCG(seed, 1)))
		seen := make([]bool, len(sizes))
		for _, r := range got {
			seen[cluster[r]] = true
		}
		if slices.Contains(seen, false) || !slices.IsSorted(got) {
			t.Errorf("seed %d: anchors %v (clusters %v); want one per cluster, sorted", seed, got, seen)
		}
	}
}

func TestSeedAnchors(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	x := randomData(rnd, 30, 3)
	rows := []int{2, 4, 6, 8, 10}
	if got := seedAnchors(x, rows, 7, rnd); !reflect.DeepEqual(got, rows) {
		t.Errorf("asking for more anchors than rows gave %v, want all of %v", got, rows)
	}
	a := seedAnchors(x, numeric.Indices(30), 10, rand.New(rand.NewPCG(1, 2)))
	b := seedAnchors(x, numeric.Indices(30), 10, rand.New(rand.NewPCG(1, 2)))
	if !reflect.DeepEqual(a, b) || len(a) != 10 {
		t.Errorf("same seed gave %v and %v, want the same 10 rows", a, b)
	}
	for i := 1; i < len(a); i++ {
		if a[i] == a[i-1] {
			t.Errorf("row %d chosen twice: %v", a[i], a)
		}
	}
	// Two distinct points, repeated: only two anchors exist.
	dup := mat.NewDense(6, 1, []float64{1, 2, 1, 2, 1, 2})
	if got := seedAnchors(dup, numeric.Indices(6), 4, rnd); len(got) != 2 || dup.At(got[0], 0) == dup.At(got[1], 0) {
		t.Errorf("anchors %v among two distinct points, want one of each", got)
	}
}
