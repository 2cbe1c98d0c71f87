package tabular

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/mat"
)

// Score scores md on the rows of f that have a target, and with a level
// above 0 the coverage and width of its prediction intervals or sets
// (see PredictInterval). It is an error if a row's prediction is not a
// finite number, on which no score means anything.
func (md *Model) Score(f *dataset.Frame, level float64) (*Evaluation, error) {
	if level != 0 {
		if err := md.CheckLevel(level); err != nil {
			return nil, err
		}
	}
	t, x, warnings, err := md.labelled(f)
	if err != nil {
		return nil, err
	}
	pred, err := md.predictFinite(f, t.Rows, x)
	if err != nil {
		return nil, err
	}
	e := evaluate(md, pred, t)
	e.Dropped, e.Warnings = t.Dropped, warnings
	if level != 0 {
		if err := e.intervals(md, x, t, level); err != nil {
			return nil, err
		}
	}
	return &e, nil
}

// labelled returns the rows of f that have a target, with their targets
// (for a classifier, labels that index the model's classes), the
// machine's inputs and the encoder's warnings.
func (md *Model) labelled(f *dataset.Frame) (*dataset.Target, *mat.Dense, []dataset.Warning, error) {
	var t *dataset.Target
	var err error
	if md.Task == Classification {
		t, err = f.Target(md.Target, true)
	} else {
		t, err = readTargets(f, md.TargetNames())
	}
	if err != nil {
		return nil, nil, nil, err
	}
	var alike inCase
	if md.Task == Classification {
		// The file's classes are numbered among themselves: renumber them
		// as the model's.
		for i, l := range t.Labels {
			k := md.scoredClass(t.Classes[l], &alike)
			if k < 0 {
				r := t.Rows[i]
				return nil, nil, nil, &dataset.ParseError{File: f.Name(), Row: f.Line(r), Column: md.Target,
					Err: fmt.Errorf("class %q is not one of the model's classes %q", t.Classes[l], md.Classes)}
			}
			t.Labels[i] = k
		}
		t.Classes = md.Classes
	}
	x, warnings, err := md.inputs(f, t.Rows)
	if err != nil {
		return nil, nil, nil, err
	}
	return t, x, append(warnings, alike.warnings(md.Target)...), nil
}

// predictFinite returns the machine's outputs for the inputs x of the
// given rows of f, or an error naming the rows whose outputs are not
// finite numbers, on which no score means anything.
func (md *Model) predictFinite(f *dataset.Frame, rows []int, x *mat.Dense) (*mat.Dense, error) {
	pred := md.Machine.Predict(nil, x)
	if bad := nonFinite(pred); len(bad) > 0 {
		return nil, fmt.Errorf("%s: %d of %d predictions are not finite numbers (%s): their inputs lie far outside the training data, "+
			"or the model's outputs overflow; the scores would mean nothing. Check those rows, or leave them out",
			f.Name(), len(bad), len(rows), describeLines(f, rows, bad))
	}
	return pred, nil
}

// Evaluation holds the scores of a model on labelled rows: R^2 and the
// mean squared error for regression, accuracy and log-loss (the mean
// negative log-probability of the true class) for classification.
type Evaluation struct {
	Task     string   `json:"task"`
	Rows     int      `json:"rows"`
	R2       *float64 `json:"r2,omitempty"`
	MSE      *float64 `json:"mse,omitempty"`
	Accuracy *float64 `json:"accuracy,omitempty"`
	LogLoss  *float64 `json:"log_loss,omitempty"`
	// Brier is the mean over rows of the squared distance between the
	// predicted probabilities and the one-hot true class.
	Brier *float64 `json:"brier,omitempty"`
	// Interval is the level of score -interval; Coverage the fraction of
	// rows whose target lies in its interval (a classifier's: in its
	// prediction set), and Width the intervals' mean width (the sets'
	// mean size).
	Interval *float64 `json:"interval,omitempty"`
	Coverage *float64 `json:"coverage,omitempty"`
	Width    *float64 `json:"mean_width,omitempty"`
	// Calibration bins the rows by their predictions (see Bin).
	Calibration []Bin `json:"calibration,omitempty"`
	// Notes say why a score is missing.
	Notes []string `json:"notes,omitempty"`
	// Dropped counts the rows left out for a missing target, Warnings
	// are the encoder's about the rows, which score's JSON keeps as
	// standard error does.
	Dropped  int               `json:"-"`
	Warnings []dataset.Warning `json:"warnings,omitempty"`
}

func (e Evaluation) String() string {
	var scores []string
	add := func(name string, v *float64) {
		if v != nil {
			scores = append(scores, fmt.Sprintf("%s %.4g", name, *v))
		}
	}
	add("R²", e.R2)
	add("MSE", e.MSE)
	add("accuracy", e.Accuracy)
	add("log-loss", e.LogLoss)
	add("Brier score", e.Brier)
	switch {
	case e.Interval != nil && e.Task == Classification:
		scores = append(scores, fmt.Sprintf("%g prediction sets: coverage %.4g, mean size %.4g", *e.Interval, *e.Coverage, *e.Width))
	case e.Interval != nil:
		scores = append(scores, fmt.Sprintf("%g intervals: coverage %.4g, mean width %.4g", *e.Interval, *e.Coverage, *e.Width))
	}
	return strings.Join(append(scores, e.Notes...), ", ")
}

// minProbability bounds the probabilities that enter the log-loss, so
// that one confident mistake gives a large but finite loss.
const minProbability = 1e-15

// evaluate scores the machine's outputs pred for the rows of t, whose
// labels index md.Classes.
func evaluate(md *Model, pred *mat.Dense, t *dataset.Target) Evaluation {
	e := Evaluation{Task: md.Task, Rows: len(t.Rows)}
	if bad := nonFinite(pred); len(bad) > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("no scores: %d of %d predictions are not finite numbers", len(bad), e.Rows))
		return e
	}
	n := float64(len(t.Rows))
	e.Calibration = scoreBins(md, pred, t)
	if md.Task == Regression {
		scoreRegression(&e, pred, t.Values)
		return e
	}
	p := make([]float64, len(md.Classes))
	var right, loss, brier float64
	for i, l := range t.Labels {
		if classOf(p, pred.RawRowView(i)) == l {
			right++
		}
		loss -= math.Log(math.Max(p[l], minProbability))
		for k, v := range p {
			if k == l {
				v--
			}
			brier += v * v
		}
	}
	acc, ll, b := right/n, loss/n, brier/n
	e.Accuracy, e.LogLoss, e.Brier = &acc, &ll, &b
	return e
}

// intervals adds the coverage and the mean width of the intervals (or
// sets) of the given level on the rows x, whose targets are t.
func (e *Evaluation) intervals(md *Model, x *mat.Dense, t *dataset.Target, level float64) error {
	var c coverage
	if err := c.add(md, x, t.Values, t.Labels, level); err != nil {
		return err
	}
	c.set(e, level)
	return nil
}

// coverage counts the targets inside their intervals or sets, and sums
// the intervals' widths or the sets' sizes, over rows that come in parts.
type coverage struct{ in, width, n float64 }

// add adds the rows x, whose targets are values (a regression's, row by
// row) or labels, at the given level.
func (c *coverage) add(md *Model, x *mat.Dense, values []float64, labels []int, level float64) error {
	p, err := md.predictInputs(x, level)
	if err != nil {
		return err
	}
	if md.Task == Classification {
		for i, l := range labels {
			if slices.Contains(p.Sets[i], md.Classes[l]) {
				c.in++
			}
			c.width += float64(len(p.Sets[i]))
		}
		c.n += float64(len(labels))
		return nil
	}
	k := len(md.TargetNames())
	for i, y := range values {
		lo, hi := p.Lower.At(i/k, i%k), p.Upper.At(i/k, i%k)
		if lo <= y && y <= hi {
			c.in++
		}
		c.width += hi - lo
	}
	c.n += float64(len(values))
	return nil
}

// set sets the coverage and the mean width of e at the level.
func (c *coverage) set(e *Evaluation, level float64) {
	cov, w := c.in/c.n, c.width/c.n
	e.Interval, e.Coverage, e.Width = &level, &cov, &w
}

// scoreRegression sets the R² and the mean squared error of the
// predictions pred of the targets y (row i's target j at y[i*k+j] for k
// targets, each a column of pred); for several targets both are the means
// over the targets. The sums run over values divided by the targets'
// spread, so that targets near the largest float64 do not overflow them.
// R² is undefined when a target does not vary, as on one row, and the
// MSE when it exceeds the largest float64; notes say so.
func scoreRegression(e *Evaluation, pred *mat.Dense, y []float64) {
	_, k := pred.Dims()
	var mse, r2 float64
	mseOK, r2OK := true, true
	for j := range k {
		col := make([]float64, len(y)/k)
		for i := range col {
			col[i] = y[i*k+j]
		}
		m, r, note := scoreTarget(mat.Col(nil, j, pred), col)
		if note != "" && !slices.Contains(e.Notes, note) {
			e.Notes = append(e.Notes, note)
		}
		mseOK, r2OK = mseOK && !math.IsNaN(m), r2OK && !math.IsNaN(r)
		mse, r2 = mse+m/float64(k), r2+r/float64(k)
	}
	if mseOK {
		e.MSE = &mse
	}
	if r2OK {
		e.R2 = &r2
	}
}

// scoreTarget returns the MSE and R² of the predictions pred of one
// target y, NaN for either that is undefined, with a note that says why.
func scoreTarget(pred, y []float64) (mse, r2 float64, note string) {
	n := float64(len(y))
	var mean, spread float64
	for _, v := range y {
		mean += v / n
	}
	for _, v := range y {
		spread = math.Max(spread, math.Abs(v-mean))
	}
	if math.IsInf(spread, 0) {
		// Targets of both signs near the largest float64.
		spread = math.MaxFloat64
	}
	scale := spread
	if scale == 0 {
		scale = 1
	}
	var sse, sst float64
	for i, v := range y {
		d := pred[i]/scale - v/scale
		sse += d * d
		dev := v/scale - mean/scale
		sst += dev * dev
	}
	mse, r2 = sse/n*scale*scale, 1-sse/sst
	if math.IsInf(mse, 0) {
		mse, note = math.NaN(), fmt.Sprintf("the MSE exceeds the largest float64 (root mean squared error %.4g)", math.Sqrt(sse/n)*scale)
	}
	switch {
	case len(y) == 1:
		r2, note = math.NaN(), "R² undefined on a single row"
	case spread == 0:
		r2, note = math.NaN(), fmt.Sprintf("R² undefined: the target is %s on every row", dataset.FormatFloat(y[0]))
	}
	return mse, r2, note
}

// nonFinite returns the rows of pred holding a value that is not a
// finite number.
func nonFinite(pred *mat.Dense) []int {
	var rows []int
	r, _ := pred.Dims()
	for i := range r {
		if !numeric.AllFinite(pred.RawRowView(i)) {
			rows = append(rows, i)
		}
	}
	return rows
}

// ShownLines is the number of rows that messages name (FormatLines).
const ShownLines = 3

// describeLines names the file lines of the first few of the listed
// rows; rows maps them to rows of f (nil: the same).
func describeLines(f *dataset.Frame, rows, listed []int) string {
	var lines []int
	for _, i := range listed[:min(ShownLines, len(listed))] {
		r := i
		if rows != nil {
			r = rows[i]
		}
		lines = append(lines, f.Line(r))
	}
	return FormatLines(lines, len(listed))
}

// FormatLines names the file lines of the first few of total rows, as
// messages name them: "rows 2, 5, 9 and 4 more".
func FormatLines(lines []int, total int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strconv.Itoa(l)
	}
	text := "row " + s[0]
	if len(s) > 1 {
		text = "rows " + strings.Join(s, ", ")
	}
	if more := total - len(lines); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return text
}

// scoredClass returns the index among the model's classes of a label
// that a table scored holds: classOf's, or else the one class it is in
// another case (HIGH for High), as predict reads an input's levels,
// noted in alike (nil: classOf's only); -1 if none, or several, are.
func (md *Model) scoredClass(label string, alike *inCase) int {
	if k := md.classOf(label); k >= 0 || alike == nil {
		return k
	}
	k := -1
	for i, c := range md.Classes {
		if strings.EqualFold(c, label) {
			if k >= 0 {
				return -1
			}
			k = i
		}
	}
	if k >= 0 {
		alike.add(label, md.Classes[k])
	}
	return k
}

// inCase counts the rows of a table scored whose labels are classes in
// another case, and keeps the first label and its class.
type inCase struct {
	rows         int
	label, class string
}

func (a *inCase) add(label, class string) {
	if a.rows == 0 {
		a.label, a.class = label, class
	}
	a.rows++
}

// warnings returns the warning of the rows of a, if any, in the column
// of the target.
func (a *inCase) warnings(target string) []dataset.Warning {
	if a.rows == 0 {
		return nil
	}
	return []dataset.Warning{{Column: target, Value: a.label, Rows: a.rows, Message: fmt.Sprintf(
		"%d rows hold classes seen in training only in another case, such as %q for %q; they are scored as those classes", a.rows, a.label, a.class)}}
}

// classOf returns the index among the model's classes of a label: the
// class written so, or else the one class of the same number, as pandas
// writes a column of whole numbers with gaps (1.0 for 1); -1 if none.
func (md *Model) classOf(label string) int {
	if k := slices.Index(md.Classes, label); k >= 0 {
		return k
	}
	v, err := strconv.ParseFloat(label, 64)
	if err != nil {
		return -1
	}
	k := -1
	for i, c := range md.Classes {
		if w, err := strconv.ParseFloat(c, 64); err == nil && w == v {
			if k >= 0 {
				return -1
			}
			k = i
		}
	}
	return k
}
