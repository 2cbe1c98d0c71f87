package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

// expArgs returns arguments of e^x over its whole range: a grid from
// below the underflow to above the overflow, random ones, those of a
// Gaussian kernel (small negatives), the edges and the special values.
func expArgs() []float64 {
	rnd := rand.New(rand.NewPCG(1, 9))
	var x []float64
	for v := -760.0; v <= 720; v += 0.0137 {
		x = append(x, v)
	}
	for range 100000 {
		x = append(x, -50*rnd.Float64(), 1500*rnd.Float64()-760, math.Ldexp(rnd.Float64()-0.5, -rnd.IntN(60)))
	}
	return append(x, 0, math.Copysign(0, -1), 1, -1, math.Ln2/2, -math.Ln2/2, 709.78, 709.79, -708.39, -708.4,
		-745.13, -745.14, expHi, expLo, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64)
}

// ulps returns how many float64 steps lie between a and b, both finite
// and of the same sign or 0.
func ulps(a, b float64) uint64 {
	ua, ub := math.Float64bits(a), math.Float64bits(b)
	if ua > ub {
		return ua - ub
	}
	return ub - ua
}

// TestExp checks Exp against math.Exp over the whole range: within two
// ulps (each is within one of e^x), or two steps of the subnormals, and
// the same special values (0 below the underflow, +Inf above the
// overflow, NaN for NaN). Between 709.44 and the overflow at
// 709.7827, where math.Exp on amd64 gives +Inf, the reference is e
// e^(x-1).
func TestExp(t *testing.T) {
	x := expArgs()
	got := make([]float64, len(x))
	Exp(got, x)
	var worst uint64
	for i, v := range x {
		want := math.Exp(v)
		if math.IsInf(want, 1) && v < math.Log(math.MaxFloat64) {
			want = math.E * math.Exp(v-1)
		}
		switch {
		case math.IsNaN(want) || math.IsInf(want, 0) || want == 0:
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(got[i])) {
				t.Errorf("Exp(%v) = %v, want %v", v, got[i], want)
			}
		default:
			d := ulps(got[i], want)
			worst = max(worst, d)
			if d > 2 {
				t.Errorf("Exp(%v) = %v, want %v: %d ulps apart", v, got[i], want, d)
			}
		}
	}
	t.Logf("%d arguments, at most %d ulp from math.Exp", len(x), worst)
}

// TestExpKernel checks that the kernel gives the bits of exp1 on every
// length (the rest of four computed by exp1), in place too.
func TestExpKernel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 and FMA, or the build tag noasm: Exp computes exp1 alone")
	}
	x := expArgs()
	for _, n := range []int{0, 1, 3, 4, 5, 8, 13, len(x)} {
		got := make([]float64, n)
		Exp(got, x[:n])
		in := append([]float64(nil), x[:n]...)
		Exp(in, in)
		for i, v := range x[:n] {
			want := exp1(v)
			if !sameFloat(got[i], want) || !sameFloat(in[i], want) {
				t.Fatalf("n=%d: Exp(%v) = %v, in place %v, exp1 %v", n, v, got[i], in[i], want)
			}
		}
	}
	testutil.CheckPanic(t, func() { Exp(make([]float64, 3), make([]float64, 4)) }, "numeric: Exp into a shorter slice")
}

// BenchmarkExp times Exp and math.Exp on the arguments of a Gaussian
// kernel, in ns per value.
func BenchmarkExp(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 4096)
	for i := range x {
		x[i] = -10 * rnd.Float64()
	}
	dst := make([]float64, len(x))
	b.Run("Exp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, x)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				dst[i] = math.Exp(v)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/value")
	})
}

// sameFloat reports whether a and b have the same bits or are both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestExpExact checks Exp against e^x computed to 200 bits with
// math/big, on arguments of normal results: within one ulp.
func TestExpExact(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 1))
	x := []float64{-708, 709.7, -0.5, 0.5, math.Ln2 / 2, -math.Ln2 / 2, 1e-300}
	for range 3000 {
		x = append(x, 1416*rnd.Float64()-708, -40*rnd.Float64())
	}
	got := make([]float64, len(x))
	Exp(got, x)
	var worst float64
	for i, v := range x {
		want, _ := bigExp(v).Float64()
		ulp := math.Nextafter(want, math.Inf(1)) - want
		d := math.Abs(got[i]-want) / ulp
		if !(d <= 1) {
			t.Errorf("Exp(%v) = %v, want %v: %.2f ulps apart", v, got[i], want, d)
		}
		worst = max(worst, d)
	}
	t.Logf("%d arguments, at most %.3f ulps from e^x", len(x), worst)
}

// bigExp returns e^x to 200 bits: e^n (e by its series, raised to the
// integer n nearest x) times the series of e^(x-n).
func bigExp(x float64) *big.Float {
	const prec = 200
	series := func(r *big.Float) *big.Float {
		sum, term := new(big.Float).SetPrec(prec).SetInt64(1), new(big.Float).SetPrec(prec).SetInt64(1)
		for k := int64(1); k < 80; k++ {
			term.Mul(term, r)
			term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
			sum.Add(sum, term)
		}
		return sum
	}
	n := math.Round(x)
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.Sub(r, new(big.Float).SetPrec(prec).SetFloat64(n))
	out := series(r)
	e := series(new(big.Float).SetPrec(prec).SetInt64(1))
	if n < 0 {
		e.Quo(new(big.Float).SetPrec(prec).SetInt64(1), e)
	}
	for m := int64(math.Abs(n)); m > 0; m >>= 1 {
		if m&1 == 1 {
			out.Mul(out, e)
		}
		e.Mul(e, e)
	}
	return out
}
