package tabular

import (
	"fmt"
	"math"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A categorical column enters the machine as one 0/1 column per level.
// Standardised one by one, a level of frequency p moves a row by
// 1/sqrt(p(1-p)) along its column: two rows of rare levels lie farther
// apart than any two rows of common ones, and a column of k levels
// weighs as much as k numeric columns in a Gaussian kernel's distances.
// The learner scales the levels of a column together instead: each by
// the same factor, so that two rows of different levels are the same
// distance apart whichever levels they are (an overlap kernel on the
// column), and two rows drawn at random are as far apart on average as
// on one standardised numeric column. Of two levels, this is the
// standardisation itself.

// levelBlock is the span of the encoded columns of one categorical
// column of three levels or more, or of the codes of a numeric column:
// its first column and their number.
type levelBlock struct{ start, width int }

// levelBlocks returns the blocks of the one-hot levels of the categorical
// columns of enc of three levels or more, and of the codes of its
// numeric columns, which follow their values.
func levelBlocks(enc *dataset.Encoder) []levelBlock {
	var blocks []levelBlock
	start := 0
	widths := enc.Widths()
	for i, r := range enc.Rules() {
		switch {
		case r.Kind == "categorical" && len(r.Levels) >= 3:
			blocks = append(blocks, levelBlock{start, len(r.Levels)})
		case len(r.Codes) >= 3:
			blocks = append(blocks, levelBlock{start + 1, len(r.Codes)})
		}
		start += widths[i]
	}
	return blocks
}

// allCategorical reports whether every input column of enc is
// categorical.
func allCategorical(enc *dataset.Encoder) bool {
	rules := enc.Rules()
	for _, r := range rules {
		if r.Kind != "categorical" {
			return false
		}
	}
	return len(rules) > 0
}

// scaleLevels sets in in, the scaler fitted to the inputs x, the scale
// of the columns of each block of levels to sqrt(1 - sum p^2), p the
// frequencies of the levels in x: the probability that two rows drawn at
// random differ in that column. Rows of different levels are then
// 2/(1 - sum p^2) apart in squared distance, and two random rows 2 on
// average. A block whose rows all share a level is left as it is.
func scaleLevels(in *scale.Scaler, x mat.Matrix, blocks []levelBlock) {
	n, _ := x.Dims()
	for _, b := range blocks {
		var same float64
		for j := b.start; j < b.start+b.width; j++ {
			var p float64
			for i := range n {
				p += x.At(i, j)
			}
			p /= float64(n)
			same += p * p
		}
		if differ := 1 - same; differ > 0 {
			for j := b.start; j < b.start+b.width; j++ {
				in.Scale[j] = math.Sqrt(differ)
			}
		}
	}
}

// A numeric column may be a code of groups rather than a quantity: a
// school's number, the day of a year of measurements. Each group then
// has its own offset, which a Gaussian kernel on the number smooths
// across neighbouring codes that have nothing in common. The fit also
// tries such a column by its codes (see dataset.Encoder.WithCodes):
// after its value, one 0/1 column per code, scaled together as a
// categorical column's levels are, so that the kernel sees "same group
// or not" and the linear part gives each group an offset, penalised by
// the cost as every coefficient is. The shallow machine's held-out loss
// decides, as it does for the quantiles.

// A numeric column is tried by its codes when its values in the training
// rows are at least codeMinLevels distinct ones, with codeMinRows rows or
// more to a value on average, or codeSmallMinRows in a table of fewer
// than codeMinTableRows training rows: fewer rows to a group cannot pin
// its offset down. The values must be whole numbers in a table of
// codeMinTableRows rows or more; in a smaller one they may be fractions
// (a grid's coordinate 2.51, 5.02, ... labels groups as a number does),
// where the residuals' screen and the margin judge the column, while a
// larger table keeps codes that lower the loss by a millionth, and a
// rounded quantity (an IQ, an income) may do that by chance. A table of
// fewer than codeMinLevels times codeSmallMinRows (30) training rows has
// no column to try; below codeMarginRows the held-out loss moves by a
// tenth with any richer encoding, and the margin grows (see codeMargin).
// Nor are the columns of whole numbers of a table of more than
// codeMaxColumns of them, nor its columns of fractions if more than
// codeMaxColumns: many such columns are quantities (percentages, counts,
// measurements to a decimal) rather than codes, each trial costing a
// shallow pass. The two are counted apart, so that a table of many
// measurements still tries its few whole numbers.
const (
	codeMinLevels    = 10
	codeMinRows      = 15
	codeMinTableRows = 1000
	codeSmallMinRows = 3
	codeMaxColumns   = 3
)

// codeSmallMargin is the share of the held-out loss by which the codes
// must lower it in a table of fewer than codeMinTableRows training rows
// to be kept: there, an age or a count read by its codes may lower the
// loss of a few hundred rows by a tenth by chance, while a subject's
// number in repeated measures lowers it by far more.
const codeSmallMargin = 0.15

// codeMarginRows is the table's training rows below which the margin
// grows beyond codeSmallMargin (see codeMargin): the least table the
// margin was measured on.
const codeMarginRows = 100

// codeColumns returns the numeric columns of enc, encoded in x, that
// qualify to be tried by their codes: at least codeMinLevels values,
// codeMinRows rows to a value on average (codeSmallMinRows in a table of
// fewer than codeMinTableRows rows), over the rows where the cell is not
// missing, whole numbers unless the table has fewer than codeMinTableRows
// rows; none of whole numbers, or none of fractions, where more than codeMaxColumns
// of them qualify.
func codeColumns(enc *dataset.Encoder, x mat.Matrix) []string {
	n, _ := x.Dims()
	minRows := codeRowsPerValue(n)
	var (
		names    []string
		fraction = make(map[string]bool) // a column's values are not all whole
		count    = make(map[bool]int)    // the columns of fractions, and of whole numbers
	)
	start := 0
	widths := enc.Widths()
	for i, r := range enc.Rules() {
		at := start
		start += widths[i]
		if r.Kind != "numeric" || r.Codes != nil {
			continue
		}
		counts := make(map[float64]int)
		whole := true
		for row := range n {
			if r.Indicator && x.At(row, start-1) == 1 {
				continue // missing
			}
			v := x.At(row, at)
			whole = whole && v == math.Trunc(v)
			counts[v]++
		}
		rows := n
		if r.Indicator {
			rows = 0
			for _, c := range counts {
				rows += c
			}
		}
		if (whole || n < codeMinTableRows) && len(counts) >= codeMinLevels && rows >= minRows*len(counts) {
			names = append(names, r.Name)
			fraction[r.Name] = !whole
			count[!whole]++
		}
	}
	var kept []string
	for _, name := range names {
		if count[fraction[name]] <= codeMaxColumns {
			kept = append(kept, name)
		}
	}
	return kept
}

// codeRowsPerValue is the least number of rows to a value on average of
// a column tried by its codes in a table of n training rows.
func codeRowsPerValue(n int) int {
	if n < codeMinTableRows {
		return codeSmallMinRows
	}
	return codeMinRows
}

// codesLower reports whether the held-out loss a of an encoding with
// codes is lower than the loss b without them by enough to keep the
// codes, on a table of that many training rows: by lowerLoss, and by more
// than codeMargin of b in a table of fewer than codeMinTableRows.
func codesLower(a, b float64, rows int) bool {
	if rows >= codeMinTableRows {
		return lowerLoss(a, b)
	}
	return a < b-codeMargin(rows)*math.Abs(b)
}

// codeMargin is the share of the held-out loss by which the codes must
// lower it in a table of rows training rows, fewer than codeMinTableRows:
// codeSmallMargin, and in a table of fewer than codeMarginRows rows more,
// in proportion to the held-out loss's relative noise, which grows as
// one over the square root of the rows (27% on 30 rows).
func codeMargin(rows int) float64 {
	if rows >= codeMarginRows {
		return codeSmallMargin
	}
	return codeSmallMargin * math.Sqrt(codeMarginRows/float64(rows))
}

// chooseCodes encodes the qualifying numeric columns of the inputs (see
// codeColumns) by their codes too where the shallow machine's lowest
// held-out loss says so: each column is tried alone, and those that lower
// the loss without codes (see codesLower) are kept, together. In a table
// of fewer than codeMinTableRows training rows a column is tried only
// where the leave-one-out residuals of a ridge regression on the inputs,
// and then the held-out residuals of the shallow machine, cluster by its
// values (see clusteredColumns): the ridge's cost is next to nothing and
// spares the shallow pass of most tables without codes; the machine's
// residuals spare the trial of a column whose effect the kernel already
// fits. It runs only where the inputs' scale is chosen (AutoInputs).
func (run *fitRun) chooseCodes(s Settings) error {
	if s.Raw || s.InputScale != AutoInputs {
		return nil
	}
	names := codeColumns(run.enc, run.x)
	if names == nil {
		return nil
	}
	small := len(run.t.Rows) < codeMinTableRows
	if small {
		if names = clusteredColumns(run.enc, run.ridgeHeldOut(), names, "a ridge regression", run.opts.log); names == nil {
			return nil
		}
	}
	s.levels = levelBlocks(run.enc)
	pass, err := newEncodingPass(run.x, run.targets(), run.t.Labels, run.outputs, s)
	if err != nil {
		return fmt.Errorf("weighing codes of groups: %w", err)
	}
	run.pass = pass
	if small {
		if names = clusteredColumns(run.enc, pass.heldOut(), names, "the shallow machine", run.opts.log); names == nil {
			return nil
		}
	}
	base, lowest := pass.loss, math.Inf(1)
	var (
		kept []string
		last codeTrial
	)
	for _, name := range names {
		t, err := run.tryCodes([]string{name}, pass, s)
		if err != nil {
			return err
		}
		run.opts.log("the shallow machine's lowest held-out loss is %.4g with column %q also by its codes, %.4g without", t.pass.loss, name, base)
		lowest = math.Min(lowest, t.pass.loss)
		if codesLower(t.pass.loss, base, len(run.t.Rows)) {
			kept, last = append(kept, name), t
		}
	}
	if len(kept) > 1 {
		if last, err = run.tryCodes(kept, pass, s); err != nil {
			return err
		}
		run.opts.log("the shallow machine's lowest held-out loss is %.4g with the columns %q by their codes", last.pass.loss, kept)
	}
	if kept == nil {
		run.rep.CodeLosses = []float64{base, lowest}
		return nil
	}
	run.rep.CodeLosses = []float64{base, last.pass.loss}
	run.enc, run.x, run.pass = last.enc, last.x, last.pass
	return nil
}

// codeScreenLevel is the upper tail probability of the F statistic of
// the residuals grouped by a column's values below which a column of a
// table of fewer than codeMinTableRows training rows is tried by its
// codes: a usual level of the test, where several columns are screened.
// A subject's number in repeated measures leaves the held-out residuals
// of the machine without codes clustered by its values; an age or a count
// that the kernel already fits does not, and its trial, a shallow pass,
// would be spent for nothing.
const codeScreenLevel = 1e-3

// clusteredColumns returns those of the named numeric columns of enc by
// whose values the held-out residuals of parts cluster: the one-way F
// statistic of the residuals grouped by the column's values, pooled over
// the outputs (all but one for a classifier, whose residuals sum to
// zero), has an upper tail probability below codeScreenLevel.
func clusteredColumns(enc *dataset.Encoder, parts []heldPart, names []string, by string, log func(string, ...any)) []string {
	if parts == nil {
		return names
	}
	var kept []string
	for _, name := range names {
		at := columnAt(enc, name)
		f, d1, d2 := groupedF(parts, at)
		p := upperTail(f, d1, d2)
		log("the held-out residuals of %s grouped by column %q: F = %.3g on %g and %g degrees of freedom, upper tail %.3g", by, name, f, d1, d2, p)
		if p < codeScreenLevel {
			kept = append(kept, name)
		}
	}
	return kept
}

// upperTail returns the probability that an F variable of d1 and d2
// degrees of freedom exceeds f: 1 without degrees of freedom, 0 at f =
// +Inf (where distuv's survival function is NaN).
func upperTail(f, d1, d2 float64) float64 {
	switch {
	case math.IsInf(f, 1):
		return 0
	case d1 <= 0 || d2 <= 0:
		return 1
	}
	return distuv.F{D1: d1, D2: d2}.Survival(f)
}

// columnAt returns the index of the first encoded column of the input
// named name in enc's encoding.
func columnAt(enc *dataset.Encoder, name string) int {
	at := 0
	widths := enc.Widths()
	for i, r := range enc.Rules() {
		if r.Name == name {
			return at
		}
		at += widths[i]
	}
	return -1
}

// groupedF returns the one-way F statistic of the residuals of parts
// grouped by the values of their rows' input column at, within each part
// and pooled over the parts and the outputs, with its degrees of freedom:
// 0 where the groups' means do not differ, +Inf where they do and the
// residuals are constant within each group.
func groupedF(parts []heldPart, at int) (f, d1, d2 float64) {
	var between, within float64
	for _, h := range parts {
		n, outputs := h.y.Dims()
		if h.rows.labels != nil {
			outputs--
		}
		groups := make(map[float64][]int)
		for r := range n {
			v := h.rows.x.At(r, at)
			groups[v] = append(groups[v], r)
		}
		var res mat.Dense
		res.Sub(h.y, h.predict)
		for o := range outputs {
			mean := mat.Sum(res.ColView(o)) / float64(n)
			for _, rows := range groups {
				var gs float64
				for _, r := range rows {
					gs += res.At(r, o)
				}
				gm := gs / float64(len(rows))
				between += float64(len(rows)) * (gm - mean) * (gm - mean)
				for _, r := range rows {
					d := res.At(r, o) - gm
					within += d * d
				}
			}
		}
		d1 += float64(outputs * (len(groups) - 1))
		d2 += float64(outputs * (n - len(groups)))
	}
	if d1 <= 0 || d2 <= 0 || between <= 0 {
		return 0, d1, d2
	}
	return (between / d1) / (within / d2), d1, d2 // +Inf where within is 0
}

// codeTrial is an encoding with some numeric columns by their codes too,
// its inputs, and the shallow machine's pass on them.
type codeTrial struct {
	enc  *dataset.Encoder
	x    *mat.Dense
	pass *encodingPass
}

// tryCodes returns the trial of the named numeric columns by their codes,
// judged against the pass on the inputs without codes.
func (run *fitRun) tryCodes(names []string, pass *encodingPass, s Settings) (codeTrial, error) {
	enc, err := run.enc.WithCodes(run.f, run.t.Rows, names)
	if err != nil {
		return codeTrial{}, err
	}
	x, _, err := enc.Transform(run.f, run.t.Rows)
	if err != nil {
		return codeTrial{}, err
	}
	s.levels = levelBlocks(enc)
	other, err := pass.other(x, s)
	if err != nil {
		return codeTrial{}, fmt.Errorf("weighing codes of groups: %w", err)
	}
	return codeTrial{enc, x, other}, nil
}

// describeCodes lists the numeric columns of enc encoded by their codes
// too, with the number of their codes.
func describeCodes(enc *dataset.Encoder) string {
	var parts []string
	for _, r := range enc.Rules() {
		if r.Codes != nil {
			parts = append(parts, fmt.Sprintf("%s: %d codes", r.Name, len(r.Codes)))
		}
	}
	return strings.Join(parts, "; ")
}

// ridgeHeldOut returns the leave-one-out predictions of a ridge
// regression of the targets (one column per class for a classifier) on
// the standardised inputs, a cheap stand-in for the shallow machine's.
func (run *fitRun) ridgeHeldOut() []heldPart {
	n, p := run.x.Dims()
	var y mat.Matrix = run.targets()
	if y == nil {
		y = oneHot(run.t.Labels, run.outputs)
	}
	// The standardised inputs, a constant column all zeros, and a
	// column of ones for the intercept.
	z := mat.NewDense(n, p+1, nil)
	z.Slice(0, n, 0, p).(*mat.Dense).Copy(scale.FitScaler(run.x).Transform(run.x))
	for r := range n {
		z.Set(r, p, 1)
	}
	var a mat.SymDense
	a.SymOuterK(1, z.T())
	for j := range p {
		a.SetSym(j, j, a.At(j, j)+1)
	}
	a.SetSym(p, p, a.At(p, p)+1e-9)
	var ch mat.Cholesky
	if !ch.Factorize(&a) {
		return nil
	}
	var zty, b, ainvzt mat.Dense
	zty.Mul(z.T(), y)
	if err := ch.SolveTo(&b, &zty); err != nil {
		return nil
	}
	if err := ch.SolveTo(&ainvzt, z.T()); err != nil {
		return nil
	}
	var fit mat.Dense
	fit.Mul(z, &b)
	_, outputs := y.Dims()
	pred := mat.NewDense(n, outputs, nil)
	for r := range n {
		h := mat.Dot(z.RowView(r), ainvzt.ColView(r))
		for o := range outputs {
			res := (y.At(r, o) - fit.At(r, o)) / (1 - h)
			pred.Set(r, o, y.At(r, o)-res)
		}
	}
	return []heldPart{{rows: problemData{x: run.x, labels: run.t.Labels}, y: y, predict: pred}}
}
