package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/tabular"
)

func runScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", "usage: machines score -model FILE -data FILE [-json FILE] [-figure BASE]")
	var (
		tf       = addTableFlags(fs, labelledHelp)
		interval = fs.Float64("interval", 0, "also report the coverage and mean width of the conformal prediction intervals of this `level`\n(classification: the coverage and mean size of the prediction sets)")
		jsonPath = fs.String("json", "", "also write the scores to this JSON `file`")
		figBase  = fs.String("figure", "", "also draw the calibration, the mean outcome of the rows binned by prediction, in `BASE`.png and BASE.svg")
	)
	if err := parseCommand(fs, args, stderr, "model", "data"); err != nil {
		return err
	}
	outputs := []pathFlag{{"json", *jsonPath}}
	if *jsonPath != "" {
		if err := checkOutput("json", *jsonPath, "scores.json"); err != nil {
			return err
		}
	}
	if *figBase != "" {
		for _, ext := range []string{".png", ".svg"} {
			if err := checkOutput("figure", *figBase+ext, "calibration"+ext); err != nil {
				return err
			}
			outputs = append(outputs, pathFlag{"figure", *figBase + ext})
		}
	}
	if err := checkOverwrites(tf.inputs(), outputs); err != nil {
		return err
	}
	md, level, err := loadModel(fs, *tf.model, *interval)
	if err != nil {
		return err
	}
	noteTerminal(stderr, "score", *tf.data)
	e, name, err := scoreTable(md, *tf.data, *tf.sep, *tf.strict, level, stderr)
	if err != nil {
		return err
	}
	reportLabelled(stderr, "score", md, name, e.Rows+e.Dropped, e.Dropped, e.Warnings)
	fmt.Fprintf(stdout, "score: %d rows: %s\n", e.Rows, e)
	if *jsonPath != "" {
		if err := writeJSON(*jsonPath, e); err != nil {
			return err
		}
	}
	if *figBase != "" {
		if e.Calibration == nil {
			return fmt.Errorf("-figure: %d rows with a target are too few to bin", e.Rows)
		}
		if _, err := figure.Lines(*figBase, calibrationChart(md, e)); err != nil {
			return err
		}
	}
	return nil
}

// calibrationChart draws the bins of e: each bin's mean outcome against
// its mean prediction, beside the diagonal where they are equal.
func calibrationChart(md *tabular.Model, e *tabular.Evaluation) figure.Chart {
	c := figure.Chart{Title: fmt.Sprintf("Calibration on %d rows: %s", e.Rows, e), Legend: figure.TopLeft,
		XLabel: "mean prediction of " + md.TargetNames()[0], YLabel: "mean observed " + md.TargetNames()[0]}
	if md.Task == tabular.Classification {
		c.XLabel, c.YLabel = "probability of the predicted class", "fraction of rows whose predicted class is right"
	}
	var x, y []float64
	for _, b := range e.Calibration {
		x, y = append(x, b.Predicted), append(y, b.Observed)
	}
	lo, hi := min(slices.Min(x), slices.Min(y)), max(slices.Max(x), slices.Max(y))
	c.Series = []figure.Series{
		{Name: "equal", X: []float64{lo, hi}, Y: []float64{lo, hi}, Dashed: true},
		{Name: "bins of rows", X: x, Y: y, Points: true},
	}
	return c
}

// scoreTable scores md on the table at path, or standard input (path
// "-"), with tabular.Model.ScoreSource, which streams a large table. A
// model of version 1 (no encoder) scores standard input read whole with
// Score, since ScoreSource reads a large table twice for it. It returns
// the table's name.
func scoreTable(md *tabular.Model, path, sep string, strict bool, level float64, stderr io.Writer) (*tabular.Evaluation, string, error) {
	if path == "-" && md.Encoder == nil {
		f, err := loadTable(path, sep, strict, stderr, "score")
		if err != nil {
			return nil, "", err
		}
		e, err := md.Score(f, level)
		return e, f.Name(), err
	}
	name := path
	e, err := md.ScoreSource(func() (*dataset.TableReader, error) {
		fr, err := openTable(path, sep, strict)
		if err == nil {
			describeFormat(stderr, "score", fr)
			name = fr.Name()
		}
		return fr, err
	}, level)
	return e, name, err
}

// reportLabelled says on stderr how many of the rows of the table name
// were left out for a missing target, and prints the encoder's warnings
// about the others.
func reportLabelled(stderr io.Writer, cmd string, md *tabular.Model, name string, rows, dropped int, warnings []dataset.Warning) {
	if dropped > 0 {
		fmt.Fprintf(stderr, "machines %s: %s: left out %d of %d rows with no value in column %q\n", cmd, name, dropped, rows, strings.Join(md.TargetNames(), ","))
	}
	printWarnings(stderr, cmd, warnings)
}

// writeJSON writes v to path as indented JSON, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
