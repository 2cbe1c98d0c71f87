package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/figure"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// maxExplainRepeats bounds -repeats of explain: far below it the
// shuffles' own noise is already small beside the rows', which the
// interval measures.
const maxExplainRepeats = 1000

func runExplain(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain", "usage: machines explain -model FILE -data FILE|- [-repeats 10] [-seed 1] [-json FILE] [-figure BASE]\n\n"+
		"measures how much each input column matters to a model: the drop in its score (R² or accuracy)\n"+
		"on labelled rows when the column's values are shuffled among them")
	var (
		tf       = addTableFlags(fs, labelledHelp)
		repeats  = fs.Int("repeats", 10, "shuffle each column this `number` of times, at most 1000")
		seed     = fs.Uint64("seed", 1, "`seed` of the shuffles")
		jsonPath = fs.String("json", "", "also write the importances to this JSON `file`")
		figBase  = fs.String("figure", "", "also draw the importances as bars with their intervals in `BASE`.png and BASE.svg")
	)
	if err := parseCommand(fs, args, stderr, "model", "data"); err != nil {
		return err
	}
	if err := checkExplainFlags(*repeats, *jsonPath, *figBase); err != nil {
		return err
	}
	if err := checkOverwrites(tf.inputs(), explainOutputs(*jsonPath, *figBase)); err != nil {
		return err
	}
	md, err := readModel(*tf.model)
	if err != nil {
		return err
	}
	f, err := loadTable(*tf.data, *tf.sep, stderr, "explain")
	if err != nil {
		return err
	}
	t, x, err := md.labelled(f, stderr, "explain")
	if err != nil {
		return err
	}
	ex, err := explain(md, f, t, x, *repeats, *seed, stderr)
	if err != nil {
		return err
	}
	ex.report(stdout)
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, ex); err != nil {
			return err
		}
	}
	if *figBase != "" {
		if _, err := figure.Bars(*figBase, figure.Layout{}, ex.chart()); err != nil {
			return err
		}
	}
	return nil
}

// checkExplainFlags checks the values of explain's flags and that its
// outputs can be written.
func checkExplainFlags(repeats int, jsonPath, figBase string) error {
	if repeats < 1 || repeats > maxExplainRepeats {
		return usagef("-repeats %d: want 1 to %d", repeats, maxExplainRepeats)
	}
	if jsonPath != "" {
		if err := checkOutput("json", jsonPath, "importance.json"); err != nil {
			return err
		}
	}
	if figBase != "" {
		for _, ext := range []string{".png", ".svg"} {
			if err := checkOutput("figure", figBase+ext, "importance"+ext); err != nil {
				return err
			}
		}
	}
	return nil
}

// explanation is the permutation importance of a model's input columns
// on labelled rows, as explain prints and saves it.
type explanation struct {
	Task    string `json:"task"`
	Data    string `json:"data"`
	Rows    int    `json:"rows"`
	Repeats int    `json:"repeats"`
	Seed    uint64 `json:"seed"`
	// Score is the score whose drop measures importance, "r2" or
	// "accuracy", and Baseline its value on the rows as they are.
	Score    string  `json:"score"`
	Baseline float64 `json:"baseline"`
	// Columns holds the input columns, the most important first.
	Columns []importance `json:"columns"`
}

// importance is how much one input column matters: the mean drop of the
// score when the column is shuffled, with a 95% interval.
type importance struct {
	Column     string  `json:"column"`
	Importance float64 `json:"importance"`
	Lower      float64 `json:"lower"`
	Upper      float64 `json:"upper"`
	// Drops are the score's drops of the repeats, one per shuffle.
	Drops []float64 `json:"drops"`
}

// explain measures the permutation importance of each input column of md
// on the rows of t, whose inputs are x: the drop of the score when the
// column's cells are shuffled among the rows (its encoded columns move
// together), averaged over repeats shuffles. The score is a mean over
// rows; each row's drop, averaged over the shuffles, gives the interval:
// a 95% Student t interval of the mean over the rows, so that it speaks
// of the rows' sample as well as of the shuffles.
func explain(md *modelFile, f *dataset.Frame, t *dataset.Target, x *mat.Dense, repeats int, seed uint64, stderr io.Writer) (*explanation, error) {
	if len(t.Rows) < 2 {
		return nil, fmt.Errorf("%s: %d labelled row: explain needs at least 2 to shuffle a column among them", f.Name(), len(t.Rows))
	}
	pred, err := md.predictFinite(f, t, x)
	if err != nil {
		return nil, err
	}
	rowScore, err := rowScores(md, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	n := len(t.Rows)
	base := rowScore(pred)
	ex := &explanation{Task: md.Task, Data: f.Name(), Rows: n, Repeats: repeats, Seed: seed, Score: "accuracy",
		Baseline: stat.Mean(base, nil)}
	if md.Task == taskRegression {
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
		imp := importance{Column: name}
		clear(drops)
		rnd := rand.New(rand.NewPCG(seed, uint64(j)))
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
		if time.Since(last) >= time.Second {
			last = time.Now()
			fmt.Fprintf(stderr, "machines explain: %d of %d columns\n", j+1, len(md.Features))
		}
	}
	slices.SortStableFunc(ex.Columns, func(a, b importance) int { return cmp.Compare(b.Importance, a.Importance) })
	return ex, nil
}

// rowScores returns the function that gives each row's part of the
// model's score on the rows of t, whose mean is the score: for a
// classifier 1 if the row's most likely class is right and 0 if not (the
// accuracy); for regression 1 - n e²/SST, with e the row's error and SST
// the targets' sum of squared deviations (R²). Rows whose predictions are
// not finite numbers make the importance meaningless and are an error.
func rowScores(md *modelFile, t *dataset.Target) (func(pred *mat.Dense) []float64, error) {
	n := float64(len(t.Rows))
	if md.Task == taskClassification {
		return func(pred *mat.Dense) []float64 {
			s := make([]float64, len(t.Labels))
			for i, l := range t.Labels {
				row := pred.RawRowView(i)
				if slices.Index(row, slices.Max(row)) == l {
					s[i] = 1
				}
			}
			return s
		}, nil
	}
	mean, sst := stat.Mean(t.Values, nil), 0.0
	for _, y := range t.Values {
		sst += (y - mean) * (y - mean)
	}
	if !(sst > 0) || math.IsInf(sst, 0) {
		return nil, fmt.Errorf("R² is undefined: the target does not vary over the %d rows, or its spread overflows", len(t.Rows))
	}
	return func(pred *mat.Dense) []float64 {
		s := make([]float64, len(t.Values))
		for i, y := range t.Values {
			e := pred.At(i, 0) - y
			s[i] = 1 - n*e*e/sst
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

// report prints the importances as a table.
func (ex *explanation) report(w io.Writer) {
	score := map[string]string{"r2": "R²", "accuracy": "accuracy"}[ex.Score]
	fmt.Fprintf(w, "explain: %d rows of %s: %s %.4g; the drop in %s when a column is shuffled, %d times, with a 95%% interval over the rows:\n",
		ex.Rows, ex.Data, score, ex.Baseline, score, ex.Repeats)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "column\timportance\tinterval\n")
	for _, c := range ex.Columns {
		fmt.Fprintf(tw, "%s\t%.4f\t[%.4f, %.4f]\n", c.Column, c.Importance, c.Lower, c.Upper)
	}
	tw.Flush()
}

// chart returns the bar chart of the importances.
func (ex *explanation) chart() figure.BarChart {
	score := map[string]string{"r2": "R²", "accuracy": "accuracy"}[ex.Score]
	c := figure.BarChart{Title: "Permutation importance", XLabel: fmt.Sprintf("drop in %s when the column is shuffled", score)}
	for _, col := range ex.Columns {
		c.Bars = append(c.Bars, figure.Bar{Label: col.Column, Value: col.Importance, Low: col.Lower, High: col.Upper})
	}
	return c
}
