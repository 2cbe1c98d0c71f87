package numeric

import (
	"math"
	"math/rand/v2"
	"testing"
)

// expArgs returns arguments for the exponential: special points and
// random ones over the range where the result is not yet 0.
func expArgs(scale float64) []float64 {
	rnd := rand.New(rand.NewPCG(1, 1))
	xs := []float64{0, 1e-300, 0.5, math.Ln2 / 512, math.Ln2 / 2, math.Ln2, 1, 10, 87.3, 100, 103.9, 104, 104.5, 700, 707.9, 708, 708.5, 1000, math.Inf(1)}
	for range 100000 {
		xs = append(xs, rnd.ExpFloat64()*scale)
	}
	return xs
}

func TestNegExp(t *testing.T) {
	xs := expArgs(50)
	got := append([]float64(nil), xs...)
	NegExp(got, 1)
	for i, x := range xs {
		want := math.Exp(-x)
		if x > 708 {
			if got[i] != 0 {
				t.Fatalf("NegExp(%v) = %v, want 0", x, got[i])
			}
			continue
		}
		if rel := math.Abs(got[i]-want) / want; rel > 1e-15 {
			t.Fatalf("NegExp(%v) = %v, math.Exp(-x) = %v: relative error %.2g", x, got[i], want, rel)
		}
	}
}

// TestNegExpVec checks that the vector exponentials compute what the
// loop does, bit for bit, on slices of every length modulo 8 and over
// the whole range, the cutoff, infinity and NaN included: NegExp as it
// dispatches, and each assembly kernel the processor runs on a whole
// slice of its width.
func TestNegExpVec(t *testing.T) {
	xs := append([]float64{math.NaN(), 1e300}, expArgs(50)...)
	kernels := []struct {
		name  string
		run   bool
		width int
		f     func([]float64, float64)
	}{
		{"NegExp", true, 1, NegExp},
		{"negExpX4", expVec, 4, negExpX4},
		{"negExpX8", expVec8, 8, negExpX8},
	}
	for _, k := range kernels {
		if !k.run {
			continue
		}
		for _, c := range []float64{1, 0.125, 3} {
			for _, n := range []int{0, 1, 3, 4, 7, 8, 12, 15, 16, len(xs)} {
				n -= n % k.width
				got, want := append([]float64(nil), xs[:n]...), append([]float64(nil), xs[:n]...)
				k.f(got, c)
				negExpGo(want, c)
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
						t.Fatalf("%s, c=%v, n=%d: %v gives %v, negExpGo %v", k.name, c, n, xs[i], got[i], want[i])
					}
				}
			}
		}
	}
}

// TestNegExpFloat32 checks that the float32 exponential is correctly
// rounded but for an occasional last bit.
func TestNegExpFloat32(t *testing.T) {
	xs := expArgs(10)
	got := make([]float32, len(xs))
	for i, x := range xs {
		got[i] = float32(x)
	}
	NegExp32(got, 1)
	for i, x := range xs {
		x := float64(float32(x))
		want := float32(math.Exp(-x))
		if x > 104 {
			if got[i] != 0 {
				t.Fatalf("NegExp(%v) = %v, want 0", x, got[i])
			}
			continue
		}
		// One unit in the last place, or the smallest subnormal.
		ulp := math.Max(float64(math.Nextafter32(want, 1)-want), math.SmallestNonzeroFloat32)
		if diff := math.Abs(float64(got[i] - want)); diff > ulp {
			t.Fatalf("NegExp(%v) = %v, math.Exp(-x) = %v: %.2g ulp apart", x, got[i], want, diff/ulp)
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
	b.Run("NegExp", func(b *testing.B) {
		for b.Loop() {
			copy(dst, xs)
			NegExp(dst, 1)
		}
	})
	for _, k := range []struct {
		name string
		run  bool
		f    func([]float64, float64)
	}{{"negExpX4", expVec, negExpX4}, {"negExpX8", expVec8, negExpX8}} {
		if k.run {
			b.Run(k.name, func(b *testing.B) {
				for b.Loop() {
					copy(dst, xs)
					k.f(dst, 1)
				}
			})
		}
	}
	b.Run("negExpGo", func(b *testing.B) {
		for b.Loop() {
			copy(dst, xs)
			negExpGo(dst, 1)
		}
	})
	xs32 := make([]float32, len(xs))
	for i, x := range xs {
		xs32[i] = float32(x)
	}
	dst32 := make([]float32, len(xs))
	b.Run("float32/math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs32 {
				dst32[i] = float32(math.Exp(-float64(x)))
			}
		}
	})
	b.Run("float32/NegExp32", func(b *testing.B) {
		for b.Loop() {
			copy(dst32, xs32)
			NegExp32(dst32, 1)
		}
	})
}
