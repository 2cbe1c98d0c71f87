package ad

import "math"

const expTableBits = 8

// expTable holds 2^(j/256) for j = 0..255.
var expTable = func() (t [1 << expTableBits]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / (1 << expTableBits))
	}
	return t
}()

// negExp sets x[i] = e^(-c x[i]) for c x[i] >= 0, in place. The Gaussian kernel
// evaluates millions of exponentials of non-positive arguments, so this
// skips the general function's handling of overflow, NaN and subnormals:
// beyond 708 the result is 0, where math.Exp would return a subnormal of
// at most 3e-308. Working on a slice keeps the loop free of calls. The
// relative error is below 1e-15, a few ulp (see the test).
func negExp(x []float64, c float64) {
	const (
		n      = 1 << expTableBits
		invLn2 = n * 1.44269504088896340735992468100189214
		ln2Hi  = 6.93147180369123816490e-01 / n
		ln2Lo  = 1.90821492927058770002e-10 / n
	)
	for i, a := range x {
		a *= c
		if a > 708 {
			x[i] = 0
			continue
		}
		// -a = (256m + j) ln2/256 + r with |r| <= ln2/512, so that
		// e^-a = 2^m 2^(j/256) e^r and a short polynomial is exact
		// enough.
		k := -int64(a*invLn2 + 0.5) // round to nearest; a >= 0
		r := -a - float64(k)*ln2Hi - float64(k)*ln2Lo
		// Taylor series of e^r to degree 4: the remainder is below 4e-17.
		p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
		x[i] = p * expTable[k&(n-1)] * math.Float64frombits(uint64(k>>expTableBits+1023)<<52)
	}
}
