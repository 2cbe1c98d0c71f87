package tabular

import (
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/dataset"
)

// farSpreads is how many robust standard deviations from the median a
// regression's target lies when warnFarTargets warns of it, and
// farShare the largest share of the rows, beyond farRows, so far: more
// are the tail of the targets' distribution rather than typos.
const (
	farSpreads = 15
	farShare   = 0.01
	farRows    = 3
)

// warnFarTargets warns of the rows whose value of target j (named name)
// lies farther than farSpreads robust standard deviations from the
// median, on the target's scale and, for a nonnegative target, on the
// log scale too, as a typo of a few digits does: one such value pulls a
// least-squares fit on either scale. Only a few rows may be so far (see
// farShare and farRows). The robust standard deviation is
// 1.4826 times the median absolute deviation; a scale where it is 0 (more
// than half the values alike) finds no value far.
func (run *fitRun) warnFarTargets(f *dataset.Frame, t *dataset.Target, j int, name string) {
	values := targetColumn(t.Values, j, len(run.names))
	far := farTargets(values)
	if len(far.rows) == 0 || len(far.rows) > max(farRows, int(farShare*float64(len(values)))) {
		return
	}
	first := far.rows[0]
	what := fmt.Sprintf("%s %d holds %s", f.Place(), f.Line(t.Rows[first]), dataset.FormatFloat(values[first]))
	if len(far.rows) > 1 {
		what = fmt.Sprintf("%d rows hold values far from the others: %s", len(far.rows), what)
	}
	run.warn([]dataset.Warning{{Column: name, Rows: len(far.rows), Value: dataset.FormatFloat(values[first]), Message: fmt.Sprintf(
		"%s, %.3g robust standard deviations (1.4826 times the median absolute deviation) from the median %.4g: a typo? "+
			"Such a value pulls the fit towards it; correct it, or leave its row out", what, far.spreads[0], far.median)}})
}

// farValues are the values that lie far from the others: their indices,
// how many robust standard deviations from the median each lies, and the
// median.
type farValues struct {
	rows    []int
	spreads []float64
	median  float64
}

// farFrom returns the values that lie farther than farSpreads robust
// standard deviations from their median.
func farFrom(values []float64) farValues {
	med, spread := robustSpread(values)
	far := farValues{median: med}
	if spread == 0 {
		return far
	}
	for i, v := range values {
		if d := math.Abs(v-med) / spread; d > farSpreads {
			far.rows, far.spreads = append(far.rows, i), append(far.spreads, d)
		}
	}
	return far
}

// robustSpread returns the median of values and their robust standard
// deviation, 1.4826 times their median absolute deviation.
func robustSpread(values []float64) (med, spread float64) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	med = median(sorted)
	for i, v := range values {
		sorted[i] = math.Abs(v - med)
	}
	slices.Sort(sorted)
	return med, 1.4826 * median(sorted)
}

// and returns the values of far also in other, with far's spreads and
// median.
func (far farValues) and(other farValues) farValues {
	both := farValues{median: far.median}
	for i, r := range far.rows {
		if slices.Contains(other.rows, r) {
			both.rows, both.spreads = append(both.rows, r), append(both.spreads, far.spreads[i])
		}
	}
	return both
}

// farBound is what a streamed regression's target is checked against
// once every row is added up: its sample's median and robust standard
// deviation, on the target's scale and, for a nonnegative sample, on the
// log scale (logSpread 0 otherwise). The sample's rows were checked by
// warnFarTargets; a value far from them beyond the sample was not.
type farBound struct {
	median, spread, logMedian, logSpread float64
}

// farBoundOf returns the bound of a sample's targets, or false if they
// hold values far from the others already (warned of, or the tail of
// their distribution) or more than half of them are alike.
func farBoundOf(values []float64) (farBound, bool) {
	var b farBound
	if b.median, b.spread = robustSpread(values); b.spread == 0 || len(farTargets(values).rows) > 0 {
		return b, false
	}
	if logs := logsOf(values); logs != nil {
		b.logMedian, b.logSpread = robustSpread(logs)
	}
	return b, true
}

// farTargets returns the values far from the others on their scale and,
// if they are nonnegative, on the log scale too.
func farTargets(values []float64) farValues {
	far := farFrom(values)
	if logs := logsOf(values); logs != nil {
		far = far.and(farFrom(logs))
	}
	return far
}

// logsOf returns log(1 + v) of each of values, or nil if one is negative.
func logsOf(values []float64) []float64 {
	if slices.Min(values) < 0 {
		return nil
	}
	logs := make([]float64, len(values))
	for i, v := range values {
		logs[i] = math.Log1p(v)
	}
	return logs
}

// spreads returns how many robust standard deviations v lies from the
// sample's median, if it lies farther than farSpreads on the target's
// scale and, where the bound has one, on the log scale too (where a
// value of -1 or less has no log, and is never near); 0 otherwise.
func (b farBound) spreads(v float64) float64 {
	d := math.Abs(v-b.median) / b.spread
	if d <= farSpreads {
		return 0
	}
	if b.logSpread > 0 && math.Abs(math.Log1p(v)-b.logMedian)/b.logSpread <= farSpreads {
		return 0
	}
	return d
}

// sampleBounds returns the farBound of each of the k targets whose values,
// row by row, a sample holds; nil where it has none.
func sampleBounds(values []float64, k int) []*farBound {
	bounds := make([]*farBound, k)
	for j := range k {
		if b, ok := farBoundOf(targetColumn(values, j, k)); ok {
			bounds[j] = &b
		}
	}
	return bounds
}

// targetColumn returns target j's values of the values of k targets,
// row by row.
func targetColumn(values []float64, j, k int) []float64 {
	col := make([]float64, 0, len(values)/k)
	for i := j; i < len(values); i += k {
		col = append(col, values[i])
	}
	return col
}

// farWarnings returns a warning for each target of a streamed
// regression whose lowest or highest value, low or high, lies far from
// its sample's (see farBound.spreads); names are the targets.
func farWarnings(bounds []*farBound, low, high []float64, names []string) []dataset.Warning {
	var out []dataset.Warning
	for j, b := range bounds {
		if b == nil || low == nil {
			continue
		}
		for _, v := range []float64{high[j], low[j]} {
			if d := b.spreads(v); d > 0 {
				out = append(out, dataset.Warning{Column: names[j], Value: dataset.FormatFloat(v), Message: fmt.Sprintf(
					"a row beyond the sample holds %s, %.3g robust standard deviations (1.4826 times the median absolute deviation) from the sample's median %.4g: a typo? "+
						"Such a value pulls the fit towards it; correct it, or leave its row out", dataset.FormatFloat(v), d, b.median)})
				break
			}
		}
	}
	return out
}
