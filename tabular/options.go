package tabular

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
)

// Options configures Fit. The zero value means the defaults of machines
// fit without flags; each field is the flag of the same name, and the
// errors about a field name it by that flag.
type Options struct {
	// Task is Regression or Classification; "" infers it from the target
	// (regression when it holds numbers of more than two values).
	Task string
	// Ignore lists columns left out of the inputs; ID names a column that
	// identifies rows, which is not an input either (default: the row
	// names of a table whose first column has no name).
	Ignore []string
	ID     string
	// Keep lists columns kept as inputs although they look like
	// identifiers (see dataset.Identifiers), which are left out otherwise.
	Keep []string
	// Weight names a column of sample weights, Group one of group labels
	// that the folds keep together, Time one of times that the folds
	// follow forward; none is an input. Balance weighs a classifier's
	// classes equally.
	Weight, Group, Time string
	Balance             bool
	// Family, Dims, Kernel, Costs, Bandwidths, Folds, Anchors,
	// TargetScale, InputScale, ShallowKernel, Raw, Extrapolate, Seed, MaxIter, Starts
	// and Budget are Settings' (Raw is -standardize=false, MaxIter
	// -iters); one cost and one bandwidth fix them.
	Family            Family
	Dims              []int
	Kernel            kernel.Combine
	Costs, Bandwidths []float64
	Folds, Anchors    int
	TargetScale       TargetScale
	InputScale        InputScale
	ShallowKernel     ShallowKernel
	Raw, Extrapolate  bool
	Seed              uint64
	MaxIter, Starts   int
	Budget            time.Duration
	// Log, if not nil, receives the fit's notes and warnings, one line
	// each without its newline, as they come; Progress the kernel's.
	Log      func(line string)
	Progress io.Writer

	// tableRows are the rows of the table of which a streamed fit's plan
	// fits a sample (see NewStreamPlan), 0 for a fit of the table itself:
	// the sample's count of rows without a target is not the table's.
	tableRows int
}

// MaxStarts bounds Options.Starts: a few starts find a deep machine's
// fit, and a thousand already multiply the final fit's time by a
// thousand.
const MaxStarts = 1000

// OptionError is an error in Options, found before any work.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

func optionf(format string, args ...any) error {
	return &OptionError{fmt.Sprintf(format, args...)}
}

// Check reports errors in the options for a fit of the given target
// columns that need no data: Fit calls it first, a command before it
// reads the table.
func (o *Options) Check(targets []string) error {
	if err := o.checkLearner(targets); err != nil {
		return err
	}
	switch {
	case o.Task != "" && o.Task != Regression && o.Task != Classification:
		return optionf("-task %q: want %s or %s", o.Task, Regression, Classification)
	case len(targets) == 0:
		return optionf("no target column")
	case len(targets) > 1 && o.Task == Classification:
		return optionf("-target %s: several targets make a regression; classify one target at a time", joinNames(targets))
	case o.ID != "" && slices.Contains(targets, o.ID):
		return optionf("-id %s: the id column cannot also be the target", o.ID)
	case o.Anchors < 0:
		return optionf("-anchors %d: want 0 (automatic) or more", o.Anchors)
	case o.Folds == 1 || o.Folds < 0:
		return optionf("-folds %d: want at least 2", o.Folds)
	case o.MaxIter < 0:
		return optionf("-iters %d: want at least 1", o.MaxIter)
	case o.Starts < 0 || o.Starts > MaxStarts:
		return optionf("-starts %d: want 1 to %d", o.Starts, MaxStarts)
	case o.Dims != nil && len(o.Dims) < 2:
		return optionf("-dims %s: want at least two blocks, the input block first and the output block last", joinInts(o.Dims))
	}
	for i, d := range o.Dims {
		if d < 1 {
			return optionf("-dims %s: entry %d is %d, want a whole number >= 1", joinInts(o.Dims), i+1, d)
		}
	}
	for _, c := range o.Costs {
		if !(c >= 0) || math.IsInf(c, 0) {
			return optionf("-cost %v: want a finite number >= 0", c)
		}
	}
	for _, b := range o.Bandwidths {
		if !(b > 0) || math.IsInf(b, 0) {
			return optionf("-bandwidth %v: want a finite number > 0", b)
		}
	}
	return nil
}

// checkLearner checks the options that say how the learner searches for
// its machine and weighs and splits the rows.
func (o *Options) checkLearner(targets []string) error {
	weighted := o.Weight != "" || o.Balance
	deep := o.Dims != nil || o.Costs != nil || o.Bandwidths != nil
	switch {
	case o.Family == Shallow && deep:
		return optionf("-family shallow: -dims, -cost and -bandwidth describe the deep machine")
	case weighted && (o.Family == Deep || deep):
		return optionf("-weight and -balance need the shallow machine, whose loss weighs the rows; drop -family deep, -dims, -cost and -bandwidth")
	case o.Group != "" && o.Time != "":
		return optionf("-group and -time: the folds follow one of them, not both")
	case o.Budget < 0:
		return optionf("-budget %v: want a duration > 0, such as 30s", o.Budget)
	}
	for _, c := range o.columns() {
		if slices.Contains(targets, c) {
			return optionf("column %q is the target; -weight, -group and -time name other columns", c)
		}
	}
	return nil
}

// columns returns the columns of the weights, groups and times: they are
// not inputs.
func (o *Options) columns() []string {
	var c []string
	for _, name := range []string{o.Weight, o.Group, o.Time} {
		if name != "" {
			c = append(c, name)
		}
	}
	return c
}

// checkNamed reports an OptionError naming the flag of the first column
// that the options or targets name and f lacks: an error in the command
// line, as the flag's other errors are.
func (o *Options) checkNamed(f *dataset.Frame, targets []string) error {
	for _, named := range []struct {
		flag  string
		names []string
	}{{"target", targets}, {"id", []string{o.ID}}, {"ignore", o.Ignore}, {"keep", o.Keep},
		{"weight", []string{o.Weight}}, {"group", []string{o.Group}}, {"time", []string{o.Time}}} {
		for _, name := range named.names {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if _, err := f.Column(name); err != nil {
				return optionf("-%s %s: %v", named.flag, strings.Join(named.names, ","), err)
			}
		}
	}
	return nil
}

// log sends a line to o.Log, if any.
// searches reports whether a fit of these options searches the shallow
// machine's cost and bandwidth, which Fit then tries with either kernel
// (AutoKernel): its family may be the shallow machine, neither is fixed,
// no dims are given, and no budget bounds the time, which the second fit
// would double.
func (o *Options) searches() bool {
	fixed := len(o.Costs) == 1 && len(o.Bandwidths) == 1
	return (o.Family == AutoFamily || o.Family == Shallow) && !fixed && o.Dims == nil && o.Budget == 0 && o.Task != Classification
}

func (o *Options) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

// budgetText returns Budget for the model file, empty when unbounded.
func (o *Options) budgetText() string {
	if o.Budget == 0 {
		return ""
	}
	return o.Budget.String()
}
