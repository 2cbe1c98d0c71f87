package main

import (
	"slices"
	"strings"
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
