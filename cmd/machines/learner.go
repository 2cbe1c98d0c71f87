package main

import (
	"flag"
	"os"
	"runtime/debug"
	"time"

	"github.com/parametric-machines/machines/tabular"
)

// learnerFlags are the flags of fit that say how the learner searches for
// its machine and weighs and splits the rows: tabular.Options' Family,
// Weight, Balance, Group, Time and Budget, which tabular checks.
type learnerFlags struct {
	family  *string
	weight  *string
	balance *bool
	group   *string
	time    *string
	budget  *time.Duration
}

// addLearnerFlags defines the learner's flags on fs.
func addLearnerFlags(fs *flag.FlagSet) *learnerFlags {
	return &learnerFlags{
		family: fs.String("family", tabular.AutoFamily.String(), "`family` of machines to choose from: shallow (depth one, closed form), deep (the -dims machine, L-BFGS),\n"+
			"or auto: both, compared by cross-validation (deep alone when -dims, -cost or -bandwidth is given)"),
		weight:  fs.String("weight", "", "a `column` of sample weights (numbers >= 0): each row's loss counts that much; not an input;\nweights choose the shallow machine"),
		balance: fs.Bool("balance", false, "classification: weigh the classes equally (each row by the number of rows over the classes times its class's rows);\nmultiplies -weight; chooses the shallow machine"),
		group:   fs.String("group", "", "a `column` of group labels: the cross-validation never splits a group between training and held-out rows; not an input"),
		time:    fs.String("time", "", "a `column` of times (numbers or dates such as 2024-01-31): the cross-validation folds move forward in time,\neach trained on earlier rows than it holds out; not an input"),
		budget:  fs.Duration("budget", 0, "bound the fit's time (such as 30s): the best machine found by then; the deep machine's\ncross-validation fits not started by then are skipped and its final fit stops (default: no bound)"),
	}
}

// fitGCPercent is the garbage collector's target of fit, unless the
// environment sets GOGC: from 1,000 rows the final fit evaluates its loss
// in two halves at once, whose garbage the default target of 100 let grow
// the peak memory of a 20,000-row fit from 227 to 294 MB; at 50 it took
// 212 MB in the same CPU time.
const fitGCPercent = 50

// limitHeap sets the garbage collector's target of fit.
func limitHeap() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(fitGCPercent)
	}
}

// apply checks the flags' values and sets them in opts.
func (lf *learnerFlags) apply(opts *tabular.Options) error {
	f, err := tabular.ParseFamily(*lf.family)
	if err != nil {
		return usagef("-family %q: want auto, shallow or deep", *lf.family)
	}
	opts.Family, opts.Budget = f, *lf.budget
	opts.Weight, opts.Balance, opts.Group, opts.Time = *lf.weight, *lf.balance, *lf.group, *lf.time
	return nil
}
