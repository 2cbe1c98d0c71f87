package tabular

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// TestAverageShallow checks the shallow machines that averageShallow
// averages: the best candidate of each of averageBandwidths bandwidths,
// on the chosen candidate's scale of the targets, best first, and held-out
// predictions that are the mean of theirs.
func TestAverageShallow(t *testing.T) {
	// Amounts, skewed: both scales of the targets are scored, and the
	// log scale fits them better.
	x, y := noisySine(rand.New(rand.NewPCG(3, 4)), 60, 0.1)
	y.Apply(func(i, _ int, v float64) float64 { return math.Exp(3*x.At(i, 0) + v) }, y)
	s := Settings{Seed: 2}
	p, val := preparedFor(t, x, y, s)
	if p.scale != AutoScale {
		t.Fatalf("targets tried on scale %v, want both", p.scale)
	}
	pass := newShallowPass(p.variants(), val, s)
	scored, err := pass.score(numeric.Indices(5), val, true, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var best Candidate
	var bestScores *bandwidthScores
	for _, bs := range scored {
		for _, c := range bs.cands {
			if !c.Diverged && !c.LogTarget && (bestScores == nil || c.Loss < best.Loss) {
				best, bestScores = c, bs
			}
		}
	}
	v := pass.space.sub[0]
	preds, _ := bestScores.scorer.on(v).predictions(best.Cost)
	logBest := false // whether the log scale has some bandwidth's lowest loss
	for _, bs := range scored {
		top := bs.cands[0]
		for _, c := range bs.cands {
			if !c.Diverged && c.Loss < top.Loss {
				top = c
			}
		}
		logBest = logBest || top.LogTarget
	}
	if !logBest {
		t.Fatal("the test needs a bandwidth whose best candidate is on the log scale")
	}
	members, avg := averageShallow(scored, best, v, preds)
	if len(members) != averageBandwidths || members[0] != best {
		t.Fatalf("averaged %+v, want %d candidates, %+v first", members, averageBandwidths, best)
	}
	sum := make([]*mat.Dense, len(avg))
	seen := map[float64]bool{}
	for i, m := range members {
		if m.LogTarget || seen[m.Bandwidth] || (i > 1 && m.Loss < members[i-1].Loss) {
			t.Errorf("member %d: %+v: want the linear scale, a bandwidth of its own, and a loss no lower than the one before", i, m)
		}
		seen[m.Bandwidth] = true
		for _, bs := range scored {
			if bs.cands[0].Bandwidth != m.Bandwidth {
				continue
			}
			for _, c := range bs.cands {
				if !c.Diverged && !c.LogTarget && c.Loss < m.Loss {
					t.Errorf("member %d: cost %g, loss %g; cost %g of its bandwidth has %g", i, m.Cost, m.Loss, c.Cost, c.Loss)
				}
			}
			mp, _ := bs.scorer.on(v).predictions(m.Cost)
			for f := range mp {
				if sum[f] == nil {
					sum[f] = mat.NewDense(mp[f].RawMatrix().Rows, 1, nil)
				}
				sum[f].Add(sum[f], mp[f])
			}
		}
	}
	for f := range avg {
		sum[f].Scale(1/float64(len(members)), sum[f])
		if !mat.EqualApprox(avg[f], sum[f], 1e-12) {
			t.Fatalf("fold %d: averaged held-out predictions differ from the mean of the members'", f)
		}
	}
}

// TestAverageWhen checks when the shallow machine averages its best
// settings: when it competes with the deep one, not alone; on the rows
// the selection ran on, not a subsample of them; and when the average's
// held-out loss is lower than the best setting's. Without the rule that
// leaves it out, each table here but the first would be averaged.
func TestAverageWhen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seed  uint64
		rows  int
		alone bool
		want  bool
	}{
		{"competing", 2, 80, false, true},
		{"alone", 2, 80, true, false},
		{"higher loss", 1, 80, false, false},
		{"subsample", 2, SelectionRows + 50, false, false},
	} {
		x, y := noisySine(rand.New(rand.NewPCG(tc.seed, 6)), tc.rows, 0.1+0.2*float64(tc.rows/SelectionRows))
		s := Settings{Seed: 1, TargetScale: LinearScale, Extrapolate: true}
		p, val := preparedFor(t, x, y, s)
		f, err := selectShallow(p, val, 1, s, tc.alone)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.members != nil; got != tc.want {
			t.Errorf("%s: averaged %+v, want %v", tc.name, f.members, tc.want)
		}
	}
}

// TestAveragedMachine checks that the averaged machine predicts the mean
// of its members' predictions, before and after a round trip through
// JSON, and that the report names them.
func TestAveragedMachine(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(2, 6)), 80, 0.1)
	s := Settings{Seed: 1, TargetScale: LinearScale, Extrapolate: true}
	p, val := preparedFor(t, x, y, s)
	f, err := selectShallow(p, val, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.members) != averageBandwidths {
		t.Fatalf("averaged %d machines, want %d", len(f.members), averageBandwidths)
	}
	m, res, err := f.result(p, Result{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sum) != averageBandwidths-1 || len(res.Averaged) != averageBandwidths {
		t.Fatalf("a sum of %d machines, %d recorded; want %d", len(m.Sum)+1, len(res.Averaged), averageBandwidths)
	}
	res.Selection = f.sel
	if got, want := describeSettings(res), "the average of 3 machines (cost "; !strings.Contains(got, want) {
		t.Errorf("the report says %q, want it to contain %q", got, want)
	}
	q := mat.NewDense(30, 1, nil)
	for i := range 30 {
		q.Set(i, 0, -1.2+0.08*float64(i))
	}
	want := mat.NewDense(30, 1, nil)
	for _, c := range f.members {
		one := *f
		one.best, one.members = c, nil
		single, _, err := one.result(p, Result{}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want.Add(want, single.Predict(nil, q))
	}
	want.Scale(1/float64(len(f.members)), want)
	got := m.Predict(nil, q)
	if !mat.EqualApprox(got, want, 1e-9) {
		t.Errorf("averaged machine predicts\n%v\nwant the mean of its members'\n%v", mat.Formatted(got.T()), mat.Formatted(want.T()))
	}
	back := decoded(t, m)
	again := back.Predict(nil, q)
	for i := range 30 {
		if math.Float64bits(again.At(i, 0)) != math.Float64bits(got.At(i, 0)) {
			t.Fatalf("row %d: decoded machine predicts %v, the machine %v", i, again.At(i, 0), got.At(i, 0))
		}
	}
	if back.NumParams() != m.NumParams() || m.NumParams() <= m.Machine.NumParams() {
		t.Errorf("parameters: decoded %d, machine %d, its first machine %d", back.NumParams(), m.NumParams(), m.Machine.NumParams())
	}
}

// decoded returns m after a round trip through its JSON encoding.
func decoded(t *testing.T, m *Machine) *Machine {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Machine
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestFinalBasisReused checks that the final fit of a selection on all
// the rows takes each member's basis from the selection, the one it was
// scored on, and predicts as the basis built anew does; and that a
// selection on a subsample builds its own.
func TestFinalBasisReused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  int
		reuse bool
	}{
		{"all rows", 60, true},
		{"subsample", SelectionRows + 50, false},
	} {
		x, y := noisySine(rand.New(rand.NewPCG(3, 6)), tc.rows, 0.1)
		s := Settings{Seed: 2, TargetScale: LinearScale, Extrapolate: true}
		p, val := preparedFor(t, x, y, s)
		f, err := selectShallow(p, val, 1, s, false)
		if err != nil {
			t.Fatal(err)
		}
		fresh := *f
		fresh.scored = nil
		members := f.members
		if members == nil {
			members = []Candidate{f.best}
		}
		for _, c := range members {
			b, r, err := f.basis(c)
			if err != nil {
				t.Fatal(err)
			}
			reused := slices.ContainsFunc(f.scored, func(bs *bandwidthScores) bool { return bs.basis == b })
			if reused != tc.reuse || reused && r != b.all {
				t.Errorf("%s: bandwidth %v: the selection's basis and solver taken %v, want %v", tc.name, c.Bandwidth, reused, tc.reuse)
			}
			nb, nr, err := fresh.basis(c)
			if err != nil {
				t.Fatal(err)
			}
			yb := targetsOf(f.data, 1)
			if !mat.EqualApprox(r.predict(nil, r.project(yb), c.Cost), nr.predict(nil, nr.project(yb), c.Cost), 1e-9) || nb.sigma != b.sigma {
				t.Errorf("%s: bandwidth %v: the selection's basis predicts otherwise than a new one", tc.name, c.Bandwidth)
			}
		}
	}
}

// TestAverageCosts checks the costs that averageCosts averages: the best
// cost and its neighbours on the grid, best first, or its one neighbour
// at the grid's end; and held-out predictions that are the mean of theirs.
func TestAverageCosts(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(5, 6)), 80, 0.1)
	s := Settings{Seed: 1, TargetScale: LinearScale, Extrapolate: true}
	p, val := preparedFor(t, x, y, s)
	pass := newShallowPass(p.variants(), val, s)
	scored, err := pass.score(numeric.Indices(5), val, true, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	v := pass.space.sub[0]
	grid := shallowCosts()
	for _, tc := range []struct {
		at   int
		want []float64
	}{
		{4, []float64{grid[4], grid[3], grid[5]}},
		{0, []float64{grid[0], grid[1]}},
		{len(grid) - 1, []float64{grid[len(grid)-1], grid[len(grid)-2]}},
	} {
		bs := scored[2]
		best := bs.cands[0]
		best.Cost = grid[tc.at]
		preds, _ := bs.scorer.on(v).predictions(best.Cost)
		costs, avg := averageCosts(bs, best, v, preds)
		if !slices.Equal(costs, tc.want) {
			t.Errorf("cost %g: averaged %v, want %v", best.Cost, costs, tc.want)
			continue
		}
		sum := make([]*mat.Dense, len(avg))
		for _, c := range costs {
			mp, _ := bs.scorer.on(v).predictions(c)
			for f := range mp {
				if sum[f] == nil {
					sum[f] = mat.NewDense(mp[f].RawMatrix().Rows, 1, nil)
				}
				sum[f].Add(sum[f], mp[f])
			}
		}
		for f := range avg {
			sum[f].Scale(1/float64(len(costs)), sum[f])
			if !mat.EqualApprox(avg[f], sum[f], 1e-12) {
				t.Fatalf("cost %g, fold %d: averaged held-out predictions differ from the mean of the costs'", best.Cost, f)
			}
		}
	}
}

// TestAverageCostsWhen checks when the shallow machine averages the
// costs next to its best: for a regression whose average's held-out loss
// is lower, when it competes with the deep one on the rows the selection
// ran on, and averages no bandwidths. Without the comparison of losses
// the second table would average its costs, and without the test of the
// task the classifier would.
func TestAverageCostsWhen(t *testing.T) {
	for _, tc := range []struct {
		name     string
		seed     uint64
		rows     int
		classify bool
		alone    bool
		want     bool
	}{
		{"lower loss", 5, 80, false, false, true},
		{"higher loss", 1, 80, false, false, false},
		{"bandwidths averaged", 2, 80, false, false, false},
		{"alone", 5, 80, false, true, false},
		{"classifier", 2, 80, true, false, false},
	} {
		s, outputs := Settings{Seed: 1, TargetScale: LinearScale, Extrapolate: true}, 1
		var p *prepared
		var val *validation
		if tc.classify {
			s, outputs = Settings{Seed: 2, InputScale: LinearInputs}, 2
			x, _, labels := friedmanLike(tc.seed, tc.rows)
			var err error
			if p, err = prepare(x, nil, labels, s, true); err != nil {
				t.Fatal(err)
			}
			if val, err = newValidation(p.linear, s); err != nil {
				t.Fatal(err)
			}
		} else {
			x, y := noisySine(rand.New(rand.NewPCG(tc.seed, 6)), tc.rows, 0.1)
			p, val = preparedFor(t, x, y, s)
		}
		f, err := selectShallow(p, val, outputs, s, tc.alone)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.costs != nil; got != tc.want {
			t.Errorf("%s: averaged costs %v (bandwidths %d), want %v", tc.name, f.costs, len(f.members), tc.want)
		}
	}
}

// TestCostAveragedMachine checks that the machine of averaged costs is
// one machine that predicts the mean of the machines of its costs.
func TestCostAveragedMachine(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(5, 6)), 80, 0.1)
	s := Settings{Seed: 1, TargetScale: LinearScale, Extrapolate: true}
	p, val := preparedFor(t, x, y, s)
	f, err := selectShallow(p, val, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.costs) != 3 {
		t.Fatalf("averaged costs %v, want 3", f.costs)
	}
	m, res, err := f.result(p, Result{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sum) != 0 {
		t.Errorf("a sum of %d machines, want one", len(m.Sum)+1)
	}
	if !slices.Equal(res.Costs, f.costs) {
		t.Errorf("Result.Costs %v, want %v", res.Costs, f.costs)
	}
	if d := describeSettings(res); !strings.Contains(d, fmt.Sprintf("the mean of its solutions at costs %g, %g, %g", f.costs[0], f.costs[1], f.costs[2])) {
		t.Errorf("the settings described as %q, without the averaged costs", d)
	}
	q := mat.NewDense(30, 1, nil)
	for i := range 30 {
		q.Set(i, 0, -1.2+0.08*float64(i))
	}
	want := mat.NewDense(30, 1, nil)
	for _, c := range f.costs {
		one := *f
		one.best.Cost, one.costs = c, nil
		single, _, err := one.result(p, Result{}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want.Add(want, single.Predict(nil, q))
	}
	want.Scale(1/float64(len(f.costs)), want)
	if got := m.Predict(nil, q); !mat.EqualApprox(got, want, 1e-9) {
		t.Errorf("machine of averaged costs predicts\n%v\nwant the mean of its costs' machines\n%v", mat.Formatted(got.T()), mat.Formatted(want.T()))
	}
}

// TestCostsDroppedWhereGrown checks that the fit to all the rows drops
// the averaged costs where it grows the anchors: the selection judged
// them on its own basis, and the machine on the anchors kept is the one
// of its re-chosen cost alone (a rippled plane of 300 rows).
func TestCostsDroppedWhereGrown(t *testing.T) {
	f, p, x := grownSelection(t)
	f.members = nil
	grid := shallowCosts()
	at := slices.Index(grid, f.best.Cost)
	f.costs = []float64{f.best.Cost, grid[max(at-1, 0)], grid[min(at+1, len(grid)-1)]}
	one := *f
	one.costs = nil
	m, res, err := f.result(p, Result{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Anchors <= ShallowAnchors {
		t.Fatalf("%d anchors, want more than %d", res.Anchors, ShallowAnchors)
	}
	if res.Costs != nil {
		t.Errorf("Result.Costs %v for a machine of one cost", res.Costs)
	}
	single, _, err := one.result(p, Result{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Predict(nil, x), single.Predict(nil, x); !mat.EqualApprox(got, want, 1e-12) {
		t.Error("the grown machine averages the selection's costs, want its re-chosen cost's alone")
	}
}
