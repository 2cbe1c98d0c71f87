package main

import (
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/internal/testutil"
)

// TestSculptAuditInputs runs the audit's sculpt command lines that
// panicked or ran out of memory: each is refused at once, saying what
// it would take and what to change.
func TestSculptAuditInputs(t *testing.T) {
	data := idxDir(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nodes", "1000", "-channels", "64"}, "1000 hidden nodes of 64 channels on 1x8x8 images has 2.51e+05 edges with 9.22e+09 weights, more than the 16777216 a machine may have; use fewer nodes or channels"},
		{[]string{"-nodes", "130", "-channels", "64"}, "130 hidden nodes of 64 channels on 1x8x8 images has 4.36e+03 edges with 1.56e+08 weights"},
		{[]string{"-nodes", "100000", "-channels", "100000"}, "100000 hidden nodes of 100000 channels on 1x8x8 images has 2.5e+09 edges with 2.25e+20 weights"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"sculpt", "-data", data, "-epochs", "1", "-out", t.TempDir()}, tc.args...)
			start := testutil.CPUTime()
			var code int
			var stderr string
			testutil.Bounded(strings.Join(args, " "), 256<<20, 30*time.Second, func() { code, _, stderr = fitTestRun(args...) })
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit status %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
			if d := testutil.CPUTime() - start; d > 5*time.Second {
				t.Errorf("refused after %v of CPU time, want at once", d)
			}
		})
	}
}
