package ad

import (
	"fmt"
	"math"
)

// The float32 elementwise operations between the convolutions of an
// image model (the sums of a node's inputs, ReLU6 and its backward mask,
// the accumulation of gradients) run in vector kernels on amd64, eight
// elements per instruction with one masked instruction for the rest. The
// loops below are the reference the kernels are tested against, and the
// kernels elsewhere.

// addVec32 sets dst[i] = a[i] + b[i]; dst and b must be at least as long
// as a.
func addVec32(dst, a, b []float32) {
	if len(dst) < len(a) || len(b) < len(a) {
		panic(fmt.Errorf("%w: ad: adding %d and %d values into %d", ErrShape, len(a), len(b), len(dst)))
	}
	dst, b = dst[:len(a)], b[:len(a)]
	if vecKernels {
		addVecKernel(dst, a, b)
		return
	}
	addVecGo(dst, a, b)
}

// clampVec32 sets dst[i] = min(max(a[i], 0), hi); dst must be at least
// as long as a.
func clampVec32(dst, a []float32, hi float32) {
	if len(dst) < len(a) {
		panic(fmt.Errorf("%w: ad: clamping %d values into %d", ErrShape, len(a), len(dst)))
	}
	dst = dst[:len(a)]
	if vecKernels {
		clampVecKernel(dst, a, hi)
		return
	}
	clampVecGo(dst, a, hi)
}

// addInside32 adds dy[i] to da[i] where 0 < x[i] < hi, for hi > 0;
// da and dy must be at least as long as x.
func addInside32(da, dy, x []float32, hi float32) {
	if len(da) < len(x) || len(dy) < len(x) {
		panic(fmt.Errorf("%w: ad: masking %d values of %d into %d", ErrShape, len(x), len(dy), len(da)))
	}
	da, dy = da[:len(x)], dy[:len(x)]
	if vecKernels {
		addInsideVecKernel(da, dy, x, hi)
		return
	}
	addInsideGo32(da, dy, x, hi)
}

func addVecGo(dst, a, b []float32) {
	for i, x := range a {
		dst[i] = x + b[i]
	}
}

func clampVecGo(dst, a []float32, hi float32) {
	for i, v := range a {
		dst[i] = min(max(v, 0), hi)
	}
}

// The IEEE bits of a float x, read as an unsigned integer u, satisfy
// 0 < x < hi exactly when 1 <= u < bits(hi): zero is all zeros, a
// negative number or -0 has the top bit set, and NaN compares above any
// number. So x is inside when u-1 < bits(hi)-1 without wrapping around,
// and the borrow of that subtraction, negated, is an all-ones mask.

func addInsideGo32(da, dy, x []float32, hi float32) {
	top := uint64(math.Float32bits(hi)) - 1
	for i, v := range x {
		// In 64 bits the difference of two 32-bit values is negative
		// exactly when the subtraction borrows.
		mask := uint32(int64(uint64(math.Float32bits(v)-1)-top) >> 63)
		da[i] += math.Float32frombits(math.Float32bits(dy[i]) & mask)
	}
}
