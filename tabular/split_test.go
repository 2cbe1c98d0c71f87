package tabular

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSplitObjective checks that the loss split by rows among parts, and
// its gradient, equal those of the whole problem, for a regression and a
// classifier, and that anchor points equal the same anchors given as
// rows.
func TestSplitObjective(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 3))
	const n = splitRows + 37
	x := randomData(rnd, n, 3)
	y := mat.NewDense(n, 2, nil)
	labels := make([]int, n)
	for i := range n {
		y.Set(i, 0, math.Sin(x.At(i, 0))+x.At(i, 1))
		y.Set(i, 1, x.At(i, 2)*x.At(i, 0))
		if x.At(i, 1) > 0 {
			labels[i] = 1
		}
	}
	anchors := []int{3, 50, 200, 201, 640, 999, n - 1}
	for _, tc := range []struct {
		name string
		p    kernel.Problem
		out  int
	}{
		{"regression", kernel.Problem{X: x, Y: y, Cost: 0.03, Anchors: anchors}, 2},
		{"classifier", kernel.Problem{X: x, Labels: labels, Cost: 0.03, Anchors: anchors}, 2},
	} {
		arch := kernel.Architecture{Dims: []int{2, 2, tc.out}, Bandwidth: 0.7}
		whole, err := kernel.NewObjective(arch, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		split, err := newObjective(arch, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := split.(*splitObjective); !ok {
			t.Fatalf("%s: %d rows not split", tc.name, n)
		}
		points := tc.p
		points.AnchorPoints, points.Anchors = pickRows(x, anchors), nil
		asPoints, err := kernel.NewObjective(arch, points)
		if err != nil {
			t.Fatal(err)
		}
		params := whole.Init(nil, rand.New(rand.NewPCG(1, 1)))
		want := make([]float64, len(params))
		wantLoss := whole.Func(params, want)
		for _, o := range []objective{split, asPoints} {
			got := make([]float64, len(params))
			loss := o.Func(params, got)
			if math.Abs(loss-wantLoss) > 1e-12*math.Abs(wantLoss) {
				t.Errorf("%s: loss %v, want %v", tc.name, loss, wantLoss)
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
					t.Fatalf("%s: gradient %d is %v, want %v", tc.name, i, got[i], want[i])
				}
			}
			l, d := o.Loss(params)
			wl, wd := whole.Loss(params)
			if math.Abs(l-wl) > 1e-12*math.Abs(wl) || math.Abs(d-wd) > 1e-12*math.Abs(wd) {
				t.Errorf("%s: Loss %v, %v; want %v, %v", tc.name, l, d, wl, wd)
			}
		}
	}
}
