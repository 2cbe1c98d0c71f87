package tabular

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
)

// The checks that keep a fit's work bounded by what its data can teach:
// columns that identify rows are left out of the inputs, and weights
// that leave a few rows to decide the fit are refused.

// leaveOutIdentifiers returns the features less those that identify the
// rows rather than describe them (see dataset.Identifiers), warning of
// each left out, unless Options.Keep names it. A text column of a
// different value in every row would make an input of each row, whose
// work grows with the rows squared, and could not help to predict new
// rows. Every column that Keep names must be a feature.
func (run *fitRun) leaveOutIdentifiers() ([]string, error) {
	f, features, keep := run.f, run.features, run.opts.Keep
	kept := make([]string, len(keep))
	for i, name := range keep {
		kept[i] = strings.TrimSpace(name)
		if !slices.Contains(features, kept[i]) {
			return nil, optionf("-keep %s: column %q is not an input: it is the target, the id, a column another flag names, or empty", strings.Join(keep, ","), kept[i])
		}
	}
	ids, err := dataset.Identifiers(f, features, run.t.Rows)
	if err != nil {
		return nil, err
	}
	var inputs []string
	for _, name := range features {
		i := slices.IndexFunc(ids, func(w dataset.Warning) bool { return w.Column == name })
		if i < 0 || slices.Contains(kept, name) {
			inputs = append(inputs, name)
			continue
		}
		w := ids[i]
		w.Message += ": it cannot help to predict other rows, and is left out of the inputs; -keep " + name + " keeps it"
		run.warn([]dataset.Warning{w})
	}
	if inputs == nil {
		return nil, fmt.Errorf("%s: every input column identifies the rows and is left out; -keep keeps one", f.Name())
	}
	return inputs, nil
}

// minEffectiveRows is the fewest rows' worth of weight that a weighted fit
// rests on (see scaleWeights): the default cross-validation's folds.
const minEffectiveRows = 5

// scaleWeights divides the weights w of the given rows of f, read from
// column name, finite and >= 0, by the largest, so that sums of them
// cannot overflow (only their ratios count), and refuses weights that
// are all 0 or so spread that a few rows would decide the fit: Kish's
// effective sample size (Σw)²/Σw², the rows' worth of the weights, below
// minEffectiveRows, or below half the rows of a table of fewer than ten,
// or below 2. One weight of 1e300 among ones, or all weights but one 0,
// is one row's worth.
func scaleWeights(f *dataset.Frame, name string, rows []int, w []float64) error {
	top := 0
	for i, v := range w {
		if v > w[top] {
			top = i
		}
	}
	largest := w[top]
	if largest == 0 {
		return &dataset.ParseError{File: f.Name(), Column: name,
			Err: fmt.Errorf("every weight is 0 in the %d rows with a target: there is nothing to fit", len(rows))}
	}
	var sum, squares float64
	for i := range w {
		w[i] /= largest
		sum += w[i]
		squares += w[i] * w[i]
	}
	effective := sum * sum / squares
	if want := max(2, min(minEffectiveRows, float64(len(rows))/2)); effective < want {
		return &dataset.ParseError{File: f.Name(), Row: f.Line(rows[top]), Column: name,
			Err: fmt.Errorf("the weights are so spread that the fit would rest on a few rows: Kish's effective sample size, (Σw)²/Σw², is %.3g, "+
				"the largest weight %s here; want at least %g: weigh the rows more evenly", effective, dataset.FormatFloat(largest), want)}
	}
	return nil
}
