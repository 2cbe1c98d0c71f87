package kernel

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// TestStarts checks that a fit from several initial points keeps the one
// of lowest loss, and that one start, or none asked for, is the fit from
// the seed's own initial point.
func TestStarts(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(3, 4)), 40, 0.1)
	fixed := Settings{Dims: []int{1, 2, 1}, Costs: []float64{1e-3}, Bandwidths: []float64{1}, Seed: 7, MaxIter: 40}
	m0, r0, err := FitRegression(x, y, fixed)
	if err != nil {
		t.Fatal(err)
	}
	one := fixed
	one.Starts = 1
	m1, r1, err := FitRegression(x, y, one)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Loss != r0.Loss || !mat.Equal(m1.Predict(nil, x), m0.Predict(nil, x)) {
		t.Errorf("Starts 1 gives loss %v, Starts 0 %v: want the same machine", r1.Loss, r0.Loss)
	}

	// Follow every start through Iteration: the starts come in turn, each
	// counting its iterations from 1, and a start's last loss is its
	// final one.
	several := fixed
	several.Starts = 4
	final := make([]float64, several.Starts)
	var order []int
	several.Iteration = func(k, iter int, loss float64, _ *Machine) error {
		if len(order) == 0 || order[len(order)-1] != k {
			order = append(order, k)
			if iter != 1 {
				t.Errorf("start %d begins at iteration %d, want 1", k, iter)
			}
		}
		final[k] = loss
		return nil
	}
	m, r, err := FitRegression(x, y, several)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{0, 1, 2, 3}) {
		t.Fatalf("Iteration saw the starts in the order %v, want 0 to 3", order)
	}
	best := 0
	for k, l := range final {
		if l < final[best] {
			best = k
		}
	}
	if final[best] == final[0] {
		t.Fatalf("final losses %v: no start beat the first, so the test cannot tell which is kept", final)
	}
	if r.Start != best || r.Loss != final[best] {
		t.Errorf("kept start %d with loss %v; the starts ended at %v", r.Start, r.Loss, final)
	}
	if r.Loss > r0.Loss {
		t.Errorf("loss %v with %d starts, above the first start's %v", r.Loss, several.Starts, r0.Loss)
	}
	if got, want := m.Predict(nil, x).At(0, 0), m0.Predict(nil, x).At(0, 0); got == want {
		t.Errorf("the kept machine predicts %v, as the first start's does", got)
	}
}

// TestStartsAvoidCollapse fits the paper's noisy sine with a seed whose
// single start stalls near a constant function (found on development
// seeds, not the experiment's): the best of five starts must not.
func TestStartsAvoidCollapse(t *testing.T) {
	x, ys := dataset.NoisySine(100, rand.New(rand.NewPCG(125, 0x73696e65)))
	y := mat.NewDense(len(ys), 1, ys)
	s := Settings{Dims: []int{2, 2, 2, 1}, Costs: []float64{3e-3}, Bandwidths: []float64{1}, Seed: 125, MaxIter: 2000}
	_, single, err := FitRegression(x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Starts = 5
	_, best, err := FitRegression(x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	// The loss is measured on standardised targets: a constant function
	// scores about 1, and a fit of the curve about the noise's share of
	// the variance, (1/12)/0.58 = 0.14.
	if single.DataLoss < 0.5 {
		t.Logf("the single start no longer stalls (MSE %.3g); the test checks less", single.DataLoss)
	}
	if best.DataLoss > 0.3 {
		t.Errorf("best of 5 starts: training MSE %.3g, want below 0.3 (one start: %.3g)", best.DataLoss, single.DataLoss)
	}
}

// TestStartsNamedInErrors checks that an error of a fit from several
// starts says which start it stopped, and that a fit from one says none.
func TestStartsNamedInErrors(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(3, 4)), 20, 0.1)
	stop := errors.New("stopped by the caller")
	for _, tc := range []struct {
		starts, stopAt int
		want           string
	}{
		{3, 1, "kernel: start 2 of 3: "},
		{1, 0, "kernel: "},
	} {
		s := Settings{Dims: []int{1, 2, 1}, Costs: []float64{1e-3}, Bandwidths: []float64{1}, MaxIter: 5, Starts: tc.starts,
			Iteration: func(k, _ int, _ float64, _ *Machine) error {
				if k == tc.stopAt {
					return stop
				}
				return nil
			}}
		_, _, err := FitRegression(x, y, s)
		if !errors.Is(err, stop) || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "start 1 of") {
			t.Errorf("%d starts, stopped in start %d: error %q, want it to begin %q", tc.starts, tc.stopAt+1, err, tc.want)
		}
	}
}
