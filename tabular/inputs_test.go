package tabular

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// skewedData returns n rows of a skewed input x = exp(4u), u uniform on
// [0, 1], the targets f(x) plus noise, and labels 1 where the target is
// above its median.
func skewedData(n int, f func(x float64) float64) (x, y *mat.Dense, labels []int) {
	rnd := rand.New(rand.NewPCG(8, 1))
	x, y = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		v := math.Exp(4 * rnd.Float64())
		x.Set(i, 0, v)
		y.Set(i, 0, f(v)+0.05*rnd.NormFloat64())
	}
	sorted := mat.Col(nil, 0, y)
	slices.Sort(sorted)
	median := stat.Quantile(0.5, stat.Empirical, sorted, nil)
	labels = make([]int, n)
	for i := range n {
		if y.At(i, 0) > median {
			labels[i] = 1
		}
	}
	return x, y, labels
}

// TestInputScale checks the choice of the inputs' scale: a target that
// follows the order of a skewed input (a step in its logarithm) is fitted
// on its quantiles, one linear in the input itself on the input as it is;
// a classifier, fixed settings and LinearInputs never map their inputs.
// The mapped machine predicts its training rows well, which it could not
// if Predict skipped the map.
func TestInputScale(t *testing.T) {
	step := func(x float64) float64 { return math.Tanh(4 * (math.Log(x) - 2)) }
	line := func(x float64) float64 { return x / 20 }
	for _, tc := range []struct {
		name     string
		f        func(float64) float64
		classify bool
		s        Settings
		want     string
	}{
		{"step in the log", step, false, Settings{Family: Shallow}, "quantile"},
		{"linear", line, false, Settings{Family: Shallow}, "linear"},
		{"forced quantile", line, false, Settings{Family: Shallow, InputScale: QuantileInputs}, "quantile"},
		{"forced linear", step, false, Settings{Family: Shallow, InputScale: LinearInputs}, ""},
		{"classifier", step, true, Settings{Family: Shallow}, ""},
		{"fixed settings", step, false, Settings{Dims: []int{2, 1}, Costs: []float64{0.01}, Bandwidths: []float64{1}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y, labels := skewedData(80, tc.f)
			var (
				m   *Machine
				res Result
				err error
			)
			if tc.classify {
				m, res, err = FitClassifier(x, labels, 2, tc.s)
			} else {
				m, res, err = FitRegression(x, y, tc.s)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.InputScale != tc.want {
				t.Fatalf("input scale %q (held-out losses %v), want %q", res.InputScale, res.InputLosses, tc.want)
			}
			if mapped := m.Quantiles != nil; mapped != (tc.want == "quantile") {
				t.Errorf("machine's quantile map %v with input scale %q", mapped, tc.want)
			}
			if tc.want == "quantile" && tc.s.InputScale == AutoInputs && !(res.InputLosses[1] < res.InputLosses[0]) {
				t.Errorf("quantiles chosen at held-out losses %v", res.InputLosses)
			}
			if !tc.classify && tc.s.Dims == nil {
				pred := m.Predict(nil, x)
				if r2 := stat.RSquaredFrom(mat.Col(nil, 0, pred), mat.Col(nil, 0, y), nil); r2 < 0.9 {
					t.Errorf("training R^2 %.3f, want at least 0.9", r2)
				}
			}
		})
	}
}

// TestInputScaleWorkers checks that the quantiles' pass, built beside
// the first pass where fits run in parallel (passAhead), chooses and
// fits what it does in line with one worker: the same held-out losses
// and predictions, bit for bit, for a regression and a classifier (of
// the auto family, whose small classifiers weigh their quantiles).
func TestInputScaleWorkers(t *testing.T) {
	step := func(x float64) float64 { return math.Tanh(4 * (math.Log(x) - 2)) }
	x, y, labels := skewedData(90, step)
	for _, classify := range []bool{false, true} {
		var preds [2]*mat.Dense
		var losses [2][]float64
		for i, workers := range []int{1, 3} {
			s := Settings{Family: Shallow, Workers: workers}
			if classify {
				s.Family = AutoFamily
			}
			var (
				m   *Machine
				res Result
				err error
			)
			if classify {
				m, res, err = FitClassifier(x, labels, 2, s)
			} else {
				m, res, err = FitRegression(x, y, s)
			}
			if err != nil {
				t.Fatal(err)
			}
			preds[i], losses[i] = m.Predict(nil, x), res.InputLosses
		}
		if losses[0] == nil || !slices.Equal(losses[0], losses[1]) || !mat.Equal(preds[0], preds[1]) {
			t.Errorf("classify %v: held-out losses %v with one worker, %v with three, or their predictions differ", classify, losses[0], losses[1])
		}
	}
}

// TestRelevance checks the weighing of the inputs by their relevance: on
// y = sin(3 x0) beside three inputs of noise, x0 weighs the most by far
// and the weighed inputs are kept, at a lower held-out loss, in a machine
// that still predicts its rows; one input, whose weight is 1, changes
// nothing and is not weighed; LinearInputs and a classifier are never
// weighed.
func TestRelevance(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	const n = 100
	// Input 4 is constant: no slope at all, its weight floored.
	x, y := mat.NewDense(n, 5, nil), mat.NewDense(n, 1, nil)
	x.Slice(0, n, 0, 4).(*mat.Dense).Copy(randomData(rnd, n, 4))
	labels := make([]int, n)
	for i := range n {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+0.05*rnd.NormFloat64())
		if y.At(i, 0) > 0 {
			labels[i] = 1
		}
	}
	m, res, err := FitRegression(x, y, Settings{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Relevance
	if w == nil || !(res.RelevanceLosses[1] < res.RelevanceLosses[0]) {
		t.Fatalf("relevance %v chosen at held-out losses %v, want the weights, at a lower loss", w, res.RelevanceLosses)
	}
	for j := 1; j < 5; j++ {
		if !(w[0] > 2*w[j]) {
			t.Errorf("weights %v: the relevant input 0 does not weigh twice input %d", w, j)
		}
	}
	if w[4] != minRelevance {
		t.Errorf("weight %v of the constant input, want the floor %v", w[4], minRelevance)
	}
	if _, err := json.Marshal(m); err != nil {
		t.Errorf("the weighed machine does not encode: %v", err)
	}
	if r2 := stat.RSquaredFrom(mat.Col(nil, 0, m.Predict(nil, x)), mat.Col(nil, 0, y), nil); r2 < 0.9 {
		t.Errorf("training R^2 %.3f of the weighed machine, want at least 0.9", r2)
	}
	for _, tc := range []struct {
		name     string
		x        mat.Matrix
		classify bool
		s        Settings
	}{
		{"one input", x.Slice(0, n, 0, 1), false, Settings{Family: Shallow}},
		{"linear inputs", x, false, Settings{Family: Shallow, InputScale: LinearInputs}},
		{"classifier", x, true, Settings{Family: Shallow}},
	} {
		var res Result
		if tc.classify {
			_, res, err = FitClassifier(tc.x, labels, 2, tc.s)
		} else {
			_, res, err = FitRegression(tc.x, y, tc.s)
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Relevance != nil {
			t.Errorf("%s: weighed by %v", tc.name, res.Relevance)
		}
	}
}

// TestRelevanceFolded checks that relevance measures the slopes of the
// machine fitted to all the pass's rows when the pass was scored on
// grouped folds, whose solvers each hold a fold's training rows alone:
// the same weights as the all-rows solver gives, and not those of the
// first fold's.
func TestRelevanceFolded(t *testing.T) {
	rnd := rand.New(rand.NewPCG(6, 1))
	const n = 60
	x, y := randomData(rnd, n, 3), mat.NewDense(n, 1, nil)
	groups := make([]int, n)
	for i := range n {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+0.05*rnd.NormFloat64())
		groups[i] = i % 10
	}
	s := Settings{Groups: groups}
	p, val := preparedFor(t, x, y, s)
	if _, err := shallowLoss(p, val, 1, s, nil); err != nil {
		t.Fatal(err)
	}
	if !p.pass.folded {
		t.Fatal("the pass was not scored on the grouped folds")
	}
	got := relevance(p.pass)
	// The same pass as leave-one-out would leave it: the solver of all
	// the rows first.
	all := p.pass.all
	p.pass.all = slices.Clone(all)
	for b, bs := range all {
		parts := slices.Clone(bs.scorer.parts)
		r, err := p.pass.bases[b].ridge(nil, p.pass.space.sub[0].w)
		if err != nil {
			t.Fatal(err)
		}
		parts[0].r = r
		p.pass.all[b] = &bandwidthScores{cands: bs.cands, scorer: &shallowScorer{parts: parts, outputs: 1}}
	}
	p.pass.folded = false
	want := relevance(p.pass)
	if !slices.Equal(got, want) {
		t.Errorf("weights %v on the folds, want %v from the solver of all the rows", got, want)
	}
}

// TestMeanSquaredSlopes checks the closed-form slopes of a shallow
// machine of two outputs against central differences of its predictions,
// for the Gaussian and the Laplacian kernel.
func TestMeanSquaredSlopes(t *testing.T) {
	for _, laplacian := range []bool{false, true} {
		rnd := rand.New(rand.NewPCG(6, 2))
		const n, d, na, k = 15, 3, 4, 2
		m := &kernel.Machine{Architecture: kernel.Architecture{Dims: []int{d, k}, Bandwidth: 0.8, Laplacian: laplacian}, InputBlock: true,
			A: randomData(rnd, k, d), C: randomData(rnd, k, na), Anchors: randomData(rnd, na, d)}
		x := randomData(rnd, n, d)
		got := meanSquaredSlopes(m, x)
		const h = 1e-5
		for j := range d {
			var want float64
			for i := range n {
				row := mat.DenseCopyOf(x.Slice(i, i+1, 0, d))
				row.Set(0, j, x.At(i, j)+h)
				up := m.Predict(nil, row)
				row.Set(0, j, x.At(i, j)-h)
				down := m.Predict(nil, row)
				for o := range k {
					g := (up.At(0, o) - down.At(0, o)) / (2 * h)
					want += g * g / n
				}
			}
			if math.Abs(got[j]-want) > 1e-6*(1+want) {
				t.Errorf("laplacian %v, input %d: mean squared slope %v, central differences %v", laplacian, j, got[j], want)
			}
		}
	}
}

// TestEncodingLoss checks that encodingLoss is the loss by which the fit
// chooses its inputs' scale, for a regression and a classification (whose
// loss the quantile comparison does not give: it is checked against a
// column of noise, which must raise it).
func TestEncodingLoss(t *testing.T) {
	step := func(x float64) float64 { return math.Tanh(4 * (math.Log(x) - 2)) }
	x, y, labels := skewedData(80, step)
	_, res, err := FitRegression(x, y, Settings{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	loss, err := encodingLoss(x, y, nil, 0, Settings{})
	if err != nil || loss != res.InputLosses[0] {
		t.Errorf("encodingLoss %v, %v; want the fit's loss on the inputs as they are, %v", loss, err, res.InputLosses[0])
	}

	rnd := rand.New(rand.NewPCG(3, 4))
	noisy := mat.NewDense(80, 2, nil)
	for i := range 80 {
		noisy.Set(i, 0, x.At(i, 0))
		noisy.Set(i, 1, 50*rnd.Float64())
	}
	var losses [2]float64
	for i, xi := range []mat.Matrix{x, noisy} {
		if losses[i], err = encodingLoss(xi, nil, labels, 2, Settings{}); err != nil {
			t.Fatal(err)
		}
	}
	if !(losses[0] < losses[1]) {
		t.Errorf("classifier's losses %v without and with a column of noise, want the first lower", losses)
	}
	if _, err := encodingLoss(mat.NewDense(3, 1, []float64{1, math.NaN(), 2}), nil, []int{0, 1, 0}, 2, Settings{}); err == nil {
		t.Error("NaN input: no error")
	}
}

// TestFitQuantileInputsRecorded checks a fit with its inputs through
// their quantiles: the summary says so, the model records it and
// carries the map, and its predictions of the training rows follow the
// targets.
func TestFitQuantileInputsRecorded(t *testing.T) {
	f := loadFrame(t, "testdata/reg_train.csv")
	md, rep, err := Fit(f, []string{"y"}, Options{InputScale: QuantileInputs})
	if err != nil {
		t.Fatal(err)
	}
	if want := "numeric inputs mapped through their training quantiles"; !slices.ContainsFunc(rep.Summary(md), func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("the summary %q does not say %q", rep.Summary(md), want)
	}
	if md.Fit.InputScale != "quantile" || md.Machine.Quantiles == nil {
		t.Fatalf("the model records input scale %q, quantile map %v", md.Fit.InputScale, md.Machine.Quantiles != nil)
	}
	ev, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if *ev.R2 < 0.8 {
		t.Errorf("training R² %.3f, want at least 0.8", *ev.R2)
	}
}

// TestPassBandwidths checks that the passes on other inputs than the
// first, the quantiles (a step in the log of a skewed input) and the
// inputs weighed by relevance (sin(3 x0) beside three inputs of noise),
// score only the passBandwidths bandwidths best on the pass before them,
// and that the selection on the inputs kept reuses their scores.
func TestPassBandwidths(t *testing.T) {
	x, y, _ := skewedData(80, func(x float64) float64 { return math.Tanh(4 * (math.Log(x) - 2)) })
	p, val := preparedFor(t, x, y, Settings{})
	var res Result
	q, err := chooseInputs(p, x, y, nil, val, 1, Settings{}, &res)
	if err != nil || res.InputScale != QuantileInputs.String() {
		t.Fatalf("input scale %q, error %v; want the quantiles", res.InputScale, err)
	}
	if got, want := q.pass.listed(), p.pass.best(passBandwidths); len(want) != passBandwidths || !slices.Equal(got, want) {
		t.Errorf("the quantiles' pass scored bandwidths %v, want %v, the best %d of the first pass", got, want, passBandwidths)
	}

	rnd := rand.New(rand.NewPCG(4, 4))
	x = randomData(rnd, 100, 4)
	y = mat.NewDense(100, 1, nil)
	for i := range 100 {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+0.05*rnd.NormFloat64())
	}
	p, val = preparedFor(t, x, y, Settings{})
	w, err := weighInputs(p, val, 1, Settings{}, &res)
	if err != nil || res.Relevance == nil {
		t.Fatalf("relevance %v, error %v; want the weights", res.Relevance, err)
	}
	want := p.pass.best(passBandwidths)
	if got := w.pass.listed(); !slices.Equal(got, want) {
		t.Errorf("the weighed inputs' pass scored bandwidths %v, want %v", got, want)
	}
	f, err := selectShallow(w, val, 1, Settings{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.sel.Candidates); got != passBandwidths*len(shallowCosts()) {
		t.Errorf("%d candidates in the selection, want %d bandwidths' %d costs", got, passBandwidths, len(shallowCosts()))
	}
}
