package tabular

import (
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
)

// PredictionHeader returns the CSV header of the predictions of md, as
// machines predict writes them: the
// targets; with intervals, then lower and upper (lower_TARGET and
// upper_TARGET for several targets); for classification the class and
// the probability of each class, then with intervals the prediction set.
func (md *Model) PredictionHeader(intervals bool) []string {
	if md.Task == Classification {
		header := []string{md.Target}
		for _, c := range md.Classes {
			header = append(header, "p_"+c)
		}
		if intervals {
			header = append(header, "set")
		}
		return header
	}
	names := md.TargetNames()
	header := slices.Clone(names)
	for _, name := range names {
		switch {
		case !intervals:
		case len(names) == 1:
			header = append(header, "lower", "upper")
		default:
			header = append(header, "lower_"+name, "upper_"+name)
		}
	}
	return header
}

// PredictionRecords returns the CSV rows, under PredictionHeader, of the
// predictions p: the targets' values for regression, then the bounds of
// their intervals; for classification the predicted class and the
// probability of each class, then the classes of the prediction set
// separated by |. The cells of a row whose outputs are not all finite
// numbers are left empty, as missing.
func (md *Model) PredictionRecords(p *Prediction) [][]string {
	rows, k := p.Values.Dims()
	header := md.PredictionHeader(p.Lower != nil || p.Sets != nil)
	records := make([][]string, rows)
	bad := p.NonFinite()
	for i := range records {
		rec := make([]string, 0, len(header))
		switch {
		case slices.Contains(bad, i):
			rec = rec[:len(header)]
		case md.Task == Regression:
			for _, v := range p.Values.RawRowView(i) {
				rec = append(rec, dataset.FormatFloat(v))
			}
			for j := range k {
				if p.Lower != nil {
					rec = append(rec, dataset.FormatFloat(p.Lower.At(i, j)), dataset.FormatFloat(p.Upper.At(i, j)))
				}
			}
		default:
			rec = append(rec, p.Labels[i])
			for _, v := range p.Values.RawRowView(i) {
				rec = append(rec, dataset.FormatFloat(v))
			}
			if p.Sets != nil {
				rec = append(rec, strings.Join(p.Sets[i], "|"))
			}
		}
		records[i] = rec
	}
	return records
}
