package bench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
)

// Machines is the machines command that the serve suite runs, to fit its
// models and to serve them; the command sets it to its own executable.
var Machines = "machines"

// ServeSample is how long wrk loads the server for one timed sample of
// serve-single and serve-256, and in all for serve-sigterm.
var ServeSample = 10 * time.Second

// ServeReplaceTime is how long serve-replace lasts; the model is
// replaced serveReplacements times in it.
var ServeReplaceTime = 30 * time.Second

// ServeLog receives the lines of the server's log that the serve suite
// reports: its shutdown. The command sets it to standard error.
var ServeLog io.Writer = io.Discard

const serveReplacements = 10

// modelReplaced is what serve logs when it serves a replaced model file.
const modelReplaced = `msg="model replaced"`

//go:embed serve.lua
var serveLua []byte

// The models of the serve suite: kernel machines fitted by machines fit
// on serveRows rows of Friedman 1 (10 numeric columns), one to its target
// y and one to 2y + 100, with the cost and bandwidth that fit's
// cross-validation chooses on them, given, so that each fits once.
const (
	serveRows      = 2000
	serveCost      = "0.01"
	serveBandwidth = "1"
)

// ServeWorkloads returns the workloads of the serve suite: machines
// serve, a process of its own on loopback, serving the model of fit on
// Friedman 1, loaded by wrk (a third process) from keep-alive
// connections, each sending its next request when the last is answered
// (serve.lua). A unit is a request: the median time is the wall time of
// a sample over its requests, and the result holds the rows per second
// and the 99th percentile of the latency.
//
// serve-single sends requests of one row on 64 connections, serve-256
// requests of 256 rows on 8, in samples of ServeSample. serve-replace
// sends one-row requests on 64 connections for ServeReplaceTime while the
// model file is replaced 10 times, by rename, with the other model and
// back; it reads every response and fails if one is not 200 or holds a
// prediction not that of the version it names. serve-sigterm sends them
// for ServeSample and sends serve SIGTERM halfway; it fails unless every
// answer is 200 and serve finishes the requests in flight and exits 0.
// Every workload fails on any error wrk counts while the server runs,
// and if serve does not exit 0 on SIGTERM; serve-replace and
// serve-sigterm run once whatever the runs.
func ServeWorkloads() []Workload {
	return []Workload{
		{Name: "serve-single", Dtype: "float64", Unit: "request of 1 row, 64 connections", Items: 1, ItemName: "rows", Procs: -1,
			Reference: "goal >= 10,000 rows/s, p99 <= 10 ms", measure: func(runs int) (measurement, error) { return serveThroughput(1, 64, runs) }},
		{Name: "serve-256", Dtype: "float64", Unit: "request of 256 rows, 8 connections", Items: 256, ItemName: "rows", Procs: -1,
			Reference: "goal >= 200,000 rows/s", measure: func(runs int) (measurement, error) { return serveThroughput(256, 8, runs) }},
		{Name: "serve-replace", Dtype: "float64", Unit: "request of 1 row, 64 connections, 10 replacements", Items: 1, ItemName: "rows", Procs: -1,
			Reference: "goal: no failure, every answer its version's", measure: func(int) (measurement, error) { return serveReplace() }},
		{Name: "serve-sigterm", Dtype: "float64", Unit: "request of 1 row, 64 connections, SIGTERM", Items: 1, ItemName: "rows", Procs: -1,
			Reference: "goal: in-flight requests answered, exit 0", measure: func(int) (measurement, error) { return serveSigterm() }},
	}
}

// serveSetup is the directory of a serve workload: the two fitted
// models, the served copy of the first, the requests and serve.lua.
type serveSetup struct {
	dir, models string
	a, b        []byte // the two model files
	expect      string // path of the lines "VERSION PREDICTION" of serve.lua
}

// newServeSetup fits the models and writes the requests.
func newServeSetup() (*serveSetup, error) {
	if _, err := exec.LookPath("wrk"); err != nil {
		return nil, fmt.Errorf("the serve suite needs wrk (Debian package wrk): %w", err)
	}
	dir, err := os.MkdirTemp("", "bench-serve")
	if err != nil {
		return nil, err
	}
	s := &serveSetup{dir: dir, models: filepath.Join(dir, "models"), expect: filepath.Join(dir, "expect.txt")}
	if err := s.prepare(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *serveSetup) close() { os.RemoveAll(s.dir) }

func (s *serveSetup) path(name string) string { return filepath.Join(s.dir, name) }

// fitted holds the two model files once fitted: the workloads of one
// run of the suite share them.
var fitted struct {
	once sync.Once
	a, b []byte
	err  error
}

// prepare fits the models (once in a process), writes the requests, and
// asks predict for each model's prediction of the one-row request.
func (s *serveSetup) prepare() error {
	if err := os.Mkdir(s.models, 0o755); err != nil {
		return err
	}
	fitted.once.Do(func() { fitted.a, fitted.b, fitted.err = fitServeModels(s.dir) })
	if fitted.err != nil {
		return fitted.err
	}
	s.a, s.b = fitted.a, fitted.b
	for _, m := range []struct {
		file string
		data []byte
	}{{"a.json", s.a}, {"b.json", s.b}, {filepath.Join("models", "friedman.json"), s.a}} {
		if err := os.WriteFile(s.path(m.file), m.data, 0o644); err != nil {
			return err
		}
	}
	for _, rows := range []int{1, 256} {
		if err := writeServeRequest(s.path(fmt.Sprintf("request-%d.json", rows)), s.path(fmt.Sprintf("request-%d.csv", rows)), rows); err != nil {
			return err
		}
	}
	var expect strings.Builder
	for _, m := range []struct {
		file string
		data []byte
	}{{"a.json", s.a}, {"b.json", s.b}} {
		out, err := machines("predict", "-model", s.path(m.file), "-data", s.path("request-1.csv"), "-out", "-")
		if err != nil {
			return err
		}
		recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		if err != nil || len(recs) != 2 {
			return fmt.Errorf("%s predict printed %q: %v", Machines, out, err)
		}
		sum := sha256.Sum256(m.data)
		fmt.Fprintf(&expect, "%s %s\n", hex.EncodeToString(sum[:6]), recs[1][0])
	}
	if err := os.WriteFile(s.expect, []byte(expect.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(s.path("serve.lua"), serveLua, 0o644)
}

// fitServeModels writes the Friedman 1 rows to dir and returns the
// model files that fit makes of them.
func fitServeModels(dir string) (a, b []byte, err error) {
	x, y := dataset.Friedman1(serveRows, rand.New(rand.NewPCG(1, 1)))
	header := []string{"y", "y2"}
	for j := range dataset.Friedman1Features {
		header = append(header, fmt.Sprintf("x%d", j+1))
	}
	records := make([][]string, serveRows)
	for i := range records {
		records[i] = []string{dataset.FormatFloat(y[i]), dataset.FormatFloat(2*y[i] + 100)}
		for _, v := range x.RawRowView(i) {
			records[i] = append(records[i], dataset.FormatFloat(v))
		}
	}
	data := filepath.Join(dir, "friedman.csv")
	if err := writeCSV(data, header, records); err != nil {
		return nil, nil, err
	}
	var files [2][]byte
	for i, target := range []string{"y", "y2"} {
		other := map[string]string{"y": "y2", "y2": "y"}[target]
		model := filepath.Join(dir, "fitted-"+target+".json")
		if _, err := machines("fit", "-data", data, "-target", target, "-ignore", other,
			"-cost", serveCost, "-bandwidth", serveBandwidth, "-model", model); err != nil {
			return nil, nil, err
		}
		if files[i], err = os.ReadFile(model); err != nil {
			return nil, nil, err
		}
	}
	return files[0], files[1], nil
}

// machines runs the machines command and returns its standard output.
func machines(args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(Machines, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", Machines, args[0], err, stderr.Bytes())
	}
	return out, nil
}

// writeServeRequest writes the first rows of new Friedman 1 inputs as an
// inference request to path and as a CSV table to table.
func writeServeRequest(path, table string, rows int) error {
	x, _ := dataset.Friedman1(rows, rand.New(rand.NewPCG(2, 2)))
	type tensor struct {
		Name     string    `json:"name"`
		Datatype string    `json:"datatype"`
		Shape    []int     `json:"shape"`
		Data     []float64 `json:"data"`
	}
	var (
		inputs []tensor
		header []string
	)
	for j := range dataset.Friedman1Features {
		t := tensor{Name: fmt.Sprintf("x%d", j+1), Datatype: "FP64", Shape: []int{rows, 1}}
		for i := range rows {
			t.Data = append(t.Data, x.At(i, j))
		}
		inputs = append(inputs, t)
		header = append(header, t.Name)
	}
	records := make([][]string, rows)
	for i := range records {
		for _, v := range x.RawRowView(i) {
			records[i] = append(records[i], dataset.FormatFloat(v))
		}
	}
	if err := writeCSV(table, header, records); err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"inputs": inputs})
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

// serveProcess is a machines serve running.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string
	stderr *serveLog
}

// serveLog is serve's standard error, read while serve writes it.
type serveLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *serveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serveLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// count is how many times s occurs in the log.
func (l *serveLog) count(s string) int { return strings.Count(l.String(), s) }

// awaitCount waits up to d for s to occur n times in the log.
func (l *serveLog) awaitCount(s string, n int, d time.Duration) bool {
	for deadline := time.Now().Add(d); l.count(s) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// startServe starts machines serve on the models of dir, on a free port
// of loopback, logging at level and reading the directory every 100 ms,
// and waits for its address.
func startServe(dir, level string) (*serveProcess, error) {
	p := &serveProcess{stderr: new(serveLog)}
	p.cmd = exec.Command(Machines, "serve", "-models", dir, "-addr", "127.0.0.1:0", "-log-level", level, "-poll", "100ms")
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "serve: listening on ")
	if err != nil || !ok {
		p.kill()
		return nil, fmt.Errorf("%s serve printed %q: %v: %s", Machines, line, err, p.stderr)
	}
	p.url = "http://" + addr + "/v2/models/friedman/infer"
	return p, nil
}

// stop sends SIGTERM and checks that serve exits 0.
func (p *serveProcess) stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("%s serve, on SIGTERM: %w: %s", Machines, err, p.stderr)
	}
	return nil
}

// kill ends serve if it is still running.
func (p *serveProcess) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// wrkResult is the JSON line of serve.lua.
type wrkResult struct {
	Requests      int   `json:"requests"`
	DurationUS    int64 `json:"duration_us"`
	P50US         int64 `json:"p50_us"`
	P99US         int64 `json:"p99_us"`
	ConnectErrors int   `json:"connect_errors"`
	ReadErrors    int   `json:"read_errors"`
	WriteErrors   int   `json:"write_errors"`
	StatusErrors  int   `json:"status_errors"`
	Timeouts      int   `json:"timeouts"`
	Checked       int   `json:"checked"`
	Mismatched    int   `json:"mismatched"`
}

// failures returns an error if wrk counted any error.
func (r *wrkResult) failures() error {
	if r.Requests == 0 || r.ConnectErrors+r.ReadErrors+r.WriteErrors+r.StatusErrors+r.Timeouts > 0 {
		return fmt.Errorf("wrk: %d requests answered; errors: %d connect, %d read, %d write, %d timeouts, %d answers not 200",
			r.Requests, r.ConnectErrors, r.ReadErrors, r.WriteErrors, r.Timeouts, r.StatusErrors)
	}
	return nil
}

// perRequest returns the measurement of one wrk run.
func (r *wrkResult) perRequest() measurement {
	return measurement{median: time.Duration(r.DurationUS) * time.Microsecond / time.Duration(r.Requests),
		reps: r.Requests, p99: time.Duration(r.P99US) * time.Microsecond}
}

// startWrk starts wrk on url with conns connections for d (whole seconds)
// posting the request of the given rows, and, if check, reading every
// response against the models' predictions.
func (s *serveSetup) startWrk(url string, rows, conns int, d time.Duration, check bool) (wait func() (*wrkResult, error), err error) {
	args := []string{"-t2", "-c" + strconv.Itoa(conns), "-d" + strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second))) + "s",
		"-s", s.path("serve.lua"), url, "--", s.path(fmt.Sprintf("request-%d.json", rows))}
	if check {
		args = append(args, s.expect)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("wrk", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() (*wrkResult, error) {
		if err := cmd.Wait(); err != nil {
			return nil, fmt.Errorf("wrk: %w: %s", err, stderr.Bytes())
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		var r wrkResult
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			return nil, fmt.Errorf("wrk printed %q: %w", stdout.Bytes(), err)
		}
		if stderr.Len() > 0 {
			return &r, fmt.Errorf("wrk: %s", stderr.Bytes())
		}
		return &r, nil
	}, nil
}

// runWrk is startWrk, waiting for wrk.
func (s *serveSetup) runWrk(url string, rows, conns int, d time.Duration, check bool) (*wrkResult, error) {
	wait, err := s.startWrk(url, rows, conns, d, check)
	if err != nil {
		return nil, err
	}
	return wait()
}

// withServe prepares a workload's directory, starts serve on it logging
// at level, and calls work with both; it cleans up after.
func withServe(level string, work func(*serveSetup, *serveProcess) (measurement, error)) (measurement, error) {
	s, err := newServeSetup()
	if err != nil {
		return measurement{}, err
	}
	defer s.close()
	srv, err := startServe(s.models, level)
	if err != nil {
		return measurement{}, err
	}
	defer srv.kill()
	return work(s, srv)
}

// serveThroughput times runs samples of requests of the given rows on
// conns connections, after a second of warm-up.
func serveThroughput(rows, conns, runs int) (measurement, error) {
	return withServe("WARN", func(s *serveSetup, srv *serveProcess) (measurement, error) {
		return throughput(s, srv, rows, conns, runs)
	})
}

// throughput is serveThroughput's work.
func throughput(s *serveSetup, srv *serveProcess, rows, conns, runs int) (measurement, error) {
	samples := make([]measurement, runs)
	for i := -1; i < runs; i++ {
		d := ServeSample
		if i < 0 {
			d = time.Second
		}
		r, err := s.runWrk(srv.url, rows, conns, d, false)
		if err == nil {
			err = r.failures()
		}
		if err != nil {
			return measurement{}, err
		}
		if i >= 0 {
			samples[i] = r.perRequest()
		}
	}
	if err := srv.stop(); err != nil {
		return measurement{}, err
	}
	slices.SortFunc(samples, func(a, b measurement) int { return int(a.median - b.median) })
	return samples[runs/2], nil
}

// serveReplace loads the server for ServeReplaceTime while the model file
// is replaced serveReplacements times, and checks every response.
func serveReplace() (measurement, error) {
	return withServe("INFO", replace)
}

// replace is serveReplace's work.
func replace(s *serveSetup, srv *serveProcess) (measurement, error) {
	wait, err := s.startWrk(srv.url, 1, 64, ServeReplaceTime, true)
	if err != nil {
		return measurement{}, err
	}
	start := time.Now()
	var replaceErr error
	for i := 1; i <= serveReplacements; i++ {
		time.Sleep(time.Until(start.Add(ServeReplaceTime * time.Duration(i) / (serveReplacements + 1))))
		next := s.b
		if i%2 == 0 {
			next = s.a
		}
		tmp := filepath.Join(s.models, ".friedman.json.tmp")
		if err := os.WriteFile(tmp, next, 0o644); err != nil {
			replaceErr = err
			break
		}
		if err := os.Rename(tmp, filepath.Join(s.models, "friedman.json")); err != nil {
			replaceErr = err
			break
		}
		// Two replacements within one reading of the directory are served
		// as one; the next waits until serve has logged this one.
		if !srv.stderr.awaitCount(modelReplaced, i, 5*time.Second) {
			replaceErr = fmt.Errorf("replacement %d not served within 5 s", i)
			break
		}
	}
	r, err := wait()
	if err = errors.Join(replaceErr, err); err == nil {
		err = r.failures()
	}
	if err != nil {
		return measurement{}, err
	}
	if err := srv.stop(); err != nil {
		return measurement{}, err
	}
	if n := srv.stderr.count(modelReplaced); r.Mismatched > 0 || r.Checked != r.Requests || n != serveReplacements {
		return measurement{}, fmt.Errorf("%d of %d responses checked, %d not of the version they name; %d replacements served, want %d",
			r.Checked, r.Requests, r.Mismatched, n, serveReplacements)
	}
	return r.perRequest(), nil
}

// serveSigterm loads the server for ServeSample and sends it SIGTERM
// halfway: every answer must be 200, and serve must answer the requests
// in flight and exit 0.
func serveSigterm() (measurement, error) {
	return withServe("INFO", sigterm)
}

// sigterm is serveSigterm's work.
func sigterm(s *serveSetup, srv *serveProcess) (measurement, error) {
	wait, err := s.startWrk(srv.url, 1, 64, ServeSample, false)
	if err != nil {
		return measurement{}, err
	}
	time.Sleep(ServeSample / 2)
	stopped := srv.stop()
	r, err := wait()
	if err = errors.Join(stopped, err); err != nil {
		return measurement{}, err
	}
	for _, line := range strings.Split(srv.stderr.String(), "\n") {
		if strings.Contains(line, "shutting down") || strings.Contains(line, "stopped") {
			fmt.Fprintf(ServeLog, "bench: serve-sigterm: serve logged: %s\n", line)
		}
	}
	if r.StatusErrors > 0 || !strings.Contains(srv.stderr.String(), "stopped: every request in flight answered") {
		return measurement{}, fmt.Errorf("%d answers not 200; serve logged:\n%s", r.StatusErrors, srv.stderr)
	}
	fmt.Fprintf(ServeLog, "bench: serve-sigterm: wrk: %d answered, all 200; after the listener closed, %d connections refused, %d read and %d write errors\n",
		r.Requests, r.ConnectErrors, r.ReadErrors, r.WriteErrors)
	return measurement{median: ServeSample / 2 / time.Duration(r.Requests), reps: r.Requests, p99: time.Duration(r.P99US) * time.Microsecond}, nil
}

// writeCSV writes a table of the given header and records to path.
func writeCSV(path string, header []string, records [][]string) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		return cw.WriteAll(records)
	})
}
