package baseline

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// randomData returns n samples of d uniform inputs and p outputs that are
// smooth functions of them plus a little noise.
func randomData(rnd *rand.Rand, n, d, p int) (X, Y *mat.Dense) {
	X = mat.NewDense(n, d, nil)
	Y = mat.NewDense(n, p, nil)
	for i := range n {
		var s float64
		for j := range d {
			v := rnd.Float64()
			X.Set(i, j, v)
			s += v
		}
		for k := range p {
			Y.Set(i, k, math.Sin(float64(k+1)*s)+0.1*rnd.NormFloat64())
		}
	}
	return X, Y
}

func TestLOOMatchesRefits(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, test := range []struct {
		n, d, p       int
		sigma, lambda float64
	}{
		{n: 8, d: 2, p: 2, sigma: 0.7, lambda: 1e-2},
		{n: 12, d: 1, p: 1, sigma: 0.2, lambda: 1e-4},
		{n: 10, d: 3, p: 3, sigma: 2, lambda: 1},
		{n: 1, d: 2, p: 1, sigma: 1, lambda: 0.5},
	} {
		X, Y := randomData(rnd, test.n, test.d, test.p)

		var s spectrum
		if err := s.factorize(gaussianSym(sqDists(X), test.sigma), Y); err != nil {
			t.Fatal(err)
		}
		got := mat.NewDense(test.n, test.p, nil)
		s.looResiduals(got, test.lambda)

		// Refit without each sample in turn and predict it.
		want := mat.NewDense(test.n, test.p, nil)
		for i := range test.n {
			var rest []int
			for j := range test.n {
				if j != i {
					rest = append(rest, j)
				}
			}
			xi := mat.DenseCopyOf(X.Slice(i, i+1, 0, test.d))
			pred := mat.NewDense(1, test.p, nil)
			if len(rest) > 0 {
				m := KernelRidge{Settings: RidgeSettings{Sigma: test.sigma, Lambda: test.lambda}}
				if err := m.Fit(rows(X, rest), rows(Y, rest)); err != nil {
					t.Fatal(err)
				}
				m.Predict(pred, xi)
			} // else the empty model predicts 0.
			for k := range test.p {
				want.Set(i, k, Y.At(i, k)-pred.At(0, k))
			}
		}
		for i := range test.n {
			for k := range test.p {
				if g, w := got.At(i, k), want.At(i, k); !scalar.EqualWithinAbsOrRel(g, w, 1e-8, 1e-8) {
					t.Errorf("n=%d sigma=%g lambda=%g: residual [%d, %d]: closed form %v, refit %v",
						test.n, test.sigma, test.lambda, i, k, g, w)
				}
			}
		}
	}
}

func rows(m *mat.Dense, idx []int) *mat.Dense {
	_, c := m.Dims()
	out := mat.NewDense(len(idx), c, nil)
	for i, j := range idx {
		out.SetRow(i, m.RawRowView(j))
	}
	return out
}

func TestFitSmooth(t *testing.T) {
	// 30 points of sin on [0, 2π], no noise: cross-validation should
	// pick a kernel that reproduces the function between them.
	const n = 30
	X := mat.NewDense(n, 1, nil)
	Y := mat.NewDense(n, 1, nil)
	for i := range n {
		x := 2 * math.Pi * float64(i) / (n - 1)
		X.Set(i, 0, x)
		Y.Set(i, 0, math.Sin(x))
	}
	var m KernelRidge
	if err := m.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	const nt = 200
	Xt := mat.NewDense(nt, 1, nil)
	for i := range nt {
		Xt.Set(i, 0, 2*math.Pi*(float64(i)+0.5)/nt)
	}
	pred := m.Predict(nil, Xt)
	var worst float64
	for i := range nt {
		worst = max(worst, math.Abs(pred.At(i, 0)-math.Sin(Xt.At(i, 0))))
	}
	if worst > 1e-3 {
		t.Errorf("max test error %g (sigma %g, lambda %g)", worst, m.Sigma, m.Lambda)
	}
	if m.Params() != n {
		t.Errorf("unexpected number of parameters: got %d, want %d", m.Params(), n)
	}
	if !(m.LOO >= 0 && m.LOO < 1e-4) {
		t.Errorf("unexpected LOO error %v", m.LOO)
	}
}

func TestFitChoosesFromGrid(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	X, Y := randomData(rnd, 20, 2, 2)
	sigmas := []float64{0.05, 0.3, 1, 5}
	lambdas := []float64{1e-6, 1e-3, 1e-1, 10}

	// The chosen pair has the smallest LOO error of the grid, each of
	// which is checked by fitting with Sigma fixed and a single lambda.
	m := KernelRidge{Settings: RidgeSettings{Sigmas: sigmas, Lambdas: lambdas}}
	if err := m.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	for _, s := range sigmas {
		for _, l := range lambdas {
			single := KernelRidge{Settings: RidgeSettings{Sigma: s, Lambdas: []float64{l}}}
			if err := single.Fit(X, Y); err != nil {
				t.Fatal(err)
			}
			if single.Sigma != s || single.Lambda != l {
				t.Fatalf("single candidate (%g, %g) gave (%g, %g)", s, l, single.Sigma, single.Lambda)
			}
			if single.LOO < m.LOO {
				t.Errorf("(%g, %g) has LOO %g, below the chosen (%g, %g) with %g",
					s, l, single.LOO, m.Sigma, m.Lambda, m.LOO)
			}
		}
	}

	// Fixing Lambda leaves only Sigma to choose, and vice versa.
	m = KernelRidge{Settings: RidgeSettings{Lambda: 0.5, Sigmas: sigmas}}
	if err := m.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	if m.Lambda != 0.5 || !contains(sigmas, m.Sigma) {
		t.Errorf("fixed lambda: got sigma %g, lambda %g", m.Sigma, m.Lambda)
	}
	m = KernelRidge{Settings: RidgeSettings{Sigma: 0.5}}
	if err := m.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	if m.Sigma != 0.5 || !contains(defaultLambdas(), m.Lambda) {
		t.Errorf("fixed sigma: got sigma %g, lambda %g", m.Sigma, m.Lambda)
	}

	// With both fixed there is no cross-validation.
	m = KernelRidge{Settings: RidgeSettings{Sigma: 0.5, Lambda: 0.1}}
	if err := m.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	if m.Sigma != 0.5 || m.Lambda != 0.1 || !math.IsNaN(m.LOO) {
		t.Errorf("fixed sigma and lambda: got sigma %g, lambda %g, LOO %g", m.Sigma, m.Lambda, m.LOO)
	}
}

func contains(s []float64, v float64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestInterpolation(t *testing.T) {
	// As λ → 0 the fit passes through distinct training points.
	X := mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.5, 0.5})
	Y := mat.NewDense(5, 1, []float64{1, -2, 3, 0.5, 7})
	prev := math.Inf(1)
	for _, lambda := range []float64{1e-1, 1e-3, 1e-6, 1e-9, 1e-12} {
		m := KernelRidge{Settings: RidgeSettings{Sigma: 0.4, Lambda: lambda}}
		if err := m.Fit(X, Y); err != nil {
			t.Fatal(err)
		}
		pred := m.Predict(nil, X)
		var worst float64
		for i := range 5 {
			worst = max(worst, math.Abs(pred.At(i, 0)-Y.At(i, 0)))
		}
		if worst >= prev {
			t.Errorf("lambda %g: training error %g did not shrink from %g", lambda, worst, prev)
		}
		prev = worst
	}
	if prev > 1e-9 {
		t.Errorf("training error %g at lambda 1e-12, want interpolation", prev)
	}
}

func TestFitErrors(t *testing.T) {
	ok := mat.NewDense(3, 1, []float64{0, 1, 2})
	for _, test := range []struct {
		name string
		X, Y *mat.Dense
		want string
	}{
		{"empty X", &mat.Dense{}, ok, "no training data"},
		{"empty Y", ok, &mat.Dense{}, "no training data"},
		{"row mismatch", ok, mat.NewDense(2, 1, nil), "X has 3 rows but Y has 2"},
		{"NaN in X", mat.NewDense(3, 2, []float64{0, 1, 2, math.NaN(), 4, 5}), ok, "X[1, 1] is NaN"},
		{"Inf in Y", ok, mat.NewDense(3, 2, []float64{0, 1, 2, 3, math.Inf(-1), 5}), "Y[2, 0] is -Inf"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var m KernelRidge
			err := m.Fit(test.X, test.Y)
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("unexpected error: got %v, want one containing %q", err, test.want)
			}
			if m.Params() != 0 {
				t.Error("failed Fit changed the model")
			}
		})
	}

	// A failed Fit keeps the previous model.
	m := KernelRidge{Settings: RidgeSettings{Sigma: 1, Lambda: 1}}
	if err := m.Fit(ok, ok); err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(ok, mat.NewDense(3, 1, []float64{0, math.NaN(), 0})); err == nil {
		t.Fatal("expected an error")
	}
	if m.Params() != 3 || m.Sigma != 1 {
		t.Errorf("failed Fit changed the model")
	}
}

func TestPanics(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 1})
	Y := mat.NewDense(3, 1, []float64{1, 2, 3})
	var fitted KernelRidge
	if err := fitted.Fit(X, Y); err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"predict before fit", func() { new(KernelRidge).Predict(nil, X) }},
		{"wrong input width", func() { fitted.Predict(nil, mat.NewDense(2, 3, nil)) }},
		{"wrong dst shape", func() { fitted.Predict(mat.NewDense(3, 2, nil), X) }},
		{"negative sigma", func() {
			m := KernelRidge{Settings: RidgeSettings{Sigma: -1}}
			m.Fit(X, Y)
		}},
		{"NaN lambda", func() {
			m := KernelRidge{Settings: RidgeSettings{Lambda: math.NaN()}}
			m.Fit(X, Y)
		}},
		{"zero candidate lambda", func() {
			m := KernelRidge{Settings: RidgeSettings{Lambdas: []float64{1, 0}}}
			m.Fit(X, Y)
		}},
		{"infinite candidate sigma", func() {
			m := KernelRidge{Settings: RidgeSettings{Sigmas: []float64{math.Inf(1)}}}
			m.Fit(X, Y)
		}},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("expected a panic")
				}
			}()
			test.f()
		})
	}
}

func TestMedianDist(t *testing.T) {
	for _, test := range []struct {
		name string
		X    *mat.Dense
		want float64
	}{
		{"one point", mat.NewDense(1, 1, []float64{3}), 1},
		{"all equal", mat.NewDense(3, 1, []float64{2, 2, 2}), 1},
		// Distances 1, 2, 2, 3, 3 and the duplicates' 0, which is skipped.
		{"line", mat.NewDense(4, 1, []float64{0, 1, 3, 3}), 2},
	} {
		if got := medianDist(sqDists(test.X)); got != test.want {
			t.Errorf("%s: got %v, want %v", test.name, got, test.want)
		}
	}
}
