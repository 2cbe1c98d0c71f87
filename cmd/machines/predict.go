package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// predictRows is the number of rows that predict reads, encodes and
// predicts at a time, so that its memory does not grow with the file.
const predictRows = 4096

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("predict", "usage: machines predict -model FILE -data FILE|- -out FILE|-")
	var (
		tf       = addTableFlags(fs, "inputs: a CSV `file` with a header row holding the model's input columns,\nor - for standard input; other columns are ignored")
		interval = fs.Float64("interval", 0, "regression: add the columns lower and upper, a conformal prediction interval of this `level`\n(between 0 and 1, such as 0.9) made of the model's held-out residuals")
		out      = fs.String("out", "", "write the predictions to this CSV `file`, or to standard output if it is - (required)")
		id       = fs.String("id", "", "copy this `column` to the predictions (default: the model's -id column, when the file has it)")
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
	md, err := readModel(*tf.model)
	if err != nil {
		return err
	}
	halfWidth, err := intervalHalfWidth(md, *tf.model, *interval, setFlags(fs)["interval"])
	if err != nil {
		return err
	}
	fr, closer, err := openTable(*tf.data, *tf.sep)
	if err != nil {
		return err
	}
	defer closer.Close()
	p := &predictor{md: md, id: *id, halfWidth: halfWidth, stderr: stderr}
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
	md        *modelFile
	id        string    // the -id flag
	halfWidth []float64 // of the intervals of -interval, or nil
	stderr    io.Writer

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
	warnings, err := p.md.inputsEach(next, func(f *dataset.Frame, x *mat.Dense) error {
		if p.rows == 0 {
			if err := p.start(f, cw); err != nil {
				return err
			}
		}
		var pred, lower, upper *mat.Dense
		if p.halfWidth != nil {
			pred, lower, upper = p.md.Machine.PredictInterval(nil, nil, nil, x, p.halfWidth)
		} else {
			pred = p.md.Machine.Predict(nil, x)
		}
		for _, i := range nonFinite(pred) {
			if len(p.lines) < shownLines {
				p.lines = append(p.lines, f.Line(i))
			}
			p.bad++
		}
		records := predictionRecords(p.md, pred, lower, upper)
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
	header := predictionHeader(p.md, p.halfWidth != nil)
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
			"Their inputs lie far outside the training data, or the model's outputs overflow: check those rows\n", p.bad, p.rows, formatLines(p.lines, p.bad))
	}
}

// predictionHeader returns the CSV header of the predictions of md: the
// targets; with intervals, then lower and upper (lower_TARGET and
// upper_TARGET for several targets); for classification the class and
// the probability of each class.
func predictionHeader(md *modelFile, intervals bool) []string {
	if md.Task == taskClassification {
		header := []string{md.Target}
		for _, c := range md.Classes {
			header = append(header, "p_"+c)
		}
		return header
	}
	names := md.targets()
	header := slices.Clone(names)
	for _, name := range names {
		switch {
		case !intervals:
		case len(names) == 1:
			header = append(header, "lower", "upper")
		default:
			header = append(header, "lower_"+name, "upper_"+name)
		}
	}
	return header
}

// predictionRecords returns the CSV rows, under predictionHeader, for
// the machine's outputs pred and, with intervals, their bounds lower and
// upper (nil without): the targets' values for regression, then the
// bounds; for classification the most probable class and the probability
// of each class, the softmax of the outputs. The cells of a row whose
// outputs are not all finite numbers are left empty, as missing.
func predictionRecords(md *modelFile, pred, lower, upper *mat.Dense) [][]string {
	rows, k := pred.Dims()
	header := predictionHeader(md, lower != nil)
	records := make([][]string, rows)
	p := make([]float64, len(md.Classes))
	for i := range records {
		rec := make([]string, 0, len(header))
		out := pred.RawRowView(i)
		switch {
		case !allFinite(out):
			rec = rec[:len(header)]
		case md.Task == taskRegression:
			for _, v := range out {
				rec = append(rec, dataset.FormatFloat(v))
			}
			for j := range k {
				if lower != nil {
					rec = append(rec, dataset.FormatFloat(lower.At(i, j)), dataset.FormatFloat(upper.At(i, j)))
				}
			}
		default:
			softmaxTo(p, out)
			rec = append(rec, md.Classes[floats.MaxIdx(p)])
			for _, v := range p {
				rec = append(rec, dataset.FormatFloat(v))
			}
		}
		records[i] = rec
	}
	return records
}

// allFinite reports whether every value of x is a finite number.
func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// softmaxTo writes the softmax of the scores x to dst.
func softmaxTo(dst, x []float64) {
	hi := math.Inf(-1)
	for _, v := range x {
		hi = math.Max(hi, v)
	}
	var sum float64
	for i, v := range x {
		dst[i] = math.Exp(v - hi)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// intervalHalfWidth checks the -interval flag (given says it was set)
// against the model read from path and returns the conformal half width
// of each target on the scale the machine fits, or nil without the flag.
func intervalHalfWidth(md *modelFile, path string, level float64, given bool) ([]float64, error) {
	if !given {
		return nil, nil
	}
	if !(level > 0 && level < 1) {
		return nil, usagef("-interval %v: want a level between 0 and 1, such as 0.9", level)
	}
	if md.Task != taskRegression {
		return nil, usagef("-interval: %s is a classification model; its probabilities are the p_CLASS columns", path)
	}
	if md.Intervals == nil {
		return nil, fmt.Errorf("%s: -interval: the model holds no held-out residuals (fit chooses its settings by cross-validation unless -cost and -bandwidth are both given; files before version 3 have none)", path)
	}
	h := make([]float64, len(md.Intervals.Residuals))
	for j, r := range md.Intervals.Residuals {
		h[j] = kernel.Conformal(r, level)
		if math.IsInf(h[j], 1) {
			return nil, fmt.Errorf("%s: -interval %v: %d held-out residuals are too few for that level; want at most %.3g",
				path, level, len(r), float64(len(r))/float64(len(r)+1))
		}
	}
	return h, nil
}
