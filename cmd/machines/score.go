package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func runScore(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	var (
		modelPath = fs.String("model", "", "the model JSON `file` written by machines fit (required)")
		data      = fs.String("data", "", "labelled data: a CSV `file` with the model's input columns and its target column (required)")
		jsonPath  = fs.String("json", "", "also write the scores to this JSON `file`")
		interval  = fs.Float64("interval", 0, "regression: also report the coverage and mean width of the conformal prediction intervals of this `level`")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines score -model FILE -data FILE [-json FILE]\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "model", "data"); err != nil {
		return err
	}
	md, err := readModel(*modelPath)
	if err != nil {
		return err
	}
	halfWidth, err := intervalHalfWidth(md, *modelPath, *interval, setFlags(fs)["interval"])
	if err != nil {
		return err
	}
	f, err := dataset.LoadFrame(*data)
	if err != nil {
		return err
	}
	var t *dataset.Target
	if md.Task == taskClassification {
		t, err = f.Target(md.Target, true)
	} else {
		t, err = readTargets(f, md.targets())
	}
	if err != nil {
		return err
	}
	if t.Dropped > 0 {
		fmt.Fprintf(stderr, "machines score: %s: left out %d of %d rows with no value in column %q\n", *data, t.Dropped, f.Len(), strings.Join(md.targets(), ","))
	}
	if md.Task == taskClassification {
		// The file's classes are numbered among themselves: renumber them
		// as the model's.
		for i, l := range t.Labels {
			k := slices.Index(md.Classes, t.Classes[l])
			if k < 0 {
				r := t.Rows[i]
				return &dataset.ParseError{File: *data, Row: f.Line(r), Column: md.Target,
					Err: fmt.Errorf("class %q is not one of the model's classes %q", t.Classes[l], md.Classes)}
			}
			t.Labels[i] = k
		}
		t.Classes = md.Classes
	}
	x, err := md.inputs(f, t.Rows, stderr, "score")
	if err != nil {
		return err
	}
	e := evaluate(md, md.Machine.Predict(nil, x), t)
	if halfWidth != nil {
		e.intervals(md, x, t, *interval, halfWidth)
	}
	fmt.Fprintf(stdout, "score: %d rows: %s\n", e.Rows, e)
	if *jsonPath != "" {
		return atomicfile.WriteFile(*jsonPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(e)
		})
	}
	return nil
}

// evaluation holds the scores of a model on labelled rows: R^2 and the
// mean squared error for regression, accuracy and log-loss (the mean
// negative log-probability of the true class) for classification.
type evaluation struct {
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
	// rows whose target lies in its interval, and Width the intervals'
	// mean width.
	Interval *float64 `json:"interval,omitempty"`
	Coverage *float64 `json:"coverage,omitempty"`
	Width    *float64 `json:"mean_width,omitempty"`
}

func (e evaluation) String() string {
	if e.Task == taskRegression {
		s := fmt.Sprintf("R² %.4g, MSE %.4g", *e.R2, *e.MSE)
		if e.Interval != nil {
			s += fmt.Sprintf(", %g intervals: coverage %.4g, mean width %.4g", *e.Interval, *e.Coverage, *e.Width)
		}
		return s
	}
	return fmt.Sprintf("accuracy %.4g, log-loss %.4g, Brier score %.4g", *e.Accuracy, *e.LogLoss, *e.Brier)
}

// intervals adds the coverage and the mean width of the intervals of the
// given level and half widths on the rows x, whose targets are t.
func (e *evaluation) intervals(md *modelFile, x *mat.Dense, t *dataset.Target, level float64, halfWidth []float64) {
	_, lower, upper := md.Machine.PredictInterval(nil, nil, nil, x, halfWidth)
	k := len(md.targets())
	var in, width float64
	for c, y := range t.Values {
		lo, hi := lower.At(c/k, c%k), upper.At(c/k, c%k)
		if lo <= y && y <= hi {
			in++
		}
		width += hi - lo
	}
	n := float64(len(t.Values))
	cov, w := in/n, width/n
	e.Interval, e.Coverage, e.Width = &level, &cov, &w
}

// minProbability bounds the probabilities that enter the log-loss, so
// that one confident mistake gives a large but finite loss.
const minProbability = 1e-15

// evaluate scores the machine's outputs pred for the rows of t, whose
// labels index md.Classes.
func evaluate(md *modelFile, pred *mat.Dense, t *dataset.Target) evaluation {
	e := evaluation{Task: md.Task, Rows: len(t.Rows)}
	n := float64(len(t.Rows))
	if md.Task == taskRegression {
		// Several targets: R^2 and MSE are the means over the targets.
		k := len(md.targets())
		var mse, r2 float64
		for j := range k {
			var mean float64
			for i := range t.Rows {
				mean += t.Values[i*k+j] / n
			}
			var sse, sst float64
			for i := range t.Rows {
				y := t.Values[i*k+j]
				d := pred.At(i, j) - y
				sse += d * d
				sst += (y - mean) * (y - mean)
			}
			mse += sse / n / float64(k)
			r2 += (1 - sse/sst) / float64(k)
		}
		e.MSE, e.R2 = &mse, &r2
		return e
	}
	p := make([]float64, len(md.Classes))
	var right, loss, brier float64
	for i, l := range t.Labels {
		softmaxTo(p, pred.RawRowView(i))
		if floats.MaxIdx(p) == l {
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
