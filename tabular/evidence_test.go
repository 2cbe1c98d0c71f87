package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestEvidence checks the evidence at several costs against the
// log-likelihood of the targets' contrasts under the Gaussian model,
// computed densely from the features of the rows, weighted and not, on
// the features themselves and on their coordinates in the rows' span.
func TestEvidence(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 9))
	x, y1 := nearlyLinear(rnd, 30, 3)
	y := mat.NewDense(30, 2, nil)
	for i := range 30 {
		y.Set(i, 0, y1.At(i, 0))
		y.Set(i, 1, math.Cos(2*x.At(i, 1))+0.3*rnd.NormFloat64())
	}
	w := randomWeights(rnd, 30)
	for _, tc := range []struct {
		name    string
		anchors *mat.Dense
		w       []float64
	}{
		{"features", mat.DenseCopyOf(x.Slice(0, 10, 0, 3)), nil},
		{"features, weights", mat.DenseCopyOf(x.Slice(0, 10, 0, 3)), w},
		{"span", x, nil},
	} {
		b, err := newShallowBasis(newShallowInputs(x, tc.anchors, 1, false), medianDistance(tc.anchors), 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.ridge(nil, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		ev := r.evidence(y, r.project(y))
		z := b.z
		if b.span != nil {
			z = new(mat.Dense)
			z.Augment(b.x, b.psi)
		}
		for _, cost := range []float64{1e-4, 0.01, 1, 100} {
			got, want := ev.at(cost), denseEvidence(z, y, tc.w, 30*cost)
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-8, 1e-8) {
				t.Errorf("%s, cost %g: %v, want %v", tc.name, cost, got, want)
			}
		}
	}
}

// denseEvidence returns the log-likelihood, at its maximum over each
// output's noise scale, of the contrasts of the targets y (orthogonal to
// the intercept) under y = b + z beta + noise, beta ~ N(0, s2 / lambda I),
// noise of variance s2 / w_i (w nil: 1), from the rows' covariance.
func denseEvidence(z, y *mat.Dense, w []float64, lambda float64) float64 {
	n, k := y.Dims()
	sw := make([]float64, n)
	for i := range sw {
		sw[i] = 1
		if w != nil {
			sw[i] = math.Sqrt(w[i])
		}
	}
	// A basis of the contrasts: the last n-1 columns of the Q of the
	// QR factorisation of [sqrt(w), I].
	a := mat.NewDense(n, n, nil)
	for i := range n {
		a.Set(i, 0, sw[i])
		if i+1 < n {
			a.Set(i, i+1, 1)
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	c := q.Slice(0, n, 1, n)
	var zw, yw mat.Dense
	zw.Apply(func(i, _ int, v float64) float64 { return v * sw[i] }, z)
	yw.Apply(func(i, _ int, v float64) float64 { return v * sw[i] }, y)
	var cz, cy mat.Dense
	cz.Mul(c.T(), &zw)
	cy.Mul(c.T(), &yw)
	cov := mat.NewSymDense(n-1, nil)
	cov.SymOuterK(1/lambda, &cz)
	for i := range n - 1 {
		cov.SetSym(i, i, cov.At(i, i)+1)
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		panic("denseEvidence: covariance not positive definite")
	}
	dof := float64(n - 1)
	var out float64
	for o := range k {
		col := mat.VecDenseCopyOf(cy.ColView(o))
		var sol mat.VecDense
		if err := ch.SolveVecTo(&sol, col); err != nil {
			panic(err)
		}
		s2 := mat.Dot(col, &sol) / dof
		out += -dof/2*math.Log(2*math.Pi*s2) - ch.LogDet()/2 - dof/2
	}
	return out
}

// TestLogJacobian checks the log-scale targets' log derivative by the
// standardised targets against finite differences.
func TestLogJacobian(t *testing.T) {
	y := mat.NewDense(4, 2, []float64{0, 3, 1.5, 10, 7, 0.2, 20, 4})
	logY := mat.NewDense(4, 2, nil)
	logY.Apply(func(_, _ int, v float64) float64 { return math.Log1p(v) }, y)
	out, logOut := scale.FitScaler(y), scale.FitScaler(logY)
	jac := logJacobian(logY, out, logOut)
	const h = 1e-6
	for i := range 4 {
		var want float64
		for o := range 2 {
			// the standardised log target as a function of the
			// standardised target
			f := func(u float64) float64 {
				raw := u*out.Scale[o] + out.Mean[o]
				return (math.Log1p(raw) - logOut.Mean[o]) / logOut.Scale[o]
			}
			u := (y.At(i, o) - out.Mean[o]) / out.Scale[o]
			want += math.Log((f(u+h) - f(u-h)) / (2 * h))
		}
		if !scalar.EqualWithinAbsOrRel(jac[i], want, 1e-6, 1e-6) {
			t.Errorf("row %d: %v, want %v", i, jac[i], want)
		}
	}
}

// TestRankedByEvidence checks that a regression's bandwidths and the
// costs the folds score are ranked by the evidence, on rows where
// leave-one-out would rank another bandwidth first.
func TestRankedByEvidence(t *testing.T) {
	rnd := rand.New(rand.NewPCG(8, 7))
	x, y := nearlyLinear(rnd, 40, 3)
	sigmas := shallowBandwidths()
	for i := range sigmas {
		sigmas[i] *= medianDistance(x)
	}
	set := shallowSettings{sigmas: sigmas, bases: make([]*shallowBasis, len(sigmas))}
	scored, err := scoreShallow(newShallowInputs(x, x, 1, false), []problemData{{x: x, y: y}}, set, numeric.Indices(len(sigmas)), nil, false, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	type best struct {
		band int
		cand Candidate
	}
	loo, ev := best{band: -1}, best{band: -1}
	for b, bs := range scored {
		for _, c := range bs.cands {
			if !c.evidenced {
				t.Fatalf("bandwidth %d, cost %g: no evidence", b, c.Cost)
			}
			if loo.band < 0 || c.Loss < loo.cand.Loss {
				loo = best{b, c}
			}
			if ev.band < 0 || c.evidence < ev.cand.evidence {
				ev = best{b, c}
			}
		}
	}
	if loo.band == ev.band {
		t.Fatalf("leave-one-out and the evidence both rank bandwidth %d first: the test needs other rows", ev.band)
	}
	if got := bestBandwidths(scored, 1); got[0] != ev.band {
		t.Errorf("bandwidth ranked first %d, want the evidence's %d (leave-one-out's %d)", got[0], ev.band, loo.band)
	}
	if got := nearBest(scored[ev.band].cands, 0); len(got) != 1 || got[0] != ev.cand.Cost {
		t.Errorf("cost the folds score %v, want the evidence's %g", got, ev.cand.Cost)
	}
	// The relevance weights are measured on the machine of the
	// evidence's setting.
	sp := &shallowSpace{anchors: x, sub: []problemData{{x: x, y: y}}, sigmas: sigmas}
	m, _, err := passMachine(&shallowPass{space: sp, bases: set.bases, all: scored}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bandwidth != sigmas[ev.band] {
		t.Errorf("relevance measured at bandwidth %g, want the evidence's %g", m.Bandwidth, sigmas[ev.band])
	}
}

// TestAloneByEvidence checks that the shallow machine alone, chosen by
// leave-one-out's candidates, takes the one of highest evidence.
func TestAloneByEvidence(t *testing.T) {
	x, y := nearlyLinear(rand.New(rand.NewPCG(8, 3)), 40, 3)
	s := Settings{Seed: 2, TargetScale: LinearScale, Extrapolate: true}
	p, val := preparedFor(t, x, y, s)
	f, err := selectShallow(p, val, 1, s, true)
	if err != nil {
		t.Fatal(err)
	}
	loo, ev := -1, -1
	for i, c := range f.sel.Candidates {
		if c.Diverged {
			continue
		}
		if loo < 0 || c.Loss < f.sel.Candidates[loo].Loss {
			loo = i
		}
		if ev < 0 || c.evidence < f.sel.Candidates[ev].evidence {
			ev = i
		}
	}
	if loo == ev {
		t.Fatalf("leave-one-out and the evidence both choose %+v: the test needs other rows", f.sel.Candidates[ev])
	}
	if f.sel.Best != ev {
		t.Errorf("chose %+v, want the evidence's %+v", f.sel.Candidates[f.sel.Best], f.sel.Candidates[ev])
	}
}

// TestEvidenceFor checks which selections are ranked by the evidence:
// a regression's on up to evidenceRows rows.
func TestEvidenceFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    problemData
		rows int
		want bool
	}{
		{"regression", problemData{}, evidenceRows, true},
		{"large regression", problemData{}, evidenceRows + 1, false},
		{"classifier", problemData{labels: []int{0, 1}}, 40, false},
	} {
		if got := evidenceFor(tc.v, tc.rows); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestEvidenceOfScales checks that a candidate's evidence on the log
// scale is that of the log scale's targets with the Jacobian of the map
// from the standardised targets, so that the two scales compare: the
// evidence prefers the scale on which the noise is Gaussian, the log
// scale for targets exp(f(x) + noise) - 1, the linear one for f(x) +
// noise.
func TestEvidenceOfScales(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  bool
	}{
		{"log-normal", true},
		{"normal", false},
	} {
		rnd := rand.New(rand.NewPCG(4, 4))
		x := mat.NewDense(60, 2, nil)
		x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
		y := mat.NewDense(60, 1, nil)
		for i := range 60 {
			f := 5 + x.At(i, 0) - 0.5*x.At(i, 1) + 0.4*rnd.NormFloat64()
			if tc.log {
				f = math.Expm1(f)
			}
			y.Set(i, 0, f)
		}
		p, err := prepare(x, y, nil, Settings{TargetScale: LogScale}, true)
		if err != nil {
			t.Fatal(err)
		}
		px := p.linear.x.(*mat.Dense)
		set := shallowSettings{sigmas: []float64{medianDistance(px)}, bases: make([]*shallowBasis, 1)}
		scored, err := scoreShallow(newShallowInputs(px, px, 1, false), []problemData{p.linear, p.logarithmic}, set, []int{0}, nil, false, 1, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		logY := mat.DenseCopyOf(y)
		logY.Apply(func(_, _ int, v float64) float64 { return math.Log1p(v) }, logY)
		r := set.bases[0].all
		ev := r.evidence(p.logarithmic.fitY, r.project(p.logarithmic.fitY))
		jac := floats.Sum(logJacobian(logY, p.out, p.logOut))
		best := [2]float64{math.Inf(1), math.Inf(1)}
		for _, c := range scored[0].cands {
			i := 0
			if c.LogTarget {
				i = 1
				if want := -(ev.at(c.Cost) + jac) / 60; !scalar.EqualWithinAbsOrRel(c.evidence, want, 1e-10, 1e-10) {
					t.Errorf("%s, cost %g: %v on the log scale, want %v", tc.name, c.Cost, c.evidence, want)
				}
			}
			best[i] = math.Min(best[i], c.evidence)
		}
		if got := best[1] < best[0]; got != tc.log {
			t.Errorf("%s: negative log evidence per row %.4g on the linear scale, %.4g on the log scale", tc.name, best[0], best[1])
		}
	}
}

// TestRelevanceByEvidence checks that a small regression keeps its
// relevance weights by their evidence: on these rows the weights'
// leave-one-out loss, recorded, is not lower than the inputs', and the
// weights are kept.
func TestRelevanceByEvidence(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 5))
	const n = 50
	x, y := randomData(rnd, n, 6), mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, x.At(i, 0)+0.5*x.At(i, 1)*x.At(i, 1)+0.7*rnd.NormFloat64())
	}
	_, res, err := FitRegression(x, y, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	l, e := res.RelevanceLosses, res.RelevanceEvidence
	if len(l) != 2 || lowerLoss(l[1], l[0]) {
		t.Fatalf("relevance losses %v: the test needs the weights' leave-one-out loss no lower", l)
	}
	if res.Relevance == nil {
		t.Errorf("weights not kept at leave-one-out losses %v; want them kept by their evidence", l)
	}
	if len(e) != 2 || !lowerLoss(e[1], e[0]) {
		t.Errorf("recorded evidence %v, want the lower one with the weights, which chose", e)
	}
	// The model's summary says what chose.
	md, rep := fitText(t, tableText(x, y))
	if md.Fit.RelevanceEvidence == nil || !slices.ContainsFunc(rep.Summary(md), func(l string) bool { return strings.Contains(l, "negative log evidence per row") }) {
		t.Errorf("the model records evidence %v, its summary %q; want the evidence that chose the weights", md.Fit.RelevanceEvidence, rep.Summary(md))
	}
	// Above evidenceRows rows leave-one-out chooses, and no evidence is
	// recorded.
	const many = 2 * evidenceRows
	x, y = randomData(rnd, many, 3), mat.NewDense(many, 1, nil)
	for i := range many {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+0.1*rnd.NormFloat64())
	}
	if _, res, err = FitRegression(x, y, Settings{Family: Shallow}); err != nil || res.RelevanceLosses == nil || res.RelevanceEvidence != nil {
		t.Errorf("%d rows: relevance losses %v, evidence %v, error %v; want losses alone", many, res.RelevanceLosses, res.RelevanceEvidence, err)
	}
}

// nearlyLinear returns n rows of d standard normal inputs and a target
// that is linear in them, with a slight curve and noise: a table that
// wants its linear part free and its kernel part held down.
func nearlyLinear(rnd *rand.Rand, n, d int) (x, y *mat.Dense) {
	x = mat.NewDense(n, d, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
	y = mat.NewDense(n, 1, nil)
	for i := range n {
		v := 0.1 * math.Sin(3*x.At(i, 0))
		for j := range d {
			v += x.At(i, j) / float64(j+1)
		}
		y.Set(i, 0, v+0.7*rnd.NormFloat64())
	}
	return x, y
}
