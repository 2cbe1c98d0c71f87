package main

import (
	"strings"
	"testing"
)

// TestFitSizeBound checks that fit refuses a machine too large to train
// before any work, as the audit's -dims 100000,100000,1 was not.
func TestFitSizeBound(t *testing.T) {
	code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-dims", "100000,100000,1", "-model", t.TempDir()+"/m.json")
	if want := "-dims: a machine of 4e+06 parameters (blocks of 200001 in all, 2 inputs, 36 anchors), more than the 1048576 fit trains"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit status %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
