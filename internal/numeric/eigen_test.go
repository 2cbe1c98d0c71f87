package numeric

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// symmetric returns a symmetric n x n matrix of the given kind, drawn
// from rnd.
func symmetric(kind string, n int, rnd *rand.Rand) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	switch kind {
	case "random":
		for i := range n {
			for j := i; j < n; j++ {
				a.SetSym(i, j, rnd.NormFloat64())
			}
		}
	case "gram of low rank": // zero eigenvalues, as a Gram matrix of few rows has
		x := mat.NewDense(max(n/3, 1), n, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rnd.NormFloat64()
		}
		a.SymOuterK(1, x.T())
	case "blocks": // zero off-diagonal entries split the tridiagonal form
		for i := range n {
			a.SetSym(i, i, float64(i%3))
			if i%4 != 3 && i+1 < n {
				a.SetSym(i, i+1, rnd.NormFloat64())
			}
		}
	case "repeated": // the identity plus a matrix of rank one
		for i := range n {
			for j := i; j < n; j++ {
				v := 1.0
				if i == j {
					v = 2
				}
				a.SetSym(i, j, v)
			}
		}
	case "tiny": // scaled into range first
		for i := range n {
			for j := i; j < n; j++ {
				a.SetSym(i, j, 1e-160*rnd.NormFloat64())
			}
		}
	}
	return a
}

// TestEigenSym checks the decomposition by its equations, A V = V diag(w)
// and V^T V = I, and its eigenvalues against gonum's, each to a few
// hundred units of rounding of the matrix's largest entry: EigenSym
// reduces the lower triangle, gonum the upper, so the two agree to
// rounding only.
func TestEigenSym(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"random", "gram of low rank", "blocks", "repeated", "tiny"} {
		for _, n := range []int{1, 2, 3, 5, 8, 17, 64, 111, 150} {
			a := symmetric(kind, n, rnd)
			var want mat.EigenSym
			if !want.Factorize(a, true) {
				t.Fatalf("%s, n %d: gonum failed", kind, n)
			}
			vals, vecs, ok := EigenSym(a)
			if !ok {
				t.Fatalf("%s, n %d: EigenSym failed", kind, n)
			}
			scale := mat.Norm(a, math.Inf(1))
			tol := 1e-13 * float64(n) * scale
			for i, v := range want.Values(nil) {
				if math.Abs(vals[i]-v) > tol {
					t.Fatalf("%s, n %d: eigenvalue %d is %v, want %v", kind, n, i, vals[i], v)
				}
				if i > 0 && vals[i] < vals[i-1] {
					t.Fatalf("%s, n %d: eigenvalues not ascending at %d", kind, n, i)
				}
			}
			var av, vw, vtv mat.Dense
			av.Mul(a, vecs)
			vw.Mul(vecs, mat.NewDiagDense(n, vals))
			if !mat.EqualApprox(&av, &vw, tol) {
				t.Fatalf("%s, n %d: A V differs from V diag(w)", kind, n)
			}
			vtv.Mul(vecs.T(), vecs)
			if !mat.EqualApprox(&vtv, eye(n), 1e-13*float64(n)) {
				t.Fatalf("%s, n %d: the eigenvectors are not orthonormal", kind, n)
			}
		}
	}
}

// eye returns the n x n identity.
func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

func TestRotateRows(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 3, 4, 7, 8, 13} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = rnd.NormFloat64(), rnd.NormFloat64()
		}
		gx, gy := append([]float64(nil), x...), append([]float64(nil), y...)
		c, s := 0.6, -0.8
		rotateRows(x, y, c, s)
		for i := range gx {
			u, v := gx[i], gy[i]
			if y[i] != c*v-s*u || x[i] != s*v+c*u {
				t.Fatalf("n %d: element %d: got %v, %v", n, i, x[i], y[i])
			}
		}
	}
}

func BenchmarkEigenSym(b *testing.B) {
	for _, n := range []int{110, 225} {
		a := symmetric("random", n, rand.New(rand.NewPCG(5, 6)))
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			for b.Loop() {
				var e mat.EigenSym
				e.Factorize(a, true)
			}
		})
		b.Run(fmt.Sprintf("EigenSym/%d", n), func(b *testing.B) {
			for b.Loop() {
				EigenSym(a)
			}
		})
	}
}
