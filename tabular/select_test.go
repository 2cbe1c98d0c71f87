package tabular

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// noisySine returns n points of y = sin(3x) + noise on [-1, 1].
func noisySine(rnd *rand.Rand, n int, noise float64) (x, y *mat.Dense) {
	x, y = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		v := 2*rnd.Float64() - 1
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(3*v)+noise*rnd.NormFloat64())
	}
	return x, y
}

// TestSelection checks what the cross-validation records and chooses: a
// candidate per pair of settings, the best one of lowest mean held-out
// loss, and the machine refitted with it.
func TestSelection(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(1, 2)), 60, 0.05)
	costs, bandwidths := []float64{1e-4, 100}, []float64{0.5, 1}
	_, res, err := FitRegression(x, y, Settings{Costs: costs, Bandwidths: bandwidths, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	if sel == nil {
		t.Fatal("no selection recorded")
	}
	if sel.Folds != DefaultFolds || sel.Rows != 60 || sel.Loss != "mse" || sel.Score != "r2" {
		t.Errorf("selection over %d folds, %d rows, %s/%s; want %d folds, 60 rows, mse/r2", sel.Folds, sel.Rows, sel.Loss, sel.Score, DefaultFolds)
	}
	// 60 rows are few: the k-fold split is repeated on new shuffles.
	if want := min(maxRepeats, repeatRows/60); sel.Repeats != want {
		t.Errorf("%d repeats, want %d", sel.Repeats, want)
	}
	if len(sel.Candidates) != len(costs)*len(bandwidths) {
		t.Fatalf("%d candidates, want %d", len(sel.Candidates), len(costs)*len(bandwidths))
	}
	for i, c := range sel.Candidates {
		if want := costs[i%len(costs)]; c.Cost != want || c.Bandwidth != bandwidths[i/len(costs)] {
			t.Errorf("candidate %d is cost %g bandwidth %g, want cost %g bandwidth %g", i, c.Cost, c.Bandwidth, want, bandwidths[i/len(costs)])
		}
		if c.Loss < sel.Candidates[sel.Best].Loss {
			t.Errorf("candidate %d has loss %g below the chosen one's %g", i, c.Loss, sel.Candidates[sel.Best].Loss)
		}
	}
	// A cost of 100 shrinks the machine to almost nothing: the sine
	// needs the small one, which must explain most of the variance.
	best := sel.Candidates[sel.Best]
	if best.Cost != 1e-4 || best.Score < 0.9 {
		t.Errorf("chose cost %g with R^2 %.3f, want cost 1e-4 and R^2 >= 0.9", best.Cost, best.Score)
	}
	if res.Cost != best.Cost || res.Bandwidth != best.Bandwidth {
		t.Errorf("refitted with cost %g bandwidth %g, chosen cost %g bandwidth %g", res.Cost, res.Bandwidth, best.Cost, best.Bandwidth)
	}
}

// TestFewRows checks that the default folds are one per row or group, or
// one fewer than the distinct times, when there are fewer than
// DefaultFolds, and that a leave-one-out is not repeated: every shuffle
// makes the same folds.
func TestFewRows(t *testing.T) {
	for _, tc := range []struct {
		folds, n, want int
	}{
		{0, 100, DefaultFolds},
		{0, DefaultFolds, DefaultFolds},
		{0, 3, 3},
		{0, 1, 2},
		{4, 3, 4},
	} {
		if got := (Settings{Folds: tc.folds}).FoldsFor(tc.n); got != tc.want {
			t.Errorf("Folds %d: %d folds on %d rows, want %d", tc.folds, got, tc.n, tc.want)
		}
	}
	x := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	y := mat.NewDense(4, 1, []float64{2.1, 3.9, 6.2, 7.8})
	for _, tc := range []struct {
		name   string
		groups []int
		times  []float64
		folds  int
	}{
		{"rows", nil, nil, 4},
		{"groups", []int{0, 0, 1, 2}, nil, 3},
		// k forward folds take k+1 blocks of distinct times.
		{"times", nil, []float64{1, 2, 3, 4}, 3},
		{"tied times", nil, []float64{1, 1, 2, 3}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res, err := FitRegression(x, y, Settings{Groups: tc.groups, Times: tc.times})
			if err != nil {
				t.Fatal(err)
			}
			if sel := res.Selection; sel.Folds != tc.folds || sel.Repeats != 1 {
				t.Errorf("%d folds, %d repeats; want %d and 1", sel.Folds, sel.Repeats, tc.folds)
			}
		})
	}
}

// TestSelectionClassifier checks that a classifier is scored by log-loss
// and accuracy on stratified folds.
func TestSelectionClassifier(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	x := randomData(rnd, 40, 2)
	labels := make([]int, 40)
	for i := range labels {
		if x.At(i, 0) > 0 {
			labels[i] = 1
		}
	}
	_, res, err := FitClassifier(x, labels, 2, Settings{Costs: []float64{1e-3, 1e-1}, Bandwidths: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	if sel.Loss != "log-loss" || sel.Score != "accuracy" {
		t.Errorf("classifier scored by %s/%s, want log-loss/accuracy", sel.Loss, sel.Score)
	}
	if acc := sel.Candidates[sel.Best].Score; acc < 0.85 {
		t.Errorf("cross-validated accuracy %.3f on a linear boundary, want >= 0.85", acc)
	}
}

// TestFixedSettings checks that a single cost and bandwidth skip the
// selection, and that the result is the same machine whatever the number
// of workers of a selection.
func TestFixedSettings(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(5, 6)), 30, 0.1)
	_, res, err := FitRegression(x, y, Settings{Costs: []float64{0.01}, Bandwidths: []float64{0.7}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Selection != nil || res.Cost != 0.01 || res.Bandwidth != 0.7 {
		t.Errorf("fixed settings: selection %v, cost %g, bandwidth %g; want none, 0.01, 0.7", res.Selection, res.Cost, res.Bandwidth)
	}
	var machines []*Machine
	var selections []*Selection
	for _, w := range []int{1, 3} {
		m, res, err := FitRegression(x, y, Settings{Costs: []float64{1e-3, 1e-1}, Bandwidths: []float64{0.5, 2}, Workers: w, MaxIter: 50})
		if err != nil {
			t.Fatal(err)
		}
		machines, selections = append(machines, m), append(selections, res.Selection)
	}
	if !reflect.DeepEqual(selections[0], selections[1]) || !mat.Equal(machines[0].C, machines[1].C) {
		t.Error("the selection depends on the number of workers")
	}
}

// TestDefaultSettings checks that the deep family searches the default
// grid with the default architecture.
func TestDefaultSettings(t *testing.T) {
	x, y := noisySine(rand.New(rand.NewPCG(7, 7)), 25, 0.1)
	_, res, err := FitRegression(x, y, Settings{MaxIter: 20, Family: Deep})
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]int(nil), DefaultHidden()...), 1); !reflect.DeepEqual(res.Dims, want) {
		t.Errorf("dims %v, want %v", res.Dims, want)
	}
	if n := len(res.Selection.Candidates); n != len(DefaultCosts())*len(DefaultBandwidths()) {
		t.Errorf("%d candidates, want the %d of the default grid", n, len(DefaultCosts())*len(DefaultBandwidths()))
	}
	if res.Anchors != 25 {
		t.Errorf("%d anchors for 25 rows, want every row", res.Anchors)
	}
}

// TestFitPathOffset checks that a fold's deep fit learns the targets
// about the mean of its own training rows: moving every target by 5
// moves the held-out predictions by 5 and changes nothing else, so that
// the fold's prediction owes nothing to the mean of targets it was not
// given.
func TestFitPathOffset(t *testing.T) {
	rnd := rand.New(rand.NewPCG(12, 4))
	x, y := noisySine(rnd, 30, 0.1)
	moved := mat.NewDense(30, 1, nil)
	moved.Apply(func(_, _ int, v float64) float64 { return v + 5 }, y)
	train, test := numeric.Indices(30)[:24], numeric.Indices(30)[24:]
	fold := crossval.Fold{Train: train, Test: test}
	arch := kernel.Architecture{Dims: []int{2, 1}, Bandwidth: 0.5}
	costs := []float64{1e-3, 1e-2}
	var preds [2][]heldOut
	for i, targets := range []*mat.Dense{y, moved} {
		var err error
		if preds[i], err = fitPath(problemData{x: x, y: targets}, fold, arch, costs, []int{0, 1}, Settings{Seed: 3}, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	for c := range costs {
		var shift mat.Dense
		shift.Sub(preds[1][c].pred, preds[0][c].pred)
		for _, v := range shift.RawMatrix().Data {
			if math.Abs(v-5) > 1e-9 {
				t.Fatalf("cost %v: targets moved by 5 moved the held-out predictions by %v", costs[c], mat.Formatted(shift.T()))
			}
		}
	}
}

// TestShallowLeads checks the race's rule: the shallow machine must lead
// the best deep candidate on the first split in mean loss, and by more
// than raceMargin standard errors of the mean log ratio of their losses.
func TestShallowLeads(t *testing.T) {
	raceNarrow(t)
	// Two bandwidths (jobs 0-3 and 4-7) of 4 folds, the first split
	// being folds 0 and 1, scored at two costs: fits gives the losses of
	// the first split's jobs 0, 1, 4 and 5.
	fits := func(losses [4][2]float64) [][]heldOut {
		out := make([][]heldOut, 8)
		for i, job := range []int{0, 1, 4, 5} {
			out[job] = []heldOut{{loss: losses[i][0]}, {loss: losses[i][1]}}
		}
		return out
	}
	lagging := fits([4][2]float64{{2, 1.5}, {2.2, 1.7}, {3, 3}, {3, 3}})
	for _, tc := range []struct {
		name    string
		out     [][]heldOut
		shallow []float64
		want    bool
	}{
		// The best deep candidate is the second cost of the first
		// bandwidth, 1.5 and 1.7 against the shallow machine's: log
		// ratios 0.41 and 0.53, mean 0.47, standard error 0.06.
		{"clear lead", lagging, []float64{1, 1, 9, 9}, true},
		{"behind", lagging, []float64{2, 2, 0, 0}, false},
		// Log ratios 0.51 and -0.21: mean 0.15, standard error 0.36.
		{"within the noise", lagging, []float64{0.9, 2.1, 0, 0}, false},
		// A diverged fit rules its candidate out: the best deep one is
		// then the first cost, 2 and 2.2 against 1.7 and 1.9, still
		// clearly behind.
		{"diverged", func() [][]heldOut {
			out := fits([4][2]float64{{2, 1.5}, {2.2, 1.7}, {3, 3}, {3, 3}})
			out[1][1].diverged = true
			return out
		}(), []float64{1.7, 1.9, 0, 0}, true},
		{"nothing fitted", make([][]heldOut, 8), []float64{1, 1, 1, 1}, false},
	} {
		if got := shallowLeads(tc.out, tc.shallow, 2, 4, 2); got != tc.want {
			t.Errorf("%s: shallowLeads %v, want %v", tc.name, got, tc.want)
		}
	}
	// Ten times worse on four folds of five (log ratios 2.3, and -0.69
	// on the fifth: mean 1.7, standard error 0.6), but the fifth fold's
	// loss outweighs them: the deep machine has the lower mean loss.
	one := [][]heldOut{{{loss: 1e-3}}, {{loss: 1e-3}}, {{loss: 1e-3}}, {{loss: 1e-3}}, {{loss: 5}}}
	if shallowLeads(one, []float64{1e-4, 1e-4, 1e-4, 1e-4, 10}, 5, 5, 1) {
		t.Errorf("shallowLeads true where the deep machine has the lower mean loss")
	}
	one[4][0].loss = 1e-3 // now it is behind on every fold
	if !shallowLeads(one, []float64{1e-4, 1e-4, 1e-4, 1e-4, 10e-4}, 5, 5, 1) {
		t.Errorf("shallowLeads false where the deep machine is ten times worse on every fold")
	}
}

// TestRace checks that a fit on repeated splits where the shallow machine
// leads clearly on the first split records the deep candidates as raced,
// scored on that split alone, and chooses the shallow machine.
func TestRace(t *testing.T) {
	raceNarrow(t)
	rnd := rand.New(rand.NewPCG(5, 6))
	x, y := mat.NewDense(60, 2, nil), mat.NewDense(60, 1, nil)
	for i := range 60 {
		a, b := rnd.NormFloat64(), rnd.NormFloat64()
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y.Set(i, 0, 2*a-b+0.01*rnd.NormFloat64())
	}
	_, res, err := FitRegression(x, y, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	if sel.Repeats < 2 {
		t.Fatalf("%d repeats, want at least 2", sel.Repeats)
	}
	raced := 0
	for _, c := range sel.Candidates {
		if c.Raced {
			raced++
			if c.Shallow {
				t.Errorf("the shallow candidate is marked raced")
			}
		}
	}
	if raced != len(DefaultCosts()) {
		t.Fatalf("%d raced candidates, want the %d deep ones", raced, len(DefaultCosts()))
	}
	if best := sel.Candidates[sel.Best]; !best.Shallow || best.Raced {
		t.Errorf("chose %+v, want the shallow machine", best)
	}
}

// TestRacedNeverChosen checks that a raced candidate, scored on the
// first split alone, is never the best, however low its loss there.
func TestRacedNeverChosen(t *testing.T) {
	sel := &Selection{Best: -1}
	sel.add(Candidate{Cost: 1, Raced: true}, []float64{0.1, 0.1}, []float64{0.9, 0.9}, nil)
	sel.add(Candidate{Cost: 2, Shallow: true}, []float64{0.5, 0.7}, []float64{0.5, 0.3}, nil)
	sel.add(Candidate{Cost: 3, Raced: true}, []float64{0.2, 0.2}, []float64{0.8, 0.8}, nil)
	if sel.Best != 1 {
		t.Errorf("best is candidate %d, want the shallow one, 1", sel.Best)
	}
	if c := sel.Candidates[0]; c.Loss != 0.1 || c.Score != 0.9 {
		t.Errorf("raced candidate recorded with loss %g and score %g, want its first split's 0.1 and 0.9", c.Loss, c.Score)
	}
}

// TestDeepCalibration checks that a deep candidate's held-out
// predictions are shrunk about the mean of each fold's training targets,
// which fitPath learns them about and records: predictions twice as far
// from it as the targets are shrunk by half.
func TestDeepCalibration(t *testing.T) {
	raceNarrow(t)
	rnd := rand.New(rand.NewPCG(3, 3))
	x, y := noisySine(rnd, 20, 0.2)
	d := problemData{x: x, y: y}
	folds := crossval.KFold(20, 4, 1)
	deep := newDeepFolds([]problemData{d}, folds, kernel.Architecture{Dims: []int{1, 1}}, []float64{1}, []float64{1}, Settings{})
	if err := deep.run(0, len(folds)); err != nil {
		t.Fatal(err)
	}
	for f, fold := range folds {
		mean := stat.Mean(mat.Col(nil, 0, d.rows(fold.Train).y), nil)
		h := &deep.out[f][0]
		if len(h.mean) != 1 || math.Abs(h.mean[0]-mean) > 1e-12 {
			t.Fatalf("fold %d: recorded mean %v, want %v", f, h.mean, mean)
		}
		h.pred.Apply(func(i, _ int, _ float64) float64 { return mean + 2*(y.At(fold.Test[i], 0)-mean) }, h.pred)
	}
	if c := deep.calibration(0); math.Abs(c.factor[0]-0.5) > 1e-12 || c.residuals[0][len(c.residuals[0])-1] > 1e-12 {
		t.Errorf("shrinkage %v, largest residual %v; want 0.5 and 0", c.factor[0], c.residuals[0][len(c.residuals[0])-1])
	}
}

// TestShallowAhead checks the probe's rule: the shallow machine is ahead
// when every deep candidate's loss summed over the first folds exceeds
// its own by more than probeMargin.
func TestShallowAhead(t *testing.T) {
	raceNarrow(t)
	// One variant and bandwidth, 3 folds, two costs; the probe is the
	// first two folds.
	fits := func(a, b [2]float64) [][]heldOut {
		return [][]heldOut{{{loss: a[0]}, {loss: a[1]}}, {{loss: b[0]}, {loss: b[1]}}, nil}
	}
	for _, tc := range []struct {
		name    string
		out     [][]heldOut
		shallow []float64
		want    bool
	}{
		// The best deep candidate is the second cost: 1.1 + 1.1.
		{"ahead", fits([2]float64{2, 1.1}, [2]float64{2, 1.1}), []float64{1, 1, 5}, true},
		{"within the margin", fits([2]float64{2, 1 + probeMargin/2}, [2]float64{2, 1 + probeMargin/2}), []float64{1, 1, 5}, false},
		{"just behind", fits([2]float64{2, 1 + probeMargin + 0.005}, [2]float64{2, 1 + probeMargin + 0.005}), []float64{1, 1, 5}, true},
		{"behind", fits([2]float64{2, 0.9}, [2]float64{2, 0.9}), []float64{1, 1, 0}, false},
		// A diverged fit rules its cost out: the first cost, 2 + 2, is
		// then the best.
		{"diverged", func() [][]heldOut {
			out := fits([2]float64{2, 0.5}, [2]float64{2, 0.5})
			out[0][1].diverged = true
			return out
		}(), []float64{1.5, 1.5, 0}, true},
		{"nothing fitted", make([][]heldOut, 3), []float64{1, 1, 1}, false},
	} {
		if got := shallowAhead(tc.out, tc.shallow, 2, 3, 2, probeMargin); got != tc.want {
			t.Errorf("%s: shallowAhead %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestProbe checks that a fit of one split where the shallow machine is
// clearly ahead on the first folds records the deep candidates as raced
// and chooses the shallow machine.
func TestProbe(t *testing.T) {
	raceNarrow(t)
	rnd := rand.New(rand.NewPCG(5, 7))
	const n = 200
	x, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		a, b := rnd.NormFloat64(), rnd.NormFloat64()
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y.Set(i, 0, 2*a-b+0.01*rnd.NormFloat64())
	}
	_, res, err := FitRegression(x, y, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sel := res.Selection
	if sel.Repeats != 1 {
		t.Fatalf("%d repeats, want 1", sel.Repeats)
	}
	for _, c := range sel.Candidates {
		if c.Raced == c.Shallow {
			t.Errorf("candidate %+v: raced %v, want the deep ones raced", c, c.Raced)
		}
	}
	if best := sel.Candidates[sel.Best]; !best.Shallow {
		t.Errorf("chose %+v, want the shallow machine", best)
	}
}

// TestRaceFirstFold checks the first stage of the race: a deep machine
// more than firstMargin behind the shallow one on the first fold is not
// fitted on the others, and its candidates, raced, record that fold's
// loss with a standard deviation of 0; within the margin, the race goes
// on. The first fold's fits are given, taken by no run: the race fits
// only the folds that no run has taken.
func TestRaceFirstFold(t *testing.T) {
	raceNarrow(t)
	data, folds, val, arch := raceProblem(20, 3, 4)
	for _, tc := range []struct {
		name  string
		deep  float64 // the better deep cost's loss on the first fold
		ahead bool    // whether the shallow machine, of loss 1, is ahead
	}{
		{"behind", 1 + firstMargin + 0.01, true},
		{"within the margin", 1 + firstMargin - 0.01, false},
	} {
		d := newDeepFolds([]problemData{data}, folds, arch, []float64{1, 2}, []float64{1}, Settings{Seed: 1})
		d.out[0], d.claimed[0] = []heldOut{{loss: 2}, {loss: tc.deep}}, true
		folded, raced, err := d.race(val, []float64{1, 1, 1, 1, 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !tc.ahead {
			if d.out[1] == nil {
				t.Errorf("%s: the race stopped after the first fold", tc.name)
			}
			continue
		}
		if folded != 1 || !raced || d.out[1] != nil {
			t.Fatalf("%s: race %d folds, raced %v, second fold fitted %v; want the first fold alone, raced", tc.name, folded, raced, d.out[1] != nil)
		}
		sel := val.header()
		sel.Best = -1
		d.gather(sel, folded, raced)
		if c := sel.Candidates[1]; c.Loss != tc.deep || c.LossStd != 0 || !c.Raced {
			t.Errorf("%s: candidate %+v, want loss %g, standard deviation 0, raced", tc.name, c, tc.deep)
		}
	}
}

// TestDeepOnShallowScale checks that on counts, whose targets the
// selection tries on both scales, the deep machine is scored on the scale
// the shallow machine chose only.
func TestDeepOnShallowScale(t *testing.T) {
	raceNarrow(t)
	rnd := rand.New(rand.NewPCG(9, 9))
	x, y := countData(rnd, 80)
	_, res, err := FitRegression(x, y, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var shallow *Candidate
	var deep []Candidate
	for i, c := range res.Selection.Candidates {
		if c.Shallow {
			shallow = &res.Selection.Candidates[i]
		} else {
			deep = append(deep, c)
		}
	}
	if shallow == nil || len(deep) != len(DefaultCosts()) {
		t.Fatalf("%d deep candidates and shallow %v, want %d and one", len(deep), shallow, len(DefaultCosts()))
	}
	for _, c := range deep {
		if c.LogTarget != shallow.LogTarget {
			t.Errorf("deep candidate %s on another scale than the shallow machine's (log %v)", c.setting(), shallow.LogTarget)
		}
	}
}

// TestDeepStartsEarly checks that the deep machine's first fold is fitted
// in the background when it races the shallow machine on one scale of the
// targets, not otherwise, and that the selection is the same whether it
// is or not (Workers 1 turns it off).
func TestDeepStartsEarly(t *testing.T) {
	raceNarrow(t)
	rnd := rand.New(rand.NewPCG(4, 5))
	x := randomData(rnd, 90, 2)
	labels := make([]int, 90)
	for i := range labels {
		if x.At(i, 0)*x.At(i, 1) > 0 {
			labels[i] = 1
		}
	}
	p, err := prepare(x, nil, labels, Settings{}, true)
	if err != nil {
		t.Fatal(err)
	}
	val, err := newValidation(p.linear, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	arch, costs, bws, err := Settings{}.resolve(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		race  bool
		scale TargetScale
		s     Settings
		early bool
	}{
		{"races", true, LinearScale, Settings{}, true},
		{"alone", false, LinearScale, Settings{}, false},
		{"two scales", true, AutoScale, Settings{}, false},
		{"one worker", true, LinearScale, Settings{Workers: 1}, false},
	} {
		q := *p
		q.scale = tc.scale
		d := startDeep(&q, val, arch, costs, bws, tc.s, tc.race)
		if (d != nil) != tc.early {
			t.Errorf("%s: started %v, want %v", tc.name, d != nil, tc.early)
		}
		if err := d.wait(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d == nil {
			continue
		}
		if d.probe == nil || d.out[0] != nil {
			t.Errorf("%s: a probe %v, the first fold fitted at DeepAnchors %v; want the probe's first fold only", tc.name, d.probe != nil, d.out[0] != nil)
		}
		if d = d.probe; d != nil && (d.out[0] == nil || d.out[1] != nil) {
			t.Errorf("%s: the first fold fitted %v, the second %v; want the first only", tc.name, d.out[0] != nil, d.out[1] != nil)
		}
	}
	var sels []*Selection
	for _, workers := range []int{1, 2} {
		_, res, err := FitClassifier(x, labels, 2, Settings{Seed: 1, Workers: workers, Progress: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, res.Selection)
	}
	if !reflect.DeepEqual(sels[0], sels[1]) {
		t.Errorf("the selections of 1 and 2 workers differ:\n%+v\n%+v", sels[0], sels[1])
	}
}

// TestDeepReportWhileStarted checks the progress of the deep folds: the
// quiet jobs, which fit in the background, write nothing, as the shallow
// machine's selection writes at the same time, but count towards the
// fits reported by the next job that is not quiet. Without the test of
// quiet in report, the first job writes; without counting it, the second
// job reports one fit of two.
func TestDeepReportWhileStarted(t *testing.T) {
	raceNarrow(t)
	var progress strings.Builder
	folds := crossval.KFold(10, 2, 1)
	d := newDeepFolds([]problemData{{}}, folds, kernel.Architecture{Dims: []int{1, 1}}, []float64{1}, []float64{1}, Settings{Progress: &progress})
	d.last = time.Time{}
	d.report(true)
	if progress.Len() != 0 {
		t.Errorf("a quiet job: wrote %q, want nothing", progress.String())
	}
	d.report(false)
	if want := "tabular: cross-validation: 2 of 2 fits\n"; progress.String() != want {
		t.Errorf("the next job: wrote %q, want %q", progress.String(), want)
	}
}

// TestRaceAhead checks the second fold fitted ahead of the race (see
// deepFolds.startAhead) while the first one, started, has not finished:
// where the race goes on, its fits are those of one worker fitting every
// fold in turn, bit for bit, and the race waits for them; where the
// first fold leaves the deep machine behind, the race stops them and
// waits. Nothing starts ahead once the first fold is fitted. A fit
// stopped ahead returns errStopped.
func TestRaceAhead(t *testing.T) {
	raceNarrow(t)
	data, folds, val, arch := raceProblem(40, 5, 6)
	costs := []float64{1e-2, 1e-1}
	one := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, Settings{Seed: 1, Workers: 1})
	if err := one.run(0, len(folds)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		shallow float64 // the shallow machine's loss on each fold
		folds   int     // the folds the race fits
	}{
		{"goes on", 1e3, len(folds)},
		{"behind", 1e-9, 1},
	} {
		d := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, Settings{Seed: 1, Workers: 2})
		d.first, d.out[0], d.claimed[0] = make(chan error, 1), one.out[0], true // the first fold still fitting
		d.startAhead()
		if d.ahead == nil || !d.claimed[1] {
			t.Fatalf("%s: the second fold not started ahead", tc.name)
		}
		d.first <- nil
		if err := d.wait(); err != nil {
			t.Fatal(err)
		}
		shallow := []float64{tc.shallow, tc.shallow, tc.shallow, tc.shallow, tc.shallow}
		folded, _, err := d.race(val, shallow, nil)
		if err != nil {
			t.Fatal(err)
		}
		if folded != tc.folds || d.ahead != nil {
			t.Errorf("%s: raced %d folds, ahead still fitting %v; want %d, not", tc.name, folded, d.ahead != nil, tc.folds)
		}
		if tc.folds == 1 && !d.stop.Load() {
			t.Errorf("%s: the fits ahead not stopped", tc.name)
		}
		if tc.folds > 1 && !reflect.DeepEqual(d.out, one.out) {
			t.Errorf("%s: the fits differ from one worker's", tc.name)
		}
	}
	d := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, Settings{Seed: 1, Workers: 2})
	d.first = make(chan error, 1)
	d.first <- errStopped // the first fold fitted, with this error
	d.startAhead()
	if err := d.wait(); d.ahead != nil || d.claimed[1] || err != errStopped {
		t.Errorf("the first fold fitted: started ahead %v, its error %v; want none started, %v", d.ahead != nil, err, errStopped)
	}
	var stop atomic.Bool
	stop.Store(true)
	if _, err := fitPath(data, folds[1], arch, costs, []int{0, 1}, Settings{Seed: 1}, 1, &stop); !errors.Is(err, errStopped) {
		t.Errorf("a fit stopped: error %v, want %v", err, errStopped)
	}
}

// TestRaceProbe checks the race's probe (see withProbe): where the
// shallow machine leads at probeAnchors by more than the race's margins
// and probeSlack, the probe stops the race and no fold is fitted at
// DeepAnchors; where it leads by less than probeSlack more, and where it
// trails, the race runs past the probe, its fits those of a race without
// one, bit for bit. Fixed anchors leave no probe, as do folds of no more
// than probeFolds.
func TestRaceProbe(t *testing.T) {
	raceNarrow(t)
	data, folds, val, arch := raceProblem(120, 5, 6)
	costs := []float64{1e-2, 1e-1}
	s := Settings{Seed: 1, Workers: 1}
	plain := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, s)
	if err := plain.run(0, len(folds)); err != nil {
		t.Fatal(err)
	}
	probed := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, s).withProbe(val.k)
	if err := probed.probe.run(0, 1); err != nil {
		t.Fatal(err)
	}
	_, _, first := bestDeep(probed.probe.out, 1, len(folds), len(costs))
	for _, tc := range []struct {
		name    string
		first   float64 // the shallow machine's loss on the first fold
		stopped bool
	}{
		{"behind", 1e-9, true},
		{"within the slack", first / (1 + firstMargin + probeSlack/2), false},
		{"ahead", 1e3, false},
	} {
		d := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, s).withProbe(val.k)
		shallow := []float64{tc.first, 1e3, 1e3, 1e3, 1e3}
		folded, behind, err := d.race(val, shallow, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.stopped && (folded != 1 || !behind || slices.Contains(d.claimed, true)) {
			t.Errorf("%s: raced %d folds, behind %v, folds fitted at DeepAnchors %v; want the probe's first fold only", tc.name, folded, behind, d.claimed)
		}
		if tc.stopped {
			continue
		}
		if !d.claimed[0] {
			t.Errorf("%s: the probe stopped the race; want it to run past the probe", tc.name)
		}
		for job, out := range d.out {
			if out != nil && !reflect.DeepEqual(out, plain.out[job]) {
				t.Errorf("%s: the race's fit %d differs from that of a race without a probe", tc.name, job)
			}
		}
	}
	if d := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, Settings{Anchors: 60}).withProbe(val.k); d.probe != nil {
		t.Error("fixed anchors: a probe, want none")
	}
	if d := newDeepFolds([]problemData{data}, folds, arch, costs, []float64{1}, s).withProbe(probeFolds); d.probe != nil {
		t.Errorf("%d folds: a probe, want none", probeFolds)
	}
}

// raceProblem returns a noisy sine of n rows (seeded by seed1, seed2),
// its 5 folds and a deep machine of one hidden map for the race's tests.
func raceProblem(n int, seed1, seed2 uint64) (problemData, []crossval.Fold, *validation, kernel.Architecture) {
	x, y := noisySine(rand.New(rand.NewPCG(seed1, seed2)), n, 0.1)
	folds := crossval.KFold(n, 5, 1)
	return problemData{x: x, y: y}, folds, &validation{k: 5, folds: folds, repeats: 1}, kernel.Architecture{Dims: []int{2, 1}}
}

// raceNarrow lets the deep machine race on tables of any rows per input
// until t ends (see deepRowsPerInput): the tests of its race fit narrow
// tables.
func raceNarrow(t *testing.T) {
	t.Helper()
	old := deepRowsPerInput
	deepRowsPerInput = 1 << 30
	t.Cleanup(func() { deepRowsPerInput = old })
}

// TestDeepRowsPerInput checks that the default fit races the deep
// machine on a table of at most deepRowsPerInput rows per input, and
// leaves it out, scoring the shallow machine on the folds, on one of
// more.
func TestDeepRowsPerInput(t *testing.T) {
	const n = 80
	for _, inputs := range []int{n/deepRowsPerInput - 1, n / deepRowsPerInput} {
		rnd := rand.New(rand.NewPCG(3, uint64(inputs)))
		x, y := mat.NewDense(n, inputs, nil), mat.NewDense(n, 1, nil)
		for i := range n {
			for j := range inputs {
				x.Set(i, j, rnd.NormFloat64())
			}
			y.Set(i, 0, math.Sin(x.At(i, 0))+0.1*rnd.NormFloat64())
		}
		deep, res, progress := autoFit(t, x, y)
		if want := n <= deepRowsPerInput*inputs; deep != want || res.Selection.Folds != DefaultFolds {
			t.Errorf("%d rows of %d inputs: deep candidates %v, %d folds; want %v, %d", n, inputs, deep, res.Selection.Folds, want, DefaultFolds)
		}
		said := strings.Contains(progress, fmt.Sprintf("the deep machine left out: %d training rows for %d inputs as encoded (a column's levels or codes counted as one), more than %d per input", n, inputs, deepRowsPerInput))
		if said == deep {
			t.Errorf("%d rows of %d inputs: deep candidates %v, but the progress says the deep machine was left out: %v", n, inputs, deep, said)
		}
	}
}

// TestKernelPenaltyNote checks that the summary of a fit by an earlier
// version, whose shallow machine was chosen with its kernel part
// penalised more than its linear part, still says so.
func TestKernelPenaltyNote(t *testing.T) {
	res := Result{Cost: 0.1, Shallow: true, Selection: &Selection{Candidates: []Candidate{{Cost: 0.1, Bandwidth: 2, Shallow: true, KernelPenalty: 100}}}}
	if got, want := describeSettings(res), "cost 0.1 (the kernel part's penalty 100 times the linear part's)"; !strings.HasPrefix(got, want) {
		t.Errorf("summary %q, want it to begin %q", got, want)
	}
	res.Selection.Candidates[0].KernelPenalty = 0
	if got := describeSettings(res); strings.Contains(got, "penalty") {
		t.Errorf("summary %q names a kernel penalty of 1", got)
	}
}

// autoFit fits the regression of y on x with the default family and
// returns whether its selection scored deep candidates, its result and
// its progress.
func autoFit(t *testing.T, x, y *mat.Dense) (deep bool, res Result, progress string) {
	t.Helper()
	var b strings.Builder
	_, res, err := FitRegression(x, y, Settings{MaxIter: 20, Progress: &b})
	if err != nil {
		t.Fatal(err)
	}
	deep = slices.ContainsFunc(res.Selection.Candidates, func(c Candidate) bool { return !c.Shallow })
	return deep, res, b.String()
}
