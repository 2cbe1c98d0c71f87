package tabular

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestShallowSpan checks that the shallow machine fitted in the span of
// the rows of a table with more columns than rows predicts what the one
// fitted on the columns predicts: the same leave-one-out and fold
// predictions at every cost, and the same machine.
func TestShallowSpan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 3))
	const n, d = 14, 40
	x := randomData(rnd, n, d)
	y := mat.NewDense(n, 1, nil)
	y.Apply(func(i, _ int, _ float64) float64 { return x.At(i, 0) + 0.1*rnd.NormFloat64() }, y)
	anchors := pickRows(x, []int{0, 2, 3, 5, 8, 9, 13})
	dual := newShallowInputs(x, anchors, 1, false)
	primal := *dual
	primal.xx = nil
	newX := randomData(rnd, 5, d)
	weights := make([]float64, n)
	for i := range weights {
		weights[i] = 0.2 + 2*rnd.Float64()
	}
	for _, sigma := range []float64{0.5, 2, 20} {
		bd, err := newShallowBasis(dual, sigma, 1)
		if err != nil {
			t.Fatal(err)
		}
		bp, err := newShallowBasis(&primal, sigma, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, q := bd.z.Dims(); bd.span == nil || q > n {
			t.Fatalf("sigma %v: %d coordinates for %d rows, span %v", sigma, q, n, bd.span != nil)
		}
		for _, w := range [][]float64{nil, meanOne(weights)} {
			rd, err := bd.ridge(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := bp.ridge(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			train := []int{1, 2, 4, 6, 7, 10, 11, 12}
			fd, err := bd.ridge(train, pick(w, train))
			if err != nil {
				t.Fatal(err)
			}
			fp, err := bp.ridge(train, pick(w, train))
			if err != nil {
				t.Fatal(err)
			}
			for _, cost := range []float64{1e-4, 1e-2, 1} {
				looD, looP := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
				okD := rd.leaveOneOut(y, rd.project(y)).predictions(looD, cost)
				okP := rp.leaveOneOut(y, rp.project(y)).predictions(looP, cost)
				if !okD || !okP || !mat.EqualApprox(looD, looP, 1e-7) {
					t.Errorf("sigma %v, cost %v, weighted %v: leave-one-out in the span %v, on the columns %v",
						sigma, cost, w != nil, mat.Formatted(looD.T()), mat.Formatted(looP.T()))
				}
				yt := pickRows(y, train)
				heldD := fd.predict(fd.inBasis(bd.z), fd.project(yt), cost)
				heldP := fp.predict(fp.inBasis(bp.z), fp.project(yt), cost)
				if !mat.EqualApprox(heldD, heldP, 1e-7) {
					t.Errorf("sigma %v, cost %v: fold predictions differ", sigma, cost)
				}
				cal := calibration{factor: []float64{1}}
				kd, bd0 := bd.machine(rd, rd.project(y), cost, anchors, cal)
				kp, bp0 := bp.machine(rp, rp.project(y), cost, anchors, cal)
				md, mp := &Machine{Machine: kd, Output: withIntercept(nil, bd0)}, &Machine{Machine: kp, Output: withIntercept(nil, bp0)}
				if !mat.EqualApprox(md.Predict(nil, newX), mp.Predict(nil, newX), 1e-7) {
					t.Errorf("sigma %v, cost %v: the machines predict differently", sigma, cost)
				}
			}
		}
	}
}

// TestInputSpan checks the span of a deep machine's inputs: an
// orthonormal basis in which the rows have their coordinates, the
// projection of new rows, and the initial point, the projection of the
// one drawn on the columns.
func TestInputSpan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 9))
	const n, d = 8, 30
	x := randomData(rnd, n, d)
	sp, err := newInputSpan(x)
	if err != nil {
		t.Fatal(err)
	}
	_, q := sp.q.Dims()
	var qtq, coords mat.Dense
	qtq.Mul(sp.q.T(), sp.q)
	if q != n || !mat.EqualApprox(&qtq, identity(q), 1e-10) {
		t.Fatalf("basis of %d columns, Q^T Q = %v", q, mat.Formatted(&qtq))
	}
	coords.Mul(x, sp.q)
	if !mat.EqualApprox(&coords, sp.coords(), 1e-10) {
		t.Error("the rows' coordinates are not x Q")
	}
	xt := randomData(rnd, 3, d)
	var want mat.Dense
	want.Mul(xt, sp.q)
	if !mat.EqualApprox(sp.reduce(xt), &want, 1e-10) {
		t.Error("new rows' coordinates are not x Q")
	}
	arch := kernel.Architecture{Dims: []int{2, 2, 1}}
	full, err := kernel.NewObjective(arch, kernel.Problem{X: x, Y: randomData(rnd, n, 1), Anchors: []int{1, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	reduced, err := kernel.NewObjective(arch, kernel.Problem{X: sp.coords(), Y: randomData(rnd, n, 1), Anchors: []int{1, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	onColumns := full.Init(nil, rand.New(rand.NewPCG(1, 2)))
	inSpan := sp.init(reduced, arch, 3, rand.New(rand.NewPCG(1, 2)))
	size := arch.Size()
	var projected mat.Dense
	projected.Mul(mat.NewDense(size, d, onColumns[:size*d]), sp.q)
	if !mat.EqualApprox(mat.NewDense(size, q, inSpan[:size*q]), &projected, 1e-12) || !slices.Equal(inSpan[size*q:], onColumns[size*d:]) {
		t.Error("the initial point in the span is not the projection of the one on the columns")
	}
	if got := (*inputSpan)(nil).init(reduced, arch, 3, rand.New(rand.NewPCG(1, 2))); !slices.Equal(got, reduced.Init(nil, rand.New(rand.NewPCG(1, 2)))) {
		t.Error("without a span, the initial point is not kernel.Objective.Init's")
	}
}

// TestInitial checks a deep fit's starting point: the augmenter that
// span.init draws, on the columns or in the span of the rows, and zero
// coefficients.
func TestInitial(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 10))
	x := randomData(rnd, 8, 30)
	sp, err := newInputSpan(x)
	if err != nil {
		t.Fatal(err)
	}
	arch := kernel.Architecture{Dims: []int{2, 2, 1}}
	for _, tc := range []struct {
		name string
		span *inputSpan
		x    *mat.Dense
	}{
		{"on the columns", nil, x},
		{"in the span", sp, sp.coords()},
	} {
		o, err := kernel.NewObjective(arch, kernel.Problem{X: tc.x, Y: randomData(rnd, 8, 1), Anchors: []int{1, 3, 4}})
		if err != nil {
			t.Fatal(err)
		}
		drawn := o.Machine(tc.span.init(o, arch, 3, rand.New(rand.NewPCG(1, 2))), nil)
		params := initial(o, tc.span, arch, 3, rand.New(rand.NewPCG(1, 2)))
		if len(params) != o.Len() {
			t.Fatalf("%s: %d parameters, want %d", tc.name, len(params), o.Len())
		}
		// The kernel package's own view of the parameters: the machine's
		// augmenter A and coefficients C.
		got := o.Machine(params, nil)
		if !mat.Equal(got.A, drawn.A) {
			t.Errorf("%s: the augmenter is not span.init's", tc.name)
		}
		if !mat.Equal(got.C, mat.NewDense(3, 3, nil)) || mat.Equal(drawn.C, mat.NewDense(3, 3, nil)) {
			t.Errorf("%s: coefficients %v, want zero (drawn: %v)", tc.name, mat.Formatted(got.C), mat.Formatted(drawn.C))
		}
	}
}

// TestDeepOptim checks the optimiser's settings of the deep machine's
// fits: the method and gradient tolerance of Settings, deepMemory steps.
func TestDeepOptim(t *testing.T) {
	got := Settings{Method: optim.CG, GradTol: 1e-5}.deepOptim()
	if want := (optim.Settings{Method: optim.CG, GradTol: 1e-5, Memory: deepMemory}); !reflect.DeepEqual(got, want) {
		t.Errorf("settings %+v, want %+v", got, want)
	}
}

// TestDeepSpan checks that a deep machine fitted in the span of the rows
// of a wide table is a stationary point of its loss on the columns: the
// part of the augmenter outside the span would only add to the penalty.
func TestDeepSpan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 1))
	const n, d = 10, 25
	x := randomData(rnd, n, d)
	y := mat.NewDense(n, 1, nil)
	y.Apply(func(i, _ int, _ float64) float64 { return math.Sin(2 * x.At(i, 0)) }, y)
	arch := kernel.Architecture{Dims: []int{2, 2, 1}, Bandwidth: 1.5}
	const cost = 0.01
	m, res, err := FitRegression(x, y, Settings{Dims: arch.Dims, Costs: []float64{cost}, Bandwidths: []float64{arch.Bandwidth},
		Raw: true, UntilStall: true, MaxIter: 5000, GradTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.A.Dims(); r != arch.Size() || c != d {
		t.Fatalf("augmenter %dx%d, want %dx%d", r, c, arch.Size(), d)
	}
	o, err := kernel.NewObjective(arch, kernel.Problem{X: x, Y: y, Cost: cost})
	if err != nil {
		t.Fatal(err)
	}
	params := slices.Concat(m.A.RawMatrix().Data, m.C.RawMatrix().Data)
	grad := make([]float64, len(params))
	loss := o.Func(params, grad)
	if math.Abs(loss-res.Loss) > 1e-9*res.Loss {
		t.Errorf("loss on the columns %v, the fit's in the span %v", loss, res.Loss)
	}
	if g := floats.Norm(grad, math.Inf(1)); g > 1e-6 {
		t.Errorf("gradient on the columns %v at the machine fitted in the span (%s after %d iterations)", g, res.Status, res.Iterations)
	}
}

// TestMul checks the engine's product against gonum's, with either
// factor transposed, for products of many columns and of the few that
// mul computes another way.
func TestMul(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	random := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		m.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, m)
		return m
	}
	for _, n := range []int{1, 3, 5, 16, 40} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				const m, k = 37, 23
				var a, b mat.Matrix = random(m, k), random(k, n)
				if ta {
					a = random(k, m).T()
				}
				if tb {
					b = random(n, k).T()
				}
				var got, want mat.Dense
				mul(&got, a, b)
				want.Mul(a, b)
				if !mat.EqualApprox(&got, &want, 1e-12) {
					t.Errorf("%d columns, a transposed %v, b transposed %v: the product differs from gonum's", n, ta, tb)
				}
			}
		}
	}
}
