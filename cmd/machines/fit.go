package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/tabular"
)

// fitFlags are the fit command's flags, as parsed.
type fitFlags struct {
	fs                                                                  *flag.FlagSet
	set                                                                 map[string]bool
	data, sep, target, task, ignore, id, keep                           *string
	dims, kernelName, targetScale, inputScale, shallowKernel, modelPath *string
	bandwidth, cost                                                     *float64
	folds, anchors, iters, starts                                       *int
	standardize, extrapolate, strict                                    *bool
	seed                                                                *uint64
	learner                                                             *learnerFlags
}

// runFit is the fit command: it parses and checks its flags, reads the
// data and fits it with tabular.Fit, and reports, in the order a user's
// errors should be reported.
func runFit(args []string, stdout, stderr io.Writer) error {
	fl := newFitFlags()
	if err := parseCommand(fl.fs, args, stderr, "data", "target", "model"); err != nil {
		return err
	}
	fl.set = setFlags(fl.fs)
	names, opts, err := fl.options(stderr)
	if err != nil {
		return err
	}
	noteTerminal(stderr, "fit", *fl.data)
	limitHeap()
	md, rep, err := fitTable(*fl.data, *fl.sep, *fl.strict, names, opts, stderr)
	var oe *tabular.OptionError
	if errors.As(err, &oe) {
		return usagef("%s", oe.Msg)
	}
	if err != nil {
		return err
	}
	if err := md.Save(*fl.modelPath); err != nil {
		return err
	}
	for _, line := range rep.Summary(md) {
		fmt.Fprintf(stdout, "fit: %s\n", line)
	}
	fmt.Fprintf(stdout, "fit: training %s; %d parameters, %.3g s; wrote %s\n", rep.Training, md.Machine.NumParams(), rep.Result.Seconds, *fl.modelPath)
	return nil
}

// fitTable fits the table at path with tabular.FitSource, which streams
// a large file, or standard input (path "-") read whole with tabular.Fit.
func fitTable(path, sep string, strict bool, names []string, opts tabular.Options, stderr io.Writer) (*tabular.Model, *tabular.Report, error) {
	if path == "-" {
		f, err := loadTable(path, sep, strict, stderr, "fit")
		if err != nil {
			return nil, nil, err
		}
		return tabular.Fit(f, names, opts)
	}
	described := false
	return tabular.FitSource(func() (*dataset.TableReader, error) {
		fr, err := openTable(path, sep, strict)
		if err == nil && !described {
			describeFormat(stderr, "fit", fr)
			described = true
		}
		return fr, err
	}, names, opts)
}

func newFitFlags() *fitFlags {
	fs := newFlagSet("fit", "usage: machines fit -data FILE -target COLUMN [flags] -model FILE")
	fl := &fitFlags{
		fs:            fs,
		data:          fs.String("data", "", "training data: a CSV `file` with a header row, a Parquet or Arrow file, a quoted glob pattern of such files\nread as one table, or - for standard input (required)"),
		sep:           sepFlag(fs),
		strict:        strictFlag(fs),
		target:        fs.String("target", "", "the `column` to predict (required)"),
		task:          fs.String("task", "", "the `task`: regression or classification\n(default: regression when the target holds numbers of more than two values, classification otherwise)"),
		ignore:        fs.String("ignore", "", "comma-separated `columns` to leave out of the inputs"),
		id:            fs.String("id", "", "a `column` that identifies rows: not an input; predict copies it to its output"),
		keep:          fs.String("keep", "", "comma-separated `columns` to keep as inputs although they look like identifiers\n(text with a different value in nearly every row, or whole numbers counting the rows), which are left out otherwise"),
		dims:          fs.String("dims", "", "comma-separated `list` of the block sizes of the machine space, the output block last;\nthe output block must be 1 for regression and the number of classes for classification\n(default 3,3,3,<outputs>)"),
		kernelName:    fs.String("kernel", kernel.Additive.String(), "`name` of the way the blocks' Gaussians combine: additive or multiplicative"),
		bandwidth:     fs.Float64("bandwidth", 0, "bandwidth `sigma` of the Gaussian kernel, > 0 (default: chosen by cross-validation)"),
		cost:          fs.Float64("cost", 0, "weight `C` of the regulariser |A|^2 + RKHS norm, >= 0 (default: chosen by cross-validation)"),
		folds:         fs.Int("folds", 0, "number `k` of cross-validation folds for choosing -cost and -bandwidth (default 5, or fewer on tables of fewer rows, groups or times)"),
		anchors:       fs.Int("anchors", 0, "number `M` of anchor points, k-means++ centres of the training rows\n(default: every row for small tables, a fixed number for large ones)"),
		targetScale:   fs.String("target-scale", tabular.AutoScale.String(), "`scale` on which a regression's target is fitted: linear, log (log(1+y), for nonnegative targets),\nor auto: cross-validation also tries log when the target is nonnegative and skewed"),
		shallowKernel: fs.String("shallow-kernel", tabular.AutoKernel.String(), "`kernel` of the shallow machine: gaussian, laplacian (exp(-|x-a|_1/bandwidth)), or auto: a regression is fitted\nwith both and the fit of lower held-out loss is kept (with -cost and -bandwidth given, or -budget: gaussian)"),
		inputScale:    fs.String("inputs", tabular.AutoInputs.String(), "`scale` of the inputs: linear (as they are), quantile (each numeric input mapped through its training quantiles),\nor auto: quantile when the shallow machine's held-out loss is lower there (with -cost and -bandwidth given: linear)"),
		standardize:   fs.Bool("standardize", true, "fit on inputs (and regression targets) scaled to mean 0 and standard deviation 1"),
		extrapolate:   fs.Bool("extrapolate", false, "regression: let predictions leave the training targets' range widened by a tenth of it on each side,\nwhere they are bounded by default (always unbounded with -standardize=false)"),
		seed:          fs.Uint64("seed", 0, "`seed` of the folds, the anchors and the initial parameters"),
		iters:         fs.Int("iters", 0, "maximum `number` of L-BFGS iterations of the final fit (default: the library's limit)"),
		starts:        fs.Int("starts", 1, "fit the final machine from this `number` of initial points, at most 1000, and keep the one of lowest loss"),
		modelPath:     fs.String("model", "", "write the fitted model to this JSON `file` (required)"),
		learner:       addLearnerFlags(fs),
	}
	return fl
}

// options validates the flags on their own, before any data is read,
// and returns the target columns and the options of the fit, whose log
// goes to stderr.
func (fl *fitFlags) options(stderr io.Writer) ([]string, tabular.Options, error) {
	set := fl.set
	opts := tabular.Options{
		Task: *fl.task, ID: *fl.id, Folds: *fl.folds, Anchors: *fl.anchors, Raw: !*fl.standardize, Extrapolate: *fl.extrapolate,
		Seed: *fl.seed, MaxIter: *fl.iters, Starts: *fl.starts,
		Log:      func(line string) { fmt.Fprintf(stderr, "machines fit: %s\n", line) },
		Progress: stderr,
	}
	if *fl.ignore != "" {
		opts.Ignore = strings.Split(*fl.ignore, ",")
	}
	if *fl.keep != "" {
		opts.Keep = strings.Split(*fl.keep, ",")
	}
	var err error
	if opts.Kernel, err = kernel.ParseCombine(*fl.kernelName); err != nil {
		return nil, opts, usagef("-kernel %q: want %s or %s", *fl.kernelName, kernel.Additive, kernel.Multiplicative)
	}
	if opts.ShallowKernel, err = tabular.ParseShallowKernel(*fl.shallowKernel); err != nil {
		return nil, opts, usagef("-shallow-kernel %q: want auto, gaussian or laplacian", *fl.shallowKernel)
	}
	if opts.TargetScale, err = tabular.ParseTargetScale(*fl.targetScale); err != nil {
		return nil, opts, usagef("-target-scale %q: want auto, linear or log", *fl.targetScale)
	}
	if opts.InputScale, err = tabular.ParseInputScale(*fl.inputScale); err != nil {
		return nil, opts, usagef("-inputs %q: want auto, linear or quantile", *fl.inputScale)
	}
	switch {
	case set["folds"] && *fl.folds < 2:
		return nil, opts, usagef("-folds %d: want at least 2", *fl.folds)
	case set["iters"] && *fl.iters < 1:
		return nil, opts, usagef("-iters %d: want at least 1", *fl.iters)
	case *fl.starts < 1:
		return nil, opts, usagef("-starts %d: want 1 to %d", *fl.starts, tabular.MaxStarts)
	}
	if set["cost"] {
		opts.Costs = []float64{*fl.cost}
	}
	if set["bandwidth"] {
		opts.Bandwidths = []float64{*fl.bandwidth}
	}
	if *fl.dims != "" {
		if opts.Dims, err = parseDimsFlag(*fl.dims); err != nil {
			return nil, opts, err
		}
	}
	if err := fl.learner.apply(&opts); err != nil {
		return nil, opts, err
	}
	names, err := targetNames(*fl.target)
	if err != nil {
		return nil, opts, err
	}
	if err := opts.Check(names); err != nil {
		return nil, opts, usagef("%s", err)
	}
	if err := checkOutput("model", *fl.modelPath, "model.json"); err != nil {
		return nil, opts, err
	}
	return names, opts, checkOverwrites(dataInputs(*fl.data), []pathFlag{{"model", *fl.modelPath}})
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

// targetNames splits the -target flag: one column, or several regression
// targets separated by commas.
func targetNames(flag string) ([]string, error) {
	names := strings.Split(flag, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return nil, usagef("-target %q: entry %d is empty", flag, i+1)
		}
		if slices.Contains(names[:i], names[i]) {
			return nil, usagef("-target %q: column %q is named twice", flag, names[i])
		}
	}
	return names, nil
}
