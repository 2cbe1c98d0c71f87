package dataset

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
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
