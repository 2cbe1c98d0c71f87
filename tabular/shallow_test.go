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
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestShallowLeaveOneOut checks the closed-form leave-one-out predictions
// against refitting the ridge regression and its intercept without each
// row, on the features [X, Psi] of a narrow table and of a wide one (20
// rows, 500 columns, where a small cost nearly interpolates), the wide
// one solved both on the features and in the span of the rows, with and
// without weights, with the kernel features weighed down or not; and the
// machine built from the solution against the features it was fitted
// on. On the wide table, whose target is its first column plus noise,
// the rows left out are predicted no better than by chance: no row's
// target leaks into its own prediction.
func TestShallowLeaveOneOut(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, d, anchors int
		sigma         float64
		span          bool    // solve in the span of the rows
		maxR2         float64 // the leave-one-out R^2 at cost 1e-4 is below this
		weight        float64 // of the kernel features (0 in the linear machine)
		lin           float64 // the linear factor
	}{
		{"narrow", 30, 2, 7, 0.8, false, 1, 1, 1},
		{"narrow, the kernel weighed down", 30, 2, 7, 0.8, false, 1, 0.1, 1},
		{"wide", 20, 100, 20, 8, false, 0.3, 1, 1},
		{"wide, the linear part weighed down", 20, 100, 20, 8, false, 0.3, 1, 0.1},
		{"wide in the span", 20, 100, 20, 8, true, 0.3, 1, 1},
		{"wide in the span, the kernel weighed down", 20, 100, 20, 8, true, 0.3, 0.3, 1},
		{"wide in the span, the linear part weighed down", 20, 100, 20, 8, true, 0.3, 1, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(3, 5))
			x := mat.NewDense(tc.n, tc.d, nil)
			x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
			y := mat.NewDense(tc.n, 1, nil)
			weights := make([]float64, tc.n)
			for i := range tc.n {
				y.Set(i, 0, math.Sin(2*x.At(i, 0))+x.At(i, 1)+0.1*rnd.NormFloat64())
				if tc.d > 2 {
					y.Set(i, 0, x.At(i, 0)+0.1*rnd.NormFloat64())
				}
				weights[i] = 0.2 + 2*rnd.Float64()
			}
			anchors := pickRows(x, rnd.Perm(tc.n)[:tc.anchors])
			in := newShallowInputs(x, anchors, tc.lin, false)
			if !tc.span {
				in.xx = nil // the features themselves
			}
			b, err := newShallowBasis(in, tc.sigma, tc.weight)
			if err != nil {
				t.Fatal(err)
			}
			features := b.z
			if b.span != nil {
				features = mat.NewDense(tc.n, tc.d+tc.anchors, nil)
				features.Augment(b.x, b.psi)
			}
			if tc.span != (b.span != nil) {
				t.Fatalf("solved in the span: %v, want %v", b.span != nil, tc.span)
			}
			var linear mat.Dense
			linear.Scale(tc.lin, x)
			if !mat.EqualApprox(features.Slice(0, tc.n, 0, tc.d), &linear, 1e-12) {
				t.Fatalf("the linear features are not the inputs times %v", tc.lin)
			}
			for _, w := range [][]float64{nil, weights} {
				r, err := b.ridge(nil, w)
				if err != nil {
					t.Fatal(err)
				}
				for _, cost := range []float64{1e-9, 1e-4, 1e-2, 1} {
					loo := mat.NewDense(tc.n, 1, nil)
					if !r.leaveOneOut(y, r.project(y)).predictions(loo, cost) {
						t.Fatalf("leverage 1 at a cost of %v", cost)
					}
					want := bruteLeaveOneOut(features, y, w, cost)
					if !mat.EqualApprox(loo, want, 1e-7) {
						t.Errorf("weighted %v, cost %v: leave-one-out predictions\n%v\nrefits\n%v", w != nil, cost,
							mat.Formatted(loo.T()), mat.Formatted(want.T()))
					}
					if r2 := heldOutOf(loo, problemData{y: y}).score; cost == 1e-4 && r2 > tc.maxR2 {
						t.Errorf("weighted %v: leave-one-out R^2 %v at cost 1e-4, want at most %v", w != nil, r2, tc.maxR2)
					}
				}
				// The machine's output on the training rows is the ridge fit.
				km, intercept := b.machine(r, r.project(y), 1e-2, anchors, calibration{factor: []float64{1}})
				m := &Machine{Machine: km, Output: withIntercept(nil, intercept)}
				if len(m.Dims) != 2 || m.Dims[0] != tc.d || m.Dims[1] != 1 || !m.InputBlock {
					t.Fatalf("dims %v, input block %v; want [%d 1] and the input block", m.Dims, m.InputBlock, tc.d)
				}
				if !mat.EqualApprox(m.Predict(nil, x), r.predict(nil, r.project(y), 1e-2), 1e-9) {
					t.Error("the machine does not predict the ridge fit")
				}
			}
		})
	}
}

// bruteLeaveOneOut returns the prediction of each row of z by the fit of
// b + z beta to the other rows with weights w (nil: 1), minimising
// sum_i w_i (y_i - b - z_i beta)^2 + n cost |beta|^2 (n all the rows):
// the least squares solution, by QR, of the rows sqrt(w_i) [1, z_i] with
// targets sqrt(w_i) y_i stacked on sqrt(n cost) [0, I] with targets 0,
// which stays accurate at costs where the normal equations lose half the
// digits.
func bruteLeaveOneOut(z, y *mat.Dense, w []float64, cost float64) *mat.Dense {
	n, p := z.Dims()
	out := mat.NewDense(n, 1, nil)
	for i := range n {
		a := mat.NewDense(n-1+p, p+1, nil)
		yr := mat.NewDense(n-1+p, 1, nil)
		for k, row := range slices.Delete(numeric.Indices(n), i, i+1) {
			sw := 1.0
			if w != nil {
				sw = math.Sqrt(w[row])
			}
			a.Set(k, 0, sw)
			for j := range p {
				a.Set(k, j+1, sw*z.At(row, j))
			}
			yr.Set(k, 0, sw*y.At(row, 0))
		}
		for j := range p {
			a.Set(n-1+j, j+1, math.Sqrt(float64(n)*cost))
		}
		var qr mat.QR
		qr.Factorize(a)
		var coef mat.Dense
		if err := qr.SolveTo(&coef, false, yr); err != nil {
			panic(err)
		}
		pred := coef.At(0, 0)
		for j := range p {
			pred += z.At(i, j) * coef.At(j+1, 0)
		}
		out.Set(i, 0, pred)
	}
	return out
}

// TestShallowFamily checks the families: Shallow alone is chosen over
// its whole grid by leave-one-out's candidates, ranked by their evidence
// on a small regression (rankLoss); AutoFamily, from deepMinRows rows,
// scores the deep grid and the shallow grid on the same folds and keeps
// the lower loss.
func TestShallowFamily(t *testing.T) {
	raceNarrow(t)
	x, y := noisySine(rand.New(rand.NewPCG(8, 1)), 50, 0.1)
	_, res, err := FitRegression(x, y, Settings{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	if !res.Shallow || sel.Folds != 50 || len(sel.Candidates) != len(shallowCosts())*len(shallowBandwidths()) {
		t.Fatalf("shallow fit: shallow %v, %d folds, %d candidates", res.Shallow, sel.Folds, len(sel.Candidates))
	}
	for _, c := range sel.Candidates {
		if !c.Diverged && rankLoss(c) < rankLoss(sel.Candidates[sel.Best]) {
			t.Errorf("candidate %+v ranks before the chosen one", c)
		}
	}
	x, y = noisySine(rand.New(rand.NewPCG(8, 1)), deepMinRows, 0.1)
	_, res, err = FitRegression(x, y, Settings{MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	sel = res.Selection
	if sel.Folds != DefaultFolds || len(sel.Candidates) != len(DefaultCosts())*len(DefaultBandwidths())+1 {
		t.Fatalf("auto: %d folds, %d candidates; want %d and the deep grid plus one", sel.Folds, len(sel.Candidates), DefaultFolds)
	}
	last := sel.Candidates[len(sel.Candidates)-1]
	if !last.Shallow || slices.ContainsFunc(sel.Candidates[:len(sel.Candidates)-1], func(c Candidate) bool { return c.Shallow }) {
		t.Error("the shallow candidate is not the last and only one")
	}
	best := sel.Candidates[sel.Best]
	for _, c := range sel.Candidates {
		if !c.Raced && c.Loss < best.Loss { // a raced candidate's loss is of the first folds
			t.Errorf("candidate %+v has a lower loss than the chosen %+v", c, best)
		}
	}
	if res.Shallow != best.Shallow {
		t.Errorf("result shallow %v, chosen candidate shallow %v", res.Shallow, best.Shallow)
	}
}

// TestDeepMinRows checks that below deepMinRows rows AutoFamily leaves
// the deep machine out and scores the shallow one on the folds, as when
// they compete, while from deepMinRows rows the deep machine competes.
func TestDeepMinRows(t *testing.T) {
	raceNarrow(t)
	for _, n := range []int{deepMinRows - 1, deepMinRows} {
		x, y := noisySine(rand.New(rand.NewPCG(8, 2)), n, 0.1)
		deep, res, progress := autoFit(t, x, y)
		sel := res.Selection
		if deep != (n >= deepMinRows) || sel.Folds != DefaultFolds || !res.Shallow && n < deepMinRows {
			t.Errorf("%d rows: deep candidates %v, %d folds, shallow %v; want deep candidates from %d rows, %d folds",
				n, deep, sel.Folds, res.Shallow, deepMinRows, DefaultFolds)
		}
		if said := strings.Contains(progress, fmt.Sprintf("the deep machine left out: %d training rows, fewer than %d", n, deepMinRows)); said == deep {
			t.Errorf("%d rows: deep candidates %v, but the progress says the deep machine was left out: %v", n, deep, said)
		}
		// The folds score each bandwidth's costs near its best (nearBest).
		if most := foldBandwidths * (2*foldCostSteps + 1); n < deepMinRows && len(sel.Candidates) > most {
			t.Errorf("%d rows: %d shallow candidates on the folds, want at most %d", n, len(sel.Candidates), most)
		}
	}
}

// TestShrinkage checks the factor fitted to held-out predictions: an
// overconfident prediction is shrunk, one without skill is shrunk to the
// mean, and the factor never grows a prediction. Predictions and targets
// are taken about the means of the rows their fits learned from, which
// differ from fold to fold, and so are the residuals.
func TestShrinkage(t *testing.T) {
	dev := []float64{1, -2, 0.5, 0.5}
	means := mat.NewDense(4, 1, []float64{0.3, 0.3, -0.2, -0.2})
	y := mat.NewDense(4, 1, slices.Clone(dev))
	y.Add(y, means)
	for _, tc := range []struct {
		name   string
		factor float64 // the held-out predictions are means + factor * dev
		want   float64
	}{
		{"overconfident", 2, 0.5},
		{"wrong way", -1, 0},
		{"timid", 0.5, 1},
	} {
		pred := mat.NewDense(4, 1, slices.Clone(dev))
		pred.Scale(tc.factor, pred)
		pred.Add(pred, means)
		c := calibrate([]*mat.Dense{pred}, []*mat.Dense{means}, []problemData{{y: y}})
		if math.Abs(c.factor[0]-tc.want) > 1e-12 {
			t.Errorf("%s: shrinkage %v, want %v", tc.name, c.factor[0], tc.want)
		}
		want := make([]float64, len(dev))
		for i, d := range dev {
			want[i] = math.Abs(d - tc.want*tc.factor*d)
		}
		slices.Sort(want)
		if !floats.EqualApprox(c.residuals[0], want, 1e-12) {
			t.Errorf("%s: residuals %v, want %v", tc.name, c.residuals[0], want)
		}
	}
	// A target of noise alone is predicted by its mean.
	rnd := rand.New(rand.NewPCG(9, 9))
	x := randomData(rnd, 40, 3)
	noise := mat.NewDense(40, 1, nil)
	noise.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, noise)
	m, _, err := FitRegression(x, noise, Settings{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	if sd := stat.StdDev(mat.Col(nil, 0, m.Predict(nil, x)), nil); sd > 0.3 {
		t.Errorf("predictions of noise spread by %v, want them near the mean", sd)
	}
}

// TestLogitScale checks that the logit scale recovers the factor that
// drew the labels from softmax(factor * scores).
func TestLogitScale(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 7))
	const n, k, factor = 4000, 3, 2.5
	scores := mat.NewDense(n, k, nil)
	labels := make([]int, n)
	p := make([]float64, k)
	for i := range n {
		var sum float64
		for j := range k {
			s := rnd.NormFloat64()
			scores.Set(i, j, s)
			p[j] = math.Exp(factor * s)
			sum += p[j]
		}
		u := rnd.Float64() * sum
		for j := range k {
			if u -= p[j]; u < 0 || j == k-1 {
				labels[i] = j
				break
			}
		}
	}
	if got := fitLogitScale(scores, labels); math.Abs(got-factor) > 0.2 {
		t.Errorf("logit scale %v, want %v", got, factor)
	}
}

// TestConformal checks the rank of the conformal quantile.
func TestConformal(t *testing.T) {
	r := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, tc := range []struct {
		level, want float64
	}{
		{0.9, 9}, {0.8, 8}, {0.5, 5}, {0.95, math.Inf(1)}, {0, 0},
	} {
		if got := conformal(r, tc.level); got != tc.want {
			t.Errorf("level %v: %v, want %v", tc.level, got, tc.want)
		}
	}
}

// TestIntervalCoverage checks that the intervals of a default fit cover
// about their level of new rows, on the linear and on the log scale.
func TestIntervalCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("fits and predicts 2,000 rows")
	}
	rnd := rand.New(rand.NewPCG(4, 4))
	draw := func(n int, logScale bool) (*mat.Dense, *mat.Dense) {
		x := randomData(rnd, n, 2)
		y := mat.NewDense(n, 1, nil)
		for i := range n {
			v := math.Sin(2*x.At(i, 0)) + x.At(i, 1) + 0.3*rnd.NormFloat64()
			if logScale {
				v = math.Exp(v)
			}
			y.Set(i, 0, v)
		}
		return x, y
	}
	for _, logScale := range []bool{false, true} {
		x, y := draw(300, logScale)
		m, res, err := FitRegression(x, y, Settings{Family: Shallow})
		if err != nil {
			t.Fatal(err)
		}
		if logScale != res.LogTarget {
			t.Errorf("log target %v, want %v", res.LogTarget, logScale)
		}
		xt, yt := draw(2000, logScale)
		h := conformal(res.Calibration.Residuals[0], 0.9)
		pred, lower, upper := m.PredictInterval(nil, nil, nil, xt, []float64{h})
		want := m.Predict(nil, xt)
		in := make([]float64, 2000)
		for i := range in {
			if lower.At(i, 0) <= yt.At(i, 0) && yt.At(i, 0) <= upper.At(i, 0) {
				in[i] = 1
			}
			if pred.At(i, 0) != want.At(i, 0) || !(lower.At(i, 0) < pred.At(i, 0) && pred.At(i, 0) < upper.At(i, 0)) {
				t.Fatalf("row %d: interval [%v, %v] around %v, Predict gives %v", i, lower.At(i, 0), upper.At(i, 0), pred.At(i, 0), want.At(i, 0))
			}
		}
		if c := stat.Mean(in, nil); c < 0.86 || c > 0.94 {
			t.Errorf("log scale %v: coverage %.3f of 0.9 intervals", logScale, c)
		}
	}
}

// TestWeights checks that a row of weight 0 counts as a row left out, and
// that weights choose the shallow machine, the only one that weighs.
func TestWeights(t *testing.T) {
	rnd := rand.New(rand.NewPCG(6, 1))
	x := randomData(rnd, 20, 2)
	y := mat.NewDense(20, 1, nil)
	y.Apply(func(i, _ int, _ float64) float64 { return x.At(i, 0) - x.At(i, 1)*x.At(i, 1) }, y)
	w := make([]float64, 20)
	var kept []int
	for i := range w {
		if i%3 != 0 {
			w[i] = 1
			kept = append(kept, i)
		}
	}
	b, err := newShallowBasis(newShallowInputs(x, pickRows(x, []int{1, 4, 7, 10}), 1, false), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := b.ridge(nil, meanOne(w))
	if err != nil {
		t.Fatal(err)
	}
	subset, err := b.ridge(kept, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := weighted.predict(weighted.inBasis(b.z), weighted.project(y), 1e-2)
	want := subset.predict(subset.inBasis(b.z), subset.project(pickRows(y, kept)), 1e-2)
	if !mat.EqualApprox(got, want, 1e-9) {
		t.Error("weights of 0 and 1 do not fit as the rows of weight 1 alone")
	}
	_, res, err := FitRegression(x, y, Settings{Weights: w})
	if err != nil || !res.Shallow {
		t.Errorf("weighted fit: shallow %v, error %v; want the shallow machine", res.Shallow, err)
	}
	for _, s := range []Settings{{Weights: w, Family: Deep}, {Weights: w, Costs: []float64{1}}, {Weights: w[1:]}, {Weights: make([]float64, 20)}} {
		if _, _, err := FitRegression(x, y, s); err == nil {
			t.Errorf("settings %+v: no error", s)
		}
	}
}

// TestGroupedAndForward checks that groups and times give their folds to
// both machines, the shallow one included.
func TestGroupedAndForward(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(5, 5)), 40, 0.1)
	groups, times := make([]int, 40), make([]float64, 40)
	for i := range groups {
		groups[i], times[i] = i/4, float64(i)
	}
	for _, tc := range []struct {
		split string
		s     Settings
	}{
		{"grouped", Settings{Groups: groups, MaxIter: 30}},
		{"forward", Settings{Times: times, MaxIter: 30}},
	} {
		_, res, err := FitRegression(x, y, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		sel := res.Selection
		if sel.Split != tc.split || sel.Folds != DefaultFolds || sel.Repeats != 1 {
			t.Errorf("%s: split %q, %d folds, %d repeats", tc.split, sel.Split, sel.Folds, sel.Repeats)
		}
		if !slices.ContainsFunc(sel.Candidates, func(c Candidate) bool { return c.Shallow }) {
			t.Errorf("%s: no shallow candidate", tc.split)
		}
	}
	if _, _, err := FitRegression(x, y, Settings{Groups: make([]int, 40)}); err == nil {
		t.Error("one group: no error")
	}
	if _, _, err := FitRegression(x, y, Settings{Groups: groups, Times: times}); err == nil {
		t.Error("groups and times at once: no error")
	}
}

// TestBudget checks that a spent budget skips the deep machine's
// cross-validation, leaving the shallow machine, and stops a final fit.
func TestBudget(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(2, 2)), 40, 0.1)
	_, res, err := FitRegression(x, y, Settings{Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Selection.Candidates {
		if c.Skipped == c.Shallow {
			t.Errorf("candidate %+v: skipped %v", c, c.Skipped)
		}
	}
	if !res.Shallow {
		t.Error("the deep machine was chosen over the budget")
	}
	if _, _, err := FitRegression(x, y, Settings{Budget: time.Nanosecond, Family: Deep}); err == nil {
		t.Error("deep family over the budget: no error")
	}
	_, res, err = FitRegression(x, y, Settings{Costs: []float64{1e-6}, Bandwidths: []float64{0.3}, UntilStall: true, MaxIter: 100000, Budget: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged || res.Status != "stopped by the budget" {
		t.Errorf("final fit: converged %v, status %q; want stopped by the budget", res.Converged, res.Status)
	}
}

// TestShallowOnDeepFolds checks that the shallow machine scores its
// settings by leave-one-out alone and on the deep machine's folds when it
// competes with it.
func TestShallowOnDeepFolds(t *testing.T) {
	raceNarrow(t)
	x, y := noisySine(rand.New(rand.NewPCG(3, 4)), 40, 0.1)
	s := Settings{Seed: 2, TargetScale: LinearScale}
	p, val := preparedFor(t, x, y, s)
	for _, alone := range []bool{true, false} {
		f, err := selectShallow(p, val, 1, s, alone)
		if err != nil {
			t.Fatal(err)
		}
		folds, repeats := 40, 1
		if !alone {
			folds, repeats = val.k, val.repeats
		}
		if f.sel.Folds != folds || f.sel.Repeats != repeats || f.sel.Rows != 40 {
			t.Errorf("alone %v: scored on %d folds x %d on %d rows, want %d x %d on 40", alone, f.sel.Folds, f.sel.Repeats, f.sel.Rows, folds, repeats)
		}
		// The folds' scores vary from fold to fold; leave-one-out gives one.
		if best := f.sel.Candidates[f.sel.Best]; (best.LossStd > 0) == alone {
			t.Errorf("alone %v: loss standard deviation %g", alone, best.LossStd)
		}
		// On the folds, only the bandwidths that leave-one-out ranks best
		// are scored, at the costs near the best of each (checked below);
		// alone, every cost of every bandwidth.
		bandwidths := map[float64]bool{}
		costs := map[float64][]float64{}
		for _, c := range f.sel.Candidates {
			bandwidths[c.Bandwidth] = true
			costs[c.Bandwidth] = append(costs[c.Bandwidth], c.Cost)
		}
		want := len(shallowBandwidths())
		if !alone {
			want = foldBandwidths
		}
		if len(bandwidths) != want || alone && len(f.sel.Candidates) != want*len(shallowCosts()) {
			t.Errorf("alone %v: %d candidates at %d bandwidths, want %d bandwidths", alone, len(f.sel.Candidates), len(bandwidths), want)
		}
		if !alone {
			// The bandwidth chosen on the folds is among those that
			// leave-one-out ranks best.
			loo, err := selectShallow(p, val, 1, s, true)
			if err != nil {
				t.Fatal(err)
			}
			var ranked []*bandwidthScores
			for i := 0; i < len(loo.sel.Candidates); i += len(shallowCosts()) {
				ranked = append(ranked, &bandwidthScores{cands: loo.sel.Candidates[i : i+len(shallowCosts())]})
			}
			top := map[float64]bool{}
			for _, i := range bestBandwidths(ranked, foldBandwidths) {
				bw := ranked[i].cands[0].Bandwidth
				top[bw] = true
				if want := nearBest(ranked[i].cands, foldCostSteps); !reflect.DeepEqual(costs[bw], want) {
					t.Errorf("bandwidth %g: costs %v on the folds, want %v", bw, costs[bw], want)
				}
			}
			if !reflect.DeepEqual(top, bandwidths) {
				t.Errorf("scored bandwidths %v on the folds, want leave-one-out's best %v", bandwidths, top)
			}
		}
	}
}

// TestBestBandwidths checks the ranking of bandwidths by their best
// candidate, diverged ones aside.
func TestBestBandwidths(t *testing.T) {
	scores := func(losses ...float64) *bandwidthScores {
		bs := &bandwidthScores{}
		for _, l := range losses {
			bs.cands = append(bs.cands, Candidate{Loss: l, Diverged: math.IsNaN(l)})
		}
		return bs
	}
	scored := []*bandwidthScores{scores(5, 4), scores(3, 9), scores(math.NaN(), 1), scores(2, 8), scores(math.NaN())}
	for _, tc := range []struct {
		n    int
		want []int
	}{
		{1, []int{2}},
		{2, []int{2, 3}},
		{3, []int{1, 2, 3}},
		{5, []int{0, 1, 2, 3, 4}},
		{9, []int{0, 1, 2, 3, 4}},
	} {
		if got := bestBandwidths(scored, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("best %d: %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestNearBest checks the costs that the folds score: those within the
// steps of each scale's best cost by leave-one-out, clipped to the grid,
// diverged candidates aside.
func TestNearBest(t *testing.T) {
	grid := shallowCosts()
	scale := func(best int, diverged ...int) []Candidate {
		cands := make([]Candidate, len(grid))
		for c := range cands {
			cands[c] = Candidate{Cost: grid[c], Loss: 1 + math.Abs(float64(c-best))}
		}
		for _, c := range diverged {
			cands[c] = Candidate{Cost: grid[c], Loss: 0, Diverged: true}
		}
		return cands
	}
	for _, tc := range []struct {
		name  string
		cands []Candidate
		steps int
		want  []float64
	}{
		{"middle", scale(6), 2, grid[4:9]},
		{"first", scale(0), 2, grid[:3]},
		{"last", scale(12), 1, grid[11:]},
		{"a diverged cost is not the best", scale(6, 0), 2, grid[4:9]},
		{"two scales", slices.Concat(scale(2), scale(9)), 1, slices.Concat(grid[1:4], grid[8:11])},
		{"all diverged", scale(6, numeric.Indices(len(grid))...), 2, nil},
	} {
		if got := nearBest(tc.cands, tc.steps); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHeldOutMeans checks the means that held-out predictions are shrunk
// towards against the solvers themselves: at a cost so large that the
// fit is its intercept alone, each held-out prediction is that mean, with
// weights, on the folds and leaving each row out.
func TestHeldOutMeans(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 8))
	x, y := noisySine(rnd, 30, 0.3)
	w := randomWeights(rnd, 30)
	s := Settings{Seed: 1, Weights: w, TargetScale: LinearScale}
	p, val := preparedFor(t, x, y, s)
	for _, folded := range []bool{false, true} {
		pass := newShallowPass(p.variants(), val, s)
		scored, err := pass.score([]int{len(pass.bases) - 1}, val, folded, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		vs := scored[0].scorer.on(p.variants()[0])
		preds, ok := vs.predictions(1e12)
		if !ok {
			t.Fatal("leaving a row out undefined")
		}
		for i, m := range vs.means() {
			if !mat.EqualApprox(preds[i], m, 1e-9) {
				t.Errorf("folded %v, part %d: means\n%v\nwant the predictions\n%v", folded, i, mat.Formatted(m.T()), mat.Formatted(preds[i].T()))
			}
		}
	}
}

// TestLowerLoss checks the rule by which the fit keeps a richer encoding
// of its inputs: lower by more than rounding, so that a tie keeps the
// simpler one, for losses of either sign.
func TestLowerLoss(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want bool
	}{
		{0.9, 1, true},
		{1, 1, false},
		{1.1, 1, false},
		{2.118579738215938e-08, 2.118579738236027e-08, false}, // a tie of TestRange's line
		{0.999, 1, true},
		{-0.5 - 1e-12, -0.5, false}, // a tie of negative log evidences
		{-0.6, -0.5, true},
		{1, math.Inf(1), true}, // every setting of b diverged
	} {
		if got := lowerLoss(tc.a, tc.b); got != tc.want {
			t.Errorf("lowerLoss(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// preparedFor returns the regression data x, y prepared for a search
// with Settings s, and its validation.
func preparedFor(t *testing.T, x, y mat.Matrix, s Settings) (*prepared, *validation) {
	t.Helper()
	p, err := prepare(x, y, nil, s, true)
	if err != nil {
		t.Fatal(err)
	}
	val, err := newValidation(p.linear, s)
	if err != nil {
		t.Fatal(err)
	}
	return p, val
}

// TestShallowHeldOut checks the calibrated held-out loss by which the
// shallow machine competes with the deep one: its predictions are shrunk
// towards the means their folds' fits learned about, as the final
// machine's towards the mean of all the rows, so that predictions twice
// as far from those means as the targets, shrunk by half, are exact.
func TestShallowHeldOut(t *testing.T) {
	means := mat.NewDense(4, 1, []float64{0.3, 0.3, -0.2, -0.2})
	y := mat.NewDense(4, 1, []float64{1.3, -1.7, 0.3, 0.3})
	pred := mat.NewDense(4, 1, nil)
	pred.Apply(func(i, _ int, _ float64) float64 { return means.At(i, 0) + 2*(y.At(i, 0)-means.At(i, 0)) }, pred)
	f := &shallowFit{preds: []*mat.Dense{pred}, means: []*mat.Dense{means}, tests: []problemData{{y: y}},
		cal: calibration{factor: []float64{0.5}}}
	if h := f.heldOut(0); h.loss > 1e-24 {
		t.Errorf("held-out loss %v, want 0", h.loss)
	}
}

// TestFoldPredictions checks the held-out predictions of folds that part
// the rows, derived from the solver of all the rows, against each fold's
// own solver, on a narrow table and a wide one (nearly interpolated at a
// small cost), solved on the features and in the span of the rows, with
// and without weights.
func TestFoldPredictions(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, d, anchors int
		sigma         float64
		span, full    bool // full: in the full run only, being slow
	}{
		{"narrow", 40, 2, 9, 0.8, false, false},
		{"wide", 25, 300, 25, 8, false, true},
		{"wide in the span", 25, 300, 25, 8, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.full && testing.Short() {
				t.Skip("slow: in the full run only")
			}
			rnd := rand.New(rand.NewPCG(4, 9))
			x := mat.NewDense(tc.n, tc.d, nil)
			x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
			y := mat.NewDense(tc.n, 2, nil)
			weights := make([]float64, tc.n)
			for i := range tc.n {
				y.Set(i, 0, math.Sin(2*x.At(i, 0))+x.At(i, 1)+0.1*rnd.NormFloat64())
				y.Set(i, 1, x.At(i, 0)*x.At(i, 1)+0.1*rnd.NormFloat64())
				weights[i] = 0.2 + 2*rnd.Float64()
			}
			in := newShallowInputs(x, pickRows(x, rnd.Perm(tc.n)[:tc.anchors]), 1, false)
			if !tc.span {
				in.xx = nil
			}
			b, err := newShallowBasis(in, tc.sigma, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range [][]float64{nil, weights} {
				all, err := b.ridge(nil, w)
				if err != nil {
					t.Fatal(err)
				}
				pr := all.project(y)
				for _, fold := range crossval.KFold(tc.n, 4, 7) {
					own, err := b.ridge(fold.Train, pick(w, fold.Train))
					if err != nil {
						t.Fatal(err)
					}
					ztv := own.inBasis(pickRows(b.z, fold.Test))
					for _, cost := range []float64{1e-9, 1e-4, 1e-2, 1} {
						got := mat.NewDense(len(fold.Test), 2, nil)
						if !all.heldFold(y, pr, all.held(fold.Test)).predictions(got, cost) {
							t.Fatalf("weighted %v, cost %v: held-out rows undefined", w != nil, cost)
						}
						want := own.predict(ztv, own.project(pickRows(y, fold.Train)), cost)
						if !mat.EqualApprox(got, want, 1e-6) {
							t.Errorf("weighted %v, cost %v: held-out predictions\n%v\nthe fold's own solver's\n%v", w != nil, cost,
								mat.Formatted(got.T()), mat.Formatted(want.T()))
						}
					}
				}
			}
		})
	}
}

// TestAnchorBasis checks the map from the anchors' orthonormal
// coordinates to their coefficients: the features it makes are
// orthonormal in the kernel's norm (toC^T K toC = I), they span every
// anchor's features (K toC toC^T K = K), and an anchor repeated, whose
// features are another's, adds no coordinate and gets no coefficient.
func TestAnchorBasis(t *testing.T) {
	rnd := rand.New(rand.NewPCG(8, 3))
	const m, gamma = 12, 0.7
	anchors := randomData(rnd, m, 2)
	anchors.SetRow(m-1, anchors.RawRowView(3))
	between := mat.NewDense(m, m, nil)
	k := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			d := sqDistance(anchors.RawRowView(i), anchors.RawRowView(j))
			between.Set(i, j, d)
			k.Set(i, j, math.Exp(-gamma*d))
		}
	}
	toC, err := anchorBasis(between, gamma)
	if err != nil {
		t.Fatal(err)
	}
	_, r := toC.Dims()
	if r != m-1 {
		t.Errorf("%d coordinates for %d distinct anchors", r, m-1)
	}
	zero := func(i int) bool { return floats.Norm(toC.RawRowView(i), 2) == 0 }
	if !zero(3) && !zero(m-1) {
		t.Errorf("both copies of the repeated anchor have coefficients")
	}
	var kc, gram, back mat.Dense
	kc.Mul(k, toC)
	gram.Mul(toC.T(), &kc)
	for i := range r {
		for j := range r {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(gram.At(i, j)-want) > 1e-8 {
				t.Fatalf("toC^T K toC [%d,%d] = %g, want %g", i, j, gram.At(i, j), want)
			}
		}
	}
	back.Mul(&kc, kc.T())
	if !mat.EqualApprox(&back, k, 1e-8) {
		t.Errorf("K toC toC^T K differs from K: the features do not span the anchors'")
	}
}

// TestNthSmallest checks the selection against a sort, for every k, on
// lists with and without repeated values, and that the anchors' median
// distance from the squared distances newShallowInputs measured is
// medianDistance of the anchors, bit for bit.
func TestNthSmallest(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		n      int
		levels int // 0: continuous values
	}{
		{"one", 1, 0}, {"two", 2, 0}, {"continuous", 57, 0}, {"repeated", 64, 5}, {"constant", 9, 1},
	} {
		x := make([]float64, tc.n)
		for i := range x {
			x[i] = rnd.NormFloat64()
			if tc.levels > 0 {
				x[i] = float64(rnd.IntN(tc.levels))
			}
		}
		sorted := slices.Sorted(slices.Values(x))
		for k := range x {
			if got := nthSmallest(slices.Clone(x), k); got != sorted[k] {
				t.Fatalf("%s: element %d: got %v, want %v", tc.name, k, got, sorted[k])
			}
		}
	}
	for _, m := range []int{1, 2, 30} {
		anchors := mat.NewDense(m, 3, nil)
		for i := range m {
			anchors.Set(i, 0, rnd.NormFloat64())
			anchors.Set(i, 1, float64(i%2)) // a few pairs at distance 0 on the first column
			anchors.Set(i, 2, rnd.NormFloat64())
		}
		in := newShallowInputs(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), anchors, 1, false)
		if got, want := in.anchorsDistance(), medianDistance(anchors); got != want {
			t.Errorf("%d anchors: got %v, want %v", m, got, want)
		}
	}
}
