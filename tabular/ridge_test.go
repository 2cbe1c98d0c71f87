package tabular

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// TestSqDistance checks the squared distance against the square of
// floats.Distance, which it replaces.
func TestSqDistance(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 8))
	for _, tc := range []struct {
		name string
		u, v []float64
	}{
		{"empty", nil, nil},
		{"equal", []float64{1, -2, 3}, []float64{1, -2, 3}},
		{"one", []float64{2}, []float64{-1}},
		{"small", []float64{1e-100, 0}, []float64{0, 1e-100}},
		{"random", randomVector(rnd, 40), randomVector(rnd, 40)},
	} {
		d := floats.Distance(tc.u, tc.v, 2)
		if got := sqDistance(tc.u, tc.v); !scalar.EqualWithinAbsOrRel(got, d*d, 0, 1e-14) {
			t.Errorf("%s: %v, want %v", tc.name, got, d*d)
		}
	}
}

// randomVector returns n standard normal draws.
func randomVector(rnd *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rnd.NormFloat64()
	}
	return v
}

// randomWeights returns n weights drawn uniformly from [0.5, 1.5).
func randomWeights(rnd *rand.Rand, n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 0.5 + rnd.Float64()
	}
	return w
}

// TestSolutionAt checks the solution at one cost from the Cholesky
// factorisation against the eigendecomposition's (ridge, then
// solution), on some rows and all, weighted and not, on the features
// themselves and on their coordinates in the rows' span.
func TestSolutionAt(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 2))
	x, y := nearlyLinear(rnd, 40, 3)
	w := randomWeights(rnd, 40)
	rows := rnd.Perm(40)[:30]
	for _, tc := range []struct {
		name    string
		anchors *mat.Dense
		rows    []int
		w       []float64
	}{
		{"features", mat.DenseCopyOf(x.Slice(0, 12, 0, 3)), nil, nil},
		{"features, rows, weights", mat.DenseCopyOf(x.Slice(0, 12, 0, 3)), rows, pick(w, rows)},
		{"span, rows", x, rows, nil},
		{"span, weights", x, nil, w},
	} {
		b, err := newShallowBasis(newShallowInputs(x, tc.anchors, 1, false), medianDistance(tc.anchors), 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.ridge(tc.rows, tc.w)
		if err != nil {
			t.Fatal(err)
		}
		yr := mat.Matrix(y)
		if tc.rows != nil {
			yr = pickRows(y, tc.rows)
		}
		for _, cost := range []float64{1e-4, 0.1, 10} {
			want, wantB := r.solution(r.project(yr), cost)
			got, gotB, err := b.solutionAt(tc.rows, tc.w, y, cost)
			if err != nil {
				t.Fatal(err)
			}
			scale := math.Max(mat.Norm(want, math.Inf(1)), 1)
			if !mat.EqualApprox(got, want, 1e-8*scale) || !scalar.EqualWithinAbs(gotB[0], wantB[0], 1e-8*scale) {
				t.Errorf("%s, cost %v: beta %v, intercept %v; want %v, %v", tc.name, cost, mat.Formatted(got.T()), gotB, mat.Formatted(want.T()), wantB)
			}
		}
	}
}

// TestLinearFactor checks the shallow machine's linear factor: 1/sqrt(d)
// on at most wideRowsPerInput training rows per input, 1 on more; and
// that the shallow machine's space takes it from the shape of all the
// rows, not of the subsample that chooses a large table's settings.
func TestLinearFactor(t *testing.T) {
	for _, tc := range []struct {
		n, d int
		want float64
	}{
		{148, 62, 1 / math.Sqrt(62)},
		{15, 3, 1 / math.Sqrt(3)},
		{16, 3, 1},
		{133, 13, 1},
		{10, 0, 1},
	} {
		if got := linearFactor(tc.n, tc.d); got != tc.want {
			t.Errorf("%d rows of %d inputs: linear factor %v, want %v", tc.n, tc.d, got, tc.want)
		}
	}
	rnd := rand.New(rand.NewPCG(5, 3))
	for _, tc := range []struct {
		n    int
		want float64
	}{{SelectionRows, 0.1}, {600, 1}} {
		x := mat.NewDense(tc.n, 100, nil)
		x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
		d := problemData{x: x, y: mat.DenseCopyOf(x.Slice(0, tc.n, 0, 1)), fitY: mat.DenseCopyOf(x.Slice(0, tc.n, 0, 1))}
		val, err := validationOn(d, SelectionRows, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		sp := newShallowSpace([]problemData{d}, val, Settings{})
		f := &shallowFit{data: d, space: sp}
		if in := f.inputs(mat.DenseCopyOf(sp.sub[0].x), sp.anchors); len(val.rows) != SelectionRows || sp.lin != tc.want || sp.in.lin != tc.want || in.lin != tc.want {
			t.Errorf("%d rows of 100 inputs, validated on %d: linear factor %v, of the selection's inputs %v, of the final fit's %v; want %v", tc.n, len(val.rows), sp.lin, sp.in.lin, in.lin, tc.want)
		}
	}
}

// TestLUSolve checks luSolve against lapack64.Getrs, bit for bit, on
// seeded systems of one to three columns whose factors hold zeros and
// whose pivots swap rows.
func TestLUSolve(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 11))
	for _, n := range []int{1, 2, 7, 40} {
		for _, k := range []int{1, 3} {
			a := mat.NewDense(n, n, nil)
			for i := range n {
				for j := range n {
					if rnd.IntN(4) > 0 { // a quarter of zeros
						a.Set(i, j, rnd.NormFloat64())
					}
				}
				a.Set(i, (i+1)%n, a.At(i, (i+1)%n)+3) // nonsingular, and pivoted
			}
			b := mat.NewDense(n, k, nil)
			for i := range n {
				for j := range k {
					b.Set(i, j, rnd.NormFloat64())
				}
			}
			ipiv := make([]int, n)
			if !lapack64.Getrf(a.RawMatrix(), ipiv) {
				t.Fatalf("n %d: singular", n)
			}
			want, got := mat.DenseCopyOf(b), mat.DenseCopyOf(b)
			lapack64.Getrs(blas.NoTrans, a.RawMatrix(), want.RawMatrix(), ipiv)
			luSolve(a.RawMatrix(), ipiv, got.RawMatrix())
			if !mat.Equal(got, want) {
				t.Errorf("n %d, %d columns: luSolve\n%v\nGetrs\n%v", n, k, mat.Formatted(got.T()), mat.Formatted(want.T()))
			}
		}
	}
}
