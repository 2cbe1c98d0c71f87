package main

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/tabular"
)

// predictRows is the number of rows that predict reads, encodes and
// predicts at a time, so that its memory does not grow with the file.
const predictRows = 4096

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("predict", "usage: machines predict -model FILE -data FILE|- -out FILE|-")
	var (
		tf       = addTableFlags(fs, "inputs: a CSV `file` with a header row holding the model's input columns,\nor - for standard input; other columns are ignored")
		interval = fs.Float64("interval", 0, "add a conformal prediction interval of this `level` (between 0 and 1, such as 0.9) made of the model's held-out residuals:\n"+
			"regression: the columns lower and upper; classification: the column set, the classes of the prediction set separated by |")
		out = fs.String("out", "", "write the predictions to this CSV `file`, or to standard output if it is - (required)")
		id  = fs.String("id", "", "copy this `column` to the predictions (default: the model's -id column, when the file has it)")
	)
	if err := parseCommand(fs, args, stderr, "model", "data", "out"); err != nil {
		return err
	}
	if *out != "-" {
		if err := checkOutput("out", *out, "predictions.csv"); err != nil {
			return err
		}
	}
	if err := checkOverwrites(tf.inputs(), []pathFlag{{"out", *out}}); err != nil {
		return err
	}
	md, err := tabular.Load(*tf.model)
	if err != nil {
		return err
	}
	level, err := intervalLevel(md, *tf.model, *interval, setFlags(fs)["interval"])
	if err != nil {
		return err
	}
	fr, closer, err := openTable(*tf.data, *tf.sep, *tf.strict)
	if err != nil {
		return err
	}
	defer closer.Close()
	p := &predictor{md: md, id: *id, level: level, stderr: stderr}
	if *out == "-" {
		err = p.write(fr, stdout)
	} else {
		err = atomicfile.WriteFile(*out, func(w io.Writer) error { return p.write(fr, w) })
	}
	if err != nil {
		return err
	}
	p.report()
	if *out == "-" {
		fmt.Fprintf(stderr, "machines predict: %d rows\n", p.rows)
		return nil
	}
	fmt.Fprintf(stdout, "predict: %d rows; wrote %s\n", p.rows, *out)
	return nil
}

// predictor writes the predictions of a model for a table read in
// parts.
type predictor struct {
	md     *tabular.Model
	id     string  // the -id flag
	level  float64 // of the intervals of -interval, or 0
	stderr io.Writer

	idCol    int // the column copied to the predictions; -1 for none
	rows     int
	warnings []dataset.Warning
	// bad counts the predictions that are not finite numbers, and lines
	// holds the file lines of the first few.
	bad   int
	lines []int
}

// write writes the predictions for the rows of fr to w as CSV.
func (p *predictor) write(fr *dataset.FrameReader, w io.Writer) error {
	cw := csv.NewWriter(w)
	next := func() (*dataset.Frame, error) { return fr.Read(predictRows) }
	warnings, err := p.md.PredictEach(next, p.level, func(f *dataset.Frame, pred *tabular.Prediction) error {
		if p.rows == 0 {
			if err := p.start(f, cw); err != nil {
				return err
			}
		}
		for _, i := range pred.NonFinite() {
			if len(p.lines) < tabular.ShownLines {
				p.lines = append(p.lines, f.Line(i))
			}
			p.bad++
		}
		records := p.md.PredictionRecords(pred)
		for i, rec := range records {
			if p.idCol >= 0 {
				rec = append([]string{f.Cell(i, p.idCol)}, rec...)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		p.rows += f.Len()
		return nil
	})
	if err != nil {
		return err
	}
	if p.rows == 0 {
		return &dataset.ParseError{File: fr.Name(), Err: dataset.ErrNoRows}
	}
	p.warnings = warnings
	cw.Flush()
	return cw.Error()
}

// start finds the id column in the first part f of the table, says how
// the table was read and writes the header.
func (p *predictor) start(f *dataset.Frame, cw *csv.Writer) error {
	describeFormat(p.stderr, "predict", f)
	p.idCol = -1
	var err error
	switch {
	case p.id != "":
		if p.idCol, err = f.Column(p.id); err != nil {
			return err
		}
	case p.md.ID != "":
		if p.idCol, err = f.Column(p.md.ID); err != nil {
			p.idCol = -1
			fmt.Fprintf(p.stderr, "machines predict: %s has no id column %q: the predictions carry none\n", f.Name(), p.md.ID)
		}
	}
	header := p.md.PredictionHeader(p.level != 0)
	if p.idCol >= 0 {
		header = append([]string{f.Columns()[p.idCol]}, header...)
	}
	return cw.Write(header)
}

// report prints the warnings about the table and the predictions on
// stderr.
func (p *predictor) report() {
	printWarnings(p.stderr, "predict", p.warnings)
	if p.bad > 0 {
		fmt.Fprintf(p.stderr, "machines predict: warning: %d of %d predictions are not finite numbers (%s): their cells are left empty. "+
			"Their inputs lie far outside the training data, or the model's outputs overflow: check those rows\n", p.bad, p.rows, tabular.FormatLines(p.lines, p.bad))
	}
}

// intervalLevel checks the -interval flag (given says it was set)
// against the model read from path and returns its level, or 0 without
// the flag.
func intervalLevel(md *tabular.Model, path string, level float64, given bool) (float64, error) {
	if !given {
		return 0, nil
	}
	if !(level > 0 && level < 1) {
		return 0, usagef("-interval %v: want a level between 0 and 1, such as 0.9", level)
	}
	if err := md.CheckLevel(level); err != nil {
		return 0, fmt.Errorf("%s: -interval: %w", path, err)
	}
	return level, nil
}
