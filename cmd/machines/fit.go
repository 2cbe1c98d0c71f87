package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// hiddenDims are the blocks before the output block that fit uses when
// -dims is not given.
var hiddenDims = []int{3, 3, 3}

func runFit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var (
		data        = fs.String("data", "", "training data: a CSV `file` with a header row (required)")
		target      = fs.String("target", "", "the `column` to predict; every other column is an input (required)")
		task        = fs.String("task", "", "the `task`: regression or classification (required)")
		dimsFlag    = fs.String("dims", "", "comma-separated `list` of the block sizes of the machine space, the output block last;\nthe output block must be 1 for regression and the number of classes for classification\n(default 3,3,3,<outputs>)")
		kernelName  = fs.String("kernel", kernel.Additive.String(), "`name` of the way the blocks' Gaussians combine: additive or multiplicative")
		bandwidth   = fs.Float64("bandwidth", 1, "bandwidth `sigma` of the Gaussian kernel, > 0")
		cost        = fs.Float64("cost", 0.001, "weight `C` of the regulariser |A|^2 + RKHS norm, >= 0")
		anchors     = fs.Int("anchors", 0, "number `M` of anchor points, drawn from the training rows; 0 means every row")
		standardize = fs.Bool("standardize", true, "fit on inputs (and regression targets) scaled to mean 0 and standard deviation 1")
		seed        = fs.Uint64("seed", 1, "`seed` of the initial parameters and the choice of anchors")
		iters       = fs.Int("iters", 1000, "maximum `number` of L-BFGS iterations")
		modelPath   = fs.String("model", "", "write the fitted model to this JSON `file` (required)")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines fit -data FILE -target COLUMN -task regression|classification [flags] -model FILE\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "data", "target", "task", "model"); err != nil {
		return err
	}
	if *task != taskRegression && *task != taskClassification {
		return usagef("-task %q: want %s or %s", *task, taskRegression, taskClassification)
	}
	comb, err := kernel.ParseCombine(*kernelName)
	if err != nil {
		return usagef("-kernel %q: want %s or %s", *kernelName, kernel.Additive, kernel.Multiplicative)
	}
	if !(*bandwidth > 0) || math.IsInf(*bandwidth, 0) {
		return usagef("-bandwidth %v: want a finite number > 0", *bandwidth)
	}
	if !(*cost >= 0) || math.IsInf(*cost, 0) {
		return usagef("-cost %v: want a finite number >= 0", *cost)
	}
	if *anchors < 0 {
		return usagef("-anchors %d: want 0 (every row) or more", *anchors)
	}
	if *iters < 1 {
		return usagef("-iters %d: want at least 1", *iters)
	}
	var dims []int
	if *dimsFlag != "" {
		if dims, err = parseDimsFlag(*dimsFlag); err != nil {
			return err
		}
	}

	classify := *task == taskClassification
	t, err := dataset.LoadCSV(*data, dataset.CSVOptions{Target: *target, Classify: classify})
	if err != nil {
		return err
	}
	rows, _ := t.X.Dims()
	if *anchors > rows {
		return usagef("-anchors %d: %s has only %d rows", *anchors, *data, rows)
	}
	outputs := 1
	if classify {
		outputs = len(t.Classes)
	}
	if dims == nil {
		dims = append(append([]int(nil), hiddenDims...), outputs)
	} else if last := dims[len(dims)-1]; last != outputs {
		if classify {
			return usagef("-dims %s: the last block is the output and must be %d, one entry for each of the %d classes of column %q",
				*dimsFlag, outputs, outputs, *target)
		}
		return usagef("-dims %s: the last block is the output and must be 1 for regression", *dimsFlag)
	}

	s := kernel.Settings{
		Architecture: kernel.Architecture{Dims: dims, Kernel: comb, Bandwidth: *bandwidth},
		Cost:         *cost,
		Anchors:      *anchors,
		Standardize:  *standardize,
		Seed:         *seed,
		MaxIter:      *iters,
		Progress:     stderr,
	}
	var (
		m   *kernel.Machine
		res kernel.Result
	)
	if classify {
		m, res, err = kernel.FitClassifier(t.X, t.Labels, s)
	} else {
		m, res, err = kernel.FitRegression(t.X, t.TargetMatrix(), s)
	}
	var de *optim.DivergedError
	if errors.As(err, &de) {
		when := fmt.Sprintf("at iteration %d", de.Iteration)
		if de.Iteration == 0 {
			when = "at the initial parameters"
		}
		hint := "a larger -cost or another -bandwidth"
		if !*standardize {
			hint = "-standardize=true, " + hint
		}
		return fmt.Errorf("fitting %s: the fit diverged: the loss is %v %s; check the data for extreme values, or try %s",
			*data, de.Loss, when, hint)
	}
	if err != nil {
		return fmt.Errorf("fitting %s: %w", *data, err)
	}

	md := &modelFile{
		Format:   modelFormat.Name,
		Version:  modelVersion,
		Kind:     kindKernel,
		Task:     *task,
		Features: t.Features,
		Target:   t.Target,
		Classes:  t.Classes,
		Machine:  m,
	}
	if err := writeModel(*modelPath, md); err != nil {
		return err
	}

	pred := m.Predict(nil, t.X)
	var quality string
	if classify {
		right := 0
		for i, l := range t.Labels {
			if floats.MaxIdx(pred.RawRowView(i)) == l {
				right++
			}
		}
		quality = fmt.Sprintf("train accuracy %.4g%% (%d/%d)", 100*float64(right)/float64(rows), right, rows)
	} else {
		var sse float64
		for i, y := range t.Y {
			d := pred.At(i, 0) - y
			sse += d * d
		}
		quality = fmt.Sprintf("train MSE %.6g", sse/float64(rows))
	}
	classes := ""
	if classify {
		classes = fmt.Sprintf(", %d classes", outputs)
	}
	fmt.Fprintf(stdout, "fit: %d rows, %d features%s, %d parameters, %d iterations, %s, %.3g s; wrote %s\n",
		rows, len(t.Features), classes, m.NumParams(), res.Iterations, quality, res.Seconds, *modelPath)
	return nil
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	var (
		modelPath = fs.String("model", "", "the model JSON `file` written by machines fit (required)")
		data      = fs.String("data", "", "inputs: a CSV `file` with a header row holding the model's feature columns;\nother columns are ignored (required)")
		out       = fs.String("out", "", "write the predictions to this CSV `file` (required)")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines predict -model FILE -data FILE -out FILE\n\nflags:")
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
	t, err := dataset.LoadCSV(*data, dataset.CSVOptions{Features: md.Features})
	if err != nil {
		return err
	}
	pred := md.Machine.Predict(nil, t.X)
	header, records := predictionRecords(md, pred)
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
			records[i] = []string{dataset.FormatFloat(pred.At(i, 0))}
		}
		return []string{md.Target}, records
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

// parseDimsFlag parses the value of -dims: at least two positive whole
// numbers separated by commas.
func parseDimsFlag(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	dims := make([]int, len(parts))
	for i, p := range parts {
		d, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || d < 1 {
			return nil, usagef("-dims %s: entry %d is %q, want a whole number >= 1", s, i+1, strings.TrimSpace(p))
		}
		dims[i] = d
	}
	if len(dims) < 2 {
		return nil, usagef("-dims %s: want at least two blocks, the input block first and the output block last", s)
	}
	return dims, nil
}

// requireFlags returns a usage error listing those of the named flags
// that were not set on the command line.
func requireFlags(fs *flag.FlagSet, names ...string) error {
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var missing []string
	for _, n := range names {
		if !set[n] || fs.Lookup(n).Value.String() == "" {
			missing = append(missing, "-"+n)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return usagef("missing required flag %s", missing[0])
	}
	return usagef("missing required flags %s", strings.Join(missing, ", "))
}
