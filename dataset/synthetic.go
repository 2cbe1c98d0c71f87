package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// SineEnd is the right end of the interval [0, SineEnd] of the noisy sine
// task.
const SineEnd = 8

// Polynomial is the ground truth of the paper's surface fitting task,
// p(x, y) = (2x-1)² + 2y + xy - 3.
func Polynomial(x, y float64) float64 {
	return (2*x-1)*(2*x-1) + 2*y + x*y - 3
}

// PolynomialGrid returns the n×n uniform grid on [0,1]² as the rows of X,
// with y holding Polynomial at each point. Rows run through the grid with x
// in the outer loop: (0, 0), (0, 1/(n-1)), ..., (0, 1), (1/(n-1), 0), ....
// The paper trains on n = 6. PolynomialGrid panics if n < 2.
func PolynomialGrid(n int) (X *mat.Dense, y []float64) {
	if n < 2 {
		panic(fmt.Errorf("%w: dataset: grid needs at least 2 points per side", ad.ErrValue))
	}
	X = mat.NewDense(n*n, 2, nil)
	y = make([]float64, n*n)
	for i := range n {
		u := float64(i) / float64(n-1)
		for j := range n {
			v := float64(j) / float64(n-1)
			r := i*n + j
			X.Set(r, 0, u)
			X.Set(r, 1, v)
			y[r] = Polynomial(u, v)
		}
	}
	return X, y
}

// NoisySine returns n samples of the paper's noisy interpolation task: x
// uniform on [0, SineEnd) in the single column of X, and y = sin(x²/2) + e
// with noise e uniform on [0, 1). For each sample x is drawn before e. If
// rnd is nil, the global source of math/rand/v2 is used. NoisySine panics if
// n < 1.
func NoisySine(n int, rnd *rand.Rand) (X *mat.Dense, y []float64) {
	if n < 1 {
		panic(fmt.Errorf("%w: dataset: no samples requested", ad.ErrValue))
	}
	uniform := rand.Float64
	if rnd != nil {
		uniform = rnd.Float64
	}
	X = mat.NewDense(n, 1, nil)
	y = make([]float64, n)
	for i := range n {
		x := SineEnd * uniform()
		X.Set(i, 0, x)
		y[i] = math.Sin(x*x/2) + uniform()
	}
	return X, y
}

// SineTruth is the expected value of the noisy sine at x, sin(x²/2) + 0.5,
// the noise being uniform on [0, 1).
func SineTruth(x float64) float64 {
	return math.Sin(x*x/2) + 0.5
}

// SineGrid returns n evenly spaced points of [0, SineEnd], both ends
// included, in the single column of X, with y holding SineTruth at each
// point; n = 801 gives a step of 0.01. SineGrid panics if n < 2.
func SineGrid(n int) (X *mat.Dense, y []float64) {
	if n < 2 {
		panic(fmt.Errorf("%w: dataset: grid needs at least 2 points", ad.ErrValue))
	}
	X = mat.NewDense(n, 1, nil)
	y = make([]float64, n)
	for i := range n {
		x := SineEnd * float64(i) / float64(n-1)
		X.Set(i, 0, x)
		y[i] = SineTruth(x)
	}
	return X, y
}

// Friedman1Features is the number of input columns of Friedman1.
const Friedman1Features = 10

// Friedman1Truth is the noise-free target of Friedman's first regression
// problem at x (at least 5 entries; the rest are ignored):
// 10 sin(π x0 x1) + 20 (x2 − 0.5)² + 10 x3 + 5 x4.
func Friedman1Truth(x []float64) float64 {
	return 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4]
}

// Friedman1 returns n samples of Friedman's first regression problem as
// scikit-learn's make_friedman1 draws it with its default 10 features and
// noise 1: the Friedman1Features columns of X uniform on [0, 1), only the
// first five of which matter, and y = Friedman1Truth(x) + e with e standard
// normal. For each sample the ten inputs are drawn in column order, then e.
// If rnd is nil, the global source of math/rand/v2 is used. Friedman1
// panics if n < 1.
func Friedman1(n int, rnd *rand.Rand) (X *mat.Dense, y []float64) {
	if n < 1 {
		panic(fmt.Errorf("%w: dataset: no samples requested", ad.ErrValue))
	}
	uniform, normal := rand.Float64, rand.NormFloat64
	if rnd != nil {
		uniform, normal = rnd.Float64, rnd.NormFloat64
	}
	X = mat.NewDense(n, Friedman1Features, nil)
	y = make([]float64, n)
	for i := range n {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = uniform()
		}
		y[i] = Friedman1Truth(row) + normal()
	}
	return X, y
}
