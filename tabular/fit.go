package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// Report is what Fit learnt besides the model: how the kernel chose and
// fitted the machine, how the dates' cycles were chosen, and the scores
// on the training rows.
type Report struct {
	Result Result
	// Rows are the training rows, Dropped the rows left out for a missing
	// target.
	Rows, Dropped int
	// CycleLosses are the shallow machine's lowest held-out losses with
	// the dates' cycles and without, when there were any to weigh.
	CycleLosses []float64
	// CodeLosses are the shallow machine's lowest held-out losses
	// without numeric columns by their codes and with the best of those
	// tried, when a column qualified (see codeColumns).
	CodeLosses []float64
	// Warnings are the warnings about the table that Options.Log
	// received.
	Warnings []dataset.Warning
	// Training is the model's scores on its training rows.
	Training Evaluation
	// Phases are the fit's steps and their times, when FitSource made
	// it; HeldOutCost says how Plan.Solve chose the cost, if it did.
	Phases      []Phase
	HeldOutCost *HeldOutCost
}

// fitRun is what Fit learns from its options and its table before
// fitting.
type fitRun struct {
	opts     Options
	names    []string // the target columns
	task     string
	f        *dataset.Frame
	t        *dataset.Target
	id       string
	features []string
	enc      *dataset.Encoder
	x        *mat.Dense
	outputs  int
	rep      *Report
	// pass is the shallow machine's pass that chooseCodes ran on the
	// inputs it leaves, without codes or with those it keeps, which the
	// fit takes over.
	pass *encodingPass
}

// Fit fits a model that predicts the target columns of f from its other
// columns: one column for a classification, one or more for a
// regression. It checks the options and the table before the fit, and
// returns errors that name the file, row and column at fault; errors in
// the options are *OptionError.
func Fit(f *dataset.Frame, targets []string, opts Options) (*Model, *Report, error) {
	if opts.ShallowKernel != AutoKernel || !opts.searches() {
		md, run, err := fitFrame(f, targets, opts)
		if err != nil {
			return nil, nil, err
		}
		return md, run.rep, nil
	}
	return fitKernels(f, targets, opts)
}

// fitKernels is Fit with AutoKernel: the fit with the Gaussian, and
// for a regression the fit with the Laplacian too, whose notes and
// progress are held back until the Gaussian's loss is known. The fit
// of lower held-out loss is kept (the Gaussian's on ties or if the
// other fails). On the development panels the Laplacian won where a
// number labels groups or a target steps along an input; on the
// hold-out panels the choice raised the mean R^2 of every panel
// (docs/learner-panel.md).
func fitKernels(f *dataset.Frame, targets []string, opts Options) (*Model, *Report, error) {
	begin := time.Now()
	g := opts
	g.ShallowKernel = GaussianKernel
	md, run, err := fitFrame(f, targets, g)
	if err != nil || run.task != Regression {
		if err != nil {
			return nil, nil, err
		}
		return md, run.rep, nil
	}
	opts.log("fitting the regression again, with the shallow machine's Laplacian kernel")
	l := opts
	l.ShallowKernel = LaplacianKernel
	var lines []string
	var progress bytes.Buffer
	l.Log = func(line string) { lines = append(lines, line) }
	if opts.Progress != nil {
		l.Progress = &progress
	}
	lmd, lrun, lerr := fitFrame(f, targets, l)
	if lerr != nil {
		opts.log("the shallow machine's Laplacian kernel was not tried: %v", lerr)
		return md, run.rep, nil
	}
	losses := []float64{heldOutLoss(run.rep.Result), heldOutLoss(lrun.rep.Result)}
	if math.IsNaN(losses[0]) || math.IsNaN(losses[1]) {
		return md, run.rep, nil
	}
	keep := losses[1] < losses[0]
	opts.log("the shallow machine's kernel: held-out loss %.4g with the Gaussian, %.4g with the Laplacian: %s",
		losses[0], losses[1], map[bool]string{false: "kept the Gaussian", true: "kept the Laplacian, whose fit follows"}[keep])
	if keep {
		md, run = lmd, lrun
		for _, line := range lines {
			opts.log("%s", line)
		}
		if opts.Progress != nil {
			opts.Progress.Write(progress.Bytes())
		}
	}
	run.rep.Result.KernelLosses = losses
	run.rep.Result.Seconds = time.Since(begin).Seconds()
	md.Fit.KernelLosses, md.Fit.Seconds = losses, run.rep.Result.Seconds
	return md, run.rep, nil
}

// heldOutLoss returns the held-out loss by which fitKernels compares two
// fits: Result.HeldOut's where the relevance weights were scored again,
// else that of the selection's choice; NaN when nothing was scored.
func heldOutLoss(res Result) float64 {
	switch {
	case res.HeldOut != nil:
		return res.HeldOut.Loss
	case res.Selection != nil:
		return res.Selection.Candidates[res.Selection.Best].Loss
	}
	return math.NaN()
}

// fitFrame is Fit, which also returns what it learnt of the table.
func fitFrame(f *dataset.Frame, targets []string, opts Options) (*Model, *fitRun, error) {
	if err := opts.Check(targets); err != nil {
		return nil, nil, err
	}
	run := &fitRun{opts: opts, names: targets, f: f, rep: new(Report)}
	if err := run.read(); err != nil {
		return nil, nil, err
	}
	s, err := run.settings()
	if err != nil {
		return nil, nil, err
	}
	if err := run.chooseCycles(s); err != nil {
		return nil, nil, err
	}
	if err := run.chooseCodes(s); err != nil {
		return nil, nil, err
	}
	s.levels = levelBlocks(run.enc)
	s.columns = columnBlocks(run.enc.Widths())
	s.categorical = allCategorical(run.enc)
	s.pass = run.pass
	m, res, err := run.fit(s)
	if err != nil {
		return nil, nil, err
	}
	run.warnOptimism(res)
	md := run.model(m, res)
	run.rep.Result = res
	run.rep.Training = evaluate(md, m.Predict(nil, run.x), run.t)
	return md, run, nil
}

// warnOptimism warns that the held-out score and the intervals of a
// regression are optimistic when its relevance weights were kept and its
// held-out scores were not measured again with each fold's own weights
// (Result.HeldOut): a deep machine of -family deep, one chosen on a
// subsample of the rows other than the shallow machine's, or one whose
// fit diverged on a fold. Its held-out residuals are then those of
// inputs weighed by weights measured on the rows that judge them
// (docs/learner-panel.md, "Wide regressions").
func (run *fitRun) warnOptimism(res Result) {
	if !byRelevance(res.Relevance) || res.HeldOut != nil {
		return
	}
	run.warn([]dataset.Warning{{Message: "the held-out score and the prediction intervals are those of inputs weighed by their relevance, measured on the rows that also judged them, " +
		"and may be optimistic; -inputs linear fits without the weights"}})
}

// warn sends warnings to the log and keeps them in the report.
func (run *fitRun) warn(warnings []dataset.Warning) {
	for _, w := range warnings {
		run.opts.log("warning: %s", w)
	}
	run.rep.Warnings = append(run.rep.Warnings, warnings...)
}

// logDropped says that dropped of the rows of the table name had no
// value in a target column names.
func logDropped(o *Options, name string, dropped, rows int, names []string) {
	o.log("%s: dropped %d of %d rows with no value in column %q", name, dropped, rows, joinNames(names))
}

// read decides the task, reads the targets and encodes the inputs,
// checking each against the options.
func (run *fitRun) read() error {
	f, o := run.f, &run.opts
	if err := o.checkNamed(f, run.names); err != nil {
		return err
	}
	run.id = idColumn(f, o.ID, run.names, o)
	ignore := append(slices.Clone(o.Ignore), o.columns()...)
	var err error
	if run.features, err = featureColumns(f, run.names[0], run.id, append(ignore, run.names[1:]...)); err != nil {
		return err
	}
	run.task = o.Task
	if len(run.names) > 1 {
		run.task = Regression
	}
	if run.task == "" {
		var why string
		if run.task, why = inferTask(f, run.names[0]); why != "" {
			o.log("-task not given: %s, since column %q %s", run.task, run.names[0], why)
		}
	}
	if run.task == Classification {
		run.t, err = f.Target(run.names[0], true)
	} else {
		run.t, err = readTargets(f, run.names)
	}
	if err != nil {
		return err
	}
	t := run.t
	run.dropTotals(f, t)
	if err := run.checkTarget(f, t, joinNames(run.names)); err != nil {
		return err
	}
	run.rep.Rows, run.rep.Dropped = len(t.Rows), t.Dropped
	if t.Dropped > 0 && o.tableRows == 0 {
		logDropped(o, f.Name(), t.Dropped, f.Len(), run.names)
	}
	if o.Anchors > len(t.Rows) {
		return optionf("-anchors %d: %s has only %d usable rows", o.Anchors, f.Name(), len(t.Rows))
	}
	if run.features, err = run.filledColumns(); err != nil {
		return err
	}
	if run.features, err = run.leaveOutIdentifiers(); err != nil {
		return err
	}
	enc, warnings, err := dataset.FitEncoder(f, run.features, t.Rows)
	if err != nil {
		return err
	}
	run.warn(warnings)
	run.warnAlikeLevels(enc)
	if run.x, warnings, err = enc.Transform(f, t.Rows); err != nil {
		return err
	}
	run.warn(warnings)
	run.enc = enc
	run.outputs = len(run.names)
	if run.task == Classification {
		run.outputs = len(t.Classes)
	}
	return run.checkOutputs()
}

// dropTotals leaves out of a regression's rows the last row of f when it
// holds the totals of the rows above it (see dataset.Frame.Totals), as a
// spreadsheet's table may end, with a warning; it warns of a
// classification's. A streamed fit's sample ends where the table does not.
func (run *fitRun) dropTotals(f *dataset.Frame, t *dataset.Target) {
	last := f.Len() - 1
	if run.opts.tableRows > 0 || len(t.Rows) < 2 || t.Rows[len(t.Rows)-1] != last {
		return
	}
	label, column, ok := f.Totals()
	if !ok {
		return
	}
	what := fmt.Sprintf("%s %d holds the totals of the rows above it (%q; its %s is their sum)", f.Place(), f.Line(last), label, column)
	if run.task == Classification {
		run.warn([]dataset.Warning{{Rows: 1, Message: what + ": it is fitted as a row of its class; leave it out of the file"}})
		return
	}
	t.Rows, t.Values = t.Rows[:len(t.Rows)-1], t.Values[:len(t.Values)-len(run.names)]
	run.warn([]dataset.Warning{{Rows: 1, Message: what + ": it is left out"}})
}

// filledColumns returns the features that hold a value in some of the
// rows, and warns of the others, which are left out: a column empty in
// every training row tells nothing, and scikit-learn's imputer drops it
// too. It is an error if no feature is left.
func (run *fitRun) filledColumns() ([]string, error) {
	f := run.f
	var filled []string
	for _, name := range run.features {
		col, err := f.Column(name)
		if err != nil {
			return nil, err
		}
		if f.Empty(col, run.t.Rows) {
			run.warn([]dataset.Warning{{Column: name, Message: "no row with a target has a value here; the column is left out"}})
			continue
		}
		filled = append(filled, name)
	}
	if filled == nil {
		return nil, fmt.Errorf("%s: no input column has a value in a row with a target", f.Name())
	}
	return filled, nil
}

// checkOutputs checks Dims and TargetScale against the targets read.
func (run *fitRun) checkOutputs() error {
	o, outputs, target := &run.opts, run.outputs, joinNames(run.names)
	if last := len(o.Dims) - 1; last >= 0 && o.Dims[last] != outputs {
		dims := joinInts(o.Dims)
		switch {
		case run.task == Classification:
			return optionf("-dims %s: the last block is the output and must be %d, one entry for each of the %d classes of column %q",
				dims, outputs, outputs, target)
		case outputs == 1:
			return optionf("-dims %s: the last block is the output and must be 1 for regression", dims)
		}
		return optionf("-dims %s: the last block is the output and must be %d, one entry for each regression target", dims, outputs)
	}
	if o.TargetScale != LogScale {
		return nil
	}
	if run.task == Classification {
		return optionf("-target-scale log: column %q is a classification target", target)
	}
	for i, v := range run.t.Values {
		if v < 0 {
			return fmt.Errorf("%s: row %d, column %q: %v is negative, and -target-scale log needs nonnegative targets",
				run.f.Name(), run.f.Line(run.t.Rows[i/outputs]), run.names[i%outputs], v)
		}
	}
	return nil
}

// settings returns the learner's settings and checks that the fit they
// ask for fits the machine.
func (run *fitRun) settings() (Settings, error) {
	o := &run.opts
	s := Settings{
		Family:      o.Family,
		Budget:      o.Budget,
		TargetScale: o.TargetScale,
		InputScale:  o.InputScale,
		// Fit tries the kernels of AutoKernel one fit each.
		ShallowKernel: o.ShallowKernel,
		Dims:          o.Dims,
		Kernel:        o.Kernel,
		Costs:         o.Costs,
		Bandwidths:    o.Bandwidths,
		Folds:         o.Folds,
		Anchors:       o.Anchors,
		Raw:           o.Raw,
		Extrapolate:   o.Extrapolate,
		Seed:          o.Seed,
		MaxIter:       o.MaxIter,
		Starts:        max(1, o.Starts),
		Progress:      o.Progress,
	}
	if err := run.readLearnerColumns(&s); err != nil {
		return s, err
	}
	return s, checkFitSize(run.shape(), s, o)
}

// chooseCycles leaves the phases of the dates' cycles out of the inputs
// (see dataset.Encoder) when the shallow machine's lowest held-out loss
// is lower without them: a season that does not move the target only
// dilutes the distances of a Gaussian kernel.
func (run *fitRun) chooseCycles(s Settings) error {
	plain := run.enc.WithoutCycles()
	if plain.Width() == run.enc.Width() {
		return nil
	}
	x, _, err := plain.Transform(run.f, run.t.Rows)
	if err != nil {
		return err
	}
	losses := make([]float64, 2)
	for i, xi := range []*mat.Dense{run.x, x} {
		if losses[i], err = encodingLoss(xi, run.targets(), run.t.Labels, run.outputs, s); err != nil {
			return fmt.Errorf("weighing the dates' cycles: %w", err)
		}
	}
	run.opts.log("the shallow machine's lowest held-out loss is %.4g with the dates' cycles (%s), %.4g without",
		losses[0], describeCycles(run.enc), losses[1])
	run.rep.CycleLosses = losses
	if !lowerLoss(losses[0], losses[1]) {
		run.enc, run.x = plain, x
	}
	return nil
}

// targets returns a regression's targets as a matrix, and nil for a
// classification.
func (run *fitRun) targets() mat.Matrix {
	if run.task != Regression {
		return nil // not a nil *mat.Dense
	}
	return mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values)
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
func (run *fitRun) fit(s Settings) (*Machine, Result, error) {
	var (
		m   *Machine
		res Result
		err error
	)
	if run.task == Classification {
		m, res, err = FitClassifier(run.x, run.t.Labels, len(run.t.Classes), s)
	} else {
		m, res, err = FitRegression(run.x, mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values), s)
	}
	var de *optim.DivergedError
	if errors.As(err, &de) {
		when := fmt.Sprintf("at iteration %d", de.Iteration)
		if de.Iteration == 0 {
			when = "at the initial parameters"
		}
		hint := "a larger -cost or another -bandwidth"
		if len(s.Costs) == 1 && s.Costs[0] > 1e100 {
			hint = "a smaller -cost"
		}
		if s.Raw {
			hint = "-standardize=true, " + hint
		}
		return nil, res, fmt.Errorf("fitting %s: the fit diverged: the loss is %v %s; check the data for extreme values, or try %s",
			run.f.Name(), de.Loss, when, hint)
	}
	if err != nil {
		return nil, res, fmt.Errorf("fitting %s: %w", run.f.Name(), err)
	}
	return m, res, nil
}

// model returns the model of the fitted machine m.
func (run *fitRun) model(m *Machine, res Result) *Model {
	t, o := run.t, &run.opts
	md := &Model{
		Format:   format.Name,
		Version:  Version,
		Kind:     Kind,
		Task:     run.task,
		Features: run.features,
		Target:   run.names[0],
		ID:       run.id,
		Classes:  t.Classes,
		Encoder:  run.enc,
		Fit: &FitRecord{
			Data: run.f.Name(), Rows: len(t.Rows), Dropped: t.Dropped, Seed: o.Seed, Shallow: res.Shallow,
			Weight: o.Weight, Balance: o.Balance, Group: o.Group, Time: o.Time, Budget: o.budgetText(),
			Dims: res.Dims, Cost: res.Cost, Bandwidth: res.Bandwidth, LogTarget: res.LogTarget, Anchors: res.Anchors,
			InputScale: res.InputScale, InputLosses: res.InputLosses, OtherWeight: res.OtherWeight, LinearWeight: res.LinearWeight,
			Relevance: res.Relevance, RelevanceLosses: res.RelevanceLosses, RelevanceEvidence: res.RelevanceEvidence, HeldOut: res.HeldOut, CycleLosses: run.rep.CycleLosses,
			CodeLosses: run.rep.CodeLosses,
			Starts:     max(1, o.Starts), Start: res.Start, Iterations: res.Iterations, CoarseRows: res.CoarseRows, Converged: res.Converged, Status: res.Status,
			Seconds: res.Seconds, Selection: res.Selection,
		},
		Machine: m,
	}
	md.addLearned(run.names, res)
	return md
}

// addLearned records in md the several targets, if more than one, and
// what the selection learnt: the calibration and the residuals or scores
// of the intervals and sets.
func (md *Model) addLearned(names []string, res Result) {
	if len(names) > 1 {
		md.Targets = names
	}
	if res.Selection != nil {
		cal := res.Calibration
		md.Fit.Calibration = &cal
	}
	r := res.Calibration.Residuals
	if s := res.Calibration.Scores; s != nil {
		r = [][]float64{s}
	}
	if r != nil {
		md.Intervals = &IntervalRecord{Residuals: make([][]float64, len(r))}
		for j := range r {
			md.Intervals.Residuals[j] = thinResiduals(r[j])
		}
	}
}

// featureColumns returns the columns of f that are inputs: all but the
// target, the id column, the row names and the ignored ones. Every column
// named in the options must exist.
func featureColumns(f *dataset.Frame, target, id string, ignore []string) ([]string, error) {
	skip := []string{target}
	if id != "" {
		skip = append(skip, id)
	}
	if rows := f.RowNames(); rows != "" {
		skip = append(skip, rows)
	}
	for _, c := range ignore {
		skip = append(skip, strings.TrimSpace(c))
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

// joinNames writes column names separated by commas, as -target takes
// them.
func joinNames(names []string) string { return strings.Join(names, ",") }
