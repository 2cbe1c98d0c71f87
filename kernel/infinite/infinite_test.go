package infinite

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/volterra"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func randomMachine(t *testing.T, s Architecture, scale float64, rnd *rand.Rand) (*Machine, []float64) {
	t.Helper()
	mc, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mc.Coef {
		mc.Coef[i] = scale * rnd.NormFloat64()
	}
	psi := make([]float64, s.Anchors*s.Dim)
	for i := range psi {
		psi[i] = rnd.NormFloat64()
	}
	return mc, psi
}

func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Architecture
		want string
	}{
		{"maxfreq 0", Architecture{Dim: 2, Anchors: 2, MaxFreq: 0}, "maxfreq 0"},
		{"maxfreq -1", Architecture{Dim: 2, Anchors: 2, MaxFreq: -1}, "maxfreq -1"},
		{"dim", Architecture{Dim: 0, Anchors: 2, MaxFreq: 1}, "dimension"},
		{"anchors", Architecture{Dim: 2, Anchors: 0, MaxFreq: 1}, "anchors"},
		{"gamma", Architecture{Dim: 2, Anchors: 1, MaxFreq: 1, Gamma: -1}, "width"},
		{"gamma NaN", Architecture{Dim: 2, Anchors: 1, MaxFreq: 1, Gamma: math.NaN()}, "width"},
		{"steps", Architecture{Dim: 2, Anchors: 1, MaxFreq: 1, Steps: -3}, "steps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v, want an error about %q", tc.s, err, tc.want)
			}
			// A Machine made without New is a programmer's error.
			mc := &Machine{Architecture: tc.s}
			if err := testutil.PanicError(func() { _, _ = mc.Forward(nil) }); !errors.Is(err, ad.ErrValue) || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Errorf("Forward of %+v: panic %v, want ad.ErrValue about %q", tc.s, err, tc.want)
			}
		})
	}
}

func TestTrainErrors(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 1, 1, 0, 1, 1})
	labels := []int{0, 1, 2}
	for _, tc := range []struct {
		name    string
		labels  []int
		classes int
		c       Config
		want    string
	}{
		{"maxfreq 0", labels, 3, Config{MaxFreq: 0}, "maxfreq 0"},
		{"maxfreq -2", labels, 3, Config{MaxFreq: -2}, "maxfreq -2"},
		{"negative cost", labels, 3, Config{MaxFreq: 2, Cost: -1}, "cost"},
		{"dim below classes", labels, 3, Config{MaxFreq: 2, Dim: 2}, "less than the 3 classes"},
		{"label out of range", []int{0, 1, 3}, 3, Config{MaxFreq: 2}, "label 3"},
		{"label count", []int{0, 1}, 3, Config{MaxFreq: 2}, "2 labels for 3 rows"},
		{"one class", []int{0, 0, 0}, 1, Config{MaxFreq: 2}, "1 classes"},
		{"iterations", labels, 3, Config{MaxFreq: 2, Iterations: -1}, "iterations"},
		{"NaN input", labels, 3, Config{MaxFreq: 2}, "input row 2, column 1 is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := mat.DenseCopyOf(x)
			if tc.name == "NaN input" {
				x.Set(2, 1, math.NaN())
			}
			_, err := Fit(x, tc.labels, tc.classes, tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fit = %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// TestScoresNotFinite checks that Scores refuses a query input that is
// not a number, naming it, rather than failing in the solve.
func TestScoresNotFinite(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 1, 1, 0, 0})
	cl, err := Fit(x, []int{0, 1, 0, 1}, 2, Config{MaxFreq: 2, Iterations: 2})
	if err != nil {
		t.Fatal(err)
	}
	q := mat.NewDense(2, 2, []float64{0, 1, math.Inf(-1), 0})
	if _, err := cl.Scores(nil, q); err == nil || !strings.Contains(err.Error(), "infinite: input row 1, column 0 is -Inf") {
		t.Errorf("Scores of an infinite input: %v", err)
	}
}

// TestNumParamsPanics checks that NumParams, given settings Fit
// refuses, panics with ad.ErrValue saying what Fit says.
func TestNumParamsPanics(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, "maxfreq 0"},
		{Config{MaxFreq: 2, Cost: -1}, "cost -1"},
		{Config{MaxFreq: 2, Iterations: -1}, "-1 iterations"},
	} {
		if err := testutil.PanicError(func() { tc.c.NumParams(3, 2) }); !errors.Is(err, ad.ErrValue) || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("NumParams of %+v: panic %v, want ad.ErrValue about %q", tc.c, err, tc.want)
		}
	}
}

// generalKernel is eq. 10 for the anchors written as a general Volterra
// kernel, φ(t, s, U)ᵢ = Σⱼ k(uᵢ(s), uⱼ(s))·cⱼ(t), with no use of its
// separable structure.
func generalKernel(mc *Machine) volterra.KernelFunc {
	m, n, f := mc.Anchors, mc.Dim, mc.MaxFreq
	return volterra.KernelFunc{N: m * n, F: func(dst []float64, t, _ float64, u []float64) {
		clear(dst)
		for i := range m {
			for j := range m {
				kij := gaussian(mc.gamma(), u[i*n:(i+1)*n], u[j*n:(j+1)*n])
				for k := range f {
					ck := math.Cos(2 * math.Pi * float64(k) * t)
					for r := range n {
						dst[i*n+r] += kij * ck * mc.Coef[(j*f+k)*n+r]
					}
				}
			}
		}
	}}
}

// TestForwardMatchesSolve checks Theorem 5 in action: the separable
// solve of Forward agrees with the general trapezoidal Volterra solver on
// the same equation.
func TestForwardMatchesSolve(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	mc, psi := randomMachine(t, Architecture{Dim: 3, Anchors: 4, MaxFreq: 3, Steps: 10}, 0.7, rnd)
	tr, err := mc.Forward(psi)
	if err != nil {
		t.Fatal(err)
	}
	const fine = 400
	sol, err := volterra.Solve(&volterra.Equation{T0: 0, T: 1, Psi: volterra.Const(psi), Kernel: generalKernel(mc)}, fine, volterra.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	mn := mc.Anchors * mc.Dim
	ratio := fine / (len(tr.T) - 1)
	var change float64
	for g := range tr.T {
		for i := range mn {
			want := sol.U[g*ratio*mn+i]
			got := tr.U[g*mn+i]
			change = max(change, math.Abs(got-psi[i]))
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-4, 1e-4) {
				t.Fatalf("u(%g)[%d] = %v, general solver %v", tr.T[g], i, got, want)
			}
		}
	}
	if change < 0.1 {
		t.Errorf("the states moved by at most %g: too little to test anything", change)
	}
}

// TestQueryAnchors checks that an anchor's own initial condition, queried
// against the anchors, follows the anchor's trajectory.
func TestQueryAnchors(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2, 1))
	mc, psi := randomMachine(t, Architecture{Dim: 2, Anchors: 3, MaxFreq: 4, Steps: 20}, 0.7, rnd)
	tr, err := mc.Forward(psi)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tr.Query(nil, psi)
	if err != nil {
		t.Fatal(err)
	}
	want := tr.Final(nil)
	for i := range got {
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], 1e-5, 1e-5) {
			t.Errorf("query of anchor state %d = %v, anchor %v", i, got[i], want[i])
		}
	}
}

// TestNorm checks the closed form of the RKHS norm against its
// definition Σᵢⱼ ∫ ⟨cᵢ(t), cⱼ(t)⟩·∫₀ᵗ k(xᵢ(s), xⱼ(s)) ds dt.
func TestNorm(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 1))
	mc, psi := randomMachine(t, Architecture{Dim: 2, Anchors: 3, MaxFreq: 3, Steps: 200}, 0.5, rnd)
	tr, err := mc.Forward(psi)
	if err != nil {
		t.Fatal(err)
	}
	m, n := mc.Anchors, mc.Dim
	z := make([]float64, m*m)
	c, basis := make([]float64, m*n), make([]float64, mc.Basis())
	var want, prevInt float64
	prevK := make([]float64, m*m)
	for g, tg := range tr.T {
		u := tr.U[g*m*n : (g+1)*m*n]
		h := 0.0
		if g > 0 {
			h = tr.T[g] - tr.T[g-1]
		}
		coefAt(c, mc.Coef, m, n, mc.basisAt(basis, tg))
		var integrand float64
		for i := range m {
			for j := range m {
				k := gaussian(mc.gamma(), u[i*n:(i+1)*n], u[j*n:(j+1)*n])
				z[i*m+j] += h / 2 * (k + prevK[i*m+j])
				prevK[i*m+j] = k
				var dot float64
				for r := range n {
					dot += c[i*n+r] * c[j*n+r]
				}
				integrand += dot * z[i*m+j]
			}
		}
		want += h / 2 * (integrand + prevInt)
		prevInt = integrand
	}
	if got := tr.Norm(); !scalar.EqualWithinAbsOrRel(got, want, 1e-4, 1e-4) {
		t.Errorf("Norm = %v, definition %v", got, want)
	}
}

// centralDiff returns the central difference of f along coordinate i of x.
func centralDiff(f func() float64, x []float64, i int, h float64) float64 {
	old := x[i]
	x[i] = old + h
	fp := f()
	x[i] = old - h
	fm := f()
	x[i] = old
	return (fp - fm) / (2 * h)
}

func checkGrad(t *testing.T, name string, got []float64, f func() float64, x []float64) {
	t.Helper()
	checkGradTol(t, name, got, f, x, 1e-5)
}

// checkGradTol is checkGrad with relative tolerance rtol (and absolute
// rtol/10).
func checkGradTol(t *testing.T, name string, got []float64, f func() float64, x []float64, rtol float64) {
	t.Helper()
	for i := range x {
		want := centralDiff(f, x, i, 1e-5)
		if !scalar.EqualWithinAbsOrRel(got[i], want, rtol/10, rtol) {
			t.Errorf("%s[%d]: gradient %v, finite difference %v", name, i, got[i], want)
		}
	}
}

func TestBackward(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 1))
	mc, psi := randomMachine(t, Architecture{Dim: 2, Anchors: 3, MaxFreq: 2, Steps: 6}, 0.6, rnd)
	w := make([]float64, len(psi))
	for i := range w {
		w[i] = rnd.NormFloat64()
	}
	const lambda = 0.7
	loss := func() float64 {
		tr, err := mc.Forward(psi)
		if err != nil {
			t.Fatal(err)
		}
		var l float64
		for i, v := range tr.Final(nil) {
			l += w[i] * v
		}
		return l + lambda*tr.Norm()
	}
	tr, err := mc.Forward(psi)
	if err != nil {
		t.Fatal(err)
	}
	dpsi, dcoef := make([]float64, len(psi)), make([]float64, len(mc.Coef))
	if err := tr.Backward(dpsi, dcoef, w, lambda); err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "dpsi", dpsi, loss, psi)
	checkGrad(t, "dcoef", dcoef, loss, mc.Coef)
}

func TestQueryVJP(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 1))
	mc, anchors := randomMachine(t, Architecture{Dim: 3, Anchors: 2, MaxFreq: 3, Steps: 8}, 0.6, rnd)
	tr, err := mc.Forward(anchors)
	if err != nil {
		t.Fatal(err)
	}
	psi := make([]float64, 4*mc.Dim)
	w := make([]float64, len(psi))
	for i := range psi {
		psi[i], w[i] = rnd.NormFloat64(), rnd.NormFloat64()
	}
	loss := func() float64 {
		u, err := tr.Query(nil, psi)
		if err != nil {
			t.Fatal(err)
		}
		var l float64
		for i, v := range u {
			l += w[i] * v
		}
		return l
	}
	dpsi, err := tr.queryVJP(nil, psi, w)
	if err != nil {
		t.Fatal(err)
	}
	checkGrad(t, "dpsi", dpsi, loss, psi)
}

// TestTrainingGradient checks the gradient of the training loss with
// respect to every parameter group of every form of the classifier: the
// augmenter (A, b and the convolution), the Fourier coefficients (with
// and without sines) and the learned anchors, with RK4 and with the
// adaptive solver and its adjoint.
func TestTrainingGradient(t *testing.T) {
	const rows, side, classes = 3, 4, 3
	for _, tc := range []struct {
		name string
		cfg  Config
		rtol float64
	}{
		{"linear", Config{Dim: 4, MaxFreq: 2, Cost: 0.3, Steps: 5}, 1e-5},
		{"sine", Config{Dim: 4, MaxFreq: 3, Cost: 0.3, Steps: 5, Sine: true}, 1e-5},
		{"conv", Config{Dim: 4, MaxFreq: 2, Cost: 0.3, Steps: 5, Augmenter: Conv, Height: side, Width: side, Channels: 2}, 1e-5},
		{"learned anchors", Config{Dim: 4, MaxFreq: 2, Cost: 0.3, Steps: 5, Anchors: 2}, 1e-5},
		// The adjoint is the gradient of the exact solution, which the
		// adaptive solve reaches to about its tolerance.
		{"adaptive", Config{Dim: 4, MaxFreq: 2, Cost: 0.3, Steps: 5, Tol: 1e-10}, 1e-4},
		{"adaptive learned anchors", Config{Dim: 4, MaxFreq: 2, Cost: 0.3, Steps: 5, Tol: 1e-10, Anchors: 2, Sine: true}, 1e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(6, 1))
			x := mat.NewDense(rows, side*side, nil)
			x.Apply(func(_, _ int, _ float64) float64 { return rnd.Float64() }, x)
			cl, m, err := newClassifier(x, []int{2, 0, 1}, classes, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			params := m.Params().Values()
			if want := tc.cfg.NumParams(rows, side*side); len(params) != want {
				t.Errorf("%d parameters, NumParams says %d", len(params), want)
			}
			for i := range params {
				params[i] += 0.5 * rnd.NormFloat64()
			}
			if _, err := m.Loss(nil, true); err != nil {
				t.Fatal(err)
			}
			loss := func() float64 {
				l, err := m.Loss(nil, false)
				if err != nil {
					t.Fatal(err)
				}
				return l
			}
			for _, name := range cl.Params.Names() {
				got := slices.Clone(cl.Params.Grad(name).Data)
				checkGradTol(t, name, got, loss, cl.Params.Value(name).Data, tc.rtol)
			}
		})
	}
}

// blobs returns points of k Gaussian blobs in d dimensions, per per blob.
func blobs(rnd *rand.Rand, centres [][]float64, per int, spread float64) (*mat.Dense, []int) {
	d := len(centres[0])
	x := mat.NewDense(len(centres)*per, d, nil)
	labels := make([]int, 0, len(centres)*per)
	for c, ctr := range centres {
		for p := range per {
			for j := range d {
				x.Set(c*per+p, j, ctr[j]+spread*rnd.NormFloat64())
			}
			labels = append(labels, c)
		}
	}
	return x, labels
}

func TestTrainSeparable(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 1))
	centres := make([][]float64, 3)
	for c := range centres {
		centres[c] = make([]float64, 8)
		for j := range centres[c] {
			centres[c][j] = rnd.Float64()
		}
	}
	x, labels := blobs(rnd, centres, 2, 0.1)
	xt, lt := blobs(rnd, centres, 50, 0.1)
	var losses []float64
	cl, err := Fit(x, labels, 3, Config{Dim: 6, MaxFreq: 3, Cost: 0.01, Iterations: 60, Seed: 1,
		Observe: func(_ int, loss float64, _ []float64) { losses = append(losses, loss) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(losses) != 61 || losses[60] > losses[0]/4 {
		t.Errorf("training loss went from %v to %v in %d records", losses[0], losses[len(losses)-1], len(losses))
	}
	acc, loss, err := cl.Evaluate(xt, lt)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.95 {
		t.Errorf("test accuracy %v (loss %v), want at least 0.95", acc, loss)
	}
	pred, err := cl.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pred {
		if p != labels[i] {
			t.Errorf("training row %d predicted %d, label %d", i, p, labels[i])
		}
	}

	// Scores in many small chunks, solved by several workers, must give
	// what one chunk gives.
	whole, err := cl.Scores(nil, xt)
	if err != nil {
		t.Fatal(err)
	}
	defer func(c int) { chunk = c }(chunk)
	chunk = 7
	parts, err := cl.Scores(nil, xt)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(whole, parts) {
		t.Errorf("scores differ between one chunk and chunks of 7")
	}
}

func TestSettingsWithDefaults(t *testing.T) {
	for _, tc := range []struct {
		s     Architecture
		gamma float64
		steps int
	}{
		{Architecture{}, DefaultGamma, DefaultSteps},
		{Architecture{Gamma: 0.2, Steps: 3}, 0.2, 3},
	} {
		got := tc.s.WithDefaults()
		if got.Gamma != tc.gamma || got.Steps != tc.steps {
			t.Errorf("%+v.WithDefaults() has gamma %v and %d steps, want %v and %v", tc.s, got.Gamma, got.Steps, tc.gamma, tc.steps)
		}
	}
}

// TestTrajectoryAtCoefAt checks the anchors' states and the
// coefficients that a query reads: the grid's states at its points and
// their mean half way between, and at t = 0 the sum of the cosines'
// coefficients (the sines vanish), at t = 1/2 their alternating sum.
func TestTrajectoryAtCoefAt(t *testing.T) {
	s := Architecture{Dim: 2, Anchors: 3, MaxFreq: 3, Sine: true, Steps: 2}
	mc, psi := randomMachine(t, s, 0.5, rand.New(rand.NewPCG(5, 5)))
	tr, err := mc.Forward(psi)
	if err != nil {
		t.Fatal(err)
	}
	mn, nb := s.Anchors*s.Dim, s.Basis()
	if got, want := tr.At(nil, 0.25), tr.U[mn:2*mn]; !slices.Equal(got, want) {
		t.Errorf("At(0.25) = %v, want the grid's point 1, %v", got, want)
	}
	mid := tr.At(nil, 0.125)
	for i, v := range mid {
		if want := (tr.U[i] + tr.U[mn+i]) / 2; !scalar.EqualWithinAbsOrRel(v, want, 1e-14, 1e-14) {
			t.Errorf("At(0.125)[%d] = %v, want %v", i, v, want)
		}
	}
	for _, tc := range []struct {
		t     float64
		signs []float64 // of the cosines cos(2πkt), k = 0, 1, 2
	}{{0, []float64{1, 1, 1}}, {0.5, []float64{1, -1, 1}}} {
		got := tr.CoefAt(nil, tc.t)
		for j := range s.Anchors {
			for r := range s.Dim {
				var want float64
				for k, sign := range tc.signs {
					want += sign * mc.Coef[(j*nb+k)*s.Dim+r]
				}
				if v := got[j*s.Dim+r]; !scalar.EqualWithinAbsOrRel(v, want, 1e-14, 1e-14) {
					t.Errorf("CoefAt(%v)[%d] = %v, want %v", tc.t, j*s.Dim+r, v, want)
				}
			}
		}
	}
}

// TestNoWeightDecay: NoWeightDecay trains as a decay too small to move
// any parameter does, whatever WeightDecay says, and a negative decay is
// refused.
func TestNoWeightDecay(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{0, 0, 1, 0, 0, 1, 3, 3, 4, 3, 3, 4})
	labels := []int{0, 0, 0, 1, 1, 1}
	train := func(c Config) []float64 {
		c.Dim, c.MaxFreq, c.Iterations, c.Seed = 4, 2, 5, 1
		cl, err := Fit(x, labels, 2, c)
		if err != nil {
			t.Fatal(err)
		}
		return cl.Machine.Coef
	}
	off := train(Config{WeightDecay: 10, NoWeightDecay: true})
	if tiny := train(Config{WeightDecay: 1e-300}); !slices.Equal(off, tiny) {
		t.Error("NoWeightDecay trained otherwise than a negligible decay")
	}
	if strong := train(Config{WeightDecay: 10}); slices.Equal(off, strong) {
		t.Error("a weight decay of 10 trained as none")
	}
	if _, err := Fit(x, labels, 2, Config{Dim: 4, MaxFreq: 2, WeightDecay: -1}); err == nil {
		t.Error("a negative weight decay was accepted")
	}
}
