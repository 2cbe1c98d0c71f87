package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestRelevanceWeights pins the weights that relevance derives from the
// shallow machine's mean squared slopes: each slope relative to their
// mean, to the power 1/4, at least 1/100. The slopes are those of the
// machine relevance measures, rebuilt here as it builds it; the data
// give an input that matters, one that matters less and one of noise, so
// that the weights fall above and below 1/2 and a change of the power or
// of the floor changes them.
func TestRelevanceWeights(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 1))
	const n = 80
	x, y := randomData(rnd, n, 3), mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Sin(3*x.At(i, 0))+0.3*x.At(i, 1)+0.05*rnd.NormFloat64())
	}
	p, val := preparedFor(t, x, y, Settings{})
	if _, err := shallowLoss(p, val, 1, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	got := relevance(p.pass)
	slopes := passSlopes(t, p.pass)
	mean := floats.Sum(slopes) / float64(len(slopes))
	if len(got) != len(slopes) {
		t.Fatalf("%d weights for %d inputs", len(got), len(slopes))
	}
	for j, v := range slopes {
		want := math.Max(math.Pow(v/mean, 0.25), 0.01)
		if math.Abs(got[j]-want) > 1e-12*want {
			t.Errorf("input %d: weight %v, want (%v / %v)^(1/4) at least 0.01 = %v", j, got[j], v, mean, want)
		}
	}
	if !(slices.Max(got) > 1 && slices.Min(got) < 0.5) {
		t.Errorf("weights %v: the data should give weights above 1 and below 1/2", got)
	}
}

// passSlopes returns the mean squared slopes of the machine relevance
// measures on pass: its best setting's, fitted to all the pass's rows,
// unshrunk.
func passSlopes(t *testing.T, pass *shallowPass) []float64 {
	t.Helper()
	best, cost, loss := -1, 0.0, math.Inf(1)
	for b, bs := range pass.all {
		for _, c := range bs.cands {
			if !c.Diverged && !c.LogTarget && c.Loss < loss {
				best, cost, loss = b, c.Cost, c.Loss
			}
		}
	}
	if best < 0 {
		t.Fatal("no setting scored")
	}
	data := pass.space.sub[0]
	r, err := pass.bases[best].ridge(nil, data.w)
	if err != nil {
		t.Fatal(err)
	}
	y := data.targets()
	unit := calibration{factor: []float64{1}, residuals: make([][]float64, 1)}
	m, _ := pass.bases[best].machine(r, r.project(y), cost, pass.space.anchors, unit)
	return meanSquaredSlopes(m, mat.DenseCopyOf(data.x))
}
