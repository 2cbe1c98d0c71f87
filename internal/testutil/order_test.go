package testutil

import (
	"math"
	"testing"
)

func TestOrder(t *testing.T) {
	hs := []float64{0.1, 0.05, 0.025, 0.0125}
	for _, p := range []float64{1, 2, 4.5} {
		errs := make([]float64, len(hs))
		for i, h := range hs {
			// A constant factor and a small wobble leave the slope near p.
			errs[i] = 3 * math.Pow(h, p) * (1 + 0.01*float64(i%2))
		}
		if got := Order(hs, errs); math.Abs(got-p) > 0.02 {
			t.Errorf("order %v: got %v", p, got)
		}
	}
}
