package baseline

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// blobs returns n points of each of three classes around the corners
// of a triangle, with Gaussian noise of the given spread.
func blobs(rnd *rand.Rand, n int, spread float64) (*mat.Dense, []int) {
	centres := [][2]float64{{0, 0}, {3, 0}, {0, 3}}
	x := mat.NewDense(3*n, 2, nil)
	labels := make([]int, 3*n)
	for i := range labels {
		c := i % 3
		labels[i] = c
		x.Set(i, 0, centres[c][0]+spread*rnd.NormFloat64())
		x.Set(i, 1, centres[c][1]+spread*rnd.NormFloat64())
	}
	return x, labels
}

func TestFitSoftmaxPerceptron(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x, labels := blobs(rnd, 30, 0.5)
	xt, lt := blobs(rnd, 100, 0.5)
	for _, tc := range []struct {
		name string
		s    PerceptronSettings
	}{
		{"linear", PerceptronSettings{MaxIter: 100}},
		{"hidden", PerceptronSettings{Hidden: []int{8}, WeightDecay: 1e-3, Seed: 1, MaxIter: 100}},
		{"standardised", PerceptronSettings{Hidden: []int{8}, Standardize: true, Seed: 2, MaxIter: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := FitSoftmaxPerceptron(x, labels, 3, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			right := 0
			for i, c := range p.Classify(xt) {
				if c == lt[i] {
					right++
				}
			}
			// The blobs overlap little: a fitted classifier is right on
			// nearly all of them, chance on a third.
			if acc := float64(right) / float64(len(lt)); acc < 0.95 {
				t.Errorf("test accuracy %v", acc)
			}
		})
	}
}

func TestFitSoftmaxPerceptronWeightDecay(t *testing.T) {
	x, labels := blobs(rand.New(rand.NewPCG(1, 1)), 10, 0.3)
	norm := func(wd float64) float64 {
		p, _, err := FitSoftmaxPerceptron(x, labels, 3, PerceptronSettings{WeightDecay: wd, MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		return mat.Norm(p.W[0], 2)
	}
	// Separable classes: without decay the logits grow without bound;
	// decay must hold the weights far smaller.
	if free, decayed := norm(0), norm(0.1); decayed > free/2 {
		t.Errorf("weight norm %v with decay 0.1, %v without", decayed, free)
	}
}

func TestFitSoftmaxPerceptronErrors(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{0, 1})
	for _, tc := range []struct {
		name    string
		labels  []int
		classes int
		s       PerceptronSettings
	}{
		{"label range", []int{0, 2}, 2, PerceptronSettings{}},
		{"label count", []int{0}, 2, PerceptronSettings{}},
		{"one class", []int{0, 0}, 1, PerceptronSettings{}},
		{"negative decay", []int{0, 1}, 2, PerceptronSettings{WeightDecay: -1}},
	} {
		if _, _, err := FitSoftmaxPerceptron(x, tc.labels, tc.classes, tc.s); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
