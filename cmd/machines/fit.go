package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// runFit is the fit command. It is long because it reads, checks and
// fits in the order a user's errors should be reported; the learner's
// flags, the targets and the model's record have functions of their own.
func runFit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var (
		data        = fs.String("data", "", "training data: a CSV `file` with a header row, or - for standard input (required)")
		sep         = sepFlag(fs)
		target      = fs.String("target", "", "the `column` to predict (required)")
		task        = fs.String("task", "", "the `task`: regression or classification\n(default: regression when the target holds numbers of more than two values, classification otherwise)")
		ignore      = fs.String("ignore", "", "comma-separated `columns` to leave out of the inputs")
		id          = fs.String("id", "", "a `column` that identifies rows: not an input; predict copies it to its output")
		dimsFlag    = fs.String("dims", "", "comma-separated `list` of the block sizes of the machine space, the output block last;\nthe output block must be 1 for regression and the number of classes for classification\n(default 3,3,3,<outputs>)")
		kernelName  = fs.String("kernel", kernel.Additive.String(), "`name` of the way the blocks' Gaussians combine: additive or multiplicative")
		bandwidth   = fs.Float64("bandwidth", 0, "bandwidth `sigma` of the Gaussian kernel, > 0 (default: chosen by cross-validation)")
		cost        = fs.Float64("cost", 0, "weight `C` of the regulariser |A|^2 + RKHS norm, >= 0 (default: chosen by cross-validation)")
		folds       = fs.Int("folds", 0, "number `k` of cross-validation folds for choosing -cost and -bandwidth (default 5)")
		anchors     = fs.Int("anchors", 0, "number `M` of anchor points, k-means++ centres of the training rows\n(default: every row for small tables, a fixed number for large ones)")
		targetScale = fs.String("target-scale", kernel.AutoScale.String(), "`scale` on which a regression's target is fitted: linear, log (log(1+y), for nonnegative targets),\nor auto: cross-validation also tries log when the target is nonnegative and skewed")
		standardize = fs.Bool("standardize", true, "fit on inputs (and regression targets) scaled to mean 0 and standard deviation 1")
		seed        = fs.Uint64("seed", 0, "`seed` of the folds, the anchors and the initial parameters")
		iters       = fs.Int("iters", 0, "maximum `number` of L-BFGS iterations of the final fit (default: the library's limit)")
		starts      = fs.Int("starts", 1, "fit the final machine from this `number` of initial points, at most 1000, and keep the one of lowest loss")
		modelPath   = fs.String("model", "", "write the fitted model to this JSON `file` (required)")
		learner     = addLearnerFlags(fs)
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines fit -data FILE -target COLUMN [flags] -model FILE\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "data", "target", "model"); err != nil {
		return err
	}
	set := setFlags(fs)
	if err := learner.check(set, *target); err != nil {
		return err
	}
	limitHeap()
	if *task != "" && *task != taskRegression && *task != taskClassification {
		return usagef("-task %q: want %s or %s", *task, taskRegression, taskClassification)
	}
	comb, err := kernel.ParseCombine(*kernelName)
	if err != nil {
		return usagef("-kernel %q: want %s or %s", *kernelName, kernel.Additive, kernel.Multiplicative)
	}
	if set["bandwidth"] && (!(*bandwidth > 0) || math.IsInf(*bandwidth, 0)) {
		return usagef("-bandwidth %v: want a finite number > 0", *bandwidth)
	}
	if set["cost"] && (!(*cost >= 0) || math.IsInf(*cost, 0)) {
		return usagef("-cost %v: want a finite number >= 0", *cost)
	}
	if *anchors < 0 {
		return usagef("-anchors %d: want 0 (automatic) or more", *anchors)
	}
	if set["folds"] && *folds < 2 {
		return usagef("-folds %d: want at least 2", *folds)
	}
	if set["iters"] && *iters < 1 {
		return usagef("-iters %d: want at least 1", *iters)
	}
	if *starts < 1 || *starts > maxStarts {
		return usagef("-starts %d: want 1 to %d", *starts, maxStarts)
	}
	var dims []int
	if *dimsFlag != "" {
		if dims, err = parseDimsFlag(*dimsFlag); err != nil {
			return err
		}
	}
	names, err := targetNames(*target)
	if err != nil {
		return err
	}
	if err := checkFitFlags(names, *id, *modelPath); err != nil {
		return err
	}

	f, err := loadTable(*data, *sep, stderr, "fit")
	if err != nil {
		return err
	}
	*id = idColumn(f, *id, names, stderr)
	features, err := featureColumns(f, names[0], *id, learner.ignored(*ignore, names[1:]...))
	if err != nil {
		return err
	}
	if len(names) > 1 && *task == taskClassification {
		return usagef("-target %s: several targets make a regression; classify one target at a time", *target)
	}
	if len(names) > 1 {
		*task = taskRegression
	}
	if *task == "" {
		var why string
		*task, why = inferTask(f, *target)
		fmt.Fprintf(stderr, "machines fit: -task not given: %s, since column %q %s\n", *task, *target, why)
	}
	classify := *task == taskClassification
	var t *dataset.Target
	if classify {
		t, err = f.Target(*target, true)
	} else {
		t, err = readTargets(f, names)
	}
	if err != nil {
		return err
	}
	if err := checkTarget(f, t, *target, stderr); err != nil {
		return err
	}
	if t.Dropped > 0 {
		fmt.Fprintf(stderr, "machines fit: %s: dropped %d of %d rows with no value in column %q\n", f.Name(), t.Dropped, f.Len(), *target)
	}
	if *anchors > len(t.Rows) {
		return usagef("-anchors %d: %s has only %d usable rows", *anchors, f.Name(), len(t.Rows))
	}
	enc, warnings, err := dataset.FitEncoder(f, features, t.Rows)
	if err != nil {
		return err
	}
	printWarnings(stderr, "fit", warnings)
	x, warnings, err := enc.Transform(f, t.Rows)
	if err != nil {
		return err
	}
	printWarnings(stderr, "fit", warnings)

	outputs := len(names)
	if classify {
		outputs = len(t.Classes)
	}
	if dims != nil {
		if last := dims[len(dims)-1]; last != outputs {
			if classify {
				return usagef("-dims %s: the last block is the output and must be %d, one entry for each of the %d classes of column %q",
					*dimsFlag, outputs, outputs, *target)
			}
			if outputs == 1 {
				return usagef("-dims %s: the last block is the output and must be 1 for regression", *dimsFlag)
			}
			return usagef("-dims %s: the last block is the output and must be %d, one entry for each regression target", *dimsFlag, outputs)
		}
	}
	scale, err := kernel.ParseTargetScale(*targetScale)
	if err != nil {
		return usagef("-target-scale %q: want auto, linear or log", *targetScale)
	}
	if classify && scale == kernel.LogScale {
		return usagef("-target-scale log: column %q is a classification target", *target)
	}
	if scale == kernel.LogScale {
		for i, v := range t.Values {
			if v < 0 {
				return fmt.Errorf("%s: row %d, column %q: %v is negative, and -target-scale log needs nonnegative targets",
					*data, f.Line(t.Rows[i/outputs]), names[i%outputs], v)
			}
		}
	}
	s := kernel.Settings{
		TargetScale: scale,
		Dims:        dims,
		Kernel:      comb,
		Folds:       *folds,
		Anchors:     *anchors,
		Raw:         !*standardize,
		Seed:        *seed,
		MaxIter:     *iters,
		Starts:      *starts,
		Progress:    stderr,
	}
	if err := learner.apply(&s, f, t, classify); err != nil {
		return err
	}
	if set["cost"] {
		s.Costs = []float64{*cost}
	}
	if set["bandwidth"] {
		s.Bandwidths = []float64{*bandwidth}
	}
	if err := checkFitSize(len(t.Rows), enc.Width(), outputs, s, stderr); err != nil {
		return err
	}
	var (
		m   *kernel.Machine
		res kernel.Result
		y   *mat.Dense
	)
	if classify {
		m, res, err = kernel.FitClassifier(x, t.Labels, len(t.Classes), s)
	} else {
		y = mat.NewDense(len(t.Rows), outputs, t.Values)
		m, res, err = kernel.FitRegression(x, y, s)
	}
	var de *optim.DivergedError
	if errors.As(err, &de) {
		when := fmt.Sprintf("at iteration %d", de.Iteration)
		if de.Iteration == 0 {
			when = "at the initial parameters"
		}
		hint := "a larger -cost or another -bandwidth"
		if set["cost"] && *cost > 1e100 {
			hint = "a smaller -cost"
		}
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
		Features: features,
		Target:   names[0],
		ID:       *id,
		Classes:  t.Classes,
		Encoder:  enc,
		Fit: &fitRecord{
			Data: f.Name(), Rows: len(t.Rows), Dropped: t.Dropped, Seed: *seed, Shallow: res.Shallow,
			Weight: *learner.weight, Balance: *learner.balance, Group: *learner.group, Time: *learner.time, Budget: learner.budgetText(),
			Dims: res.Dims, Cost: res.Cost, Bandwidth: res.Bandwidth, LogTarget: res.LogTarget, Anchors: res.Anchors,
			Starts: *starts, Start: res.Start, Iterations: res.Iterations, Converged: res.Converged, Status: res.Status,
			Seconds: res.Seconds, Selection: res.Selection,
		},
		Machine: m,
	}
	md.addLearned(names, res)
	if err := writeModel(*modelPath, md); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "fit: %d rows, %d columns encoded as %d inputs", len(t.Rows), len(features), len(enc.Names()))
	if classify {
		fmt.Fprintf(stdout, ", %d classes", outputs)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "fit: %s\n", describeSettings(res))
	if c := describeCalibration(res.Calibration); c != "" {
		fmt.Fprintf(stdout, "fit: %s\n", c)
	}
	if res.Converged {
		fmt.Fprintf(stdout, "fit: converged after %d iterations (%s)\n", res.Iterations, res.Status)
	} else {
		fmt.Fprintf(stdout, "fit: stopped at the limit of %d iterations (%s); -iters raises it\n", res.Iterations, res.Status)
	}
	fmt.Fprintf(stdout, "fit: training %s; %d parameters, %.3g s; wrote %s\n", evaluate(md, m.Predict(nil, x), t), m.NumParams(), res.Seconds, *modelPath)
	return nil
}

// featureColumns returns the columns of f that are inputs: all but the
// target, the id column, the row names and the ignored ones. Every column
// named on the command line must exist.
func featureColumns(f *dataset.Frame, target, id, ignore string) ([]string, error) {
	skip := []string{target}
	if id != "" {
		skip = append(skip, id)
	}
	if rows := f.RowNames(); rows != "" {
		skip = append(skip, rows)
	}
	if ignore != "" {
		for _, c := range strings.Split(ignore, ",") {
			skip = append(skip, strings.TrimSpace(c))
		}
	}
	for _, c := range skip {
		if _, err := f.Column(c); err != nil {
			return nil, err
		}
	}
	var features []string
	for _, c := range f.Columns() {
		if !slices.Contains(skip, c) {
			features = append(features, c)
		}
	}
	if len(features) == 0 {
		return nil, fmt.Errorf("%s: no input columns left besides the target %q, the id and the ignored columns", f.Name(), target)
	}
	return features, nil
}

// describeSettings says which cost and bandwidth the fit used and how
// they were chosen.
func describeSettings(res kernel.Result) string {
	chosen := fmt.Sprintf("cost %g, bandwidth %g, dims %v, %d anchors", res.Cost, res.Bandwidth, res.Dims, res.Anchors)
	if res.LogTarget {
		chosen += ", fitted to log(1 + target)"
	}
	sel := res.Selection
	if sel == nil {
		return chosen + " (fixed by the flags)"
	}
	c := sel.Candidates[sel.Best]
	how := fmt.Sprintf("%d-fold cross-validation", sel.Folds)
	switch {
	case sel.Folds == sel.Rows:
		how = "leave-one-out cross-validation"
	case sel.Split == "grouped":
		how = fmt.Sprintf("%d-fold cross-validation by groups", sel.Folds)
	case sel.Split == "forward":
		how = fmt.Sprintf("%d folds forward in time", sel.Folds)
	case sel.Repeats > 1:
		how = fmt.Sprintf("%d-fold cross-validation repeated %d times", sel.Folds, sel.Repeats)
	}
	if sel.Folds == sel.Rows {
		return fmt.Sprintf("%s, chosen by %s over %d settings on %d rows: %s %.4g, %s %.4g",
			chosen, how, len(sel.Candidates), sel.Rows, sel.Score, c.Score, sel.Loss, c.Loss)
	}
	return fmt.Sprintf("%s, chosen by %s over %d settings on %d rows: %s %.4g ± %.2g, %s %.4g ± %.2g",
		chosen, how, len(sel.Candidates), sel.Rows, sel.Score, c.Score, c.ScoreStd, sel.Loss, c.Loss, c.LossStd)
}

// printWarnings prints each warning on its own line of stderr.
func printWarnings(stderr io.Writer, cmd string, warnings []dataset.Warning) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "machines %s: warning: %s\n", cmd, w)
	}
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
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
	set := setFlags(fs)
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

// addLearned records in md the several targets, if more than one, and
// what the selection learnt: the calibration and the intervals' residuals.
func (md *modelFile) addLearned(names []string, res kernel.Result) {
	if len(names) > 1 {
		md.Targets = names
	}
	if res.Selection != nil {
		cal := res.Calibration
		md.Fit.Calibration = &cal
	}
	if r := res.Calibration.Residuals; r != nil {
		md.Intervals = &intervalRecord{Residuals: make([][]float64, len(r))}
		for j := range r {
			md.Intervals.Residuals[j] = thinResiduals(r[j])
		}
	}
}

// describeCalibration says how the chosen setting's held-out predictions
// calibrated the machine, or nothing when there were none.
func describeCalibration(c kernel.Calibration) string {
	switch {
	case c.LogitScale > 0:
		return fmt.Sprintf("class scores multiplied by %.3g, the factor of lowest held-out log-loss (calibrated probabilities)", c.LogitScale)
	case c.Shrinkage != nil:
		f := make([]string, len(c.Shrinkage))
		for j, v := range c.Shrinkage {
			f[j] = fmt.Sprintf("%.3g", v)
		}
		s := fmt.Sprintf("predictions shrunk towards the mean by the factor %s fitted to the held-out predictions; ", strings.Join(f, ", "))
		return s + fmt.Sprintf("%d held-out residuals kept for predict -interval", len(c.Residuals[0]))
	}
	return ""
}
