package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// frameOf returns the rows of x with their targets y as a table whose
// columns are x0, x1, ... and y.
func frameOf(t *testing.T, x *mat.Dense, y []float64) *dataset.Frame {
	t.Helper()
	f, err := dataset.ReadFrame(strings.NewReader(tableText(x, mat.NewDense(len(y), 1, y))), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHeldOutReweighed checks the held-out score and the intervals of
// regressions that keep their relevance weights. On noise of 50 rows and
// 500 inputs the weights measured on all the rows fit the noise, and the
// selection's held-out R^2 is well above 0 while its residuals' 0.9
// intervals hold about two thirds of fresh rows; with each fold's
// weights measured on its training rows, the score reported is below
// 0.1 and the intervals hold nearly 0.9 of them. On a table of a signal
// (Friedman's first function, whose inputs the metric maps too) the
// score so measured stays near the selection's: the chosen machine's
// setting is what the folds score again.
func TestHeldOutReweighed(t *testing.T) {
	var covered float64
	seeds := []uint64{1, 2, 3}
	for _, seed := range seeds {
		rnd := rand.New(rand.NewPCG(seed, 31))
		const n, d, fresh = 50, 500, 1000
		x := mat.NewDense(n+fresh, d, nil)
		x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
		y := make([]float64, n+fresh)
		for i := range y {
			y[i] = rnd.NormFloat64()
		}
		md, rep, err := Fit(frameOf(t, x.Slice(0, n, 0, d).(*mat.Dense), y[:n]), []string{"y"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Result
		h := res.HeldOut
		if !byRelevance(res.Relevance) || h == nil {
			t.Fatalf("seed %d: relevance %v, held-out scores %v; want the weights kept and scored again", seed, res.Relevance != nil, h)
		}
		chosen := res.Selection.Candidates[res.Selection.Best]
		if !(h.Score < 0.1 && chosen.Score > h.Score+0.2) {
			t.Errorf("seed %d: held-out R^2 %.3g reported, %.3g by the selection; want below 0.1 and 0.2 below the selection's", seed, h.Score, chosen.Score)
		}
		summary := rep.Summary(md)
		if md.Fit.HeldOut != h || !slices.ContainsFunc(summary, func(l string) bool { return strings.HasPrefix(l, "held-out scores on the folds of the first split") }) ||
			!slices.ContainsFunc(summary, func(l string) bool {
				return strings.HasSuffix(l, "(optimistic: the relevance weights were measured on all the rows; the held-out scores below are not)")
			}) {
			t.Errorf("seed %d: the fit record or the summary lacks the held-out scores, or the selection's note", seed)
		}
		if got := len(md.Intervals.Residuals[0]); got != n {
			t.Errorf("seed %d: %d residuals kept, want the %d of the first split's folds", seed, got, n)
		}
		ev, err := md.Score(frameOf(t, x.Slice(n, n+fresh, 0, d).(*mat.Dense), y[n:]), 0.9)
		if err != nil {
			t.Fatal(err)
		}
		covered += *ev.Coverage / float64(len(seeds))
	}
	if covered < 0.84 {
		t.Errorf("0.9 intervals held %.3g of fresh rows on average, want at least 0.84", covered)
	}

	// Noise of 80 rows and 200 inputs: the deep machine races the
	// shallow one, which wins.
	rnd := rand.New(rand.NewPCG(1, 31))
	x := randomData(rnd, 80, 200)
	y := make([]float64, 80)
	for i := range y {
		y[i] = rnd.NormFloat64()
	}
	_, rep, err := Fit(frameOf(t, x, y), []string{"y"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sel := rep.Result.Selection
	raced := slices.ContainsFunc(sel.Candidates, func(c Candidate) bool { return !c.Shallow })
	if h := rep.Result.HeldOut; !raced || !rep.Result.Shallow || h == nil || !(h.Score < 0.1) {
		t.Errorf("noise of 80 x 200: raced %v, shallow chosen %v, held-out scores %v; want the shallow machine's scored again below R^2 0.1", raced, rep.Result.Shallow, h)
	}

	rnd = rand.New(rand.NewPCG(7, 31))
	const n, d = 200, 10
	x = mat.NewDense(n, d, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.Float64() }, x)
	y = make([]float64, n)
	for i := range y {
		r := x.RawRowView(i)
		y[i] = 10*math.Sin(math.Pi*r[0]*r[1]) + 20*(r[2]-0.5)*(r[2]-0.5) + 10*r[3] + 5*r[4] + rnd.NormFloat64()
	}
	if _, rep, err = Fit(frameOf(t, x, y), []string{"y"}, Options{}); err != nil {
		t.Fatal(err)
	}
	res := rep.Result
	if !byRelevance(res.Relevance) || !res.Metric || res.HeldOut == nil {
		t.Fatalf("Friedman 1: relevance %v, metric %v, held-out scores %v; want the weights and the metric kept and scored again", res.Relevance != nil, res.Metric, res.HeldOut)
	}
	chosen := res.Selection.Candidates[res.Selection.Best]
	if h := res.HeldOut; !(h.Loss < 1.1*chosen.Loss) {
		t.Errorf("Friedman 1: held-out mse %.4g with each fold's weights and metric, %.4g by the selection; want within 10%%", h.Loss, chosen.Loss)
	}
}

// sinePass returns the data prepared from 60 rows of d inputs whose
// target is a sine of the first plus noise of the given scale, its
// validation, and the relevance weights of its shallow pass's best
// machine.
func sinePass(t *testing.T, seed uint64, d int, noise float64) (*prepared, *validation, []float64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 31))
	const n = 60
	x := randomData(rnd, n, d)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+noise*rnd.NormFloat64())
	}
	p, val := preparedFor(t, x, y, Settings{})
	if _, err := shallowLoss(p, val, 1, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	return p, val, relevance(p.pass)
}

// TestFoldWeights checks that each fold's relevance weights are those of
// the plain pass's machine fitted on its training rows, but that an input
// left out keeps the fit's weight.
func TestFoldWeights(t *testing.T) {
	p, val, measured := sinePass(t, 5, 4, 0.1)
	final := []float64{measured[0], measured[1], minRelevance, measured[3]}
	rw := &reweighing{plain: p, measured: measured}
	fold := val.folds[0]
	w, err := rw.foldWeights(1, fold, final)
	if err != nil {
		t.Fatal(err)
	}
	km, xt, _ := passMachine(p.pass, 1, fold.Train)
	want := relevanceWeights(meanSquaredSlopes(km, xt))
	want[2] = minRelevance
	for j := range want {
		if math.Abs(w[j]-want[j]) > 1e-12 {
			t.Errorf("fold weights %.4g, want %.4g (input 2 left out)", w, want)
			break
		}
	}
	if w[0] == measured[0] {
		t.Errorf("fold weight of input 0 is %.4g, the weight measured on all the rows", w[0])
	}
}

// TestScoreFolds checks the folds' scores and residuals: predictions
// twice as far from their means as the targets, shrunk by half about
// those means, are exact, and so are they on a scale that the
// predictions are mapped back from (here, three times the targets).
func TestScoreFolds(t *testing.T) {
	means := mat.NewDense(4, 1, []float64{0.3, 0.3, -0.2, -0.2})
	y := mat.NewDense(4, 1, []float64{1.3, -1.7, 0.3, 0.3})
	var tripled mat.Dense
	tripled.Scale(3, y)
	for _, test := range []problemData{
		{y: y},
		{y: &tripled, fitY: y, back: func(pred *mat.Dense) { pred.Scale(3, pred) }},
	} {
		pred := mat.NewDense(4, 1, nil)
		pred.Apply(func(i, _ int, _ float64) float64 { return means.At(i, 0) + 2*(y.At(i, 0)-means.At(i, 0)) }, pred)
		losses, _, residuals := scoreFolds([]foldPrediction{{pred: pred, mean: means, test: test}}, calibration{factor: []float64{0.5}})
		if losses[0] > 1e-24 || residuals[0][3] > 1e-12 {
			t.Errorf("mapped back %v: loss %v, residuals %v; want 0", test.back != nil, losses, residuals)
		}
	}
}

// TestFoldAverage checks that a fold's prediction by an average of
// machines, of bandwidths or of costs, is the mean of their predictions.
func TestFoldAverage(t *testing.T) {
	p, val, measured, q, f := weighedSelection(t, 6)
	rw := &reweighing{plain: p, weighed: q, measured: measured}
	sigmas := f.space.sigmas
	a := Candidate{Cost: 0.01, Bandwidth: sigmas[2], Shallow: true}
	b := Candidate{Cost: 0.1, Bandwidth: sigmas[4], Shallow: true}
	predict := func(members []Candidate, costs []float64) *mat.Dense {
		g := *f
		g.members, g.costs = members, costs
		out, err := rw.fold(&g, false, measured, val.folds[0])
		if err != nil {
			t.Fatal(err)
		}
		return out.pred
	}
	atB := a
	atB.Cost = b.Cost
	for _, tc := range []struct {
		name    string
		members []Candidate
		costs   []float64
		parts   []*mat.Dense
	}{
		{"bandwidths", []Candidate{a, b}, nil, []*mat.Dense{predict([]Candidate{a}, nil), predict([]Candidate{b}, nil)}},
		{"costs", []Candidate{a}, []float64{a.Cost, b.Cost}, []*mat.Dense{predict([]Candidate{a}, nil), predict([]Candidate{atB}, nil)}},
	} {
		var want mat.Dense
		want.Add(tc.parts[0], tc.parts[1])
		want.Scale(0.5, &want)
		if got := predict(tc.members, tc.costs); !mat.EqualApprox(got, &want, 1e-10) {
			t.Errorf("%s: the average's predictions differ from the mean of its machines'", tc.name)
		}
	}
}

// TestDeepHeldOutReweighed checks that where the deep machine is chosen
// on weighed inputs (a linear target of 5 of 30 inputs on 70 rows), alone
// or averaged with the shallow one, its held-out scores and residuals are
// measured again with each fold's weights: one residual per row, a loss
// above the selection's, whose folds' weights knew their held-out rows,
// and below twice it.
func TestDeepHeldOutReweighed(t *testing.T) {
	for _, seed := range []uint64{4, 6} {
		rnd := rand.New(rand.NewPCG(seed, 31))
		const n, d = 70, 30
		x := mat.NewDense(n, d, nil)
		x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
		y := make([]float64, n)
		for i := range y {
			y[i] = floats.Sum(x.RawRowView(i)[:5]) + 0.5*rnd.NormFloat64()
		}
		md, rep, err := Fit(frameOf(t, x, y), []string{"y"}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Result
		h := res.HeldOut
		if res.Shallow || !byRelevance(res.Relevance) || h == nil {
			t.Fatalf("seed %d: shallow %v, relevance %v, held-out scores %v; want the deep machine chosen on weighed inputs and scored again", seed, res.Shallow, res.Relevance != nil, h)
		}
		if got := len(md.Intervals.Residuals[0]); got != n {
			t.Errorf("seed %d: %d residuals kept, want the %d of the first split's folds", seed, got, n)
		}
		if sel := res.Selection.Candidates[res.Selection.Best].Loss; !(h.Loss > sel && h.Loss < 2*sel) {
			t.Errorf("seed %d (%d machines averaged): held-out mse %.4g measured again, %.4g by the selection; want between it and twice it", seed, len(res.Averaged), h.Loss, sel)
		}
	}
}

// TestFoldReproduces checks that a fold scored again on the weights the
// selection's inputs were weighed by (each input's weight taken from the
// fit's, as for a column left out) gives the selection's own held-out
// predictions: the inputs, anchors, bandwidths and costs are the
// selection's.
func TestFoldReproduces(t *testing.T) {
	p, val, measured, q, f := weighedSelection(t, 7)
	rw := &reweighing{plain: p, weighed: q, measured: slices.Repeat([]float64{math.NaN()}, len(measured))}
	for i, fold := range val.folds[:val.k] {
		out, err := rw.fold(f, false, measured, fold)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(out.pred, f.preds[i], 1e-9) {
			t.Errorf("fold %d: the held-out predictions differ from the selection's", i)
		}
	}
}

// TestDeepFoldReproduces checks that the deep machine's folds scored
// again on the weights the selection's inputs were weighed by give the
// selection's own held-out predictions, each fold's fit the selection's,
// at each cost of the second bandwidth; and that an average with the
// shallow machine gives the average of the selection's held-out
// predictions, each calibrated, as the model averages the machines; both
// shrunk about their means.
func TestDeepFoldReproduces(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 31))
	const n, d = 70, 30
	x := randomData(rnd, n, d)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, floats.Sum(x.RawRowView(i)[:5])+0.2*rnd.NormFloat64())
	}
	s := Settings{Bandwidths: []float64{1, 2}}
	p, val := preparedFor(t, x, y, s)
	if _, err := shallowLoss(p, val, 1, s, nil); err != nil {
		t.Fatal(err)
	}
	measured := relevance(p.pass)
	q, err := weighedBy(p, measured, val, 1, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := selectShallow(q, val, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	arch, costs, bandwidths, err := s.resolve(1)
	if err != nil {
		t.Fatal(err)
	}
	deep := newDeepFolds(val.restrict(q.variants()), val.folds, arch, costs, bandwidths, s)
	if err := deep.run(0, val.k); err != nil {
		t.Fatal(err)
	}
	e := &encodedFit{arch: arch, costs: costs, bandwidths: bandwidths, val: val, sval: val, s: s}
	rw := &reweighing{plain: p, weighed: q, measured: slices.Repeat([]float64{math.NaN()}, d)}
	nf := len(val.folds)
	for c, cost := range costs {
		for _, avg := range []*deepAverage{nil, {weight: 0.25, deepCal: calibration{factor: []float64{0.8}}}} {
			g := *f
			g.deep = avg
			shrink := calibration{factor: []float64{0.9}}
			res := Result{Relevance: measured, Calibration: Calibration{Shrinkage: shrink.factor}}
			if err := rw.deepHeldOut(e, q, &g, Candidate{Cost: cost, Bandwidth: bandwidths[1]}, &res); err != nil {
				t.Fatal(err)
			}
			var want float64
			for k := range val.k {
				h := deep.out[nf+k][c] // the second bandwidth's
				pred, mean := mat.DenseCopyOf(h.pred), mat.NewDense(len(val.folds[k].Test), 1, nil)
				for r := range len(val.folds[k].Test) {
					mean.Set(r, 0, h.mean[0])
				}
				if avg != nil {
					pred = weighed(avg.deepCal.calibrated(pred, mean), f.cal.calibrated(f.preds[k], f.means[k]), avg.weight)
					mean = weighed(mean, f.means[k], 0.5)
				}
				shrink.shrink(pred, mean)
				want += heldOutOf(pred, f.tests[k]).loss / float64(val.k)
			}
			if res.HeldOut == nil || math.Abs(res.HeldOut.Loss-want) > 1e-9*want {
				t.Errorf("cost %g, averaged %v: held-out scores %v, want the loss %.6g of the selection's folds", cost, avg != nil, res.HeldOut, want)
			}
		}
	}
}

// weighedSelection returns sinePass's table of 3 inputs for the seed,
// its validation and relevance weights, the table weighed by them, and
// the shallow selection on it.
func weighedSelection(t *testing.T, seed uint64) (*prepared, *validation, []float64, *prepared, *shallowFit) {
	t.Helper()
	p, val, measured := sinePass(t, seed, 3, 0.3)
	q, err := weighedBy(p, measured, val, 1, Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := selectShallow(q, val, 1, Settings{}, false)
	if err != nil {
		t.Fatal(err)
	}
	return p, val, measured, q, f
}
