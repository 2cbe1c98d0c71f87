package sculpt

import (
	"math"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/optim"
)

// TestUpdateStep checks one step of the update on three edges of known
// weights with no loss gradient, where Adam moves nothing (or, given a
// gradient, every weight by the learning rate against its sign): the
// plain mode's subgradient, lambda_E w/|w| with lambda_E = lambda
// sqrt(n_E); the proximal step, which shrinks each norm by lr lambda_E
// or zeroes it; the tolerance below which an edge is pruned; and a
// pruned edge, which keeps its weights.
func TestUpdateStep(t *testing.T) {
	const lr = 0.01
	tol := float64(float32(0.05)) // the norm of edge b, exactly
	// Edge a has norm 5, b norm exactly tol, c norm tol/2.
	x0 := []float32{3, 4, 0, float32(tol), 0, 0, 0, float32(tol / 2)}
	edges := []struct {
		name   string
		lo, hi int
	}{{"a", 0, 2}, {"b", 2, 5}, {"c", 5, 8}}
	norm := func(x []float32) float64 { return optim.GroupLasso{Groups: [][2]int{{0, len(x)}}}.Norms(nil, x)[0] }
	for _, tc := range []struct {
		name       string
		plain      bool
		lambda     float64
		frozen     string // an edge pruned before the step
		wantGrad   []float32
		wantX      []float32
		wantPruned []string
	}{
		{name: "no penalty", plain: true, wantGrad: make([]float32, 8), wantX: x0, wantPruned: []string{"c"}},
		{name: "plain subgradient", plain: true, lambda: 2,
			// lambda_a = 2 sqrt(2) on w/5; b and c: 2 sqrt(3) on unit vectors.
			wantGrad: []float32{float32(2 * math.Sqrt2 * 3 / 5), float32(2 * math.Sqrt2 * 4 / 5), 0, float32(2 * math.Sqrt(3)), 0, 0, 0, float32(2 * math.Sqrt(3))},
			wantX:    []float32{3 - lr, 4 - lr, 0, float32(tol - lr), 0, 0, 0, float32(tol/2 - lr)}, wantPruned: []string{"b", "c"}},
		{name: "proximal step", lambda: 2, wantGrad: make([]float32, 8),
			// Each norm shrinks by lr lambda_E: a's by 0.02 sqrt(2), b's
			// by 0.02 sqrt(3) to below tol, and c, smaller than that,
			// vanishes.
			wantX:      []float32{float32(3 * (1 - 0.02*math.Sqrt2/5)), float32(4 * (1 - 0.02*math.Sqrt2/5)), 0, float32(tol - 0.02*math.Sqrt(3)), 0, 0, 0, 0},
			wantPruned: []string{"b", "c"}},
		{name: "frozen edge", plain: true, lambda: 2, frozen: "a",
			wantGrad: []float32{0, 0, 0, float32(2 * math.Sqrt(3)), 0, 0, 0, float32(2 * math.Sqrt(3))},
			wantX:    []float32{3, 4, 0, float32(tol - lr), 0, 0, 0, float32(tol/2 - lr)}, wantPruned: []string{"b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &update{gang: newGang(2), lr: lr, plain: tc.plain, st: &state{Pruned: map[string]bool{}}}
			defer u.gang.stop()
			var gs []group
			for _, e := range edges {
				n := float64(e.hi - e.lo)
				g := group{name: e.name, lo: e.lo, hi: e.hi, step: &optim.Adam{LR: lr}, tol: tol,
					lasso: optim.GroupLasso{Lambda: tc.lambda * math.Sqrt(n), Groups: [][2]int{{e.lo, e.hi}}}}
				if e.name == tc.frozen {
					g.frozen, g.saved = true, slices.Clone(x0[e.lo:e.hi])
				}
				gs = append(gs, g)
			}
			u.reset(gs, tc.lambda, 2)
			x, grad := slices.Clone(x0), make([]float32, len(x0))
			u.Step32(x, grad)
			for i := range x {
				if math.Abs(float64(grad[i]-tc.wantGrad[i])) > 1e-6 || math.Abs(float64(x[i]-tc.wantX[i])) > 1e-6 {
					t.Fatalf("gradient %v and weights %v, want %v and %v", grad, x, tc.wantGrad, tc.wantX)
				}
			}
			if !slices.Equal(u.pruned, tc.wantPruned) {
				t.Errorf("pruned %v (norms %g, %g, %g), want %v", u.pruned, norm(x[0:2]), norm(x[2:5]), norm(x[5:8]), tc.wantPruned)
			}
			for _, name := range tc.wantPruned {
				if !u.st.Pruned[name] {
					t.Errorf("edge %s pruned in the step but not in the run's state", name)
				}
			}
		})
	}
}

// TestWorkersShareLoss checks that the minibatch's loss is the replicas'
// losses weighted by their shares, uneven ones included: the training
// loss of an epoch split over three workers (3, 3 and 2 images of 8) is
// that of one worker, but for the order of the float32 sums.
func TestWorkersShareLoss(t *testing.T) {
	train, test := smallData()
	loss := func(workers int) float64 {
		c := smallConfig("")
		c.Epochs, c.NoFinetune, c.Workers = 1, true, workers
		rep, err := Run(train, test, c)
		if err != nil {
			t.Fatal(err)
		}
		return rep.History[0].TrainLoss
	}
	one, three := loss(1), loss(3)
	t.Logf("training loss %v with one worker, %v with three", one, three)
	if math.Abs(one-three) > 1e-4*one {
		t.Errorf("training loss %v with one worker, %v with three", one, three)
	}
}

// TestPenaltyValue checks the penalty an epoch reports against its
// definition, lambda_eff times the sum over live edges of sqrt(n_E)
// |w_E|, on the weights of the checkpoint.
func TestPenaltyValue(t *testing.T) {
	train, test := smallData()
	c := smallConfig(t.TempDir())
	c.Epochs, c.NoFinetune = 2, true
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	ck := readCheckpointFile(t, c.Out)
	a := Generous(1, 8, 8, 3, c.Nodes, c.Channels)
	pruned := map[string]bool{}
	for _, name := range ck.Pruned {
		pruned[name] = true
	}
	live, _ := a.Live(pruned)
	want := 0.0
	for i, e := range a.Edges {
		if live[i] {
			w := ck.Weights[e.Name]
			want += math.Sqrt(float64(len(w))) * optim.GroupLasso{Groups: [][2]int{{0, len(w)}}}.Norms(nil, w)[0]
		}
	}
	want *= rep.LambdaEffective
	if got := rep.History[1].Penalty; want == 0 || math.Abs(got-want) > 1e-6*want {
		t.Errorf("penalty %v, want %v", got, want)
	}
}

// TestPenaltyLiveEdges checks that the penalty counts the live edges
// only: with every edge into one hidden node pruned, the edges out of it
// are dead though not pruned, and add nothing.
func TestPenaltyLiveEdges(t *testing.T) {
	a := Generous(1, 8, 8, 3, 3, 2)
	var into int // a hidden node that edges leave
	for _, e := range a.Edges {
		if e.Kind != "linear" && e.From > 1 {
			into = e.From
			break
		}
	}
	st := &state{Weights: map[string][]float32{}, Pruned: map[string]bool{}}
	for i, e := range a.Edges {
		st.Weights[e.Name] = slices.Repeat([]float32{0.5}, a.EdgeParams(i))
		if e.To == into {
			st.Pruned[e.Name] = true
		}
	}
	live, _ := a.Live(st.Pruned)
	want, dead := 0.0, 0
	for i, e := range a.Edges {
		n := float64(a.EdgeParams(i))
		switch {
		case live[i]:
			want += 2 * math.Sqrt(n) * 0.5 * math.Sqrt(n) // lambda sqrt(n) |w|
		case !st.Pruned[e.Name]:
			dead++
		}
	}
	if dead == 0 {
		t.Fatal("no edge is dead without being pruned: the test does not test the rule")
	}
	r := &run{arch: a, st: st}
	if got := r.penalty(2); math.Abs(got-want) > 1e-9*want {
		t.Errorf("penalty %v with %d dead edges, want %v, that of the live edges", got, dead, want)
	}
}
