package ad

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestNegExp(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	xs := []float64{0, 1e-300, 0.5, math.Ln2 / 512, math.Ln2 / 2, math.Ln2, 1, 10, 100, 700, 707.9, 708, 708.5, 1000, math.Inf(1)}
	for range 100000 {
		xs = append(xs, rnd.ExpFloat64()*50)
	}
	got := append([]float64(nil), xs...)
	negExp(got, 1)
	for i, x := range xs {
		want := math.Exp(-x)
		if x > 708 {
			if got[i] != 0 {
				t.Fatalf("negExp(%v) = %v, want 0", x, got[i])
			}
			continue
		}
		if rel := math.Abs(got[i]-want) / want; rel > 1e-15 {
			t.Fatalf("negExp(%v) = %v, math.Exp(-x) = %v: relative error %.2g", x, got[i], want, rel)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = float64(i) / 100
	}
	dst := make([]float64, len(xs))
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = math.Exp(-x)
			}
		}
	})
	b.Run("negExp", func(b *testing.B) {
		for b.Loop() {
			copy(dst, xs)
			negExp(dst, 1)
		}
	})
}
