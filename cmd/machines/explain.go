package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

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
	md, err := tabular.Load(*tf.model)
	if err != nil {
		return err
	}
	noteTerminal(stderr, "explain", *tf.data)
	ex, err := md.ImportanceSource(func() (*dataset.TableReader, error) {
		fr, err := openTable(*tf.data, *tf.sep, *tf.strict)
		if err == nil {
			describeFormat(stderr, "explain", fr)
		}
		return fr, err
	}, tabular.ImportanceOptions{Repeats: *repeats, Seed: *seed, Progress: func(done, total int) {
		fmt.Fprintf(stderr, "machines explain: %d of %d columns\n", done, total)
	}})
	if err != nil {
		return err
	}
	reportLabelled(stderr, "explain", md, ex.Data, ex.Rows+ex.Dropped, ex.Dropped, ex.Warnings)
	reportImportance(stdout, ex)
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, ex); err != nil {
			return err
		}
	}
	if *figBase != "" {
		if _, err := figure.Bars(*figBase, figure.Layout{}, importanceChart(ex)); err != nil {
			return err
		}
	}
	return nil
}

// checkExplainFlags checks the values of explain's flags and that its
// outputs can be written.
func checkExplainFlags(repeats int, jsonPath, figBase string) error {
	if repeats < 1 || repeats > tabular.MaxRepeats {
		return usagef("-repeats %d: want 1 to %d", repeats, tabular.MaxRepeats)
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

// reportImportance prints the importances as a table.
func reportImportance(w io.Writer, ex *tabular.Explanation) {
	rows := fmt.Sprintf("%d rows of %s", ex.Rows, ex.Data)
	if ex.TableRows > 0 {
		rows = fmt.Sprintf("%d rows of a seeded sample of %s's %d", ex.Rows, ex.Data, ex.TableRows)
	}
	fmt.Fprintf(w, "explain: %s: %s %.4g; the drop in %[2]s when a column is shuffled, %[4]d times, with a 95%% interval over the rows:\n",
		rows, ex.ScoreName(), ex.Baseline, ex.Repeats)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "column\timportance\tinterval\n")
	for _, c := range ex.Columns {
		fmt.Fprintf(tw, "%s\t%.4f\t[%.4f, %.4f]\n", c.Column, c.Importance, c.Lower, c.Upper)
	}
	tw.Flush()
}

// importanceChart returns the bar chart of the importances.
func importanceChart(ex *tabular.Explanation) figure.BarChart {
	c := figure.BarChart{Title: "Permutation importance", XLabel: fmt.Sprintf("drop in %s when the column is shuffled", ex.ScoreName())}
	for _, col := range ex.Columns {
		c.Bars = append(c.Bars, figure.Bar{Label: col.Column, Value: col.Importance, Low: col.Lower, High: col.Upper})
	}
	return c
}
