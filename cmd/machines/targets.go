package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
)

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

// readTargets reads the regression targets names of f: the rows where
// every one has a value, and their values, row by row (row i's target j
// is Values[i*len(names)+j]). One name reads as f.Target does.
func readTargets(f *dataset.Frame, names []string) (*dataset.Target, error) {
	if len(names) == 1 {
		return f.Target(names[0], false)
	}
	cols := make([]map[int]float64, len(names))
	var rows []int
	for j, name := range names {
		t, err := f.Target(name, false)
		if err != nil {
			return nil, err
		}
		cols[j] = make(map[int]float64, len(t.Rows))
		for i, r := range t.Rows {
			cols[j][r] = t.Values[i]
		}
		if j == 0 {
			rows = t.Rows
			continue
		}
		rows = slices.DeleteFunc(rows, func(r int) bool { _, ok := cols[j][r]; return !ok })
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no row has a value in every target column %q", f.Name(), names)
	}
	t := &dataset.Target{Rows: rows, Dropped: f.Len() - len(rows), Values: make([]float64, 0, len(rows)*len(names))}
	for _, r := range rows {
		for j := range names {
			t.Values = append(t.Values, cols[j][r])
		}
	}
	return t, nil
}

// targets returns the model's target columns: Targets, or Target alone.
func (md *modelFile) targets() []string {
	if md.Targets != nil {
		return md.Targets
	}
	return []string{md.Target}
}
