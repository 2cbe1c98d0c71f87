package experiment

import (
	"math"
	"testing"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
)

// TestBestStartWorkers checks that a perceptron's best start does not
// depend on the number of workers: start k is seeded by Seed+k whichever
// worker runs it, and the first start of lowest loss is kept.
func TestBestStartWorkers(t *testing.T) {
	tk := sineTask(7)
	s := baseline.PerceptronSettings{Hidden: []int{8}, Activation: baseline.Sigmoid, Standardize: true, Seed: 7, MaxIter: 20}
	_, want, wantK, err := bestStart(tk.x, tk.y, s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{2, restarts} {
		_, got, k, err := bestStart(tk.x, tk.y, s, workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k != wantK || math.Float64bits(got.Loss) != math.Float64bits(want.Loss) {
			t.Errorf("%d workers: start %d, loss %v; one worker: start %d, loss %v", workers, k, got.Loss, wantK, want.Loss)
		}
	}
}
