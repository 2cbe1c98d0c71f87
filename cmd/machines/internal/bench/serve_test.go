package bench

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/internal/testutil"
)

func TestServeSuite(t *testing.T) {
	ws, err := Suite("serve")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
		if w.Procs != -1 || w.ItemName != "rows" || w.measure == nil {
			t.Errorf("%s: %+v", w.Name, w)
		}
	}
	if got := strings.Join(names, " "); got != "serve-single serve-256 serve-replace serve-sigterm" {
		t.Errorf("workloads %s", got)
	}
}

// TestServeWorkloads builds the command and runs every workload of the
// serve suite briefly: the checks of replacement and shutdown pass, and
// the throughputs are counted.
func TestServeWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command, fits two models and loads a server for 16 s")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk (Debian package wrk)", err)
	}
	defer func(m string, sample, replace time.Duration) {
		Machines, ServeSample, ServeReplaceTime = m, sample, replace
	}(Machines, ServeSample, ServeReplaceTime)
	Machines = filepath.Join(t.TempDir(), "machines")
	if out, err := exec.Command("go", "build", "-o", Machines, "../..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	// The replacements come ServeReplaceTime/11 apart, each once serve
	// has logged the one before.
	ServeSample, ServeReplaceTime = 2*time.Second, 8*time.Second
	for _, w := range ServeWorkloads() {
		r, err := Run(w, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.PerSecond <= 0 || r.P99NS <= 0 || r.Reps <= 0 {
			t.Errorf("%s: %+v", w.Name, r)
		}
		t.Logf("%s: %.0f rows/s, p99 %v", w.Name, r.PerSecond, time.Duration(r.P99NS))
	}
}
