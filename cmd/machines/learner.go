package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
)

// learnerFlags are the flags of fit that say how the learner searches for
// its machine and weighs and splits the rows; their parsing and checks
// live here, apart from the reading of the data in runFit.
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
		family: fs.String("family", kernel.AutoFamily.String(), "`family` of machines to choose from: shallow (depth one, closed form), deep (the -dims machine, L-BFGS),\n"+
			"or auto: both, compared by cross-validation (deep alone when -dims, -cost or -bandwidth is given)"),
		weight:  fs.String("weight", "", "a `column` of sample weights (numbers >= 0): each row's loss counts that much; not an input;\nweights choose the shallow machine"),
		balance: fs.Bool("balance", false, "classification: weigh the classes equally (each row by the number of rows over the classes times its class's rows);\nmultiplies -weight; chooses the shallow machine"),
		group:   fs.String("group", "", "a `column` of group labels: the cross-validation never splits a group between training and held-out rows; not an input"),
		time:    fs.String("time", "", "a `column` of times (numbers or dates such as 2024-01-31): the cross-validation folds move forward in time,\neach trained on earlier rows than it holds out; not an input"),
		budget:  fs.Duration("budget", 0, "bound the fit's time (such as 30s): the best machine found by then; the deep machine's\ncross-validation fits not started by then are skipped and its final fit stops (default: no bound)"),
	}
}

// columns returns the columns the flags name: they are not inputs.
func (lf *learnerFlags) columns() []string {
	var c []string
	for _, name := range []string{*lf.weight, *lf.group, *lf.time} {
		if name != "" {
			c = append(c, name)
		}
	}
	return c
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

// ignored adds the flags' columns, and the other columns given, to the
// -ignore list.
func (lf *learnerFlags) ignored(ignore string, other ...string) string {
	cols := append(lf.columns(), other...)
	if ignore != "" {
		cols = append([]string{ignore}, cols...)
	}
	return strings.Join(cols, ",")
}

// budgetText returns -budget for the model file, empty when unbounded.
func (lf *learnerFlags) budgetText() string {
	if *lf.budget == 0 {
		return ""
	}
	return lf.budget.String()
}

// check reports usage errors in the flags before any data is read; set
// holds the flags given on the command line.
func (lf *learnerFlags) check(set map[string]bool, target string) error {
	f, err := kernel.ParseFamily(*lf.family)
	if err != nil {
		return usagef("-family %q: want auto, shallow or deep", *lf.family)
	}
	weighted := *lf.weight != "" || *lf.balance
	switch {
	case f == kernel.Shallow && (set["dims"] || set["cost"] || set["bandwidth"]):
		return usagef("-family shallow: -dims, -cost and -bandwidth describe the deep machine")
	case weighted && (f == kernel.Deep || set["dims"] || set["cost"] || set["bandwidth"]):
		return usagef("-weight and -balance need the shallow machine, whose loss weighs the rows; drop -family deep, -dims, -cost and -bandwidth")
	case *lf.group != "" && *lf.time != "":
		return usagef("-group and -time: the folds follow one of them, not both")
	case *lf.budget < 0:
		return usagef("-budget %v: want a duration > 0, such as 30s", *lf.budget)
	}
	for _, c := range lf.columns() {
		if slices.Contains(strings.Split(target, ","), c) {
			return usagef("column %q is the target; -weight, -group and -time name other columns", c)
		}
	}
	return nil
}

// apply sets the flags in s, reading the weights, groups and times of
// the rows t.Rows of f.
func (lf *learnerFlags) apply(s *kernel.Settings, f *dataset.Frame, t *dataset.Target, classify bool) error {
	s.Family, _ = kernel.ParseFamily(*lf.family)
	s.Budget = *lf.budget
	if *lf.balance && !classify {
		return usagef("-balance weighs the classes of a classification; the target of %s is a regression's", f.Name())
	}
	var err error
	if *lf.weight != "" {
		if s.Weights, err = readColumn(f, *lf.weight, t.Rows, parseWeight); err != nil {
			return err
		}
		if err := scaleWeights(f, *lf.weight, t.Rows, s.Weights); err != nil {
			return err
		}
	}
	if *lf.balance {
		s.Weights = balanceWeights(s.Weights, t.Labels, len(t.Classes))
	}
	if *lf.group != "" {
		labels, err := readColumn(f, *lf.group, t.Rows, func(s string) (string, error) { return s, nil })
		if err != nil {
			return err
		}
		s.Groups = groupIDs(labels)
	}
	if *lf.time != "" {
		if s.Times, err = readTimes(f, *lf.time, t.Rows); err != nil {
			return err
		}
	}
	return nil
}

// readColumn parses the cells of the named column in the given rows of f;
// its errors name the file, the line and the column.
func readColumn[T any](f *dataset.Frame, name string, rows []int, parse func(string) (T, error)) ([]T, error) {
	col, err := f.Column(name)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		if out[i], err = parse(strings.TrimSpace(f.Cell(r, col))); err != nil {
			return nil, &dataset.ParseError{File: f.Name(), Row: f.Line(r), Column: name, Err: err}
		}
	}
	return out, nil
}

// parseWeight reads a sample weight: a finite number >= 0.
func parseWeight(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("weight %q: want a finite number >= 0", s)
	}
	return v, nil
}

// readTimes reads the times of the named column in the given rows of f:
// finite numbers, or dates as the inputs' columns read them, as days since
// 1970: ISO 8601 dates (dataset.ParseDate), or dates with the year last in
// the order that the column's days above 12 show (dataset.YearLastOrder).
func readTimes(f *dataset.Frame, name string, rows []int) ([]float64, error) {
	col, err := f.Column(name)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = strings.TrimSpace(f.Cell(r, col))
	}
	order, _ := dataset.YearLastOrder(texts)
	return readColumn(f, name, rows, func(s string) (float64, error) { return parseTime(s, order) })
}

// parseTime reads a time: a finite number, or a date in ISO 8601 or with
// the year last in the given order, if any, as days since 1970.
func parseTime(s, order string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	t, ok := dataset.ParseDate(s)
	if !ok && order != "" {
		t, ok = dataset.ParseYearLast(s, order)
	}
	if !ok {
		return 0, fmt.Errorf("time %q: want a number or a date such as 2024-01-31", s)
	}
	return dataset.Days(t), nil
}

// groupIDs numbers the group labels in the order they first appear.
func groupIDs(labels []string) []int {
	ids := make(map[string]int)
	out := make([]int, len(labels))
	for i, l := range labels {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		out[i] = id
	}
	return out
}

// balanceWeights multiplies the weights w (nil: 1) of rows whose classes
// are labels by n / (classes * rows of the row's class), so that every
// class weighs as much as the others.
func balanceWeights(w []float64, labels []int, classes int) []float64 {
	count := make([]float64, classes)
	for _, l := range labels {
		count[l]++
	}
	out := make([]float64, len(labels))
	for i, l := range labels {
		out[i] = float64(len(labels)) / (float64(classes) * count[l])
		if w != nil {
			out[i] *= w[i]
		}
	}
	return out
}
