package main

import (
	"flag"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
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
			"or auto: both, compared by cross-validation where the deep machine may win (60 training rows or more, at most 5 per input as encoded,\na column's levels or codes counted as one;\n"+
			"shallow alone elsewhere), deep alone when -dims, -cost or -bandwidth is given"),
		weight:  fs.String("weight", "", "a `column` of sample weights (numbers >= 0): each row's loss counts that much; not an input;\nweights choose the shallow machine"),
		balance: fs.Bool("balance", false, "classification: weigh the classes equally (each row by the number of rows over the classes times its class's rows);\nmultiplies -weight; chooses the shallow machine"),
		group:   fs.String("group", "", "a `column` of group labels: the cross-validation never splits a group between training and held-out rows; not an input"),
		time:    fs.String("time", "", "a `column` of times (numbers or dates such as 2024-01-31): the cross-validation folds move forward in time,\neach trained on earlier rows than it holds out; not an input"),
		budget:  fs.Duration("budget", 0, "bound the fit's time (such as 30s): the best machine found by then; the deep machine's\ncross-validation fits not started by then are skipped and its final fit stops (default: no bound)"),
	}
}

// fitGCPercent is the least target of the garbage collector in fit,
// unless the environment sets GOGC: from 1,000 rows the final fit
// evaluates its loss in two halves at once, whose garbage the default
// target of 100 let grow the peak memory of a 20,000-row fit from 227 to
// 294 MB; at 50 it took 212 MB in the same CPU time. A small table's fit
// keeps a few MB live, which a target of 50 collected every 10-20 ms, a
// tenth of its CPU time: the target lets garbage grow to fitGarbage
// bytes between collections, or half the live heap where that is more,
// and at most maxGCPercent percent of it.
const (
	fitGCPercent = 50
	maxGCPercent = 400
	fitGarbage   = 16 << 20
)

// gcPercent returns the garbage collector's target of fit for a live
// heap of live bytes.
func gcPercent(live uint64) int {
	if live < fitGarbage*100/maxGCPercent {
		return maxGCPercent
	}
	return max(fitGCPercent, int(fitGarbage*100/live))
}

// limitHeap sets the garbage collector's target of fit, and keeps it
// following the live heap (gcPercent) after each collection, from the
// first call on.
func limitHeap() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent(liveHeap()))
		heapFollowed.Do(followHeap)
	}
}

// heapFollowed starts followHeap once in a process that fits many times.
var heapFollowed sync.Once

// followHeap sets the garbage collector's target for the live heap after
// the next collection, and again after each one that follows: the
// cleanup of an object that nothing references runs once a collection
// has found it unreachable, and arms the next.
func followHeap() {
	runtime.AddCleanup(new(heapSentinel), func(struct{}) {
		debug.SetGCPercent(gcPercent(liveHeap()))
		followHeap()
	}, struct{}{})
}

// heapSentinel holds a pointer so that it is not a tiny allocation,
// which shares its memory with others and may never be collected alone.
type heapSentinel struct{ _ *int }

// liveHeap returns the bytes of heap that the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
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
