package experiment

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/stat/distuv"
)

// PairedComparison compares two models over the same seeds by their
// per-seed differences of test accuracy, first minus second.
type PairedComparison struct {
	Differences []float64 `json:"differences"`
	Mean        float64   `json:"mean"`
	Std         float64   `json:"std"`
	// CILow and CIHigh bound the mean difference at Level by the paired
	// t interval, mean ± t(Level, n-1)·std/√n; NaN for fewer than two
	// seeds.
	Level  float64 `json:"level"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// Wins, Losses and Ties count the seeds where the first model is
	// better, worse and even; SignP is the two-sided sign test's p-value
	// of the wins among the seeds without a tie.
	Wins   int     `json:"wins"`
	Losses int     `json:"losses"`
	Ties   int     `json:"ties"`
	SignP  float64 `json:"sign_p"`
}

// comparePaired returns the comparison of a with b, seed by seed, with a
// confidence interval at the given level.
func comparePaired(a, b []float64, level float64) PairedComparison {
	if len(a) != len(b) {
		panic(fmt.Errorf("%w: experiment: paired samples of different lengths", ad.ErrShape))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	p := PairedComparison{Differences: d, Level: level, CILow: math.NaN(), CIHigh: math.NaN()}
	p.Mean, p.Std = meanStd(d)
	if n := float64(len(d)); n >= 2 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
		half := t * p.Std / math.Sqrt(n)
		p.CILow, p.CIHigh = p.Mean-half, p.Mean+half
	}
	for _, v := range d {
		switch {
		case v > 0:
			p.Wins++
		case v < 0:
			p.Losses++
		default:
			p.Ties++
		}
	}
	p.SignP = signTestP(p.Wins, p.Losses)
	return p
}

// signTestP returns the two-sided p-value of wins against losses under
// a fair coin: twice the smaller tail, at most 1.
func signTestP(wins, losses int) float64 {
	n := wins + losses
	if n == 0 {
		return 1
	}
	b := distuv.Binomial{N: float64(n), P: 0.5}
	tail := b.CDF(float64(min(wins, losses)))
	return math.Min(1, 2*tail)
}
