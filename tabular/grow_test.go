package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// TestAnchorGrowth checks the counts of anchors that a fit tries beyond
// ShallowAnchors: none on at most ShallowAnchors rows, every one of them
// an anchor already, else doublings up to streamAnchorsMax, the last
// cut to the rows, and beyond it within growMax, growShare and growCells.
func TestAnchorGrowth(t *testing.T) {
	for _, tc := range []struct {
		n, inputs int
		want      []int
	}{
		{80, 3, nil},
		{ShallowAnchors, 3, nil},
		{ShallowAnchors + 1, 3, []int{ShallowAnchors + 1}},
		{150, 3, []int{150}},
		{200, 3, []int{200}},
		{300, 3, []int{200, 300}},
		{SelectionRows, 3, []int{200, 400}},
		{SelectionRows + 1, 3, []int{200, 400}},
		{999, 3, []int{200, 400}},
		{1599, 3, []int{200, 400}},
		{1600, 3, []int{200, 400, 800}},
		{3199, 3, []int{200, 400, 800}},
		{3200, 3, []int{200, 400, 800, 1600}},
		{9000, 3, []int{200, 400, 800, 1600}}, // not 3,200: growMax
		{9950, 200, []int{200, 400, 800, 1600}},
		{9950, 1800, []int{200, 400, 800}},
		{19000, 3, []int{200, 400, 800, 1600}},
		{20000, 3, []int{200, 400, 800}},
		{19000, 2000, []int{200, 400}},
	} {
		if got := anchorGrowth(tc.n, tc.inputs); !slices.Equal(got, tc.want) {
			t.Errorf("%d rows of %d inputs: counts %v, want %v", tc.n, tc.inputs, got, tc.want)
		}
	}
}

// rippledPlane returns n rows of two inputs in the unit square whose
// target is a product of sines of period 1/2 in each, plus noise of
// standard deviation noise: more detail than ShallowAnchors anchors
// spread over the square can follow.
func rippledPlane(rnd *rand.Rand, n int, noise float64) (x, y *mat.Dense) {
	x, y = mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		u, v := rnd.Float64(), rnd.Float64()
		x.SetRow(i, []float64{u, v})
		y.Set(i, 0, math.Sin(4*math.Pi*u)*math.Sin(4*math.Pi*v)+noise*rnd.NormFloat64())
	}
	return x, y
}

// TestGrowAnchors checks that a shallow machine is fitted to all the
// rows with more anchors where their leave-one-out loss falls with the
// count (a rippled plane), whether the selection ran on a subsample or
// on all of them, with ShallowAnchors where it does not (noise alone),
// with the count that Settings.Anchors sets, and with ShallowAnchors
// when the selection ran on grouped folds; where they grew, the cost is
// re-chosen on all the rows.
func TestGrowAnchors(t *testing.T) {
	if testing.Short() {
		t.Skip("fits of 3,000 rows")
	}
	const n = 3000
	groups := make([]int, n)
	for i := range groups {
		groups[i] = i / 10
	}
	for _, tc := range []struct {
		name  string
		noise float64
		s     Settings
		rows  int
		want  func(int) bool
	}{
		{"rippled", 0.1, Settings{}, n, func(m int) bool { return m > ShallowAnchors }},
		{"noise", 0, Settings{}, n, func(m int) bool { return m == ShallowAnchors }},
		{"set", 0.1, Settings{Anchors: 50}, n, func(m int) bool { return m == 50 }},
		{"grouped", 0.1, Settings{Groups: groups}, n, func(m int) bool { return m == ShallowAnchors }},
		{"whole", 0.1, Settings{}, 300, func(m int) bool { return m > ShallowAnchors }},
		{"whole noise", 0, Settings{}, 300, func(m int) bool { return m == ShallowAnchors }},
	} {
		x, y := rippledPlane(rand.New(rand.NewPCG(5, 6)), tc.rows, tc.noise)
		if tc.noise == 0 {
			rnd := rand.New(rand.NewPCG(7, 8))
			for i := range tc.rows {
				y.Set(i, 0, rnd.NormFloat64())
			}
		}
		s := tc.s
		s.Family, s.Seed = Shallow, 1
		m, res, err := FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		anchors, _ := m.Machine.Anchors.Dims()
		if !tc.want(res.Anchors) || anchors != res.Anchors {
			t.Errorf("%s: %d anchors reported, %d in the machine", tc.name, res.Anchors, anchors)
		}
		if res.Anchors > ShallowAnchors && res.CostRows != tc.rows {
			t.Errorf("%s: %d anchors, the cost re-chosen on %d rows, want %d", tc.name, res.Anchors, res.CostRows, tc.rows)
		}
	}
}

// TestLossFallBeyondNoise checks the margins by which a larger count of
// anchors must lower the rows' leave-one-out losses: growErrors standard
// errors of their paired differences, which a fixed fraction of the loss
// or a mere fall would not ask, and growMargin of the loss.
func TestLossFallBeyondNoise(t *testing.T) {
	best := []float64{1, 1, 1, 1}
	for _, tc := range []struct {
		name  string
		diffs []float64 // best - next, row by row
		w     []float64
		want  bool
	}{
		{"steady fall", []float64{0.1, 0.1, 0.1, 0.1}, nil, true},
		{"no fall", []float64{0, 0, 0, 0}, nil, false},
		{"rise", []float64{-0.1, -0.1, -0.1, -0.1}, nil, false},
		// Mean 0.05, standard error 0.144.
		{"fall within the noise", []float64{0.3, -0.2, 0.3, -0.2}, nil, false},
		// Mean 0.1, standard error 0.087.
		{"fall beyond one error", []float64{0.25, -0.05, 0.25, -0.05}, nil, growErrors <= 1},
		// Beyond its noise, but by less than growMargin of the loss.
		{"fall below the margin", []float64{0.002, 0.002, 0.002, 0.002}, nil, false},
		// The last row, of weight 0, counts for nothing.
		{"weighed", []float64{0.1, 0.1, 0.1, 0.1, -5}, []float64{1, 1, 1, 1, 0}, true},
		{"NaN", []float64{math.NaN(), 0.1, 0.1, 0.1}, nil, false},
	} {
		b := slices.Clone(best)
		for len(b) < len(tc.diffs) {
			b = append(b, 1)
		}
		next := make([]float64, len(b))
		for i, d := range tc.diffs {
			next[i] = b[i] - d
		}
		if _, got := lossFall(next, b, tc.w); got != tc.want {
			t.Errorf("%s: beyond the noise %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRowLosses checks that the rows' losses that growAnchors pairs
// average to the loss that a scorer gives the same predictions: a
// regression's squared error over its outputs, in the units of its
// targets, a classifier's Brier score; and that the predictions, which
// refineCosts calibrates on, are left on the scale the machine fits.
func TestRowLosses(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const n = 30
	pred, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
	labels := make([]int, n)
	for i := range n {
		pred.SetRow(i, []float64{rnd.NormFloat64(), rnd.NormFloat64()})
		y.SetRow(i, []float64{rnd.NormFloat64(), rnd.NormFloat64()})
		labels[i] = rnd.IntN(2)
	}
	reg := problemData{x: y, y: y}
	cls := problemData{x: y, labels: labels}
	// A log target: the predictions mapped back before they are scored.
	exp := func(p *mat.Dense) { p.Apply(func(_, _ int, v float64) float64 { return math.Exp(v) }, p) }
	logged := problemData{x: y, y: y, back: exp}
	back := mat.DenseCopyOf(pred)
	exp(back)
	for _, tc := range []struct {
		name string
		d    problemData
		want float64
	}{
		{"regression", reg, heldOutOf(pred, reg).loss},
		{"log target", logged, heldOutOf(back, reg).loss},
		{"classifier", cls, brier(pred, cls)},
	} {
		given := mat.DenseCopyOf(pred)
		got := stat.Mean(rowLosses(given, tc.d), nil)
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: mean of the rows' losses %g, want %g", tc.name, got, tc.want)
		}
		if !mat.Equal(given, pred) {
			t.Errorf("%s: the predictions were changed", tc.name)
		}
	}
}

// grownSelection returns the shallow machine selected on a rippled plane
// of 300 rows, whose anchors grow, its prepared data and its inputs.
func grownSelection(t *testing.T) (*shallowFit, *prepared, *mat.Dense) {
	t.Helper()
	x, y := rippledPlane(rand.New(rand.NewPCG(5, 6)), 300, 0.1)
	s := Settings{Seed: 1}
	p, val := preparedFor(t, x, y, s)
	f, err := selectShallow(p, val, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	return f, p, x
}

// TestGrowAnchorsLeaveOneOut checks that the leave-one-out that
// growAnchors returns, which refineCosts takes rather than making it
// again, is that of the solver it returns, of the anchors kept: on a
// rippled plane of 300 rows, whose anchors grow.
func TestGrowAnchorsLeaveOneOut(t *testing.T) {
	f, _, _ := grownSelection(t)
	b, r, err := f.basis(f.best)
	if err != nil {
		t.Fatal(err)
	}
	_, r, loo, grown, err := f.growAnchors(f.best, b, r)
	if err != nil || !grown || loo == nil {
		t.Fatalf("grown %v, leave-one-out %v, error %v; want grown with a leave-one-out", grown, loo != nil, err)
	}
	want := f.leaveOneOut(r)
	if loo.best.Cost != want.best.Cost || !mat.Equal(loo.pred, want.pred) {
		t.Errorf("leave-one-out at cost %g, want the returned solver's at %g, with its predictions", loo.best.Cost, want.best.Cost)
	}
}

// TestGrowAverage checks that an average of shallow machines grows its
// anchors as one machine does, every member on the anchors of the
// count kept, their costs re-chosen and the average calibrated on all
// the rows: the selection on a rippled plane of 300 rows, its machine
// made an average of its best setting and the best of two other
// bandwidths.
func TestGrowAverage(t *testing.T) {
	const n = 300
	x, y := rippledPlane(rand.New(rand.NewPCG(5, 6)), n, 0.1)
	s := Settings{Seed: 1}
	p, val := preparedFor(t, x, y, s)
	f, err := selectShallow(p, val, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	f.members = []Candidate{f.best}
	for _, bs := range f.scored {
		if c := bs.cands[0]; c.Bandwidth != f.best.Bandwidth && len(f.members) < averageBandwidths {
			f.members = append(f.members, c)
		}
	}
	m, res, err := f.result(p, Result{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Averaged) != averageBandwidths || len(m.Sum) != averageBandwidths-1 {
		t.Fatalf("%d members averaged, %d machines in the sum; want %d", len(res.Averaged), len(m.Sum)+1, averageBandwidths)
	}
	if res.Anchors <= ShallowAnchors {
		t.Errorf("%d anchors, want more than %d", res.Anchors, ShallowAnchors)
	}
	for i, km := range append([]*kernel.Machine{m.Machine}, m.Sum...) {
		if a, _ := km.Anchors.Dims(); a != res.Anchors || km.C.RawMatrix().Cols != res.Anchors {
			t.Errorf("member %d: %d anchors, %d coefficients per output, %d reported", i, a, km.C.RawMatrix().Cols, res.Anchors)
		}
	}
	if res.CostRows != n {
		t.Errorf("costs re-chosen on %d rows, want %d", res.CostRows, n)
	}
	// Each member's cost is its own leave-one-out's on the anchors kept.
	f.scored = nil
	for i, c := range res.Averaged {
		_, r, err := f.basis(c)
		if err != nil {
			t.Fatal(err)
		}
		if want := f.leaveOneOut(r).best.Cost; c.Cost != want {
			t.Errorf("member %d: cost %g, want its leave-one-out's %g", i, c.Cost, want)
		}
	}
	// Calibrated on the members' mean, the average follows the targets
	// at a slope near 1; on their sum it would shrink to a third.
	pred := mat.Col(nil, 0, m.Predict(nil, x))
	_, slope := stat.LinearRegression(pred, mat.Col(nil, 0, y), nil, false)
	if !(slope > 0.8 && slope < 1.5) {
		t.Errorf("the targets follow the predictions at a slope of %.3f, want near 1", slope)
	}
}

// TestWorthTrying checks which counts of anchors growAnchors tries after
// the count kept last lowered the loss by a fraction of it: every count
// up to twice streamAnchorsMax, and past it only after a fall of more
// than growAhead.
func TestWorthTrying(t *testing.T) {
	for _, tc := range []struct {
		m    int
		fall float64
		want bool
	}{
		{200, math.Inf(1), true},
		{400, 0, true},
		{2 * streamAnchorsMax, 0, true},
		{4 * streamAnchorsMax, 2 * growAhead, true},
		{4 * streamAnchorsMax, growAhead, false},
		{4 * streamAnchorsMax, growAhead / 2, false},
		{4 * streamAnchorsMax, math.NaN(), false},
	} {
		if got := worthTrying(tc.m, tc.fall); got != tc.want {
			t.Errorf("%d anchors after a fall of %g: %v, want %v", tc.m, tc.fall, got, tc.want)
		}
	}
}

// TestLossFall checks the fraction of the loss by which the rows'
// losses fall, weighted.
func TestLossFall(t *testing.T) {
	best := []float64{1, 2, 3, 4}
	if got, _ := lossFall([]float64{0.9, 1.8, 2.7, 3.6}, best, nil); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("fall %g, want 0.1", got)
	}
	// The last row, of weight 0, counts for nothing.
	if got, _ := lossFall([]float64{0.5, 2, 3, 0}, best, []float64{1, 1, 1, 0}); math.Abs(got-0.5/6) > 1e-12 {
		t.Errorf("weighed fall %g, want %g", got, 0.5/6)
	}
}

// TestGrowCounts checks the counts of anchors that growAnchors tries
// and keeps, given the fraction by which each lowers the loss of the
// count before it: each count kept while it lowers the loss beyond its
// noise, and one past twice streamAnchorsMax tried only after the count
// before it lowered the loss by more than growAhead.
func TestGrowCounts(t *testing.T) {
	counts := []int{200, 400, 2 * streamAnchorsMax, 4 * streamAnchorsMax}
	const rows = 8
	for _, tc := range []struct {
		name        string
		falls       []float64 // by count, of the loss of the count before
		tried, kept int       // counts
	}{
		{"every count lowers it", []float64{0.2, 0.1, 0.05, 0.02}, 4, 4},
		{"no count lowers it", []float64{0, 0, 0, 0}, 1, 0},
		{"the doubling to 800 falls by less than growAhead", []float64{0.2, 0.1, growAhead / 2, 0.02}, 3, 3},
		{"the doubling to 800 falls by more than growAhead", []float64{0.2, 0.1, 2 * growAhead, 0.02}, 4, 4},
		{"800 does not lower it", []float64{0.2, 0.1, 0, 0.02}, 3, 2},
		{"1,600 does not lower it", []float64{0.2, 0.1, 0.05, 0}, 4, 3},
		{"no losses at 400", []float64{0.2, math.NaN(), 0.05, 0.02}, 2, 1},
	} {
		loss := make([]float64, rows)
		for i := range loss {
			loss[i] = 1 + float64(i)/rows
		}
		// The rows' losses at the count kept last and at the count tried
		// last.
		var next []float64
		var tried []int
		kept := 0
		try := func(m int) ([]float64, error) {
			fall := tc.falls[len(tried)]
			tried = append(tried, m)
			if math.IsNaN(fall) {
				return nil, nil
			}
			next = make([]float64, rows)
			for i, v := range loss {
				next[i] = v * (1 - fall)
			}
			return next, nil
		}
		keep := func() { kept, loss = kept+1, next }
		if err := growCounts(counts, slices.Clone(loss), nil, try, keep); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tried, counts[:tc.tried]) || kept != tc.kept {
			t.Errorf("%s: tried %v, kept %d; want %v, %d", tc.name, tried, kept, counts[:tc.tried], tc.kept)
		}
	}
}
