package numeric

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The spectrum has EigenSym's eigenvalues, bit for bit, and maps
// vectors to the eigenbasis and back as EigenSym's vectors do, V^T b and
// V f, to rounding: its rotations, swaps and reflectors are V's.
func TestSymSpectrum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, kind := range []string{"random", "gram of low rank", "blocks", "repeated", "tiny"} {
		for _, n := range []int{1, 2, 3, 5, 8, 17, 64, 111} {
			a := symmetric(kind, n, rnd)
			vals, vecs, ok := EigenSym(a)
			if !ok {
				t.Fatalf("%s, n %d: EigenSym failed", kind, n)
			}
			sp, ok := NewSymSpectrum(a)
			if !ok {
				t.Fatalf("%s, n %d: NewSymSpectrum failed", kind, n)
			}
			if !slices.Equal(sp.Values, vals) {
				t.Fatalf("%s, n %d: eigenvalues %v, want EigenSym's %v", kind, n, sp.Values, vals)
			}
			b := mat.NewDense(n, 3, nil)
			for i := range b.RawMatrix().Data {
				b.RawMatrix().Data[i] = rnd.NormFloat64()
			}
			kept := mat.DenseCopyOf(b)
			var want mat.Dense
			want.Mul(vecs.T(), b)
			if got := sp.ToEigen(b); !mat.EqualApprox(got, &want, 1e-13*float64(n)) {
				t.Fatalf("%s, n %d: ToEigen differs from V^T b", kind, n)
			}
			want.Mul(vecs, b)
			if got := sp.FromEigen(b); !mat.EqualApprox(got, &want, 1e-13*float64(n)) {
				t.Fatalf("%s, n %d: FromEigen differs from V f", kind, n)
			}
			if !mat.Equal(b, kept) {
				t.Fatalf("%s, n %d: the maps changed their argument", kind, n)
			}
		}
	}
}
