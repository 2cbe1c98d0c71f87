package numeric

import "math"

const expTableBits = 8

// expTable holds 2^(j/256) for j = 0..255.
var expTable = func() (t [1 << expTableBits]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / (1 << expTableBits))
	}
	return t
}()

// The reduction constants of NegExp: 256/ln 2, and ln 2 / 256 split
// into a high part whose products with the reduced exponent are exact
// and a low part.
const (
	expInvLn2 = (1 << expTableBits) * 1.44269504088896340735992468100189214
	expLn2Hi  = 6.93147180369123816490e-01 / (1 << expTableBits)
	expLn2Lo  = 1.90821492927058770002e-10 / (1 << expTableBits)
)

// NegExp sets x[i] = e^(-c x[i]) for c x[i] >= 0, in place: the
// Gaussian kernel's many exponentials of non-positive arguments, without
// the general function's handling of overflow, NaN and subnormals.
// Beyond 708 the result is 0, where math.Exp would return a subnormal of
// at most 3e-308. The relative error is below 1e-15, a few ulp (see the
// test). Where the processor allows, the assembly takes eight (AVX-512)
// or four (AVX2) elements at a time and the loop the rest.
func NegExp(x []float64, c float64) {
	if expVec8 {
		n := len(x) &^ 7
		negExpX8(x[:n], c)
		x = x[n:]
	}
	if expVec {
		n := len(x) &^ 3
		negExpX4(x[:n], c)
		x = x[n:]
	}
	negExpGo(x, c)
}

// negExpGo is NegExp's loop, one element at a time.
func negExpGo(x []float64, c float64) {
	const n = 1 << expTableBits
	for i, a := range x {
		a *= c
		if a > 708 {
			x[i] = 0
			continue
		}
		// -a = (256m + j) ln2/256 + r with |r| <= ln2/512, so that
		// e^-a = 2^m 2^(j/256) e^r and a short polynomial is exact
		// enough.
		k := -int64(a*expInvLn2 + 0.5) // round to nearest; a >= 0
		r := -a - float64(k)*expLn2Hi - float64(k)*expLn2Lo
		// Taylor series of e^r to degree 4: the remainder is below 4e-17.
		p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
		x[i] = p * expTable[k&(n-1)] * math.Float64frombits(uint64(k>>expTableBits+1023)<<52)
	}
}

// NegExp32 is NegExp for float32. It reduces the argument as NegExp
// does, in float64, but float32's precision asks for less: the reduction
// needs no second constant for ln 2 (its error stays below 1e-13 over the
// whole range) and a quadratic replaces the quartic (its remainder |r|^3/6
// is below 5e-10, against a rounding error of 6e-8). Beyond 104 the result
// is 0, as is e^-104 rounded to float32.
func NegExp32(x []float32, c float64) {
	const (
		n      = 1 << expTableBits
		invLn2 = n * 1.44269504088896340735992468100189214
		ln2    = 0.693147180559945309417232121458176568 / n
	)
	for i, a := range x {
		b := float64(a) * c
		if b > 104 {
			x[i] = 0
			continue
		}
		k := -int64(b*invLn2 + 0.5)
		r := -b - float64(k)*ln2
		p := 1 + r*(1+r*(1.0/2))
		x[i] = float32(p * expTable[k&(n-1)] * math.Float64frombits(uint64(k>>expTableBits+1023)<<52))
	}
}
