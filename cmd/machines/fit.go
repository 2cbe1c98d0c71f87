package main

import (
	"cmp"
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

// fitFlags are the fit command's flags, as parsed.
type fitFlags struct {
	fs                                                   *flag.FlagSet
	set                                                  map[string]bool
	data, sep, target, task, ignore, id, keep            *string
	dims, kernelName, targetScale, inputScale, modelPath *string
	bandwidth, cost                                      *float64
	folds, anchors, iters, starts                        *int
	standardize, extrapolate                             *bool
	seed                                                 *uint64
	learner                                              *learnerFlags
}

// fitRun is what fit learns from its flags and its data before fitting.
type fitRun struct {
	names    []string // the target columns
	classify bool
	comb     kernel.Combine
	scale    kernel.TargetScale
	inputs   kernel.InputScale
	dims     []int
	outputs  int
	f        *dataset.Frame
	t        *dataset.Target
	features []string
	enc      *dataset.Encoder
	x        *mat.Dense
	// cycleLosses are the shallow machine's lowest held-out losses with
	// the dates' cycles and without, when there were any to weigh.
	cycleLosses []float64
}

// runFit is the fit command: it parses and checks its flags, reads and
// checks the data, fits and reports, in the order a user's errors should
// be reported.
func runFit(args []string, stdout, stderr io.Writer) error {
	fl := newFitFlags()
	if err := parseCommand(fl.fs, args, stderr, "data", "target", "model"); err != nil {
		return err
	}
	fl.set = setFlags(fl.fs)
	run, err := fl.check()
	if err != nil {
		return err
	}
	limitHeap()
	if err := run.read(fl, stderr); err != nil {
		return err
	}
	s, err := run.settings(fl, stderr)
	if err != nil {
		return err
	}
	if err := run.chooseCycles(s, stderr); err != nil {
		return err
	}
	m, res, err := run.fit(fl, s)
	if err != nil {
		return err
	}
	return run.report(fl, m, res, stdout)
}

func newFitFlags() *fitFlags {
	fs := newFlagSet("fit", "usage: machines fit -data FILE -target COLUMN [flags] -model FILE")
	fl := &fitFlags{
		fs:          fs,
		data:        fs.String("data", "", "training data: a CSV `file` with a header row, or - for standard input (required)"),
		sep:         sepFlag(fs),
		target:      fs.String("target", "", "the `column` to predict (required)"),
		task:        fs.String("task", "", "the `task`: regression or classification\n(default: regression when the target holds numbers of more than two values, classification otherwise)"),
		ignore:      fs.String("ignore", "", "comma-separated `columns` to leave out of the inputs"),
		id:          fs.String("id", "", "a `column` that identifies rows: not an input; predict copies it to its output"),
		keep:        fs.String("keep", "", "comma-separated `columns` to keep as inputs although they look like identifiers\n(text with a different value in nearly every row, or whole numbers counting the rows), which are left out otherwise"),
		dims:        fs.String("dims", "", "comma-separated `list` of the block sizes of the machine space, the output block last;\nthe output block must be 1 for regression and the number of classes for classification\n(default 3,3,3,<outputs>)"),
		kernelName:  fs.String("kernel", kernel.Additive.String(), "`name` of the way the blocks' Gaussians combine: additive or multiplicative"),
		bandwidth:   fs.Float64("bandwidth", 0, "bandwidth `sigma` of the Gaussian kernel, > 0 (default: chosen by cross-validation)"),
		cost:        fs.Float64("cost", 0, "weight `C` of the regulariser |A|^2 + RKHS norm, >= 0 (default: chosen by cross-validation)"),
		folds:       fs.Int("folds", 0, "number `k` of cross-validation folds for choosing -cost and -bandwidth (default 5, or fewer on tables of fewer rows, groups or times)"),
		anchors:     fs.Int("anchors", 0, "number `M` of anchor points, k-means++ centres of the training rows\n(default: every row for small tables, a fixed number for large ones)"),
		targetScale: fs.String("target-scale", kernel.AutoScale.String(), "`scale` on which a regression's target is fitted: linear, log (log(1+y), for nonnegative targets),\nor auto: cross-validation also tries log when the target is nonnegative and skewed"),
		inputScale:  fs.String("inputs", kernel.AutoInputs.String(), "`scale` of the inputs: linear (as they are), quantile (each numeric input mapped through its training quantiles),\nor auto: quantile when the shallow machine's held-out loss is lower there (with -cost and -bandwidth given: linear)"),
		standardize: fs.Bool("standardize", true, "fit on inputs (and regression targets) scaled to mean 0 and standard deviation 1"),
		extrapolate: fs.Bool("extrapolate", false, "regression: let predictions leave the training targets' range widened by a tenth of it on each side,\nwhere they are bounded by default (always unbounded with -standardize=false)"),
		seed:        fs.Uint64("seed", 0, "`seed` of the folds, the anchors and the initial parameters"),
		iters:       fs.Int("iters", 0, "maximum `number` of L-BFGS iterations of the final fit (default: the library's limit)"),
		starts:      fs.Int("starts", 1, "fit the final machine from this `number` of initial points, at most 1000, and keep the one of lowest loss"),
		modelPath:   fs.String("model", "", "write the fitted model to this JSON `file` (required)"),
		learner:     addLearnerFlags(fs),
	}
	return fl
}

// check validates the flags on their own, before any data is read.
func (fl *fitFlags) check() (*fitRun, error) {
	set := fl.set
	if err := fl.learner.check(set, *fl.target); err != nil {
		return nil, err
	}
	if *fl.task != "" && *fl.task != taskRegression && *fl.task != taskClassification {
		return nil, usagef("-task %q: want %s or %s", *fl.task, taskRegression, taskClassification)
	}
	run := new(fitRun)
	var err error
	if run.comb, err = kernel.ParseCombine(*fl.kernelName); err != nil {
		return nil, usagef("-kernel %q: want %s or %s", *fl.kernelName, kernel.Additive, kernel.Multiplicative)
	}
	if run.scale, err = kernel.ParseTargetScale(*fl.targetScale); err != nil {
		return nil, usagef("-target-scale %q: want auto, linear or log", *fl.targetScale)
	}
	if run.inputs, err = kernel.ParseInputScale(*fl.inputScale); err != nil {
		return nil, usagef("-inputs %q: want auto, linear or quantile", *fl.inputScale)
	}
	switch {
	case set["bandwidth"] && (!(*fl.bandwidth > 0) || math.IsInf(*fl.bandwidth, 0)):
		return nil, usagef("-bandwidth %v: want a finite number > 0", *fl.bandwidth)
	case set["cost"] && (!(*fl.cost >= 0) || math.IsInf(*fl.cost, 0)):
		return nil, usagef("-cost %v: want a finite number >= 0", *fl.cost)
	case *fl.anchors < 0:
		return nil, usagef("-anchors %d: want 0 (automatic) or more", *fl.anchors)
	case set["folds"] && *fl.folds < 2:
		return nil, usagef("-folds %d: want at least 2", *fl.folds)
	case set["iters"] && *fl.iters < 1:
		return nil, usagef("-iters %d: want at least 1", *fl.iters)
	case *fl.starts < 1 || *fl.starts > maxStarts:
		return nil, usagef("-starts %d: want 1 to %d", *fl.starts, maxStarts)
	}
	if *fl.dims != "" {
		if run.dims, err = parseDimsFlag(*fl.dims); err != nil {
			return nil, err
		}
	}
	if run.names, err = targetNames(*fl.target); err != nil {
		return nil, err
	}
	if len(run.names) > 1 && *fl.task == taskClassification {
		return nil, usagef("-target %s: several targets make a regression; classify one target at a time", *fl.target)
	}
	if err := checkFitFlags(run.names, *fl.id, *fl.modelPath); err != nil {
		return nil, err
	}
	return run, checkOverwrites([]pathFlag{{"data", *fl.data}}, []pathFlag{{"model", *fl.modelPath}})
}

// read reads the table, decides the task, reads the targets and encodes
// the inputs, checking each against the flags.
func (run *fitRun) read(fl *fitFlags, stderr io.Writer) error {
	f, err := loadTable(*fl.data, *fl.sep, stderr, "fit")
	if err != nil {
		return err
	}
	run.f = f
	*fl.id = idColumn(f, *fl.id, run.names, stderr)
	if run.features, err = featureColumns(f, run.names[0], *fl.id, fl.learner.ignored(*fl.ignore, run.names[1:]...)); err != nil {
		return err
	}
	if len(run.names) > 1 {
		*fl.task = taskRegression
	}
	if *fl.task == "" {
		var why string
		*fl.task, why = inferTask(f, *fl.target)
		fmt.Fprintf(stderr, "machines fit: -task not given: %s, since column %q %s\n", *fl.task, *fl.target, why)
	}
	run.classify = *fl.task == taskClassification
	if run.classify {
		run.t, err = f.Target(*fl.target, true)
	} else {
		run.t, err = readTargets(f, run.names)
	}
	if err != nil {
		return err
	}
	t := run.t
	if err := checkTarget(f, t, *fl.target, stderr); err != nil {
		return err
	}
	if t.Dropped > 0 {
		fmt.Fprintf(stderr, "machines fit: %s: dropped %d of %d rows with no value in column %q\n", f.Name(), t.Dropped, f.Len(), *fl.target)
	}
	if *fl.anchors > len(t.Rows) {
		return usagef("-anchors %d: %s has only %d usable rows", *fl.anchors, f.Name(), len(t.Rows))
	}
	if run.features, err = filledColumns(f, run.features, t.Rows, stderr); err != nil {
		return err
	}
	if run.features, err = leaveOutIdentifiers(f, run.features, t.Rows, *fl.keep, stderr); err != nil {
		return err
	}
	enc, warnings, err := dataset.FitEncoder(f, run.features, t.Rows)
	if err != nil {
		return err
	}
	printWarnings(stderr, "fit", warnings)
	if run.x, warnings, err = enc.Transform(f, t.Rows); err != nil {
		return err
	}
	printWarnings(stderr, "fit", warnings)
	run.enc = enc
	run.outputs = len(run.names)
	if run.classify {
		run.outputs = len(t.Classes)
	}
	return run.checkOutputs(fl)
}

// filledColumns returns the features that hold a value in some of the
// rows, and warns of the others, which are left out: a column empty in
// every training row tells nothing, and scikit-learn's imputer drops it
// too. It is an error if no feature is left.
func filledColumns(f *dataset.Frame, features []string, rows []int, stderr io.Writer) ([]string, error) {
	var filled []string
	for _, name := range features {
		col, err := f.Column(name)
		if err != nil {
			return nil, err
		}
		if f.Empty(col, rows) {
			printWarnings(stderr, "fit", []dataset.Warning{{Column: name, Message: "no row with a target has a value here; the column is left out"}})
			continue
		}
		filled = append(filled, name)
	}
	if filled == nil {
		return nil, fmt.Errorf("%s: no input column has a value in a row with a target", f.Name())
	}
	return filled, nil
}

// checkOutputs checks -dims and -target-scale against the targets read.
func (run *fitRun) checkOutputs(fl *fitFlags) error {
	outputs, target := run.outputs, *fl.target
	if last := len(run.dims) - 1; last >= 0 && run.dims[last] != outputs {
		switch {
		case run.classify:
			return usagef("-dims %s: the last block is the output and must be %d, one entry for each of the %d classes of column %q",
				*fl.dims, outputs, outputs, target)
		case outputs == 1:
			return usagef("-dims %s: the last block is the output and must be 1 for regression", *fl.dims)
		}
		return usagef("-dims %s: the last block is the output and must be %d, one entry for each regression target", *fl.dims, outputs)
	}
	if run.scale != kernel.LogScale {
		return nil
	}
	if run.classify {
		return usagef("-target-scale log: column %q is a classification target", target)
	}
	for i, v := range run.t.Values {
		if v < 0 {
			return fmt.Errorf("%s: row %d, column %q: %v is negative, and -target-scale log needs nonnegative targets",
				*fl.data, run.f.Line(run.t.Rows[i/outputs]), run.names[i%outputs], v)
		}
	}
	return nil
}

// settings returns the learner's settings and checks that the fit they
// ask for fits the machine.
func (run *fitRun) settings(fl *fitFlags, stderr io.Writer) (kernel.Settings, error) {
	s := kernel.Settings{
		TargetScale: run.scale,
		InputScale:  run.inputs,
		Dims:        run.dims,
		Kernel:      run.comb,
		Folds:       *fl.folds,
		Anchors:     *fl.anchors,
		Raw:         !*fl.standardize,
		Extrapolate: *fl.extrapolate,
		Seed:        *fl.seed,
		MaxIter:     *fl.iters,
		Starts:      *fl.starts,
		Progress:    stderr,
	}
	if err := fl.learner.apply(&s, run.f, run.t, run.classify); err != nil {
		return s, err
	}
	if fl.set["cost"] {
		s.Costs = []float64{*fl.cost}
	}
	if fl.set["bandwidth"] {
		s.Bandwidths = []float64{*fl.bandwidth}
	}
	return s, checkFitSize(run.shape(), s, stderr)
}

// chooseCycles leaves the phases of the dates' cycles out of the inputs
// (see dataset.Encoder) when the shallow machine's lowest held-out loss
// is lower without them: a season that does not move the target only
// dilutes the distances of a Gaussian kernel. On 300 rows of Friedman 1
// with a date of no effect the cycles doubled that loss; on the weekly
// CO2 readings of Mauna Loa they cut it by a factor of 12.
func (run *fitRun) chooseCycles(s kernel.Settings, stderr io.Writer) error {
	plain := run.enc.WithoutCycles()
	if plain.Width() == run.enc.Width() {
		return nil
	}
	x, _, err := plain.Transform(run.f, run.t.Rows)
	if err != nil {
		return err
	}
	var y mat.Matrix // nil for a classification, not a nil *mat.Dense
	if !run.classify {
		y = mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values)
	}
	losses := make([]float64, 2)
	for i, xi := range []*mat.Dense{run.x, x} {
		if losses[i], err = kernel.ShallowLoss(xi, y, run.t.Labels, run.outputs, s); err != nil {
			return fmt.Errorf("weighing the dates' cycles: %w", err)
		}
	}
	fmt.Fprintf(stderr, "machines fit: the shallow machine's lowest held-out loss is %.4g with the dates' cycles (%s), %.4g without\n",
		losses[0], describeCycles(run.enc), losses[1])
	run.cycleLosses = losses
	if !kernel.LowerLoss(losses[0], losses[1]) {
		run.enc, run.x = plain, x
	}
	return nil
}

// describeCycles lists the date columns of enc with their cycles.
func describeCycles(enc *dataset.Encoder) string {
	var parts []string
	for _, r := range enc.Rules() {
		if r.Cycles == nil {
			continue
		}
		names := make([]string, len(r.Cycles))
		for i, c := range r.Cycles {
			names[i] = c.Name
		}
		parts = append(parts, r.Name+": "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// fit fits the machine, saying what to try when the fit diverges.
func (run *fitRun) fit(fl *fitFlags, s kernel.Settings) (*kernel.Machine, kernel.Result, error) {
	var (
		m   *kernel.Machine
		res kernel.Result
		err error
	)
	if run.classify {
		m, res, err = kernel.FitClassifier(run.x, run.t.Labels, len(run.t.Classes), s)
	} else {
		m, res, err = kernel.FitRegression(run.x, mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values), s)
	}
	var de *optim.DivergedError
	if errors.As(err, &de) {
		when := fmt.Sprintf("at iteration %d", de.Iteration)
		if de.Iteration == 0 {
			when = "at the initial parameters"
		}
		hint := "a larger -cost or another -bandwidth"
		if fl.set["cost"] && *fl.cost > 1e100 {
			hint = "a smaller -cost"
		}
		if !*fl.standardize {
			hint = "-standardize=true, " + hint
		}
		return nil, res, fmt.Errorf("fitting %s: the fit diverged: the loss is %v %s; check the data for extreme values, or try %s",
			*fl.data, de.Loss, when, hint)
	}
	if err != nil {
		return nil, res, fmt.Errorf("fitting %s: %w", *fl.data, err)
	}
	return m, res, nil
}

// report writes the model file and prints what was fitted.
func (run *fitRun) report(fl *fitFlags, m *kernel.Machine, res kernel.Result, stdout io.Writer) error {
	t, lf := run.t, fl.learner
	md := &modelFile{
		Format:   modelFormat.Name,
		Version:  modelVersion,
		Kind:     kindKernel,
		Task:     *fl.task,
		Features: run.features,
		Target:   run.names[0],
		ID:       *fl.id,
		Classes:  t.Classes,
		Encoder:  run.enc,
		Fit: &fitRecord{
			Data: run.f.Name(), Rows: len(t.Rows), Dropped: t.Dropped, Seed: *fl.seed, Shallow: res.Shallow,
			Weight: *lf.weight, Balance: *lf.balance, Group: *lf.group, Time: *lf.time, Budget: lf.budgetText(),
			Dims: res.Dims, Cost: res.Cost, Bandwidth: res.Bandwidth, LogTarget: res.LogTarget, Anchors: res.Anchors,
			InputScale: res.InputScale, InputLosses: res.InputLosses,
			Relevance: res.Relevance, RelevanceLosses: res.RelevanceLosses, CycleLosses: run.cycleLosses,
			Starts: *fl.starts, Start: res.Start, Iterations: res.Iterations, CoarseRows: res.CoarseRows, Converged: res.Converged, Status: res.Status,
			Seconds: res.Seconds, Selection: res.Selection,
		},
		Machine: m,
	}
	md.addLearned(run.names, res)
	if err := writeModel(*fl.modelPath, md); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fit: %d rows, %d columns encoded as %d inputs", len(t.Rows), len(run.features), len(run.enc.Names()))
	if run.classify {
		fmt.Fprintf(stdout, ", %d classes", run.outputs)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "fit: %s\n", describeSettings(res))
	if l := run.cycleLosses; l != nil {
		if c := describeCycles(run.enc); c != "" {
			fmt.Fprintf(stdout, "fit: dates followed by their phases in the cycles (%s): the shallow machine's held-out loss %.4g so, %.4g without\n", c, l[0], l[1])
		} else {
			fmt.Fprintf(stdout, "fit: dates as their days alone: the shallow machine's held-out loss %.4g so, %.4g with their cycles\n", l[1], l[0])
		}
	}
	if res.InputScale == kernel.QuantileInputs.String() {
		fmt.Fprintf(stdout, "fit: numeric inputs mapped through their training quantiles%s\n", describeInputLosses(res.InputLosses))
	}
	if res.Relevance != nil {
		fmt.Fprintf(stdout, "fit: inputs weighed by their relevance (%s): the shallow machine's held-out loss %.4g so, %.4g unweighed\n",
			describeWeights(run.enc.Names(), res.Relevance), res.RelevanceLosses[1], res.RelevanceLosses[0])
	}
	if c := describeCalibration(res.Calibration); c != "" {
		fmt.Fprintf(stdout, "fit: %s\n", c)
	}
	if m.Range != nil {
		fmt.Fprintf(stdout, "fit: predictions bounded to %s, the training targets' range widened by a tenth on each side (-extrapolate lifts the bounds)\n", describeRange(run.names, m.Range))
	}
	coarse := ""
	if res.CoarseRows > 0 {
		coarse = fmt.Sprintf(", from the minimum on %d of the rows", res.CoarseRows)
	}
	if res.Converged {
		fmt.Fprintf(stdout, "fit: converged after %d iterations%s (%s)\n", res.Iterations, coarse, res.Status)
	} else {
		fmt.Fprintf(stdout, "fit: stopped at the limit of %d iterations%s (%s); -iters raises it\n", res.Iterations, coarse, res.Status)
	}
	fmt.Fprintf(stdout, "fit: training %s; %d parameters, %.3g s; wrote %s\n", evaluate(md, m.Predict(nil, run.x), t), m.NumParams(), res.Seconds, *fl.modelPath)
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

// describeRange lists the bounds of each target's predictions.
func describeRange(names []string, r [][2]float64) string {
	if len(r) == 1 {
		return fmt.Sprintf("[%.4g, %.4g]", r[0][0], r[0][1])
	}
	parts := make([]string, len(r))
	for k, b := range r {
		parts[k] = fmt.Sprintf("%s [%.4g, %.4g]", names[k], b[0], b[1])
	}
	return strings.Join(parts, ", ")
}

// describeInputLosses says which held-out losses chose the inputs' scale,
// if any.
func describeInputLosses(losses []float64) string {
	if losses == nil {
		return ""
	}
	return fmt.Sprintf(": the shallow machine's held-out loss %.4g there, %.4g on the inputs as they are", losses[1], losses[0])
}

// describeWeights lists the inputs with their weights, the largest first,
// at most five and a count of the others.
func describeWeights(names []string, w []float64) string {
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	var parts []string
	for _, i := range order[:min(5, len(order))] {
		parts = append(parts, fmt.Sprintf("%s %.2g", names[i], w[i]))
	}
	if len(order) > 5 {
		parts = append(parts, fmt.Sprintf("%d more", len(order)-5))
	}
	return strings.Join(parts, ", ")
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
