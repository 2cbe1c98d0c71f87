package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNearLinear checks when the linear machine is near the chosen one:
// by the log Bayes factor where both have an evidence, else by the
// held-out losses, the chosen one's after its relevance weights or of
// its encoding, and never without a loss of the chosen machine.
func TestNearLinear(t *testing.T) {
	ev := func(e, loss float64) Candidate { return Candidate{Loss: loss, evidence: e, evidenced: true} }
	for _, tc := range []struct {
		name string
		lin  Candidate
		res  Result
		n    int
		want bool
	}{
		{"evidence within the gap", ev(1.05, 9), Result{RelevanceEvidence: []float64{1.2, 1}, RelevanceLosses: []float64{1, 1}}, 100, true},
		{"evidence just within the gap", ev(1.075, 9), Result{RelevanceEvidence: []float64{1.2, 1}, RelevanceLosses: []float64{1, 1}}, 100, true},
		{"evidence beyond the gap", ev(1.1, 1), Result{RelevanceEvidence: []float64{1.2, 1}, RelevanceLosses: []float64{1, 1}}, 100, false},
		{"the same gap on fewer rows", ev(1.1, 9), Result{RelevanceEvidence: []float64{1.2, 1}, RelevanceLosses: []float64{1, 1}}, 50, true},
		{"higher evidence", ev(0.5, 9), Result{RelevanceEvidence: []float64{1.2, 1}}, 100, true},
		{"no evidence of the chosen one: losses", ev(0, 1.1), Result{RelevanceLosses: []float64{1.2, 1}}, 100, true},
		{"losses beyond the noise", Candidate{Loss: 1.3}, Result{RelevanceLosses: []float64{1.2, 1}}, 100, false},
		{"losses of the encodings", Candidate{Loss: 1.3}, Result{InputLosses: []float64{1.2, 1.25}}, 100, true},
		{"losses of the encodings on more rows", Candidate{Loss: 1.3}, Result{InputLosses: []float64{1.2, 1.25}}, 1000, false},
		{"relevance before the encodings", Candidate{Loss: 1.3}, Result{RelevanceLosses: []float64{1.2, 1}, InputLosses: []float64{1.3, 1.25}}, 100, false},
		{"a lower loss", Candidate{Loss: 0.5}, Result{RelevanceLosses: []float64{1.2, 1}}, 1000, true},
		{"no loss to compare", Candidate{Loss: 0.5}, Result{}, 100, false},
	} {
		if got := nearLinear(tc.lin, tc.res, tc.n); got != tc.want {
			t.Errorf("%s: nearLinear %v, want %v", tc.name, got, tc.want)
		}
	}
}

// linearRows returns n rows of d inputs and a target linear in them,
// with noise, for a count-like target one of small positive integers.
func linearRows(n, d int, counts bool, seed uint64) (*mat.Dense, *mat.Dense) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	x, y := mat.NewDense(n, d, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		var v float64
		for j := range d {
			x.Set(i, j, rnd.NormFloat64())
			v += float64(j+1) * x.At(i, j) / float64(d)
		}
		v += 0.5 * rnd.NormFloat64()
		if counts {
			v = math.Round(math.Exp(1 + 0.5*v))
		}
		y.Set(i, 0, v)
	}
	return x, y
}

// TestHedgeLinear checks the linear machine of the inputs as they are:
// a ridge regression on the standardised inputs at one of the shallow
// machine's costs, with no kernel part and no quantiles, on the scale of
// the targets the chosen machine fits; and that it is left out for a
// classifier, another family, a raw fit, a table of more than
// blendMaxRows rows, a fit that did not compare the inputs' encodings
// and a chosen machine far from it.
func TestHedgeLinear(t *testing.T) {
	near := Result{RelevanceLosses: []float64{10, 10}, InputLosses: []float64{10, 10}}
	x, y := linearRows(60, 3, false, 1)
	p, err := prepare(x, y, nil, Settings{}, true)
	if err != nil {
		t.Fatal(err)
	}
	m, err := hedgeLinear(p, near, 1, Settings{})
	if err != nil || m == nil {
		t.Fatalf("linear machine %v, error %v; want one", m, err)
	}
	if m.Quantiles != nil || m.Input != p.in || m.LogTarget || mat.Norm(m.C, 1) != 0 {
		t.Errorf("quantiles %v, input scaler %v (want %v), log target %v, kernel coefficients %v: want a linear machine of the standardised inputs", m.Quantiles, m.Input, p.in, m.LogTarget, mat.Formatted(m.C))
	}
	if !ridgeAtACost(p.linear.x, p.linear.y, m.A) {
		t.Errorf("coefficients %v are the ridge regression's at none of the costs", mat.Formatted(m.A))
	}
	// Far outside the rows, its predictions keep to the targets' range
	// widened by RangeMargin, as the chosen machine's do.
	hi, lo := mat.Max(y), mat.Min(y)
	if v := m.Predict(nil, mat.NewDense(1, 3, []float64{1e3, 1e3, 1e3})).At(0, 0); v > hi+RangeMargin*(hi-lo)+1e-9 {
		t.Errorf("prediction %g far outside the rows, want at most %g", v, hi+RangeMargin*(hi-lo))
	}
	if far, _ := hedgeLinear(p, Result{RelevanceLosses: []float64{0.01, 0.01}, InputLosses: []float64{0.01, 0.01}}, 1, Settings{}); far != nil {
		t.Error("a linear machine far from the chosen one averaged")
	}
	if m, _ := hedgeLinear(p, Result{RelevanceLosses: near.RelevanceLosses}, 1, Settings{}); m != nil {
		t.Error("a linear machine averaged where the inputs' encodings were not compared")
	}
	for name, s := range map[string]Settings{"shallow family": {Family: Shallow}, "raw": {Raw: true}} {
		q, err := prepare(x, y, nil, s, true)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := hedgeLinear(q, near, 1, s); m != nil || err != nil {
			t.Errorf("%s: linear machine %v, error %v; want none", name, m != nil, err)
		}
	}
	labels := make([]int, 60)
	for i := range labels {
		labels[i] = i % 2
	}
	if q, err := prepare(x, nil, labels, Settings{}, true); err != nil {
		t.Fatal(err)
	} else if m, err := hedgeLinear(q, near, 2, Settings{}); m != nil || err != nil {
		t.Errorf("classifier: linear machine %v, error %v; want none", m != nil, err)
	}
	for _, n := range []int{blendMaxRows, blendMaxRows + 1} {
		bx, by := linearRows(n, 2, false, 2)
		q, err := prepare(bx, by, nil, Settings{}, true)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := hedgeLinear(q, near, 1, Settings{}); (m != nil) != (n <= blendMaxRows) || err != nil {
			t.Errorf("%d rows: linear machine %v, error %v; want one up to %d rows", n, m != nil, err, blendMaxRows)
		}
	}
	// On the log scale, when the chosen machine fits it.
	cx, cy := linearRows(60, 3, true, 3)
	q, err := prepare(cx, cy, nil, Settings{}, true)
	if err != nil || q.scale != AutoScale {
		t.Fatalf("targets on scale %v, error %v; want both scales tried", q.scale, err)
	}
	near.LogTarget = true
	if m, err := hedgeLinear(q, near, 1, Settings{}); err != nil || m == nil || !m.LogTarget || !ridgeAtACost(q.logarithmic.x, q.logarithmic.targets(), m.A) {
		t.Errorf("log target: linear machine %v, error %v; want one fitted on the log scale", m != nil && m.LogTarget, err)
	}
}

// ridgeAtACost reports whether a (1 x d) holds the coefficients of the
// ridge regression of y on x, both centred, at one of shallowCosts: the
// solution of (X^T X + n cost I) b = X^T y.
func ridgeAtACost(x, y mat.Matrix, a *mat.Dense) bool {
	n, d := x.Dims()
	xc, yc := mat.DenseCopyOf(x), mat.DenseCopyOf(y)
	for _, m := range []*mat.Dense{xc, yc} {
		_, c := m.Dims()
		for j := range c {
			col := mat.Col(nil, j, m)
			mean := 0.0
			for _, v := range col {
				mean += v / float64(n)
			}
			for i := range n {
				m.Set(i, j, m.At(i, j)-mean)
			}
		}
	}
	for _, cost := range shallowCosts() {
		var g mat.SymDense
		g.SymOuterK(1, xc.T())
		for j := range d {
			g.SetSym(j, j, g.At(j, j)+float64(n)*cost)
		}
		var rhs, b mat.Dense
		rhs.Mul(xc.T(), yc)
		if err := b.Solve(&g, &rhs); err != nil {
			continue
		}
		if mat.EqualApprox(&b, a.T(), 1e-8) {
			return true
		}
	}
	return false
}

// TestFitLinearHedge checks fits of a linear table and of a table far
// from linear: the first predicts the average of its machines with the
// linear machine, weighing linearWeight, records the weight and says so
// in its summary; the second stands without it.
func TestFitLinearHedge(t *testing.T) {
	x, y := linearRows(40, 3, false, 4)
	md, rep := fitText(t, tableText(x, y))
	m := md.Machine
	if m.Linear == nil || m.LinearWeight != linearWeight || md.Fit.LinearWeight != linearWeight {
		t.Fatalf("linear machine %v weighing %v (recorded %v), want one weighing %v", m.Linear != nil, m.LinearWeight, md.Fit.LinearWeight, linearWeight)
	}
	want := "averaged with the linear machine of the inputs as they are, weighing 0.25"
	if !slices.ContainsFunc(rep.Summary(md), func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("summary %q, want a line %q", rep.Summary(md), want)
	}
	got, avg := m.Predict(nil, x), averaged(m, x)
	for i := range 40 {
		if w := avg.At(i, 0); math.Abs(got.At(i, 0)-w) > 1e-12*math.Abs(w)+1e-12 {
			t.Fatalf("row %d: prediction %v, want %v", i, got.At(i, 0), w)
		}
	}

	rnd := rand.New(rand.NewPCG(5, 5))
	const n = 150
	sx, sy := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		a, b := 2*rnd.Float64()-1, rnd.Float64()
		sx.Set(i, 0, a)
		sx.Set(i, 1, b)
		sy.Set(i, 0, math.Sin(6*a)+0.05*rnd.NormFloat64())
	}
	if m, res, err := FitRegression(sx, sy, Settings{}); err != nil || m.Linear != nil || res.LinearWeight != 0 {
		t.Errorf("a sine: linear machine %v weighing %v, error %v; want none", m != nil && m.Linear != nil, res.LinearWeight, err)
	}
}

// TestBestCost checks the choice of a cost among several on one basis:
// a cost at which leaving a row out is undefined (0, where the features
// interpolate the rows) is passed over, and with no other cost none is
// found.
func TestBestCost(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 7))
	x, y := mat.NewDense(6, 12, nil), mat.NewDense(6, 1, nil)
	for i := range 6 {
		for j := range 12 {
			x.Set(i, j, rnd.NormFloat64())
		}
		y.Set(i, 0, x.At(i, 0)+0.1*rnd.NormFloat64())
	}
	p, err := prepare(x, y, nil, Settings{}, true)
	if err != nil {
		t.Fatal(err)
	}
	d := p.linear
	b, err := newShallowBasis(newShallowInputs(mat.DenseCopyOf(d.x), pickRows(d.x, []int{0}), 1, false), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ridge(nil, d.w)
	if err != nil {
		t.Fatal(err)
	}
	vs := (&shallowScorer{parts: []scorerPart{{r: r}}, outputs: 1}).on(d)
	lower := func(a, b Candidate) bool { return a.Loss < b.Loss }
	if c, found := vs.bestCost(Candidate{Shallow: true}, []float64{0}, lower); found {
		t.Errorf("cost 0 alone: found %+v, want none", c)
	}
	costs := []float64{0, 100, 1e-2, 1e-4}
	best, found := vs.bestCost(Candidate{Shallow: true}, costs, lower)
	if !found || best.Diverged {
		t.Fatalf("found %v, %+v; want a cost that did not diverge", found, best)
	}
	for _, cost := range costs[1:] {
		if c := vs.score(Candidate{Cost: cost, Shallow: true}); c.Loss < best.Loss {
			t.Errorf("cost %g: loss %g, below the chosen cost %g's %g", cost, c.Loss, best.Cost, best.Loss)
		}
	}
}
