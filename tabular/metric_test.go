package tabular

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// centralMoments returns the expected gradient outer product of predict
// over the rows of x by central differences of its predictions.
func centralMoments(predict func(*mat.Dense) *mat.Dense, x *mat.Dense) *mat.Dense {
	const h = 1e-5
	n, d := x.Dims()
	var grads []*mat.Dense // per row, outputs x inputs
	for i := range n {
		var g *mat.Dense
		for j := range d {
			row := mat.DenseCopyOf(x.Slice(i, i+1, 0, d))
			row.Set(0, j, x.At(i, j)+h)
			up := predict(row)
			row.Set(0, j, x.At(i, j)-h)
			down := predict(row)
			_, k := up.Dims()
			if g == nil {
				g = mat.NewDense(k, d, nil)
			}
			for o := range k {
				g.Set(o, j, (up.At(0, o)-down.At(0, o))/(2*h))
			}
		}
		grads = append(grads, g)
	}
	moments := mat.NewDense(d, d, nil)
	for _, g := range grads {
		var outer mat.Dense
		outer.Mul(g.T(), g)
		moments.Add(moments, &outer)
	}
	moments.Scale(1/float64(n), moments)
	return moments
}

// TestGradientMoments checks the closed-form expected gradient outer
// product of a shallow machine of two outputs against central
// differences of its predictions.
func TestGradientMoments(t *testing.T) {
	rnd := rand.New(rand.NewPCG(6, 3))
	const n, d, na, k = 12, 3, 5, 2
	m := &kernel.Machine{Architecture: kernel.Architecture{Dims: []int{d, k}, Bandwidth: 0.9}, InputBlock: true,
		A: randomData(rnd, k, d), C: randomData(rnd, k, na), Anchors: randomData(rnd, na, d)}
	x := randomData(rnd, n, d)
	check := func(name string, got mat.Matrix, want *mat.Dense) {
		t.Helper()
		for i := range d {
			for j := range d {
				if g, w := got.At(i, j), want.At(i, j); math.Abs(g-w) > 1e-6*(1+math.Abs(w)) {
					t.Errorf("%s: moment (%d, %d) %v, central differences %v", name, i, j, g, w)
				}
			}
		}
	}
	got := gradientMoments(m, x)
	check("machine", got, centralMoments(func(r *mat.Dense) *mat.Dense { return m.Predict(nil, r) }, x))
}

// TestInputMap checks the map of the moments M: (M / mean eigenvalue)^p
// with p = metricPower, so that L^(1/p) is M scaled, and its inverse;
// and that a machine fitted on the mapped inputs, shallow or deep,
// predicts on the inputs themselves what it predicts on the mapped ones.
func TestInputMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 8))
	const d, na, k = 3, 6, 2
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, randomData(rnd, d, d))
	for i := range d {
		s.SetSym(i, i, s.At(i, i)+0.5) // well conditioned: no floor
	}
	im := newInputMap(s)
	var eig mat.EigenSym
	eig.Factorize(s, true)
	values := eig.Values(nil)
	mean := (values[0] + values[1] + values[2]) / 3
	// L^(1/p) by the eigendecomposition of L.
	var leig mat.EigenSym
	leig.Factorize(mat.NewSymDense(d, im.l.RawMatrix().Data), true)
	lv := leig.Values(nil)
	var vec mat.Dense
	leig.VectorsTo(&vec)
	back := mat.DenseCopyOf(&vec)
	back.Apply(func(_, j int, v float64) float64 { return v * math.Pow(lv[j], 1/metricPower) }, back)
	var root, id mat.Dense
	root.Mul(back, vec.T())
	id.Mul(im.l, im.inv)
	for i := range d {
		for j := range d {
			if g, w := root.At(i, j), s.At(i, j)/mean; math.Abs(g-w) > 1e-9 {
				t.Errorf("L^(1/p) (%d, %d) = %v, want M / mean eigenvalue %v", i, j, g, w)
			}
			if g, w := id.At(i, j), float64(boolInt(i == j)); math.Abs(g-w) > 1e-9 {
				t.Errorf("L L^-1 (%d, %d) = %v, want %v", i, j, g, w)
			}
		}
	}

	x := randomData(rnd, 7, d)
	var z mat.Dense
	z.Mul(x, im.l)
	for _, km := range []*kernel.Machine{
		{Architecture: kernel.Architecture{Dims: []int{d, k}, Bandwidth: 0.7}, InputBlock: true,
			A: randomData(rnd, k, d), C: randomData(rnd, k, na), Anchors: randomData(rnd, na, d)},
		{Architecture: kernel.Architecture{Dims: []int{2, 2, k}, Bandwidth: 0.7},
			A: randomData(rnd, 2+2+k, d), C: randomData(rnd, 2+k, na), Anchors: randomData(rnd, na, d)},
	} {
		want := km.Predict(nil, &z)
		got := im.machine(km).Predict(nil, x)
		if !mat.EqualApprox(got, want, 1e-9) {
			t.Errorf("dims %v: mapped machine predicts %v on x, want %v on L x", km.Dims, mat.Formatted(got), mat.Formatted(want))
		}
	}
	// A sum of machines, each mapped.
	shallow := func() *kernel.Machine {
		return &kernel.Machine{Architecture: kernel.Architecture{Dims: []int{d, k}, Bandwidth: 0.6}, InputBlock: true,
			A: randomData(rnd, k, d), C: randomData(rnd, k, na), Anchors: randomData(rnd, na, d)}
	}
	sum := &Machine{Machine: shallow(), Sum: []*kernel.Machine{shallow(), shallow()}}
	want := sum.Predict(nil, &z)
	im.machines(sum)
	if got := sum.Predict(nil, x); !mat.EqualApprox(got, want, 1e-9) {
		t.Errorf("mapped sum predicts %v on x, want %v on L x", mat.Formatted(got), mat.Formatted(want))
	}
	if got := (*inputMap)(nil).machine(nil); got != nil {
		t.Errorf("the nil map changed the machine")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestMapInputs checks the metric on y = sin(3 (x0 + x1)) beside two
// inputs of noise: a direction that no input's weight finds. The map is
// kept at a lower held-out loss than the inputs' own, the machine holds
// it and predicts its rows, and encodes; a classifier of the sign of y
// is mapped too; one input, LinearInputs and the Shallow family are never
// mapped.
func TestMapInputs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 7))
	const n = 120
	x, y := randomData(rnd, n, 4), mat.NewDense(n, 1, nil)
	labels := make([]int, n)
	for i := range n {
		y.Set(i, 0, math.Sin(3*(x.At(i, 0)+x.At(i, 1)))+0.05*rnd.NormFloat64())
		if y.At(i, 0) > 0 {
			labels[i] = 1
		}
	}
	m, res, err := FitRegression(x, y, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if l := res.MetricLosses; !res.Metric || len(l) < 2 || !(l[1] < l[0]) {
		t.Fatalf("metric %v at held-out losses %v, want the map, at a lower loss", res.Metric, l)
	}
	if m.InputBlock {
		t.Error("the mapped machine's first block is the input itself")
	}
	if _, err := json.Marshal(m); err != nil {
		t.Errorf("the mapped machine does not encode: %v", err)
	}
	if r2 := stat.RSquaredFrom(mat.Col(nil, 0, m.Predict(nil, x)), mat.Col(nil, 0, y), nil); r2 < 0.9 {
		t.Errorf("training R^2 %.3f of the mapped machine, want at least 0.9", r2)
	}
	// The same rows as a table: the summary says so.
	md, rep := fitText(t, tableText(x, y))
	if want := "inputs mapped by their metric"; !rep.Result.Metric || !slices.ContainsFunc(rep.Summary(md), func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("the summary %q does not say %q", rep.Summary(md), want)
	}
	_, res, err = FitClassifier(x, labels, 2, Settings{})
	if err != nil || res.MetricLosses == nil {
		t.Errorf("classifier: metric losses %v, error %v; want the metric measured", res.MetricLosses, err)
	}
	for _, tc := range []struct {
		name string
		x    mat.Matrix
		s    Settings
	}{
		{"linear inputs", x, Settings{InputScale: LinearInputs}},
		{"shallow family", x, Settings{Family: Shallow}},
	} {
		_, res, err := FitRegression(tc.x, y, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Metric || res.MetricLosses != nil {
			t.Errorf("%s: mapped (losses %v)", tc.name, res.MetricLosses)
		}
	}
}

// TestMapInputsHeldOut checks that each fold's metric is measured on its
// training rows alone: on a noisy linear target beside seven inputs of
// noise, a metric measured on all the rows lowers the folds' loss by more
// than a tenth (it has fitted their noise), where the folds' own leave it
// within a few percent, and the inputs are not mapped.
func TestMapInputsHeldOut(t *testing.T) {
	for _, seed := range []uint64{3, 5} {
		rnd := rand.New(rand.NewPCG(seed, 3))
		const n = 60
		x, y := randomData(rnd, n, 8), mat.NewDense(n, 1, nil)
		for i := range n {
			y.Set(i, 0, x.At(i, 0)+rnd.NormFloat64())
		}
		_, res, err := FitRegression(x, y, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if l := res.MetricLosses; res.Metric || len(l) != 2 || !(l[1] > 0.95*l[0]) {
			t.Errorf("seed %d: metric %v at held-out losses %v, want no map, its loss within 5%% of the inputs'", seed, res.Metric, l)
		}
	}
}

// TestMetricStretch checks that a metric that nearly drops a direction
// the data vary in, that of two inputs nearly equal, is not judged on the
// folds: its stretch is beyond metricMaxStretch, and the fit records no
// losses of it.
func TestMetricStretch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 2))
	const n = 80
	x, y := randomData(rnd, n, 3), mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 2, x.At(i, 0)+1e-6*rnd.NormFloat64())
		y.Set(i, 0, math.Sin(2*x.At(i, 0))+x.At(i, 1)+0.1*rnd.NormFloat64())
	}
	var progress strings.Builder
	_, res, err := FitRegression(x, y, Settings{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metric || res.MetricLosses != nil || !strings.Contains(progress.String(), "not judged") {
		t.Errorf("metric %v, losses %v; want it not judged, beyond a stretch of %d (progress %q)", res.Metric, res.MetricLosses, metricMaxStretch, progress.String())
	}
}

// TestCrossFittedWorkers checks that crossFitted's folds, measured in
// parallel, give the outcome of one worker bit for bit, their moments
// those of each fold's own machine summed in the folds' order; and that
// the folds decide in their order: a fold without a metric before one
// that failed gives no metric and no error, the other way round the
// error.
func TestCrossFittedWorkers(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 7))
	const n = 120
	x, y := randomData(rnd, n, 4), mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Sin(2*(x.At(i, 0)+x.At(i, 1)))+0.05*rnd.NormFloat64())
	}
	p, err := prepare(x, y, nil, Settings{}, true)
	if err != nil {
		t.Fatal(err)
	}
	val, err := newValidation(p.linear, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shallowLoss(p, val, 1, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	want := mat.NewSymDense(4, nil)
	for _, f := range val.folds[:val.k] {
		km, xf, err := passMachine(p.pass, 1, f.Train)
		if err != nil {
			t.Fatal(err)
		}
		want.AddSym(want, gradientMoments(km, xf))
	}
	var losses [][2]float64
	for _, workers := range []int{1, 3} {
		l, m, err := crossFitted(p, val, 1, Settings{Workers: workers})
		if err != nil || l == nil {
			t.Fatalf("%d workers: losses %v, error %v", workers, l, err)
		}
		if !mat.Equal(m, want) {
			t.Errorf("%d workers: the moments are not the folds' summed in order", workers)
		}
		losses = append(losses, *l)
	}
	if losses[0] != losses[1] {
		t.Errorf("held-out losses %v with 1 worker, %v with 3", losses[0], losses[1])
	}
	failed := foldMetric{err: errors.New("failed")}
	ok := foldMetric{moments: want, losses: [2][]float64{{1}, {1}}}
	for _, tc := range []struct {
		name  string
		folds []foldMetric
		err   bool
	}{
		{"flat first", []foldMetric{ok, {}, failed}, false},
		{"failed first", []foldMetric{ok, failed, {}}, true},
	} {
		l, m, err := sumFolds(tc.folds, 4)
		if l != nil || m != nil || (err != nil) != tc.err {
			t.Errorf("%s: losses %v, moments %v, error %v; want none, error %v", tc.name, l, m != nil, err, tc.err)
		}
	}
}

// TestFoldWithPlain checks how a fold's outcome combines measureFold's
// and scorePlain's: no machine or a flat metric first, then the plain
// inputs' error, then the mapped inputs', else both losses.
func TestFoldWithPlain(t *testing.T) {
	moments := mat.NewSymDense(1, []float64{1})
	errPlain, errMachine, errMapped := errors.New("plain"), errors.New("machine"), errors.New("mapped")
	plain := foldMetric{losses: [2][]float64{{2}}}
	for _, tc := range []struct {
		name        string
		fold, plain foldMetric
		err         error
		moments     bool
	}{
		{"no machine", foldMetric{err: errMachine}, foldMetric{err: errPlain}, errMachine, false},
		{"flat", foldMetric{}, foldMetric{err: errPlain}, nil, false},
		{"plain failed", foldMetric{moments: moments, err: errMapped}, foldMetric{err: errPlain}, errPlain, false},
		{"mapped failed", foldMetric{moments: moments, err: errMapped}, plain, errMapped, false},
		{"both scored", foldMetric{moments: moments, losses: [2][]float64{nil, {3}}}, plain, nil, true},
	} {
		got := tc.fold.with(tc.plain)
		if got.err != tc.err || (got.moments != nil) != tc.moments {
			t.Errorf("%s: error %v, moments %v; want %v, %v", tc.name, got.err, got.moments != nil, tc.err, tc.moments)
		}
		if tc.moments && (got.losses[0][0] != 2 || got.losses[1][0] != 3) {
			t.Errorf("%s: losses %v, want [[2] [3]]", tc.name, got.losses)
		}
	}
}
