package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestExperimentUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"maxfreq 0", []string{"experiment", "oneshot", "-data", "x", "-maxfreq", "2,0"}, "maxfreq 0"},
		{"maxfreq not a number", []string{"experiment", "oneshot", "-data", "x", "-maxfreq", "two"}, "not an integer"},
		{"negative cost", []string{"experiment", "oneshot", "-data", "x", "-cost", "0.1,-1"}, "cost -1"},
		{"cost NaN", []string{"experiment", "oneshot", "-data", "x", "-cost", "NaN"}, "cost NaN"},
		{"no data", []string{"experiment", "oneshot"}, "-data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2; stderr %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q, want it to mention %q", stderr.String(), tc.want)
			}
		})
	}
}
