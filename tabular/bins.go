package tabular

import (
	"cmp"
	"slices"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// A Bin is a group of scored rows of similar predictions: a calibrated
// model's mean prediction in a bin is near its mean observed outcome.
type Bin struct {
	Rows int `json:"rows"`
	// Predicted is the mean prediction of the rows: a regression's of its
	// first target, a classifier's probability of the class it predicts.
	Predicted float64 `json:"predicted"`
	// Observed is the rows' mean outcome: a regression's first target, a
	// classifier's fraction of rows whose predicted class is right.
	Observed float64 `json:"observed"`
}

// calibrationBins is the most bins a calibration has, and binRows the
// fewest rows a regression's bin holds.
const (
	calibrationBins = 10
	binRows         = 5
)

// scoreBins returns the bins of the scored rows of t, whose machine
// outputs are pred: a regression's rows in up to calibrationBins groups
// of equal size by prediction, of binRows rows at least; a classifier's
// by the probability of its predicted class, in calibrationBins bins of
// equal width, the empty ones left out. Fewer than binRows rows make no
// bins.
func scoreBins(md *Model, pred *mat.Dense, t *dataset.Target) []Bin {
	n, k := pred.Dims()
	if n < binRows {
		return nil
	}
	if md.Task == Regression {
		return regressionBins(mat.Col(nil, 0, pred), t.Values, len(t.Values)/n)
	}
	bins := make([]Bin, calibrationBins)
	p := make([]float64, k)
	for i, l := range t.Labels {
		c := classOf(p, pred.RawRowView(i))
		b := &bins[min(int(p[c]*calibrationBins), calibrationBins-1)]
		b.Rows++
		b.Predicted += p[c]
		if c == l {
			b.Observed++
		}
	}
	bins = slices.DeleteFunc(bins, func(b Bin) bool { return b.Rows == 0 })
	for i := range bins {
		bins[i].Predicted /= float64(bins[i].Rows)
		bins[i].Observed /= float64(bins[i].Rows)
	}
	return bins
}

// regressionBins returns the bins of the predictions pred of the first
// of k targets, held row by row in values.
func regressionBins(pred, values []float64, k int) []Bin {
	order := make([]int, len(pred))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pred[a], pred[b]) })
	m := min(calibrationBins, len(pred)/binRows)
	bins := make([]Bin, m)
	for rank, i := range order {
		b := &bins[rank*m/len(pred)]
		b.Rows++
		b.Predicted += pred[i]
		b.Observed += values[i*k]
	}
	for i := range bins {
		bins[i].Predicted /= float64(bins[i].Rows)
		bins[i].Observed /= float64(bins[i].Rows)
	}
	return bins
}
