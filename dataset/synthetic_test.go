package dataset

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func TestPolynomial(t *testing.T) {
	for _, test := range []struct {
		x, y, want float64
	}{
		{0, 0, -2},
		{1, 0, -2},
		{0, 1, 0},
		{1, 1, 1},
		{0.5, 0.5, -1.75},
	} {
		if got := Polynomial(test.x, test.y); !scalar.EqualWithinAbsOrRel(got, test.want, 1e-15, 1e-15) {
			t.Errorf("p(%v, %v): got %v, want %v", test.x, test.y, got, test.want)
		}
	}
}

func TestPolynomialGrid(t *testing.T) {
	for _, n := range []int{2, 6, 101} {
		X, y := PolynomialGrid(n)
		rows, cols := X.Dims()
		if rows != n*n || cols != 2 || len(y) != n*n {
			t.Fatalf("n=%d: unexpected size: X is %d×%d, len(y) = %d", n, rows, cols, len(y))
		}
		step := 1 / float64(n-1)
		for r := range rows {
			// x is the outer loop, y the inner one.
			i, j := r/n, r%n
			x0, x1 := X.At(r, 0), X.At(r, 1)
			if !scalar.EqualWithinAbs(x0, float64(i)*step, 1e-15) || !scalar.EqualWithinAbs(x1, float64(j)*step, 1e-15) {
				t.Fatalf("n=%d: row %d is (%v, %v), want (%v, %v)", n, r, x0, x1, float64(i)*step, float64(j)*step)
			}
			if y[r] != Polynomial(x0, x1) {
				t.Fatalf("n=%d: row %d: y = %v, want p(x) = %v", n, r, y[r], Polynomial(x0, x1))
			}
		}
		// The corners are exact, whatever n.
		last := rows - 1
		if X.At(last, 0) != 1 || X.At(last, 1) != 1 || y[0] != -2 || y[n-1] != 0 || y[last-n+1] != -2 || y[last] != 1 {
			t.Errorf("n=%d: unexpected corners", n)
		}
	}

	// The paper's training grid, row by row at the start.
	X, _ := PolynomialGrid(6)
	want := [][2]float64{{0, 0}, {0, 0.2}, {0, 0.4}, {0, 0.6}, {0, 0.8}, {0, 1}, {0.2, 0}}
	for r, w := range want {
		if got := [2]float64{X.At(r, 0), X.At(r, 1)}; got != w {
			t.Errorf("6×6 grid row %d: got %v, want %v", r, got, w)
		}
	}
}

func TestSineGrid(t *testing.T) {
	X, y := SineGrid(801)
	if rows, cols := X.Dims(); rows != 801 || cols != 1 || len(y) != 801 {
		t.Fatalf("unexpected size: X is %d×%d, len(y) = %d", rows, cols, len(y))
	}
	for i := range 801 {
		// The step is 0.01: every point is the float64 nearest i/100.
		if got, want := X.At(i, 0), float64(i)/100; got != want {
			t.Fatalf("point %d: got %v, want %v", i, got, want)
		}
		if got, want := y[i], math.Sin(X.At(i, 0)*X.At(i, 0)/2)+0.5; got != want {
			t.Fatalf("point %d: y = %v, want %v", i, got, want)
		}
	}
	if X.At(800, 0) != SineEnd {
		t.Errorf("grid ends at %v, want %v", X.At(800, 0), SineEnd)
	}
}

func TestNoisySine(t *testing.T) {
	const n = 100
	X, y := NoisySine(n, rand.New(rand.NewPCG(1, 1)))
	if rows, cols := X.Dims(); rows != n || cols != 1 || len(y) != n {
		t.Fatalf("unexpected size: X is %d×%d, len(y) = %d", rows, cols, len(y))
	}
	// Replay the source in the documented order, x then noise, to
	// recover the noise exactly.
	replay := rand.New(rand.NewPCG(1, 1))
	var mean float64
	for i := range n {
		x := SineEnd * replay.Float64()
		e := replay.Float64()
		if X.At(i, 0) != x {
			t.Fatalf("sample %d: x = %v, want %v", i, X.At(i, 0), x)
		}
		if x < 0 || x >= SineEnd {
			t.Errorf("sample %d: x = %v outside [0, %v)", i, x, SineEnd)
		}
		if e < 0 || e >= 1 {
			t.Errorf("sample %d: noise %v outside [0, 1)", i, e)
		}
		if want := math.Sin(x*x/2) + e; y[i] != want {
			t.Errorf("sample %d: y = %v, want %v", i, y[i], want)
		}
		mean += (y[i] - SineTruth(x)) / n
	}
	// The noise minus its mean 0.5 averages to about 0 (its standard
	// deviation is 1/sqrt(12*n) ≈ 0.03).
	if math.Abs(mean) > 0.15 {
		t.Errorf("mean residual about the truth is %v, want near 0", mean)
	}
}

// simpson integrates f over [a, b] by Simpson's rule on n (even)
// intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// friedman1Moments returns the mean and variance of the noise-free
// Friedman 1 target for x uniform on [0, 1)^5, by exact integration of its
// independent terms. With u, v uniform, E sin(πuv) = ∫₀¹ (1 − cos πv)/(πv) dv
// and E cos(2πuv) = ∫₀¹ sin(2πv)/(2πv) dv, both smooth integrands done by
// Simpson's rule; (x − 1/2)² has mean 1/12 and variance 1/80 − 1/144; x has
// mean 1/2 and variance 1/12.
func friedman1Moments() (mean, variance float64) {
	sinc := func(f func(float64) float64) func(float64) float64 {
		return func(v float64) float64 {
			if v == 0 {
				return 0
			}
			return f(v)
		}
	}
	es := simpson(sinc(func(v float64) float64 { return (1 - math.Cos(math.Pi*v)) / (math.Pi * v) }), 0, 1, 2000)
	ec2 := simpson(func(v float64) float64 {
		if v == 0 {
			return 1
		}
		return math.Sin(2*math.Pi*v) / (2 * math.Pi * v)
	}, 0, 1, 2000)
	varSin := (1-ec2)/2 - es*es // E sin² = (1 − E cos 2θ)/2
	mean = 10*es + 20.0/12 + 10.0/2 + 5.0/2
	variance = 100*varSin + 400*(1.0/80-1.0/144) + (100+25)/12.0
	return mean, variance
}

func TestFriedman1Moments(t *testing.T) {
	// The closed forms: E sin(πuv) = Cin(π)/π with Cin(π) = γ + ln π − Ci(π)
	// ≈ 1.648278, and E cos(2πuv) = Si(2π)/(2π) ≈ 1.418152/(2π).
	mean, variance := friedman1Moments()
	if want := 10*1.648278/math.Pi + 20.0/12 + 7.5; math.Abs(mean-want) > 1e-5 {
		t.Errorf("exact mean %v, want %v", mean, want)
	}
	es, ec2 := 1.648278/math.Pi, 1.418152/(2*math.Pi)
	if want := 100*((1-ec2)/2-es*es) + 400.0/180 + 125.0/12; math.Abs(variance-want) > 1e-4 {
		t.Errorf("exact variance %v, want %v", variance, want)
	}
	if math.Abs(mean-14.41) > 0.01 {
		t.Errorf("exact mean %v, want about 14.41", mean)
	}
}

func TestFriedman1(t *testing.T) {
	const n = 100000
	X, y := Friedman1(n, rand.New(rand.NewPCG(1, 1)))
	if rows, cols := X.Dims(); rows != n || cols != 10 || len(y) != n {
		t.Fatalf("unexpected size: X is %d×%d, len(y) = %d", rows, cols, len(y))
	}
	// Replay the source in the documented order, ten inputs then the
	// noise, and compute the truth with a formula of our own.
	replay := rand.New(rand.NewPCG(1, 1))
	var x [10]float64
	var sumF, sumF2, sumY, sumE, sumE2 float64
	var colMean [10]float64
	for i := range n {
		for j := range x {
			x[j] = replay.Float64()
			if X.At(i, j) != x[j] {
				t.Fatalf("sample %d, column %d: x = %v, want %v", i, j, X.At(i, j), x[j])
			}
			colMean[j] += x[j] / n
		}
		e := replay.NormFloat64()
		d := x[2] - 0.5
		f := 5*(2*math.Sin(math.Pi*x[1]*x[0])+x[4]) + 10*x[3] + 20*d*d
		if want := f + e; math.Abs(y[i]-want) > 1e-12 {
			t.Fatalf("sample %d: y = %v, want %v", i, y[i], want)
		}
		if got := Friedman1Truth(x[:]); math.Abs(got-f) > 1e-12 {
			t.Fatalf("sample %d: Friedman1Truth = %v, want %v", i, got, f)
		}
		r := y[i] - f
		sumF += f
		sumF2 += f * f
		sumY += y[i]
		sumE += r
		sumE2 += r * r
	}
	for j, m := range colMean {
		// Uniform on [0, 1): mean 1/2 with standard error 0.0009.
		if math.Abs(m-0.5) > 0.005 {
			t.Errorf("column %d has mean %v, want about 0.5", j, m)
		}
	}
	wantMean, wantVar := friedman1Moments()
	meanF := sumF / n
	varF := sumF2/n - meanF*meanF
	// Standard errors: about 0.015 for the means, 0.1 for the variance.
	if math.Abs(meanF-wantMean) > 0.08 {
		t.Errorf("noise-free mean %v, want %v", meanF, wantMean)
	}
	if math.Abs(varF-wantVar) > 0.5 {
		t.Errorf("noise-free variance %v, want %v", varF, wantVar)
	}
	if got := sumY / n; math.Abs(got-wantMean) > 0.08 {
		t.Errorf("mean of y %v, want %v", got, wantMean)
	}
	// The noise: mean 0 (standard error 0.003), standard deviation 1
	// (standard error 0.0022).
	meanE := sumE / n
	sdE := math.Sqrt(sumE2/n - meanE*meanE)
	if math.Abs(meanE) > 0.015 {
		t.Errorf("noise mean %v, want about 0", meanE)
	}
	if math.Abs(sdE-1) > 0.01 {
		t.Errorf("noise standard deviation %v, want about 1", sdE)
	}
}

func TestFriedman1Deterministic(t *testing.T) {
	X1, y1 := Friedman1(50, rand.New(rand.NewPCG(7, 3)))
	X2, y2 := Friedman1(50, rand.New(rand.NewPCG(7, 3)))
	if !mat.Equal(X1, X2) || !slices.Equal(y1, y2) {
		t.Error("two draws with the same seed differ")
	}
	X3, y3 := Friedman1(50, rand.New(rand.NewPCG(8, 3)))
	if mat.Equal(X1, X3) || slices.Equal(y1, y3) {
		t.Error("draws with different seeds are equal")
	}
	// The global source works too.
	if X, y := Friedman1(3, nil); X == nil || len(y) != 3 {
		t.Error("nil source: no samples")
	}
	defer func() {
		if recover() == nil {
			t.Error("Friedman1(0) did not panic")
		}
	}()
	Friedman1(0, nil)
}
