package experiment

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestComparePaired(t *testing.T) {
	for _, tc := range []struct {
		name               string
		a, b               []float64
		mean, lo, hi       float64
		wins, losses, ties int
		signP              float64
	}{
		// Differences 1, 2, 3: mean 2, std 1, t(0.975, 2) = 4.302653,
		// half width 4.302653/√3.
		{"three", []float64{2, 4, 6}, []float64{1, 2, 3}, 2, 2 - 4.302653/math.Sqrt(3), 2 + 4.302653/math.Sqrt(3), 3, 0, 0, 0.25},
		// Differences -1, 1, 0, 2: mean 0.5, std √(5/3), t(0.975, 3) =
		// 3.182446; the tie drops out of the sign test, 2 of 3.
		{"tie", []float64{0, 1, 1, 2}, []float64{1, 0, 1, 0}, 0.5, 0.5 - 3.182446*math.Sqrt(5.0/3)/2, 0.5 + 3.182446*math.Sqrt(5.0/3)/2, 2, 1, 1, 1},
		// Ten wins of ten: p = 2/1024.
		{"ten wins", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []float64{0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5}, 0.75, 0.75 - 2.262157*math.Sqrt(0.0625/9), 0.75 + 2.262157*math.Sqrt(0.0625/9), 10, 0, 0, 2.0 / 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := comparePaired(tc.a, tc.b, 0.95)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"mean", p.Mean, tc.mean}, {"ci low", p.CILow, tc.lo}, {"ci high", p.CIHigh, tc.hi}, {"sign p", p.SignP, tc.signP}} {
				if !scalar.EqualWithinAbsOrRel(c.got, c.want, 1e-6, 1e-6) {
					t.Errorf("%s %v, want %v", c.what, c.got, c.want)
				}
			}
			if p.Wins != tc.wins || p.Losses != tc.losses || p.Ties != tc.ties {
				t.Errorf("wins/losses/ties %d/%d/%d, want %d/%d/%d", p.Wins, p.Losses, p.Ties, tc.wins, tc.losses, tc.ties)
			}
		})
	}
	if p := comparePaired([]float64{1}, []float64{0}, 0.95); !math.IsNaN(p.CILow) || !math.IsNaN(p.CIHigh) {
		t.Errorf("one seed: interval [%v, %v], want NaN", p.CILow, p.CIHigh)
	}
}
