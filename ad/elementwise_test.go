package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// specialFloats returns n values that mix ordinary numbers with those the
// kernels must treat as Go does: NaN, both zeros, the clamp's bounds and
// infinities.
func specialFloats(rnd *rand.Rand, n int) []float32 {
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), 6, -6, float32(math.Inf(1)), float32(math.Inf(-1)), 5.999999}
	x := make([]float32, n)
	for i := range x {
		if rnd.IntN(3) == 0 {
			x[i] = special[rnd.IntN(len(special))]
		} else {
			x[i] = float32(rnd.NormFloat64() * 4)
		}
	}
	return x
}

// sameBits reports whether got and want hold the same bits, so that a
// kernel that loses a NaN or a sign of zero fails.
func sameBits(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return false
		}
	}
	return true
}

// TestElementwiseKernels checks the elementwise kernels bit for bit
// against their plain Go versions, on every length up to a few vectors
// (whole vectors, a masked tail, both, neither), on slices whose
// neighbours the kernels must not touch, and with the output the same
// slice as an input, as addTo(da, da, dc) calls it.
func TestElementwiseKernels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for n := range 41 {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			a, b, x := specialFloats(rnd, n), specialFloats(rnd, n), specialFloats(rnd, n)
			// Outputs with a guard element after them.
			out := func() ([]float32, []float32) {
				d := specialFloats(rnd, n+1)
				return d[:n], append([]float32(nil), d...)[:n]
			}
			got, want := out()
			addVec32(got, a, b)
			addVecGo(want, a, b)
			if !sameBits(got[:n+1], want[:n+1]) {
				t.Errorf("addVec32(%v, %v) = %v, want %v", a, b, got, want)
			}
			got, want = out()
			clampVec32(got, a, 6)
			clampVecGo(want, a, 6)
			if !sameBits(got[:n+1], want[:n+1]) {
				t.Errorf("clampVec32(%v) = %v, want %v", a, got, want)
			}
			got, want = out()
			dy := b
			addInside32(got, dy, x, 6)
			addInsideGo32(want, dy, x, 6)
			if !sameBits(got[:n+1], want[:n+1]) {
				t.Errorf("addInside32 on %v = %v, want %v", x, got, want)
			}
			// In place.
			got, want = append([]float32(nil), a...), append([]float32(nil), a...)
			addVec32(got, got, b)
			addVecGo(want, want, b)
			if !sameBits(got, want) {
				t.Errorf("addVec32 in place = %v, want %v", got, want)
			}
		})
	}
}

func TestElementwisePanics(t *testing.T) {
	buf := make([]float32, 10)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"addVec32 short destination", func() { addVec32(buf[:9], buf, buf) }},
		{"addVec32 short b", func() { addVec32(buf, buf, buf[:9]) }},
		{"clampVec32 short destination", func() { clampVec32(buf[:9], buf, 6) }},
		{"addInside32 short dy", func() { addInside32(buf, buf[:9], buf, 6) }},
	} {
		mustPanic(t, tc.name, tc.f)
	}
}
