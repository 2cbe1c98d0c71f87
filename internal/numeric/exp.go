package numeric

import "math"

// Exp sets dst[i] to e^x[i] for every i < len(x), four at a time with
// AVX2 and FMA where the processor has them, within about one ulp of
// math.Exp: the product of many exponentials, such as a Gaussian kernel
// at many points, costs several times less than with math.Exp. The
// kernel and its Go version (without AVX2, or with the build tag noasm)
// give the same bits. dst may be x. Exp panics if dst is shorter than x.
func Exp(dst, x []float64) {
	if len(dst) < len(x) {
		panic("numeric: Exp into a shorter slice")
	}
	n := 0
	if useAVX2 {
		n = len(x) &^ 3
		if n > 0 {
			expKernel(dst[:n], x[:n])
		}
	}
	for i := n; i < len(x); i++ {
		dst[i] = exp1(x[i])
	}
}

// The constants of exp1 and of the kernel, which keeps them in expc.
const (
	log2e = 1.44269504088896338700e+00
	// ln2Hi + ln2Lo is ln 2, ln2Hi with zeros at its end, so that k
	// ln2Hi is exact.
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	// expHi and expLo bound the arguments: e^x overflows above the one,
	// and rounds to 0 below the other.
	expHi = 710
	expLo = -746
)

// expTaylor holds 1/n! for n = 13 down to 0: the Taylor polynomial of
// e^r, which on |r| <= ln(2)/2 is within 1e-17 of it.
var expTaylor = [...]float64{1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1, 1}

// exp1 returns e^x as the kernel computes it: x = k ln 2 + r with k an
// integer and |r| <= ln(2)/2, e^r by its Taylor polynomial, times 2^k
// in two factors 2^k1 2^k2, so that a result below the smallest normal
// number is rounded once, into the subnormals or to 0. NaN gives NaN,
// which min and max keep.
func exp1(x float64) float64 {
	x = min(max(x, expLo), expHi)
	k := math.RoundToEven(x * log2e)
	r := math.FMA(-k, ln2Hi, x)
	r = math.FMA(-k, ln2Lo, r)
	p := expTaylor[0]
	for _, c := range expTaylor[1:] {
		p = math.FMA(p, r, c)
	}
	k1 := math.Floor(k * 0.5)
	return p * pow2(k1) * pow2(k-k1)
}

// pow2 returns 2^k for an integer k of a normal power of two.
func pow2(k float64) float64 {
	return math.Float64frombits(uint64(int64(k)+1023) << 52)
}
