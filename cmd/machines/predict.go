package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	var (
		modelPath = fs.String("model", "", "the model JSON `file` written by machines fit (required)")
		data      = fs.String("data", "", "inputs: a CSV `file` with a header row holding the model's input columns;\nother columns are ignored (required)")
		out       = fs.String("out", "", "write the predictions to this CSV `file`, or to standard output if it is - (required)")
		id        = fs.String("id", "", "copy this `column` to the predictions (default: the model's -id column, when the file has it)")
		interval  = fs.Float64("interval", 0, "regression: add the columns lower and upper, a conformal prediction interval of this `level`\n(between 0 and 1, such as 0.9) made of the model's held-out residuals")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines predict -model FILE -data FILE -out FILE|-\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "model", "data", "out"); err != nil {
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
	idCol := -1
	switch {
	case *id != "":
		if idCol, err = f.Column(*id); err != nil {
			return err
		}
	case md.ID != "":
		if idCol, err = f.Column(md.ID); err != nil {
			idCol = -1
			fmt.Fprintf(stderr, "machines predict: %s has no id column %q: the predictions carry none\n", *data, md.ID)
		}
	}
	x, err := md.inputs(f, nil, stderr, "predict")
	if err != nil {
		return err
	}
	var header []string
	var records [][]string
	if halfWidth != nil {
		header, records = intervalRecords(md, x, halfWidth)
	} else {
		header, records = predictionRecords(md, md.Machine.Predict(nil, x))
	}
	if idCol >= 0 {
		header = append([]string{f.Columns()[idCol]}, header...)
		for i := range records {
			records[i] = append([]string{f.Cell(i, idCol)}, records[i]...)
		}
	}
	if *out == "-" {
		w := csv.NewWriter(stdout)
		w.Write(header)
		w.WriteAll(records) // flushes and reports the first error
		if err := w.Error(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "machines predict: %d rows\n", len(records))
		return nil
	}
	if err := dataset.WriteCSV(*out, header, records); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "predict: %d rows; wrote %s\n", len(records), *out)
	return nil
}

// predictionRecords returns the CSV header and rows for the machine's
// outputs pred: the target's value for regression; for classification
// the most probable class and the probability of each class, the
// softmax of the outputs.
func predictionRecords(md *modelFile, pred *mat.Dense) (header []string, records [][]string) {
	rows, _ := pred.Dims()
	records = make([][]string, rows)
	if md.Task == taskRegression {
		for i := range records {
			for _, v := range pred.RawRowView(i) {
				records[i] = append(records[i], dataset.FormatFloat(v))
			}
		}
		return md.targets(), records
	}
	header = []string{md.Target}
	for _, c := range md.Classes {
		header = append(header, "p_"+c)
	}
	p := make([]float64, len(md.Classes))
	for i := range records {
		softmaxTo(p, pred.RawRowView(i))
		rec := make([]string, 0, len(header))
		rec = append(rec, md.Classes[floats.MaxIdx(p)])
		for _, v := range p {
			rec = append(rec, dataset.FormatFloat(v))
		}
		records[i] = rec
	}
	return header, records
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

// intervalRecords returns the CSV header and rows of a regression's
// predictions of the rows x with their intervals: the target, then lower
// and upper; for several targets, each target's prediction, then its
// lower_TARGET and upper_TARGET.
func intervalRecords(md *modelFile, x *mat.Dense, halfWidth []float64) (header []string, records [][]string) {
	pred, lower, upper := md.Machine.PredictInterval(nil, nil, nil, x, halfWidth)
	names := md.targets()
	header = slices.Clone(names)
	for _, name := range names {
		if len(names) == 1 {
			header = append(header, "lower", "upper")
		} else {
			header = append(header, "lower_"+name, "upper_"+name)
		}
	}
	rows, _ := pred.Dims()
	records = make([][]string, rows)
	for i := range records {
		for j := range names {
			records[i] = append(records[i], dataset.FormatFloat(pred.At(i, j)))
		}
		for j := range names {
			records[i] = append(records[i], dataset.FormatFloat(lower.At(i, j)), dataset.FormatFloat(upper.At(i, j)))
		}
	}
	return header, records
}
