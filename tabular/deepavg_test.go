package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// friedmanLike returns n rows of Friedman's first regression (5 inputs
// in [0, 1), noise of standard deviation 1) and the labels of targets
// above 14.
func friedmanLike(seed uint64, n int) (x, y *mat.Dense, labels []int) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	x, y, labels = mat.NewDense(n, 5, nil), mat.NewDense(n, 1, nil), make([]int, n)
	for i := range n {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rnd.Float64()
		}
		v := 10*math.Sin(math.Pi*r[0]*r[1]) + 20*(r[2]-0.5)*(r[2]-0.5) + 10*r[3] + 5*r[4] + rnd.NormFloat64()
		y.Set(i, 0, v)
		if v > 14 {
			labels[i] = 1
		}
	}
	return x, y, labels
}

// TestDeepAverageWhen checks when the fit averages the deep and the
// shallow machine: when the deep machine was fitted on every fold and the
// average's calibrated held-out loss is lower than the winner's, whether
// the winner is the deep machine or the shallow one; not when the shallow
// machine raced the deep one out, nor when the average's loss is higher,
// nor when the selection ran on a subsample of the rows. Without the rule
// that averages, the first three tables are not averaged; without its
// comparison of losses, or its test of the rows, the last two are.
func TestDeepAverageWhen(t *testing.T) {
	raceNarrow(t)
	for _, tc := range []struct {
		name     string
		seed     uint64
		rows     int
		classify bool
		shallow  bool // whether the shallow machine wins the selection
		raced    bool
		want     bool
	}{
		{"deep wins", 6, 80, false, false, false, true},
		{"shallow wins", 14, 150, true, true, false, true},
		{"classifier", 1, 150, true, false, false, true},
		{"raced", 1, 80, false, true, true, false},
		{"higher loss", 14, 80, false, false, false, false},
		{"subsample", 14, SelectionRows + 50, true, false, false, false},
	} {
		x, y, labels := friedmanLike(tc.seed, tc.rows)
		s := Settings{Seed: 2, TargetScale: LinearScale, Extrapolate: true}
		var m *Machine
		var res Result
		var err error
		if tc.classify {
			m, res, err = FitClassifier(x, labels, 2, s)
		} else {
			m, res, err = FitRegression(x, y, s)
		}
		if err != nil {
			t.Fatal(err)
		}
		sel := res.Selection
		if got := sel.Candidates[sel.Best].Shallow; got != tc.shallow || sel.Candidates[0].Raced != tc.raced {
			t.Fatalf("%s: the shallow machine wins %v, the deep one raced %v; the test needs %v and %v", tc.name, got, sel.Candidates[0].Raced, tc.shallow, tc.raced)
		}
		got := len(res.Averaged) > 0 && !res.Averaged[0].Shallow
		if got != tc.want {
			t.Errorf("%s: averaged %+v, want the deep and the shallow machine %v", tc.name, res.Averaged, tc.want)
		}
		if got && (res.Shallow || len(m.Sum) != len(res.Averaged)-1 || len(m.Dims) == 2 || len(m.Sum[0].Dims) != 2) {
			t.Errorf("%s: a machine of dims %v (shallow %v) and a sum of %d for %d averaged; want the deep machine and the shallow ones in its sum",
				tc.name, m.Dims, res.Shallow, len(m.Sum), len(res.Averaged))
		}
	}
}

// TestDeepAveragedMachine checks the machine of the deep and shallow
// average: it predicts the average of the deep machine and the shallow
// one, each fitted alone with its own calibration, weighed by its weight
// and calibrated by the average's factor about the targets' mean; the
// same after a round trip through JSON; and the report names both.
func TestDeepAveragedMachine(t *testing.T) {
	raceNarrow(t)
	for _, tc := range []struct {
		name     string
		seed     uint64
		rows     int
		classify bool
	}{
		{"regression", 4, 80, false},
		{"classifier", 1, 150, true},
	} {
		x, y, labels := friedmanLike(tc.seed, tc.rows)
		outputs, targets := 1, mat.Matrix(y)
		if tc.classify {
			targets, outputs = nil, 2
		} else {
			labels = nil
		}
		// The inputs as they are, without relevance weights, which fit
		// would choose first.
		s := Settings{Seed: 2, TargetScale: LinearScale, Extrapolate: true, InputScale: LinearInputs}
		p, err := prepare(x, targets, labels, s, true)
		if err != nil {
			t.Fatal(err)
		}
		val, err := newValidation(p.linear, s)
		if err != nil {
			t.Fatal(err)
		}
		arch, costs, bandwidths, err := s.resolve(outputs)
		if err != nil {
			t.Fatal(err)
		}
		f, err := selectShallow(p, val, outputs, s, false)
		if err != nil {
			t.Fatal(err)
		}
		if !tc.classify {
			// Its best cost's machine averaged with its neighbours', as
			// averageCosts may choose.
			grid := shallowCosts()
			at := slices.Index(grid, f.best.Cost)
			f.costs = []float64{f.best.Cost, grid[max(at-1, 0)], grid[min(at+1, len(grid)-1)]}
		}
		sel, _, err := selectSettings(newDeepFolds(p.deepVariants(f), val.folds, arch, costs, bandwidths, s), val, s, f)
		if err != nil {
			t.Fatal(err)
		}
		a := f.deep
		if a == nil {
			t.Fatalf("%s: not averaged; the test needs the average", tc.name)
		}
		m, res, err := fitDeepAverage(p, arch, Result{Selection: sel}, f, s, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got := describeSettings(res); !strings.Contains(got, "(deep, cost ") || !strings.Contains(got, fmt.Sprintf("; the deep machine weighs %g", a.weight)) {
			t.Errorf("%s: the report says %q, want it to name the deep machine and its weight", tc.name, got)
		}
		if !slices.Equal(res.Costs, f.costs) {
			t.Errorf("%s: Result.Costs %v, want the shallow machine's %v", tc.name, res.Costs, f.costs)
		}
		deep, _, err := fitDeep(p, arch, Result{Cost: a.deep.Cost, Bandwidth: a.deep.Bandwidth}, &a.deepCal, s)
		if err != nil {
			t.Fatal(err)
		}
		f.deep = nil
		shallow, _, err := f.result(p, Result{}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		q := mat.NewDense(40, 5, nil)
		rnd := rand.New(rand.NewPCG(9, 9))
		for i := range 40 {
			for j := range 5 {
				q.Set(i, j, rnd.Float64())
			}
		}
		want := deep.Predict(nil, q)
		ps := shallow.Predict(nil, q)
		mean := 0.0
		if !tc.classify {
			mean = p.out.Mean[0]
		}
		want.Apply(func(i, j int, v float64) float64 {
			w := mean + a.cal.factor[0]*(a.weight*(v-mean)+(1-a.weight)*(ps.At(i, j)-mean))
			if tc.classify {
				w += a.cal.bias[j]
			}
			return w
		}, want)
		got := m.Predict(nil, q)
		if !mat.EqualApprox(got, want, 1e-9) {
			t.Errorf("%s: averaged machine predicts\n%v\nwant\n%v", tc.name, mat.Formatted(got.T()), mat.Formatted(want.T()))
		}
		if again := decoded(t, m).Predict(nil, q); !mat.Equal(again, got) {
			t.Errorf("%s: the decoded machine predicts otherwise", tc.name)
		}
	}
}

// TestAverageDeepRule checks averageDeep on held-out predictions made up
// as the targets plus noise of known sizes, as the deep machine's on two
// scales of the targets and the shallow machine's on the first: it takes
// the deep candidate on the shallow machine's scale, though the other
// scale's is better, and the weight of lowest loss among deepWeights,
// which the sizes of the noises decide (the best weight of independent
// noises of variances d and s is s/(d+s)); and nothing when the shallow
// machine alone is better than every average. Without the test of the
// scale, the first case averages the other scale's deep candidate.
func TestAverageDeepRule(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		deep, other, shallow float64 // the noises' sizes
		want                 float64 // the weight; 0 for no average
	}{
		{"alike, the other scale's deep better", 0.55, 0.5, 0.45, 0.5},
		{"deep better", 0.4, 0.5, 0.6, 0.75},
		{"shallow better", 0.6, 0.7, 0.4, 0.25},
		{"shallow far better", 2, 2.5, 0.2, 0},
	} {
		const n, k = 1000, 5
		rnd := rand.New(rand.NewPCG(4, 2))
		x, y := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
		for i := range n {
			x.Set(i, 0, rnd.Float64())
			y.Set(i, 0, rnd.NormFloat64())
		}
		linear := problemData{x: x, y: y}
		other := problemData{x: x, y: y, fitY: y, back: func(*mat.Dense) {}}
		val := &validation{rows: numeric.Indices(n), folds: crossval.KFold(n, k, 1), k: k, repeats: 1}
		d := &deepFolds{variants: []problemData{linear, other}, folds: val.folds, costs: []float64{0.1}, bandwidths: []float64{1},
			out: make([][]heldOut, 2*k)}
		f := &shallowFit{best: Candidate{Shallow: true}, data: linear}
		noisy := func(test problemData, size float64) (*mat.Dense, *mat.Dense) {
			rows, _ := test.y.Dims()
			pred, mean := mat.NewDense(rows, 1, nil), mat.NewDense(rows, 1, nil)
			pred.Apply(func(i, _ int, _ float64) float64 { return test.y.At(i, 0) + size*rnd.NormFloat64() }, pred)
			return pred, mean
		}
		var losses, scores []float64
		for fold, part := range val.folds {
			test := linear.rows(part.Test)
			for v, size := range []float64{tc.deep, tc.other} {
				pred, _ := noisy(test, size)
				h := heldOutOf(pred, test)
				h.pred, h.mean = pred, []float64{0}
				d.out[v*k+fold] = []heldOut{h}
			}
			pred, mean := noisy(test, tc.shallow)
			f.preds, f.means, f.tests = append(f.preds, pred), append(f.means, mean), append(f.tests, test)
			h := heldOutOf(pred, test)
			losses, scores = append(losses, h.loss), append(scores, h.score)
		}
		f.cal = calibrate(f.preds, f.means, f.tests)
		sel := &Selection{Best: -1}
		d.gather(sel, k, false)
		sel.add(f.best, losses, scores, nil)
		a := d.averageDeep(sel, f, val)
		switch {
		case a == nil && tc.want != 0:
			t.Errorf("%s: not averaged, want the deep machine weighing %g", tc.name, tc.want)
		case a != nil && (a.deep.LogTarget || a.weight != tc.want):
			t.Errorf("%s: averaged the deep candidate %+v weighing %g; want the first scale's weighing %g", tc.name, a.deep, a.weight, tc.want)
		}
	}
}

// TestShallowFinalStarted checks that the shallow machine's final fit,
// begun in the background beside the deep machine's race when fits run
// in parallel (shallowFit.start), gives the machine and the result of one
// worker, which fits it after the race: where the deep machine wins and
// is averaged, where the shallow machine wins and is averaged, where it
// races the deep one out, and where its cost is re-chosen on all the rows
// of a table the selection subsampled.
func TestShallowFinalStarted(t *testing.T) {
	raceNarrow(t)
	for _, tc := range []struct {
		name string
		seed uint64
		rows int
	}{
		{"deep wins", 3, 80},
		{"shallow wins", 17, 80},
		{"raced", 1, 80},
		{"subsample", 7, SelectionRows + 50},
	} {
		x, y, _ := friedmanLike(tc.seed, tc.rows)
		var preds []*mat.Dense
		var results []Result
		for _, workers := range []int{1, 2} {
			m, res, err := FitRegression(x, y, Settings{Seed: 2, TargetScale: LinearScale, Extrapolate: true, Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			res.Seconds = 0
			preds, results = append(preds, m.Predict(nil, x)), append(results, res)
		}
		if !mat.Equal(preds[0], preds[1]) || !reflect.DeepEqual(results[0], results[1]) {
			t.Errorf("%s: the machines or results of 1 and 2 workers differ:\n%+v\n%+v", tc.name, results[0], results[1])
		}
		if tc.rows > SelectionRows && results[1].CostRows != tc.rows {
			t.Errorf("%s: cost re-chosen on %d rows, want %d", tc.name, results[1].CostRows, tc.rows)
		}
	}
}
