package tabular

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
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
		{3, 1, "tabular: start 2 of 3: "},
		{1, 0, "tabular: "},
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

// TestCoarseStart checks the coarse start of a large final fit: from
// coarseMinRows rows the fit first minimises the loss on an eighth of
// them and the result records it; below, it does not. Either way the
// machine fits a smooth function of two inputs, on new rows too; the
// coarse start must not cost a worse minimum than the plain one
// (within 2% of its loss). A budget may end the coarse fit.
func TestCoarseStart(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 4,000 rows")
	}
	data := func(rnd *rand.Rand, n int) (*mat.Dense, *mat.Dense) {
		x, y := randomData(rnd, n, 2), mat.NewDense(n, 1, nil)
		for i := range n {
			y.Set(i, 0, math.Sin(3*x.At(i, 0))+x.At(i, 1)*x.At(i, 1)+0.1*rnd.NormFloat64())
		}
		return x, y
	}
	rnd := rand.New(rand.NewPCG(4, 2))
	xt, yt := data(rnd, 500)
	s := Settings{Costs: []float64{1e-3}, Bandwidths: []float64{1}, Seed: 1}
	xa, ya := data(rnd, coarseMinRows)
	var losses []float64
	for _, n := range []int{coarseMinRows - 1, coarseMinRows} {
		x, y := xa.Slice(0, n, 0, 2), ya.Slice(0, n, 0, 1)
		m, res, err := FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := (n / 8) * (n / coarseMinRows); res.CoarseRows != want {
			t.Errorf("%d rows: coarse fit on %d rows, want %d", n, res.CoarseRows, want)
		}
		if r2 := stat.RSquaredFrom(m.Predict(nil, xt).RawMatrix().Data, yt.RawMatrix().Data, nil); r2 < 0.9 {
			t.Errorf("%d rows: held-out R² %.3f, want at least 0.9", n, r2)
		}
		losses = append(losses, res.Loss)
	}
	if losses[1] > 1.02*losses[0] {
		t.Errorf("loss %.4g after the coarse start, %.4g without (one row fewer)", losses[1], losses[0])
	}
	// A budget spent during the coarse fit still gives a machine.
	s.UntilStall, s.MaxIter, s.Budget = true, 100000, 50*time.Millisecond
	m, res, err := FitRegression(xa, ya, s)
	if err != nil || m == nil || res.Status != "stopped by the budget" || res.CoarseRows == 0 {
		t.Errorf("over the budget: machine %v, status %q, coarse rows %d, error %v", m != nil, res.Status, res.CoarseRows, err)
	}
	// The progress announces the coarse fits once, whatever the starts.
	var progress strings.Builder
	few := Settings{Costs: []float64{1e-3}, Bandwidths: []float64{1}, Seed: 1, Starts: 3, MaxIter: 5, Progress: &progress}
	if _, _, err := FitRegression(xa, ya, few); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(progress.String(), "coarse eighth"); n != 1 {
		t.Errorf("the coarse fits of 3 starts announced %d times, want once:\n%s", n, progress.String())
	}
}

// TestFitRecordsCoarseStart checks that Fit records the coarse start of
// a final fit of coarseMinRows rows in the model file and says it in the
// report's summary.
func TestFitRecordsCoarseStart(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	f := tableOf(t, "x0,x1,y", coarseMinRows, func(int) string {
		x0, x1 := rnd.Float64(), rnd.Float64()
		return fmt.Sprintf("%g,%g,%g", x0, x1, math.Sin(3*x0)+x1*x1+0.1*rnd.NormFloat64())
	})
	md, rep, err := Fit(f, []string{"y"}, Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := coarseMinRows / 8
	if got := md.Fit.CoarseRows; got != want {
		t.Errorf("the model records coarse_rows %d, want %d", got, want)
	}
	summary := strings.Join(rep.Summary(md), "\n")
	if line := fmt.Sprintf("from the minimum on %d of the rows", want); !strings.Contains(summary, line) {
		t.Errorf("the summary says %q, want it to contain %q", summary, line)
	}
}
