package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/internal/testutil"
)

// The flag walkers run every flag of a command at 10 and 1,000 times its
// sensible range (and, for a tolerance or a step, a tenth and a
// thousandth of its smallest sensible value; for a path, an existing
// directory and a missing one), on a small data set, each in process
// through run, under a guard. A case passes when the command neither
// panics nor grows the heap beyond walkMemory, and either returns an
// error that names the flag or its value, in one line and without a
// runtime error, or runs: to its end, or until walkDeadline, when the
// guard freezes it at its next write of output. Long work shows
// progress, so a run that spends walkSilence of the process's CPU time
// after the deadline without writing fails; CPU time rather than wall
// time, so that a loaded machine does not fail it. A frozen run stays
// parked until the test binary exits. Under -short the walkers check
// only that every flag has a case.
const (
	walkDeadline = 500 * time.Millisecond
	walkSilence  = 30 * time.Second * raceSlowdown
	walkMemory   = 3 << 29 // 1.5 GiB
)

// walkCase is a flag and the values it is walked with.
type walkCase struct {
	flag   string
	values []string
	// base, if not nil, is the command line the case is added to, in
	// place of the walker's.
	base []string
}

// walkers holds the flag walker of every command; TestWalk fails for a
// command that has none.
var walkers = map[string]func(*testing.T){
	"sculpt":     walkSculpt,
	"experiment": walkExperiment,
	"bench":      walkBench,
	"fit":        walkFit,
	"predict":    walkPredict,
	"score":      walkScore,
	"explain":    walkExplain,
	"export":     walkExport,
	"serve":      walkServe,
	"version":    func(t *testing.T) { walk(t, []string{"version"}, nil) },
}

// TestWalk runs the flag walker of every command of the manual.
func TestWalk(t *testing.T) {
	for _, c := range commands() {
		w, ok := walkers[c.name]
		if !ok {
			t.Errorf("command %s has no flag walker: add one to walkers", c.name)
			continue
		}
		if why, ok := walkSkipped[c.name]; ok {
			w = func(t *testing.T) { t.Skip(why) }
		}
		t.Run(c.name, w)
	}
}

// walk runs every case of a command, each value added to the end of its
// base command line, where it overrides an earlier setting of the flag.
// It fails first if a flag of the command has no case.
func walk(t *testing.T, base []string, cases []walkCase) {
	walked := map[string]bool{}
	for _, c := range cases {
		walked[c.flag] = true
	}
	for _, flag := range commandFlags(t, base[0]) {
		if !walked[flag] {
			t.Errorf("%s -%s has no case in the walker", base[0], flag)
		}
	}
	if testing.Short() {
		return
	}
	for _, c := range cases {
		for _, v := range c.values[:min(len(c.values), walkValues)] {
			args := base
			if c.base != nil {
				args = c.base
			}
			args = append([]string(nil), args...)
			if v == "true" || v == "false" {
				args = append(args, "-"+c.flag+"="+v) // a boolean flag takes no separate value
			} else {
				args = append(args, "-"+c.flag, v)
			}
			t.Run(c.flag+"="+shorten(v), func(t *testing.T) {
				r := guardedRun(args)
				if msg := r.verdict(c.flag, v); msg != "" {
					t.Errorf("%s: %s", strings.Join(args, " "), msg)
				}
				t.Log(r)
			})
		}
	}
}

// commandFlags returns the flags that command's help lists.
func commandFlags(t *testing.T, command string) []string {
	var stdout bytes.Buffer
	if code := run([]string{command, "-h"}, &stdout, io.Discard); code != 0 {
		t.Fatalf("%s -h exited with %d", command, code)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(stdout.String(), -1) {
		flags = append(flags, m[1])
	}
	return flags
}

func shorten(s string) string {
	if len(s) > 24 {
		return s[:12] + "..." + s[len(s)-8:]
	}
	return s
}

// walkResult is how a guarded command line ended.
type walkResult struct {
	code     int // exit status, when it returned
	returned bool
	frozen   bool // frozen by the guard at the deadline
	silent   bool // wrote nothing for walkSilence of CPU time after the deadline
	panicked any
	peak     uint64 // growth of the heap, bytes
	stderr   string
}

// String says how the run ended, for the log of the test.
func (r walkResult) String() string {
	how := fmt.Sprintf("exit status %d", r.code)
	switch {
	case r.frozen:
		how = "frozen at the deadline"
	case !r.returned:
		how = "did not return"
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if r.code == 2 && len(lines) > 1 {
		last = lines[len(lines)-2]
	}
	return fmt.Sprintf("%s, heap +%d MiB: %.300s", how, r.peak>>20, last)
}

// verdict returns what is wrong with r, a run of the flag at value, or
// the empty string.
func (r walkResult) verdict(flag, value string) string {
	switch {
	case r.panicked != nil:
		return fmt.Sprintf("panic: %v", r.panicked)
	case r.peak > walkMemory:
		return fmt.Sprintf("the heap grew by %d MiB, more than %d MiB", r.peak>>20, walkMemory>>20)
	case r.silent:
		return fmt.Sprintf("still running after %v of CPU time past the deadline without writing a line", walkSilence)
	case r.frozen || r.returned && r.code == 0:
		return ""
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	msg := lines[len(lines)-1]
	if r.code == 2 && len(lines) > 1 {
		msg = lines[len(lines)-2] // before the hint to run -h
	}
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "runtime error") || strings.Contains(lower, "goroutine "):
		return "a runtime error: " + msg
	case !strings.Contains(lower, strings.ToLower(strings.TrimPrefix(flag, "-"))) && !strings.Contains(msg, value) &&
		!strings.Contains(lower, walkWord(flag)):
		return fmt.Sprintf("exit status %d with an error that names neither the flag nor its value: %s", r.code, msg)
	}
	return ""
}

// walkWord is how an error may name a flag in words rather than by its
// name: the word the flag's value is counted in.
func walkWord(flag string) string {
	words := map[string]string{"nodes": "hidden nodes", "channels": "channels", "epochs": "epochs", "batch": "batch",
		"lr": "learning rate", "runs": "runs", "shots": "images per class", "maxfreq": "fourier", "starts": "starts"}
	if w, ok := words[flag]; ok {
		return w
	}
	return "-" + flag
}

// guardWriter collects a command's output until the guard's deadline;
// after it, the next write blocks for good, parking the run.
type guardWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	stop   chan struct{} // closed at the deadline
	parked chan struct{} // closed by the first write after it
	once   *sync.Once
	wrote  chan struct{} // receives a token for every write
}

func (w *guardWriter) Write(p []byte) (int, error) {
	select {
	case <-w.stop:
		w.once.Do(func() { close(w.parked) })
		select {} // parked until the test binary exits
	default:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return w.buf.Write(p)
}

// guardedRun runs args through run under the guard.
func guardedRun(args []string) walkResult {
	runtime.GC()
	base := testutil.HeapBytes()
	stop, parked, wrote := make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	once := new(sync.Once)
	stdout := &guardWriter{stop: stop, parked: parked, once: once, wrote: wrote}
	stderr := &guardWriter{stop: stop, parked: parked, once: once, wrote: wrote}
	var r walkResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { r.panicked = recover() }()
		r.code = run(args, stdout, stderr)
		r.returned = true
	}()
	deadline := time.After(walkDeadline)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	var quiet time.Duration // CPU time at the deadline or the last write after it; 0 before the deadline
	for end := false; !end; {
		select {
		case <-done:
			end = true
		case <-parked:
			r.frozen, end = true, true
		case <-deadline:
			close(stop)
			quiet = testutil.CPUTime()
		case <-wrote:
			if quiet != 0 {
				quiet = testutil.CPUTime()
			}
		case <-tick.C:
			if quiet != 0 && testutil.CPUTime()-quiet > walkSilence {
				r.silent, end = true, true
			}
			if h := testutil.HeapBytes(); h > base && h-base > r.peak {
				r.peak = h - base
				if r.peak > 2*walkMemory { // the test cannot stop the run otherwise
					panic(fmt.Sprintf("walker: %q grew the heap by %d MiB: stopping before the machine runs out of memory", args, r.peak>>20))
				}
			}
		}
	}
	stderr.mu.Lock()
	r.stderr = stderr.buf.String()
	stderr.mu.Unlock()
	return r
}

// walkBig are values of a count flag of sensible range up to hi: 10 and
// 1,000 times it.
func walkBig(hi int) []string {
	return []string{fmt.Sprint(10 * hi), fmt.Sprint(1000 * hi)}
}

// walkSmall are values of a tolerance or a step of sensible range from
// lo: a tenth and a thousandth of it.
func walkSmall(lo float64) []string {
	return []string{fmt.Sprint(lo / 10), fmt.Sprint(lo / 1000)}
}

// walkFloat are the values of a float flag of sensible range lo to hi.
func walkFloat(lo, hi float64) []string {
	return append([]string{fmt.Sprint(10 * hi), fmt.Sprint(1000 * hi)}, walkSmall(lo)...)
}

// walkPaths are the values of a path flag: an existing directory, a
// missing one, and a name 1,000 letters long.
func walkPaths(t *testing.T) []string {
	return []string{t.TempDir(), filepath.Join(t.TempDir(), "no", "such", "dir", "f"), strings.Repeat("x", 1000)}
}

// walkNames are the values of a flag that names something: a name that
// does not exist and one 1,000 letters long.
var walkNames = []string{"nosuch", strings.Repeat("n", 1000)}

var walkBool = []string{"true", "false"}

func walkSculpt(t *testing.T) {
	data := idxDir(t)
	folder := t.TempDir()
	writeImages(t, folder, 12, 3, 8, 8, false, false)
	base := []string{"sculpt", "-data", data, "-out", t.TempDir(), "-nodes", "3", "-channels", "2", "-epochs", "1", "-batch", "8"}
	path := append(append([]string(nil), base...), "-path")
	walk(t, base, []walkCase{
		{flag: "data", values: walkPaths(t)},
		{flag: "size", values: walkBig(28), base: []string{"sculpt", "-data", folder, "-out", t.TempDir(), "-nodes", "2", "-channels", "2", "-epochs", "1", "-batch", "4"}},
		{flag: "split", values: walkFloat(0.05, 0.5), base: []string{"sculpt", "-data", folder, "-out", t.TempDir(), "-nodes", "2", "-channels", "2", "-epochs", "1", "-batch", "4"}},
		{flag: "nodes", values: walkBig(20)},
		{flag: "channels", values: walkBig(16)},
		{flag: "epochs", values: walkBig(20)},
		{flag: "finetune", values: walkBig(10)},
		{flag: "validation", values: walkFloat(0.01, 0.5)},
		{flag: "lambda", values: walkFloat(0.01, 1)},
		{flag: "tol", values: walkFloat(1e-8, 1e-4)},
		{flag: "lr", values: walkFloat(1e-4, 0.1)},
		{flag: "batch", values: walkBig(128)},
		{flag: "plain", values: walkBool},
		{flag: "out", values: walkPaths(t)},
		{flag: "seed", values: []string{"10", "18446744073709551615"}},
		{flag: "resume", values: walkBool},
		{flag: "path", values: walkBool},
		{flag: "tolerance", values: walkFloat(0.001, 0.05), base: path},
		{flag: "budget", values: walkBig(36), base: path},
		{flag: "protocol", values: append([]string{"paper"}, walkNames...)},
	})
}

func walkExperiment(t *testing.T) {
	data := t.TempDir()
	writeIDX(t, data, "train", 120, 8, 3)
	writeIDX(t, data, "t10k", 30, 8, 3)
	base := []string{"experiment", "-quick", "-out", t.TempDir(), "depth"}
	oneshot := []string{"experiment", "-quick", "-out", t.TempDir(), "oneshot", "-data", data, "-shots", "1", "-maxfreq", "2", "-cost", "0.1"}
	walk(t, base, []walkCase{
		{flag: "out", values: walkPaths(t)},
		{flag: "seed", values: []string{"10", "18446744073709551615"}},
		{flag: "quick", values: walkBool},
		{flag: "data", values: walkPaths(t), base: oneshot},
		{flag: "data", values: walkPaths(t), base: []string{"experiment", "-quick", "-out", t.TempDir(), "sculpt"}},
		{flag: "shots", values: walkBig(10), base: oneshot},
		{flag: "maxfreq", values: walkBig(20), base: oneshot},
		{flag: "maxfreq", values: walkBig(20), base: []string{"experiment", "-quick", "-out", t.TempDir(), "-protocol", "paper", "oneshot", "-data", data}},
		{flag: "cost", values: walkFloat(0.001, 1), base: oneshot},
		{flag: "conv", values: walkBool, base: oneshot},
		{flag: "sine", values: walkBool, base: oneshot},
		{flag: "tol", values: walkFloat(1e-6, 1e-2), base: oneshot},
		{flag: "protocol", values: append([]string{"paper"}, walkNames...)},
		{flag: "draws", values: walkBig(10), base: []string{"experiment", "-quick", "-out", t.TempDir(), "-protocol", "paper", "sine"}},
	})
}

func walkBench(t *testing.T) {
	base := []string{"bench", "-runs", "1", "-suite", "machines"}
	walk(t, base, []walkCase{
		{flag: "suite", values: walkNames},
		{flag: "runs", values: walkBig(20)},
		{flag: "json", values: walkPaths(t)},
		{flag: "model", values: walkPaths(t), base: []string{"bench", "-runs", "1", "-suite", "onnx"}},
	})
}

// walkModel fits a model of the regression table for the walkers of
// predict, score and export.
func walkModel(t *testing.T) string {
	model := filepath.Join(t.TempDir(), "model.json")
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-cost", "0.01", "-bandwidth", "1", "-model", model); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	return model
}

func walkFit(t *testing.T) {
	base := []string{"fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-cost", "0.01", "-bandwidth", "1", "-model", filepath.Join(t.TempDir(), "m.json")}
	selecting := []string{"fit", "-data", "testdata/fit_reg_train.csv", "-target", "y", "-model", filepath.Join(t.TempDir(), "m.json")}
	walk(t, base, []walkCase{
		{flag: "data", values: walkPaths(t)},
		{flag: "target", values: walkNames},
		{flag: "task", values: walkNames},
		{flag: "ignore", values: walkNames},
		{flag: "id", values: walkNames},
		{flag: "keep", values: walkNames},
		{flag: "dims", values: []string{"30,30,30,1", "3000,3000,3000,1", "100000,100000,1", strings.Repeat("3,", 1000) + "1"}},
		{flag: "kernel", values: walkNames},
		{flag: "bandwidth", values: walkFloat(0.1, 10)},
		{flag: "cost", values: walkFloat(1e-4, 1)},
		{flag: "folds", values: walkBig(10), base: selecting},
		{flag: "anchors", values: walkBig(100)},
		{flag: "target-scale", values: walkNames},
		{flag: "inputs", values: walkNames},
		{flag: "shallow-kernel", values: walkNames},
		{flag: "standardize", values: walkBool},
		{flag: "extrapolate", values: walkBool},
		{flag: "seed", values: []string{"10", "18446744073709551615"}},
		{flag: "iters", values: walkBig(1000)},
		{flag: "starts", values: append(walkBig(10), "1000000000")},
		{flag: "model", values: walkPaths(t)},
		{flag: "sep", values: walkNames},
		{flag: "strict", values: walkBool},
		{flag: "family", values: append([]string{"shallow", "deep"}, walkNames...)},
		{flag: "weight", values: walkNames},
		{flag: "balance", values: walkBool},
		{flag: "group", values: walkNames},
		{flag: "time", values: walkNames},
		// A bound of the fit's time, of sensible range a second to an hour.
		{flag: "budget", values: []string{"10h", "1000h", "100ms", "1ms"}, base: selecting},
	})
}

func walkPredict(t *testing.T) {
	model := walkModel(t)
	base := []string{"predict", "-model", model, "-data", "testdata/fit_reg_new.csv", "-out", filepath.Join(t.TempDir(), "p.csv")}
	walk(t, base, []walkCase{
		{flag: "model", values: walkPaths(t)},
		{flag: "data", values: walkPaths(t)},
		{flag: "out", values: walkPaths(t)},
		{flag: "id", values: walkNames},
		{flag: "sep", values: walkNames},
		{flag: "strict", values: walkBool},
		{flag: "interval", values: walkFloat(0.5, 0.99)},
	})
}

func walkScore(t *testing.T) {
	model := walkModel(t)
	base := []string{"score", "-model", model, "-data", "testdata/fit_reg_train.csv"}
	walk(t, base, []walkCase{
		{flag: "model", values: walkPaths(t)},
		{flag: "data", values: walkPaths(t)},
		{flag: "json", values: walkPaths(t)},
		{flag: "figure", values: walkPaths(t)},
		{flag: "sep", values: walkNames},
		{flag: "strict", values: walkBool},
		{flag: "interval", values: walkFloat(0.5, 0.99)},
	})
}

func walkExplain(t *testing.T) {
	model := walkModel(t)
	base := []string{"explain", "-model", model, "-data", "testdata/fit_reg_train.csv", "-repeats", "2"}
	walk(t, base, []walkCase{
		{flag: "model", values: walkPaths(t)},
		{flag: "data", values: walkPaths(t)},
		{flag: "json", values: walkPaths(t)},
		{flag: "figure", values: walkPaths(t)},
		{flag: "sep", values: walkNames},
		{flag: "strict", values: walkBool},
		{flag: "repeats", values: walkBig(100)},
		{flag: "seed", values: []string{"10", "18446744073709551615"}},
	})
}

func walkExport(t *testing.T) {
	model := walkModel(t)
	recur, err := finite.NewRecur[float64]([]int{1, 3}, ad.Tanh, 2, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	recurPath := filepath.Join(t.TempDir(), "recur.json")
	if err := recur.Save(recurPath); err != nil {
		t.Fatal(err)
	}
	conv, err := finite.NewConv[float64]([]int{1, 2}, ad.Tanh, []int{1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	convPath := filepath.Join(t.TempDir(), "conv.json")
	if err := conv.Save(convPath); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m.onnx")
	base := []string{"export", "-model", model, "-onnx", out}
	walk(t, base, []walkCase{
		{flag: "model", values: walkPaths(t)},
		{flag: "onnx", values: walkPaths(t)},
		{flag: "float64", values: walkBool},
		{flag: "interval", values: walkFloat(0.5, 0.99)},
		{flag: "shape", values: walkBig(100), base: []string{"export", "-model", recurPath, "-onnx", out}},
		{flag: "shape", values: []string{"280,280", "28000,28000"}, base: []string{"export", "-model", convPath, "-onnx", out}},
	})
	if _, err := os.Stat(out); err != nil && !testing.Short() {
		t.Errorf("no export ran to its end: %v", err)
	}
}

// walkServe walks the flags of serve through parseServe: a server runs
// until it is stopped, so the walker checks that every value is refused
// with an error that names the flag, or accepted, before anything
// listens (a -models that is no directory fails as the server starts,
// which TestServeFlags checks).
func walkServe(t *testing.T) {
	dir := t.TempDir()
	cases := []walkCase{
		{flag: "models", values: []string{filepath.Join(dir, "none"), strings.Repeat("d/", 1000)}},
		{flag: "addr", values: []string{"127.0.0.1:80800", "0.0.0.0:8080", "nowhere"}},
		{flag: "token-file", values: []string{filepath.Join(dir, "none")}},
		{flag: "insecure", values: []string{"true", "false"}},
		{flag: "batch-size", values: []string{"2560", "256000", "-1", "0"}},
		{flag: "batch-delay", values: []string{"2ms", "200ms", "-1s"}},
		{flag: "workers", values: []string{"20", "2000", "-1"}},
		{flag: "max-body", values: []string{"40MiB", "4GiB", "4000GiB", "-1"}},
		{flag: "max-inflight", values: []string{"2560", "256000", "0"}},
		{flag: "max-memory", values: []string{"5GiB", "512GiB", "0"}},
		{flag: "timeout", values: []string{"100s", "10000s", "0s"}},
		{flag: "grace", values: []string{"300s", "30000s", "-1s"}},
		{flag: "queue-wait", values: []string{"50s", "5000s", "0s"}},
		{flag: "min-write-rate", values: []string{"320KiB", "3200GiB", "0"}},
		{flag: "poll", values: []string{"10s", "1000s", "0s"}},
		{flag: "interval", values: []string{"9", "900", "0.999", "-0.9"}},
		{flag: "log-level", values: []string{"DEBUG", "LOUD"}},
	}
	walked := map[string]bool{}
	for _, c := range cases {
		walked[c.flag] = true
	}
	for _, flag := range commandFlags(t, "serve") {
		if !walked[flag] {
			t.Errorf("serve -%s has no case in the walker", flag)
		}
	}
	refused := map[string]bool{"batch-size=256000": true, "workers=2000": true, "max-memory=512GiB": true,
		"queue-wait=5000s": true, "min-write-rate=3200GiB": true}
	for _, c := range cases {
		for _, v := range c.values {
			args := []string{"-models", dir, "-" + c.flag + "=" + v}
			_, err := parseServe(args, io.Discard)
			if err != nil && !strings.Contains(err.Error(), c.flag) && !strings.Contains(err.Error(), v) &&
				!strings.Contains(err.Error(), shorten(v)) {
				t.Errorf("serve %s: an error that names neither the flag nor its value: %v", strings.Join(args, " "), err)
			}
			if refused[c.flag+"="+v] && err == nil {
				t.Errorf("serve %s accepted, want a refusal", strings.Join(args, " "))
			}
			t.Logf("serve %s: %v", strings.Join(args, " "), err)
		}
	}
}
