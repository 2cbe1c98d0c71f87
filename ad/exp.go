package ad

import "math"

// exp2Table holds 2^(j/32) for j = 0..31.
var exp2Table = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return t
}()

// expNonPos returns e^x for x <= 0. The Gaussian kernel evaluates
// millions of exponentials of non-positive arguments, so it skips the
// general function's handling of overflow, NaN and subnormals: below
// -708 the result is 0, where math.Exp would return a subnormal of at
// most 3e-308. Its relative error is below 1e-15, a few ulp (see the test).
func expNonPos(x float64) float64 {
	const (
		n      = 32 // table size
		invLn2 = n * 1.44269504088896340735992468100189214
		ln2Hi  = 6.93147180369123816490e-01 / n
		ln2Lo  = 1.90821492927058770002e-10 / n
	)
	if x < -708 {
		return 0
	}
	// x = (32m + j) ln2/32 + r with |r| <= ln2/64, so that
	// e^x = 2^m 2^(j/32) e^r and a short polynomial is exact enough.
	k := int64(math.Floor(x*invLn2 + 0.5))
	r := x - float64(k)*ln2Hi - float64(k)*ln2Lo
	// Taylor series of e^r to degree 6: the remainder is below 4e-18.
	r2 := r * r
	p := 1 + r + r2*(1.0/2+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120)+r2*(1.0/720))
	return p * exp2Table[k&(n-1)] * math.Float64frombits(uint64((k>>5)+1023)<<52)
}
