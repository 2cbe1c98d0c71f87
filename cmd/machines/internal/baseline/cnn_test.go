package baseline

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bars returns n 8x8 images of each of four classes, a bright bar
// (horizontal or vertical, in the top or bottom half) placed at random
// within its half, plus noise.
func bars(rnd *rand.Rand, n int) (*mat.Dense, []int) {
	x := mat.NewDense(4*n, 64, nil)
	labels := make([]int, 4*n)
	for i := range labels {
		c := i % 4
		labels[i] = c
		at := rnd.IntN(4) + 4*(c/2)
		row := x.RawRowView(i)
		for j := range row {
			row[j] = 0.2 * rnd.Float64()
		}
		for k := range 8 {
			if c%2 == 0 {
				row[at*8+k] += 1
			} else {
				row[k*8+at] += 1
			}
		}
	}
	return x, labels
}

func TestFitCNN(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x, labels := bars(rnd, 10)
	xt, lt := bars(rnd, 50)
	s := CNNSettings{Channels: []int{4, 8}, Hidden: 8, WeightDecay: 1e-3, Seed: 1, MaxIter: 200}
	m, _, err := FitCNN(x, 8, 8, labels, 4, s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := CNNParams(8, 8, 4, s), 4*9+8*4*9+(8*2*2+1)*8+9*4; got != want {
		t.Errorf("CNNParams %d, want %d", got, want)
	}
	// Each hidden unit costs 33 inputs and 4 outputs: 8 units make 624
	// parameters, 9 make 661; 642 is nearer the first, 643 the second.
	for _, tc := range []struct{ target, want int }{{624, 8}, {642, 8}, {643, 9}, {1, 1}} {
		if got := CNNHiddenForParams(8, 8, 4, s.Channels, tc.target); got != tc.want {
			t.Errorf("CNNHiddenForParams(%d) = %d, want %d", tc.target, got, tc.want)
		}
	}
	right := 0
	for i, c := range m.Classify(xt) {
		if c == lt[i] {
			right++
		}
	}
	// Chance is a quarter.
	if acc := float64(right) / float64(len(lt)); acc < 0.9 {
		t.Errorf("test accuracy %v", acc)
	}
}

func TestFitCNNErrors(t *testing.T) {
	x := mat.NewDense(2, 16, nil)
	ok := CNNSettings{Channels: []int{2}, Hidden: 2}
	for _, tc := range []struct {
		name       string
		rows, cols int
		labels     []int
		s          CNNSettings
	}{
		{"image size", 4, 5, []int{0, 1}, ok},
		{"odd image", 1, 16, []int{0, 1}, ok},
		{"label range", 4, 4, []int{0, 2}, ok},
		{"no channels", 4, 4, []int{0, 1}, CNNSettings{Hidden: 2}},
		{"negative decay", 4, 4, []int{0, 1}, CNNSettings{Channels: []int{2}, Hidden: 2, WeightDecay: -1}},
	} {
		if _, _, err := FitCNN(x, tc.rows, tc.cols, tc.labels, 2, tc.s); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
