package main

import (
	"flag"
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
		tf       = addTableFlags(fs, "inputs: a CSV `file` with a header row holding the model's input columns, a Parquet or Arrow file,\na quoted glob pattern of such files read as one table, or - for standard input; other columns are ignored")
		interval = fs.Float64("interval", 0, "add a conformal prediction interval of this `level` (between 0 and 1, such as 0.9) made of the model's held-out residuals:\n"+
			"regression: the columns lower and upper; classification: the column set, the classes of the prediction set separated by |")
		out = fs.String("out", "", "write the predictions to this `file`: Parquet if its name ends in .parquet, an Arrow IPC file if in .arrow or .feather,\nCSV otherwise; or CSV to standard output if it is - (required)")
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
	if isComposedModel(*tf.model) {
		set := setFlags(fs)
		for _, name := range []string{"interval", "id", "sep", "strict"} {
			if set[name] {
				return usagef("-%s is for the models of fit; %s is a model of images, such as sculpt writes", name, *tf.model)
			}
		}
		return predictImages(*tf.model, *tf.data, *out, stdout, stderr)
	}
	md, level, err := loadModel(fs, *tf.model, *interval)
	if err != nil {
		return err
	}
	noteTerminal(stderr, "predict", *tf.data)
	tr, err := openTable(*tf.data, *tf.sep, *tf.strict)
	if err != nil {
		return err
	}
	defer tr.Close()
	p := &predictor{md: md, id: *id, level: level, stderr: stderr}
	if *out == "-" {
		err = p.write(tr, stdout, dataset.CSV)
	} else {
		err = atomicfile.WriteFile(*out, func(w io.Writer) error { return p.write(tr, w, dataset.FormatOf(*out)) })
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

// write writes the predictions for the rows of tr to w in the given
// format.
func (p *predictor) write(tr *dataset.TableReader, w io.Writer, format dataset.TableFormat) error {
	var tw *dataset.TableWriter
	next := func() (*dataset.Frame, error) { return tr.Read(predictRows) }
	warnings, err := p.md.PredictEach(next, p.level, func(f *dataset.Frame, pred *tabular.Prediction) error {
		if p.rows == 0 {
			var err error
			if tw, err = p.start(f, w, format); err != nil {
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
		if p.idCol >= 0 {
			for i, rec := range records {
				records[i] = append([]string{f.Cell(i, p.idCol)}, rec...)
			}
		}
		p.rows += f.Len()
		return tw.Write(records)
	})
	if err != nil {
		return err
	}
	if p.rows == 0 {
		return &dataset.ParseError{File: tr.Name(), Err: dataset.ErrNoRows}
	}
	p.warnings = warnings
	return tw.Close()
}

// start finds the id column in the first part f of the table, says how
// the table was read and returns the writer of the predictions to w,
// which has written a CSV file's header.
func (p *predictor) start(f *dataset.Frame, w io.Writer, format dataset.TableFormat) (*dataset.TableWriter, error) {
	describeFormat(p.stderr, "predict", f)
	p.idCol = -1
	var err error
	switch {
	case p.id != "":
		if p.idCol, err = f.Column(p.id); err != nil {
			return nil, err
		}
	case p.md.ID != "":
		if p.idCol, err = f.Column(p.md.ID); err != nil {
			p.idCol = -1
			fmt.Fprintf(p.stderr, "machines predict: %s has no id column %q: the predictions carry none\n", f.Name(), p.md.ID)
		}
	}
	header := p.md.PredictionHeader(p.level != 0)
	// A regression's columns are numbers; a classifier's are its class,
	// the probabilities of the classes, and its set.
	numeric := make([]bool, len(header))
	for j := range header {
		numeric[j] = p.md.Task == tabular.Regression || j >= 1 && j <= len(p.md.Classes)
	}
	if p.idCol >= 0 {
		header = append([]string{f.Columns()[p.idCol]}, header...)
		numeric = append([]bool{false}, numeric...)
	}
	return dataset.NewTableWriter(w, format, header, numeric)
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

// loadModel loads the model at path and checks the command's -interval
// flag against it, returning its level (0 without the flag).
func loadModel(fs *flag.FlagSet, path string, interval float64) (*tabular.Model, float64, error) {
	md, err := tabular.Load(path)
	if err != nil {
		return nil, 0, err
	}
	level, err := intervalLevel(md, path, interval, setFlags(fs)["interval"])
	return md, level, err
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
