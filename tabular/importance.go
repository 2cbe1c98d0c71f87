package tabular

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MaxRepeats bounds ImportanceOptions.Repeats: far below it the
// shuffles' own noise is already small beside the rows', which the
// interval measures.
const MaxRepeats = 1000

// ImportanceOptions configures Importance; the zero value means the
// defaults of machines explain, but for the seed, whose default there
// is 1.
type ImportanceOptions struct {
	// Repeats is the number of shuffles of each column, at most
	// MaxRepeats; 0 means 10.
	Repeats int
	// Seed seeds the shuffles.
	Seed uint64
	// Progress, if not nil, is called about once a second with the
	// columns done and their number.
	Progress func(done, total int)
}

// repeats returns the number of shuffles of each column that opts ask
// for, or an error if it is out of range.
func (opts ImportanceOptions) repeats() (int, error) {
	if opts.Repeats == 0 {
		return 10, nil
	}
	if opts.Repeats < 0 || opts.Repeats > MaxRepeats {
		return 0, fmt.Errorf("%d repeats: want 1 to %d", opts.Repeats, MaxRepeats)
	}
	return opts.Repeats, nil
}

// Explanation is the permutation importance of a model's input columns
// on labelled rows, as machines explain prints and saves it.
type Explanation struct {
	Task string `json:"task"`
	Data string `json:"data"`
	// Rows counts the rows measured on: all the table's, or a seeded
	// sample of them (see ImportanceSource), whose rows TableRows then
	// counts.
	Rows      int    `json:"rows"`
	TableRows int    `json:"table_rows,omitempty"`
	Repeats   int    `json:"repeats"`
	Seed      uint64 `json:"seed"`
	// Score is the score whose drop measures importance, "r2" or
	// "accuracy", and Baseline its value on the rows as they are.
	Score    string  `json:"score"`
	Baseline float64 `json:"baseline"`
	// Columns holds the input columns, the most important first.
	Columns []ColumnImportance `json:"columns"`
	// Warnings are the encoder's about the rows, which explain's JSON
	// keeps as standard error does.
	Warnings []dataset.Warning `json:"warnings,omitempty"`
	// Dropped counts the rows left out for a missing target.
	Dropped int `json:"-"`
}

// ScoreName is the name of the score as people write it: R² or
// accuracy.
func (ex *Explanation) ScoreName() string {
	if ex.Score == "r2" {
		return "R²"
	}
	return ex.Score
}

// ColumnImportance is how much one input column matters: the mean drop
// of the score when the column is shuffled, with a 95% interval.
type ColumnImportance struct {
	Column     string  `json:"column"`
	Importance float64 `json:"importance"`
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	// Drops are the score's drops of the repeats, one per shuffle.
	Drops []float64 `json:"drops"`
}

// Importance measures the permutation importance of each input column of
// md on the rows of f that have a target: the drop of the score (the R²
// of Score, or its accuracy) when the column's cells are shuffled among
// the rows (its encoded columns move together), averaged over the
// shuffles. The score is a mean over rows; each row's drop, averaged over
// the shuffles, gives the interval: a 95% Student t interval of the mean
// over the rows, so that it speaks of the rows' sample as well as of the
// shuffles.
func (md *Model) Importance(f *dataset.Frame, opts ImportanceOptions) (*Explanation, error) {
	repeats, err := opts.repeats()
	if err != nil {
		return nil, err
	}
	t, x, warnings, err := md.labelled(f)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) < 2 {
		return nil, fmt.Errorf("%s: %d labelled row: explain needs at least 2 to shuffle a column among them", f.Name(), len(t.Rows))
	}
	pred, err := md.predictFinite(f, t.Rows, x)
	if err != nil {
		return nil, err
	}
	rowScore, err := rowScores(md, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	n := len(t.Rows)
	base := rowScore(pred)
	ex := &Explanation{Task: md.Task, Data: f.Name(), Rows: n, Repeats: repeats, Seed: opts.Seed, Score: "accuracy",
		Baseline: stat.Mean(base, nil), Warnings: warnings, Dropped: t.Dropped}
	if md.Task == Regression {
		ex.Score = "r2"
	}
	widths := []int(nil)
	if md.Encoder != nil {
		widths = md.Encoder.Widths()
	}
	shuffled := mat.NewDense(n, x.RawMatrix().Cols, nil)
	drops := make([]float64, n) // each row's drop, summed over the repeats
	last := time.Now()
	at := 0 // the column's first encoded column
	for j, name := range md.Features {
		width := 1
		if widths != nil {
			width = widths[j]
		}
		imp := ColumnImportance{Column: name}
		clear(drops)
		rnd := rand.New(rand.NewPCG(opts.Seed, uint64(j)))
		for range repeats {
			shuffled.Copy(x)
			perm := rnd.Perm(n)
			for i, p := range perm {
				copy(shuffled.RawRowView(i)[at:at+width], x.RawRowView(p)[at:at+width])
			}
			scores := rowScore(md.Machine.Predict(nil, shuffled))
			total := 0.0
			for i, s := range scores {
				drops[i] += base[i] - s
				total += base[i] - s
			}
			imp.Drops = append(imp.Drops, total/float64(n))
		}
		for i := range drops {
			drops[i] /= float64(repeats)
		}
		if imp.Importance, imp.Lower, imp.Upper, err = meanInterval(drops); err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", f.Name(), name, err)
		}
		ex.Columns = append(ex.Columns, imp)
		at += width
		if time.Since(last) >= time.Second && opts.Progress != nil {
			last = time.Now()
			opts.Progress(j+1, len(md.Features))
		}
	}
	slices.SortStableFunc(ex.Columns, func(a, b ColumnImportance) int { return cmp.Compare(b.Importance, a.Importance) })
	return ex, nil
}

// rowScores returns the function that gives each row's part of the
// model's score on the rows of t, whose mean is Score's: for a classifier
// 1 if the row's predicted class (Prediction.Labels) is right and 0 if
// not (the accuracy); for regression the mean over the targets of
// 1 - n e²/SST, with e the row's error and SST the target's sum of
// squared deviations (R², averaged over the targets).
func rowScores(md *Model, t *dataset.Target) (func(pred *mat.Dense) []float64, error) {
	if md.Task == Classification {
		return func(pred *mat.Dense) []float64 {
			s := make([]float64, len(t.Labels))
			p := make([]float64, len(md.Classes))
			for i, l := range t.Labels {
				if classOf(p, pred.RawRowView(i)) == l {
					s[i] = 1
				}
			}
			return s
		}, nil
	}
	k := len(md.TargetNames())
	n := len(t.Rows)
	sst := make([]float64, k)
	for j := range k {
		col := make([]float64, n)
		for i := range col {
			col[i] = t.Values[i*k+j]
		}
		mean := stat.Mean(col, nil)
		for _, y := range col {
			sst[j] += (y - mean) * (y - mean)
		}
		if !(sst[j] > 0) || math.IsInf(sst[j], 0) {
			return nil, fmt.Errorf("R² is undefined: the target does not vary over the %d rows, or its spread overflows (column %q)", n, md.TargetNames()[j])
		}
	}
	return func(pred *mat.Dense) []float64 {
		s := make([]float64, n)
		for i := range s {
			for j := range k {
				e := pred.At(i, j) - t.Values[i*k+j]
				s[i] += (1 - float64(n)*e*e/sst[j]) / float64(k)
			}
		}
		return s
	}, nil
}

// meanInterval returns the mean of x, at least two values, and its 95%
// Student t interval.
func meanInterval(x []float64) (mean, lower, upper float64, err error) {
	mean, sd := stat.MeanStdDev(x, nil)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, 0, 0, fmt.Errorf("the drop in the score is %v: some shuffled rows' predictions are not finite numbers", mean)
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(x) - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(len(x)))
	return mean, mean - half, mean + half, nil
}
