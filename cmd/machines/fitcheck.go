package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
)

// The checks that fit makes before it spends time on a fit: of its flags
// before it reads the data, then of the target and of the size of the
// fit.

// checkFitFlags reports contradicting flags and a -model path that
// cannot be written.
func checkFitFlags(targets []string, id, modelPath string) error {
	if id != "" && slices.Contains(targets, id) {
		return usagef("-id %s: the id column cannot also be the target", id)
	}
	return checkOutput("model", modelPath, "model.json")
}

// idColumn returns the id column of a fit: the one -id names, or else the
// row names of f, which it then mentions on stderr.
func idColumn(f *dataset.Frame, id string, targets []string, stderr io.Writer) string {
	rows := f.RowNames()
	if id != "" || rows == "" || slices.Contains(targets, rows) {
		return id
	}
	fmt.Fprintf(stderr, "machines fit: %s: the first column has no name: it holds row names, as R's write.csv and pandas' to_csv write them, and is the id column %q\n",
		f.Name(), rows)
	return rows
}

// inferTask returns the task that the target column calls for, and why:
// classification for text, and for numbers that take only two values,
// such as 0 and 1, the outcome of a yes-or-no question; regression for
// other numbers. An infinite number is no text, nor are the few stray
// cells that -strict refuses: the column is a regression's, whose reading
// then reports the cell.
func inferTask(f *dataset.Frame, target string) (task, why string) {
	if _, err := f.Target(target, false); err != nil && !errors.Is(err, dataset.ErrInf) && !errors.Is(err, dataset.ErrStray) {
		return taskClassification, "holds text"
	}
	t, err := f.Target(target, true)
	if err == nil && len(t.Classes) == 2 {
		return taskClassification, fmt.Sprintf("holds two values only, %s and %s; -task regression fits them as numbers",
			t.Classes[0], t.Classes[1])
	}
	return taskRegression, "holds numbers only"
}

// checkTarget refuses a regression target that leaves nothing to learn,
// and warns on stderr of classes with a single row, which a model can
// hardly learn and a cross-validation cannot both learn and test.
func checkTarget(f *dataset.Frame, t *dataset.Target, column string, stderr io.Writer) error {
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
			single = append(single, fmt.Sprintf("%q (line %d)", t.Classes[c], line[c]))
		}
	}
	switch {
	case len(single) == 1:
		fmt.Fprintf(stderr, "machines fit: warning: column %q: class %s has a single row", column, single[0])
	case len(single) > 1:
		shown := single[:min(3, len(single))]
		more := ""
		if len(single) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(single)-len(shown))
		}
		fmt.Fprintf(stderr, "machines fit: warning: column %q: %d classes have a single row: %s%s", column, len(single), strings.Join(shown, ", "), more)
	default:
		return nil
	}
	fmt.Fprintln(stderr, "; the model can hardly learn such a class, and a cross-validation cannot both learn it and test it: gather more rows of it, or merge it with another class")
	return nil
}
