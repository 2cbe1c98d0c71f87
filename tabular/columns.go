package tabular

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/dataset"
)

// readLearnerColumns sets in s the weights, groups and times of the rows
// t.Rows of the table, from the columns the options name.
func (run *fitRun) readLearnerColumns(s *Settings) error {
	f, t, o := run.f, run.t, &run.opts
	if o.Balance && run.task != Classification {
		return optionf("-balance weighs the classes of a classification; the target of %s is a regression's", f.Name())
	}
	var err error
	if o.Weight != "" {
		if s.Weights, err = readColumn(f, o.Weight, t.Rows, parseWeight); err != nil {
			return err
		}
		if err := scaleWeights(f, o.Weight, t.Rows, s.Weights); err != nil {
			return err
		}
	}
	if o.Balance {
		s.Weights = balanceWeights(s.Weights, t.Labels, len(t.Classes))
	}
	if o.Group != "" {
		labels, err := readColumn(f, o.Group, t.Rows, func(s string) (string, error) { return s, nil })
		if err != nil {
			return err
		}
		s.Groups = groupIDs(labels)
	}
	if o.Time != "" {
		if s.Times, err = run.readTimes(o.Time); err != nil {
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

// readTimes reads the times of the named column in the rows of the fit:
// finite numbers, or dates as the inputs' columns read them, as days since
// 1970: ISO 8601 dates (dataset.ParseDate), or dates with the year last in
// the order that the column's days above 12 show, or both mixed
// (dataset.DateOrder), with the warning an input column gives of those.
func (run *fitRun) readTimes(name string) ([]float64, error) {
	f, rows := run.f, run.t.Rows
	col, err := f.Column(name)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = strings.TrimSpace(f.Cell(r, col))
	}
	order := dataset.DateOrder(texts)
	times, err := readColumn(f, name, rows, func(s string) (float64, error) { return parseTime(s, order) })
	if w := dataset.MixedDates(name, texts); err == nil && w != nil {
		run.warn([]dataset.Warning{*w})
	}
	return times, err
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

// idColumn returns the id column of a fit: the one -id names, or else the
// row names of f, which it then mentions in the log.
func idColumn(f *dataset.Frame, id string, targets []string, o *Options) string {
	rows := f.RowNames()
	if id != "" || rows == "" || slices.Contains(targets, rows) {
		return id
	}
	col, _ := f.Column(rows)
	if later, earlier := repeatedCell(f, col); later >= 0 {
		o.log("warning: %s: the first column has no name, as a column of row names has none, but its values repeat (line %d holds line %d's %q), as row names do not: it is read as the id column %q, not an input; if it holds data, name it in the header",
			f.Name(), f.Line(later), f.Line(earlier), f.Cell(later, col), rows)
		return rows
	}
	o.log("%s: the first column has no name: it holds row names, as R's write.csv and pandas' to_csv write them, and is the id column %q",
		f.Name(), rows)
	return rows
}

// repeatedCell returns the first row of f whose cell in column col an
// earlier row holds, and that earlier row; -1 and -1 if every row's
// differs.
func repeatedCell(f *dataset.Frame, col int) (later, earlier int) {
	seen := make(map[string]int, f.Len())
	for r := range f.Len() {
		if first, ok := seen[f.Cell(r, col)]; ok {
			return r, first
		}
		seen[f.Cell(r, col)] = r
	}
	return -1, -1
}

// inferTask returns the task that the target column calls for, and why:
// classification for text, and for numbers that take only two values,
// such as 0 and 1, the outcome of a yes-or-no question; regression for
// other numbers. An infinite number is no text, nor are the few stray
// cells that -strict refuses: the column is a regression's, whose reading
// then reports the cell. A column without values has no why, and is
// a classification's, whose reading then fails (or finds the classes in
// later rows, of a table read in parts).
func inferTask(f *dataset.Frame, target string) (task, why string) {
	_, err := f.Target(target, false)
	switch {
	case errors.Is(err, dataset.ErrEmptyColumn):
		return Classification, ""
	case err != nil && !errors.Is(err, dataset.ErrInf) && !errors.Is(err, dataset.ErrStray):
		return Classification, "holds text"
	}
	t, err := f.Target(target, true)
	if err == nil && len(t.Classes) == 2 {
		return Classification, fmt.Sprintf("holds two values only, %s and %s; -task regression fits them as numbers",
			t.Classes[0], t.Classes[1])
	}
	return Regression, "holds numbers only"
}

// checkTarget refuses a regression target that leaves nothing to learn,
// and warns of classes with a single row, which a model can hardly learn
// and a cross-validation cannot both learn and test.
func (run *fitRun) checkTarget(f *dataset.Frame, t *dataset.Target, column string) error {
	run.warnIdentifierTargets(f, t)
	if t.Values != nil {
		if len(t.Values) == 1 {
			return &dataset.ParseError{File: f.Name(), Column: column,
				Err: fmt.Errorf("only row %d has a value: a fit needs rows with different values to learn from", f.Line(t.Rows[0]))}
		}
		if lo, hi := slices.Min(t.Values), slices.Max(t.Values); lo == hi {
			return &dataset.ParseError{File: f.Name(), Column: column,
				Err: fmt.Errorf("every one of the %d rows holds %s: there is nothing to learn, a model would always predict it",
					len(t.Values), dataset.FormatFloat(lo))}
		}
		for j, name := range run.names {
			run.warnFarTargets(f, t, j, name)
		}
		return nil
	}
	counts := make([]int, len(t.Classes))
	line := make([]int, len(t.Classes))
	for i, l := range t.Labels {
		counts[l]++
		line[l] = f.Line(t.Rows[i])
	}
	var single []string
	for c, n := range counts {
		if n == 1 {
			single = append(single, fmt.Sprintf("%q (%s %d)", t.Classes[c], f.Place(), line[c]))
		}
	}
	const advice = "; the model can hardly learn such a class, and a cross-validation cannot both learn it and test it: gather more rows of it, or merge it with another class"
	switch {
	case len(single) == 1:
		run.warn([]dataset.Warning{{Column: column, Message: fmt.Sprintf("class %s has a single row%s", single[0], advice)}})
	case len(single) > 1:
		shown := single[:min(3, len(single))]
		more := ""
		if len(single) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(single)-len(shown))
		}
		run.warn([]dataset.Warning{{Column: column, Message: fmt.Sprintf("%d classes have a single row: %s%s%s", len(single), strings.Join(shown, ", "), more, advice)}})
	}
	run.warnAlike(column, "classes", t.Classes)
	return nil
}

// warnAlike warns of the labels (classes, or an input's levels) of a
// column that differ only in case, in how they write a number or a yes
// or a no (see alikeTexts), as rows gathered from several sources write
// them: the model tells them apart.
func (run *fitRun) warnAlike(column, labels string, texts []string) {
	if alike := alikeTexts(texts); alike != "" {
		run.warn([]dataset.Warning{{Column: column, Message: fmt.Sprintf("%s %s differ only in case or in how they write a number, or a yes or a no: they are different %s to the model; write them alike if they are one", labels, alike, labels)}})
	}
}

// warnAlikeLevels warns of each categorical input of enc whose levels
// differ only so ("Male", "male" and "MALE").
func (run *fitRun) warnAlikeLevels(enc *dataset.Encoder) {
	for _, r := range enc.Rules() {
		if r.Kind == "categorical" {
			run.warnAlike(r.Name, "levels", r.Levels)
		}
	}
}

// warnIdentifierTargets warns of a target that identifies the rows, as
// dataset.Identifiers finds such inputs: whole numbers that count the
// rows, or a different text in nearly every row. A model learns nothing
// from it that holds for other rows.
func (run *fitRun) warnIdentifierTargets(f *dataset.Frame, t *dataset.Target) {
	ids, err := dataset.Identifiers(f, run.names, t.Rows)
	if err != nil {
		return // the target's reading has said what is wrong
	}
	for _, w := range ids {
		w.Message += ": as the target, a model of it learns nothing that holds for other rows; is -target the column to predict?"
		run.warn([]dataset.Warning{w})
	}
}

// median returns the median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	return (sorted[(n-1)/2] + sorted[n/2]) / 2
}

// alikeTexts returns the first few of the sets of texts that differ
// only in case, such as "No" and "no", in how they write a number, such
// as "1" and "1.0", or in how they write a yes or a no, such as "Y",
// "TRUE", "1" and "yes" (see dataset.ParseTruth) where every text is a
// yes or a no (the letters F, N, T and Y among others are not), quoted
// and joined, or "" if there are none.
func alikeTexts(classes []string) string {
	truths := !slices.ContainsFunc(classes, func(c string) bool { _, ok := dataset.ParseTruth(numberFold(c)); return !ok })
	byFold := make(map[string][]string)
	var folds []string // in the order of the classes
	for _, c := range classes {
		fold := numberFold(c)
		if yes, _ := dataset.ParseTruth(fold); truths {
			fold = map[bool]string{true: "yes", false: "no"}[yes]
		}
		if byFold[fold] == nil {
			folds = append(folds, fold)
		}
		byFold[fold] = append(byFold[fold], strconv.Quote(c))
	}
	var sets []string
	for _, fold := range folds {
		if same := byFold[fold]; len(same) > 1 && len(sets) < 3 {
			sets = append(sets, strings.Join(same, " and "))
		}
	}
	return strings.Join(sets, "; ")
}

// numberFold returns a text in lower case, or the number it writes in
// its shortest form ("1.0" is "1").
func numberFold(text string) string {
	if v, err := strconv.ParseFloat(text, 64); err == nil {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.ToLower(text)
}

// readTargets reads the regression targets names of f: the rows where
// every one has a value, and their values, row by row (row i's target j
// is Values[i*len(names)+j]). One name reads as f.Target does.
func readTargets(f *dataset.Frame, names []string) (*dataset.Target, error) {
	if len(names) == 1 {
		return f.Target(names[0], false)
	}
	ts := make([]*dataset.Target, len(names))
	for j, name := range names {
		var err error
		if ts[j], err = f.Target(name, false); err != nil {
			return nil, err
		}
	}
	t := mergeTargets(f.Len(), ts)
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%s: no row has a value in every target column %q", f.Name(), names)
	}
	return t, nil
}

// targetsIn reads the regression targets names of f, a part of a table,
// as readTargets does, each in its unit of units (see
// dataset.Frame.TargetIn; nil units: plain numbers); a part with no row
// that has every target has no rows, and no error.
func targetsIn(f *dataset.Frame, names, units []string) (*dataset.Target, error) {
	ts := make([]*dataset.Target, len(names))
	for j, name := range names {
		unit := ""
		if units != nil {
			unit = units[j]
		}
		var err error
		if ts[j], err = f.TargetIn(name, unit); err != nil {
			return nil, err
		}
	}
	if len(ts) == 1 {
		return ts[0], nil
	}
	return mergeTargets(f.Len(), ts), nil
}

// targetUnits returns the units of the regression targets names of f
// (see dataset.Target.Unit), "" for a target with no value in f.
func targetUnits(f *dataset.Frame, names []string) []string {
	units := make([]string, len(names))
	for j, name := range names {
		if t, err := f.Target(name, false); err == nil {
			units[j] = t.Unit
		}
	}
	return units
}

// mergeTargets returns the Target of several regression targets of a
// frame of n rows, read one by one: the rows where every one has a
// value, and their values, row by row.
func mergeTargets(n int, ts []*dataset.Target) *dataset.Target {
	cols := make([]map[int]float64, len(ts))
	for j, tj := range ts {
		cols[j] = make(map[int]float64, len(tj.Rows))
		for i, r := range tj.Rows {
			cols[j][r] = tj.Values[i]
		}
	}
	rows := slices.DeleteFunc(slices.Clone(ts[0].Rows), func(r int) bool {
		for _, c := range cols[1:] {
			if _, ok := c[r]; !ok {
				return true
			}
		}
		return false
	})
	t := &dataset.Target{Rows: rows, Dropped: n - len(rows), Values: make([]float64, 0, len(rows)*len(ts))}
	for _, r := range rows {
		for j := range ts {
			t.Values = append(t.Values, cols[j][r])
		}
	}
	return t
}

// targets returns the model's target columns: Targets, or Target alone.
func (md *Model) TargetNames() []string {
	if md.Targets != nil {
		return md.Targets
	}
	return []string{md.Target}
}
