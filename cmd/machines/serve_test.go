package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/serve"
	"github.com/parametric-machines/machines/dataset"
)

// TestServeMatchesPredict fits a messy regression table and a
// classification table, and checks that the server's answers for the
// rows of new tables, sent all at once and one by one, are predict's to
// the last digit, with the same warning for an unseen level or code, and
// for a date missing where training had none (on a file's line in
// predict's, a batch's row in serve's).
func TestServeMatchesPredict(t *testing.T) {
	const unseen = `column "group": 1 row holds a level not seen in training, "D"; it is encoded as no level at all`
	const gap = "%s has no value, where every training row had one: read as the training mean date, %s; the model never met this column empty"
	fixed := []string{"-cost", "0.1", "-bandwidth", "1"}
	for _, tc := range []struct {
		name, train, target, new string
		fitArgs, predictArgs     []string
		warning                  string
		predictWarning           string // if not the warning
	}{
		{"regression", "testdata/fit_messy_train.csv", "y", "testdata/fit_messy_new.csv", append([]string{"-id", "name", "-ignore", "note"}, fixed...), nil, unseen, ""},
		// Settings chosen by cross-validation keep the held-out residuals
		// of the intervals.
		{"interval", "testdata/fit_messy_train.csv", "y", "testdata/fit_messy_new.csv", []string{"-id", "name", "-ignore", "note"}, []string{"-interval", "0.8"}, unseen, ""},
		{"classification", "testdata/fit_cls_train.csv", "color", "testdata/fit_cls_new.csv", fixed, nil, "", ""},
		{"prediction sets", "testdata/fit_cls_train.csv", "color", "testdata/fit_cls_new.csv", nil, []string{"-interval", "0.8"}, "", ""},
		// Dates, with the phases of their cycles and with the month first.
		{"dates", "testdata/fit_seasons.csv", "season", "testdata/fit_seasons_new.csv", append([]string{"-ignore", "other"}, fixed...), nil,
			`column "day": ` + fmt.Sprintf(gap, "row 3", "2022-08-07"), fmt.Sprintf(gap, "line 4", "2022-08-07")},
		{"dates month first", "testdata/fit_us_dates.csv", "units", "testdata/fit_us_dates_new.csv", fixed, nil,
			`column "sold": ` + fmt.Sprintf(gap, "row 3", "2023-06-29"), fmt.Sprintf(gap, "line 4", "2023-06-29")},
		// A numeric column also encoded by its codes, one of them unseen.
		{"codes", "testdata/fit_codes_train.csv", "sales", "testdata/fit_codes_new.csv", fixed, nil,
			`column "shop": 1 row holds a level not seen in training, "99"; it is encoded as their values with no code`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			model := filepath.Join(dir, "m.json")
			args := append([]string{"fit", "-data", tc.train, "-target", tc.target, "-model", model}, tc.fitArgs...)
			if code, _, stderr := fitTestRun(args...); code != 0 {
				t.Fatalf("fit exited with %d: %s", code, stderr)
			}
			code, stdout, stderr := fitTestRun(append([]string{"predict", "-model", model, "-data", tc.new, "-out", "-"}, tc.predictArgs...)...)
			if code != 0 {
				t.Fatalf("predict exited with %d: %s", code, stderr)
			}
			want, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if w := cmp.Or(tc.predictWarning, tc.warning); !strings.Contains(stderr, w) {
				t.Fatalf("predict's stderr %q lacks the warning %q", stderr, w)
			}
			s, err := serve.New(serve.Config{Dir: dir, Kinds: kernelKinds(0.8), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			f, err := dataset.LoadFrame(tc.new)
			if err != nil {
				t.Fatal(err)
			}
			all := serveInfer(t, s, f, nil)
			if got, _ := all.Parameters["warnings"].(string); got != tc.warning {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
			var outputs []string
			for _, o := range all.Outputs {
				outputs = append(outputs, o.Name)
			}
			if intervals := slices.Contains(outputs, "lower") || slices.Contains(outputs, "set"); intervals != (tc.predictArgs != nil) {
				t.Errorf("outputs %v for a model whose predict has %v", outputs, want[0])
			}
			for i := range f.Len() {
				checkPredictRow(t, all, i, want[0], want[i+1])
				one := serveInfer(t, s, f, []int{i})
				checkPredictRow(t, one, 0, want[0], want[i+1])
			}
		})
	}
}

// TestServeUnfit checks the answers that a model of fit cannot give as
// asked: a classification of inputs so far out that its scores are not
// finite numbers is left blank, as predict leaves it, and a level of
// interval beyond the model's residuals leaves lower and upper, or a
// classifier's set, out; the responses say so.
func TestServeUnfit(t *testing.T) {
	dir := t.TempDir()
	for _, fit := range [][]string{
		{"-data", "testdata/fit_cls_train.csv", "-target", "color", "-model", filepath.Join(dir, "cls.json")},
		{"-data", "testdata/fit_messy_train.csv", "-target", "y", "-id", "name", "-ignore", "note", "-model", filepath.Join(dir, "m.json")},
	} {
		if code, _, stderr := fitTestRun(append([]string{"fit"}, fit...)...); code != 0 {
			t.Fatalf("fit exited with %d: %s", code, stderr)
		}
	}
	s, err := serve.New(serve.Config{Dir: dir, Kinds: kernelKinds(0.999), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", "/v2/models/cls/infer", strings.NewReader(`{"inputs":[`+
		`{"name":"x1","datatype":"FP64","shape":[2,1],"data":[1.7e308,0.5]},{"name":"x2","datatype":"FP64","shape":[2,1],"data":[1.7e308,1]}]}`)))
	var resp serveResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); w.Code != 200 || err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	warning, _ := resp.Parameters["warnings"].(string)
	if !strings.Contains(warning, "1 of 2 rows have outputs that are not finite numbers (rows 1)") ||
		!strings.Contains(warning, "no set: serve -interval 0.999 needs at least 999 held-out residuals") {
		t.Errorf("warnings %q", warning)
	}
	for _, o := range resp.Outputs {
		blank := "null"
		if o.Name == "label" {
			blank = `""`
		}
		if string(o.Data[0]) != blank || string(o.Data[len(o.Data)-1]) == blank {
			t.Errorf("output %s: %s, want the first row blank, the second not", o.Name, o.Data)
		}
	}
	f, err := dataset.LoadFrame("testdata/fit_messy_new.csv")
	if err != nil {
		t.Fatal(err)
	}
	reg := serveInfer(t, s, f, []int{0})
	warning, _ = reg.Parameters["warnings"].(string)
	if len(reg.Outputs) != 1 || !strings.Contains(warning, "no lower and upper: serve -interval 0.999 needs at least 999 held-out residuals") {
		t.Errorf("regression at level 0.999: %d outputs, warnings %q", len(reg.Outputs), warning)
	}
}

// serveResponse is the part of an inference response the tests read.
type serveResponse struct {
	Parameters map[string]any `json:"parameters"`
	Outputs    []struct {
		Name string            `json:"name"`
		Data []json.RawMessage `json:"data"`
	} `json:"outputs"`
}

// serveInfer asks s for the given rows of f (nil: all) through the model
// "m", each input in the datatype of the model's metadata.
func serveInfer(t *testing.T, s *serve.Server, f *dataset.Frame, rows []int) serveResponse {
	t.Helper()
	if rows == nil {
		for i := range f.Len() {
			rows = append(rows, i)
		}
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/v2/models/m", nil))
	var meta struct{ Inputs []serve.TensorSpec }
	if err := json.Unmarshal(w.Body.Bytes(), &meta); err != nil {
		t.Fatalf("metadata %s: %v", w.Body, err)
	}
	var inputs []string
	for _, in := range meta.Inputs {
		col, err := f.Column(in.Name)
		if err != nil {
			t.Fatal(err)
		}
		var data []any
		for _, r := range rows {
			cell := f.Cell(r, col)
			if in.Datatype == serve.BYTES {
				data = append(data, cell)
			} else if v, err := strconv.ParseFloat(cell, 64); err == nil {
				data = append(data, v)
			} else {
				data = append(data, nil) // a missing cell
			}
		}
		d, _ := json.Marshal(data)
		inputs = append(inputs, fmt.Sprintf(`{"name":%q,"datatype":%q,"shape":[%d,1],"data":%s}`, in.Name, in.Datatype, len(rows), d))
	}
	w = httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", "/v2/models/m/infer", strings.NewReader(`{"inputs":[`+strings.Join(inputs, ",")+`]}`)))
	var resp serveResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); w.Code != 200 || err != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	return resp
}

// checkPredictRow compares row i of a response with a record of
// predict, whose columns header names: the target's for regression,
// the class and p_CLASS for classification, and others (an id) ignored.
func checkPredictRow(t *testing.T, r serveResponse, i int, header, record []string) {
	t.Helper()
	out := map[string][]json.RawMessage{}
	for _, o := range r.Outputs {
		out[o.Name] = o.Data
	}
	k := len(out["probabilities"]) / max(len(out["label"]), 1)
	class := 0
	predicted := len(header) - 1 // the target's column
	if out["lower"] != nil {
		predicted -= 2
	}
	label := len(header) - 1 - k
	if out["set"] != nil {
		label--
	}
	for j, name := range header {
		var got string
		switch {
		case out["lower"] != nil && j > predicted:
			got = string(out[name][i])
		case out["prediction"] != nil && j == predicted:
			got = string(out["prediction"][i])
		case out["label"] != nil && strings.HasPrefix(name, "p_"):
			got = string(out["probabilities"][i*k+class])
			class++
		case out["label"] != nil && j == label:
			got = strings.Trim(string(out["label"][i]), `"`)
		case name == "set":
			got = strings.Trim(string(out["set"][i]), `"`)
		default:
			continue
		}
		if got != record[j] {
			t.Errorf("row %d, %s: served %s, predict %s", i, name, got, record[j])
		}
	}
}

// refusedServe runs the command serve with args, which it should refuse,
// and returns its exit status and standard error; a serve that starts
// serving instead fails the test after a minute rather than run on.
func refusedServe(t *testing.T, args []string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := fitTestRun(append([]string{"serve"}, args...)...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(time.Minute):
		t.Fatalf("serve %q was not refused: it serves", args)
		return 0, ""
	}
}

// TestServeFlags checks the refusals of serve's command line.
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("s3cret\n"), 0o600)
	open := filepath.Join(dir, "open")
	os.WriteFile(open, []byte("s3cret\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "missing required flag -models"},
		{[]string{"-models", dir, "-addr", "0.0.0.0:8080"}, 2, "-addr 0.0.0.0:8080 listens beyond loopback: give -token-file FILE"},
		{[]string{"-models", dir, "-addr", ":8080"}, 2, "listens beyond loopback"},
		{[]string{"-models", dir, "-addr", "example.org:80"}, 2, "listens beyond loopback"},
		{[]string{"-models", dir, "-addr", "8080"}, 2, "-addr 8080: address 8080: missing port in address"},
		{[]string{"-models", dir, "-token-file", open}, 1, "lets others read the token: chmod 600"},
		{[]string{"-models", dir, "-token-file", empty}, 1, "no token on its first line"},
		{[]string{"-models", dir, "-token-file", filepath.Join(dir, "none")}, 2, "no such file"},
		{[]string{"-models", dir, "-batch-size", "0"}, 2, "-batch-size 0: want a positive value"},
		{[]string{"-models", dir, "-timeout", "-1s"}, 2, "-timeout -1s: want a positive value"},
		{[]string{"-models", dir, "-max-body", "4MB"}, 2, `invalid value "4MB" for flag -max-body`},
		{[]string{"-models", dir, "-max-body", "100MiB"}, 2, "-max-memory 512MiB: want more than 6 times -max-body 100MiB"},
		{[]string{"-models", dir, "-max-body", "1MiB", "-max-memory", "6MiB"}, 2, "-max-memory 6MiB: want more than 6 times -max-body 1MiB"},
		{[]string{"-models", dir, "-log-level", "loud"}, 2, `invalid value "loud" for flag -log-level`},
		{[]string{"-models", dir, "-queue-wait", "0"}, 2, "-queue-wait 0s: want a positive value"},
		{[]string{"-models", dir, "-queue-wait", "-1s"}, 2, "-queue-wait -1s: want a positive value"},
		{[]string{"-models", dir, "-queue-wait", "6s", "-timeout", "5s"}, 2, "-queue-wait 6s: want at most -timeout 5s"},
		{[]string{"-models", dir, "-min-write-rate", "0"}, 2, "-min-write-rate 0: want a positive value"},
		{[]string{"-models", dir, "-min-write-rate", "2GiB"}, 2, "-min-write-rate 2GiB: want at most 1GiB a second"},
		{[]string{"-models", dir, "-min-write-rate", "32KB"}, 2, `invalid value "32KB" for flag -min-write-rate`},
		{[]string{"-models", dir, "-interval", "1"}, 2, "-interval 1: want a level between 0 and 1"},
		{[]string{"-models", dir, "-interval", "0"}, 2, "-interval 0: want a level between 0 and 1"},
		{[]string{"-models", filepath.Join(dir, "none")}, 2, "machines serve: " + filepath.Join(dir, "none") + ": no such directory\n"},
		{[]string{"-models", token}, 1, "is not a directory"},
	} {
		code, stderr := refusedServe(t, tc.args)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("serve %q: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	for _, args := range [][]string{
		{"-models", dir, "-addr", "0.0.0.0:0", "-insecure"},
		{"-models", dir, "-addr", "0.0.0.0:0", "-token-file", token},
		{"-models", dir, "-addr", "[::1]:0", "-max-body", "1KiB", "-max-memory", "7KiB"},
		{"-models", dir, "-addr", "localhost:0", "-log-level", "debug"},
	} {
		o, err := parseServe(args, io.Discard)
		if err != nil {
			t.Errorf("serve %q: %v", args, err)
			continue
		}
		if joined := strings.Join(args, " "); strings.Contains(joined, "token") && o.cfg.Token != "s3cret" {
			t.Errorf("serve %q: token %q", args, o.cfg.Token)
		}
	}
	// The queue's wait and the least write rate reach the server; left
	// out, they are the server's defaults.
	for _, tc := range []struct {
		args []string
		wait time.Duration
		rate int64
	}{
		{[]string{"-queue-wait", "3s", "-min-write-rate", "1KiB"}, 3 * time.Second, 1 << 10},
		{[]string{"-queue-wait", "10s"}, 10 * time.Second, 32 << 10},
		{nil, 0, 32 << 10},
	} {
		o, err := parseServe(append([]string{"-models", dir}, tc.args...), io.Discard)
		if err != nil || o.cfg.QueueWait != tc.wait || o.cfg.MinWriteRate != tc.rate {
			t.Errorf("serve %q: %v, wait %v and rate %d, want %v and %d", tc.args, err, o.cfg.QueueWait, o.cfg.MinWriteRate, tc.wait, tc.rate)
		}
	}
}

// TestServeShutdown starts serve, begins a request whose body is still
// on its way, and stops the server as SIGTERM does: the request in flight
// completes, new connections are refused, and serve returns without
// error.
func TestServeShutdown(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_cls_train.csv", "-target", "color", "-cost", "0.1", "-bandwidth", "1",
		"-model", filepath.Join(dir, "m.json")); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	o, err := parseServe([]string{"-models", dir, "-addr", "127.0.0.1:0", "-grace", "5s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o.cfg.Logger = slog.New(slog.DiscardHandler)
	ctx, stop := context.WithCancel(context.Background())
	out, lines := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, o, lines, nil) }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "serve: listening on "))

	body := `{"inputs":[{"name":"x1","datatype":"FP64","shape":[1,1],"data":[0.5]},{"name":"x2","datatype":"FP64","shape":[1,1],"data":[1]}]}`
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:20])
	time.Sleep(50 * time.Millisecond) // the server reads the headers: the request is in flight
	stop()
	for range 100 { // until the listener is closed
		if probe, err := net.Dial("tcp", addr); err != nil {
			break
		} else {
			probe.Close()
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("new connections are still accepted")
	}
	io.WriteString(c, body[20:])
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("the request in flight: %v", err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(got), `"name":"label"`) {
		t.Errorf("the request in flight: %d %s", resp.StatusCode, got)
	}
	// A serve that never returns is caught by go test's own timeout.
	if err := <-done; err != nil {
		t.Errorf("serve returned %v", err)
	}
}

// TestMaxConns checks the connections serve holds before it sheds the
// idle ones: the fewer of three quarters of the files it may open and
// those its memory budget holds at connMemory each.
func TestMaxConns(t *testing.T) {
	for _, tc := range []struct {
		maxMemory int64
		files     int
		known     bool
		want      int
	}{
		{512 << 20, 20000, true, 15000},
		{512 << 20, 1 << 20, true, 65536},
		{512 << 20, 0, false, 65536},
		{64 << 20, 2048, true, 1536},
		{1 << 10, 2048, true, 1},
		{1 << 40, 0, false, 1 << 27},
	} {
		if got := maxConns(tc.maxMemory, tc.files, tc.known); got != tc.want {
			t.Errorf("maxConns(%d, %d, %v) = %d, want %d", tc.maxMemory, tc.files, tc.known, got, tc.want)
		}
	}
}

// TestTuneGC checks that serve raises the garbage collector's target and
// bounds the heap with a soft limit, unless the environment sets them,
// and that the settings are restored after.
func TestTuneGC(t *testing.T) {
	read := func() (percent, limit int64) {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
	}
	const budget = 64 << 20
	cases := []struct {
		gogc, gomemlimit string
		tunePercent      bool
		tuneLimit        bool
	}{
		{"", "", true, true},
		{"50", "", false, true},
		{"", "1GiB", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.gogc+"_"+tc.gomemlimit, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			percent, limit := read()
			restore := tuneGC(budget)
			gotPercent, gotLimit := read()
			restore()
			if p, l := read(); p != percent || l != limit {
				t.Errorf("restored target %d and limit %d, want %d and %d", p, l, percent, limit)
			}
			if want := map[bool]int64{true: serveGCPercent, false: percent}[tc.tunePercent]; gotPercent != want {
				t.Errorf("target %d%%, want %d%%", gotPercent, want)
			}
			if tc.tuneLimit && (gotLimit < 2*budget || gotLimit > 2*budget+1<<30) {
				t.Errorf("soft limit %d bytes, want twice the budget and the heap, from %d", gotLimit, 2*budget)
			}
			if !tc.tuneLimit && gotLimit != limit {
				t.Errorf("soft limit %d bytes, want %d, as before", gotLimit, limit)
			}
		})
	}
}

// TestServeLegacyModel serves a model file of fit written before the
// module's envelope ("format": "machines-model"), as predict reads it.
func TestServeLegacyModel(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/model_valid.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{Dir: dir, Kinds: kernelKinds(0.8), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("GET", "/v2/models/m/ready", nil))
	if w.Code != 200 {
		t.Errorf("the legacy model's ready endpoint answered %d: %s", w.Code, w.Body)
	}
}

// blockingServe returns the options of serve on addr of a folder whose
// one model file loads only once release is closed, and entered, closed
// when its loading has begun.
func blockingServe(t *testing.T, addr string) (o *serveOptions, entered, release chan struct{}) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.json"), []byte(`{"format":"blocking-test"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseServe([]string{"-models", dir, "-addr", addr}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	entered, release = make(chan struct{}), make(chan struct{})
	o.cfg.Logger = slog.New(slog.DiscardHandler)
	o.cfg.Kinds = []serve.Kind{{Format: "blocking-test", Load: func(string, []byte) (serve.Model, error) {
		close(entered)
		<-release
		return nil, errors.New("released")
	}}}
	return o, entered, release
}

// TestServeStopAtStart checks that a signal while the models load stops
// serve at once, though a model file never finishes loading.
func TestServeStopAtStart(t *testing.T) {
	o, entered, release := blockingServe(t, "127.0.0.1:0")
	defer close(release)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, o, io.Discard, nil) }()
	<-entered
	stop()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "stopped while loading the models") {
		t.Errorf("serve returned %v", err)
	}
}

// TestServeLiveWhileLoading checks that serve takes connections while a
// model file loads: the live endpoint answers 200, the ready endpoint and
// the others 503 with Retry-After; once the models are loaded, the line
// "serve: listening on" is printed and the server answers.
func TestServeLiveWhileLoading(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	o, entered, release := blockingServe(t, addr)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out, lines := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, o, lines, nil) }()
	<-entered
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s while the model loads: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(b)
	}
	if code, body := get("/v2/health/live"); code != http.StatusOK || !strings.Contains(body, `"live":true`) {
		t.Errorf("live while loading: %d %s", code, body)
	}
	if resp, err := http.Post("http://"+addr+"/v2/health/live", "application/json", nil); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("POST to the live endpoint while loading: %v %v, want 503 (it takes GET)", resp, err)
	} else {
		resp.Body.Close()
	}
	for _, path := range []string{"/v2/health/ready", "/v2/models/m/ready", "/v2"} {
		if code, body := get(path); code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "1 ") || !strings.Contains(body, "loading its models") {
			t.Errorf("%s while loading: %d %s, want 503 with Retry-After", path, code, body)
		}
	}
	close(release)
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, "listening on "+addr) {
		t.Fatalf("after loading: line %q, %v", line, err)
	}
	go io.Copy(io.Discard, out)
	if code, body := get("/v2"); code != http.StatusOK || !strings.Contains(body, `"name":"machines"`) {
		t.Errorf("the server's metadata once loaded: %d %s", code, body)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v", err)
	}
}

// TestServeChecksBeforeListening checks that a directory of models that
// is not one is refused before the port is bound: on a port already
// taken, the error names the directory, not the port.
func TestServeChecksBeforeListening(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	missing := filepath.Join(t.TempDir(), "none")
	o, err := parseServe([]string{"-models", missing, "-addr", taken.Addr().String()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o.cfg.Logger = slog.New(slog.DiscardHandler)
	if err := serveUntil(context.Background(), o, io.Discard, nil); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("serve of a missing directory on a taken port: %v, want an error naming %s", err, missing)
	}
}

// TestServingManifests checks the container recipe and the KServe
// manifests of docs/serving against serve's flags: the command and
// arguments parse as serve's, with the models folder KServe fills, and
// the port they listen on is the one the manifests expose and probe; the
// InferenceService asks for the runtime's model format and protocol.
func TestServingManifests(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", "serving", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	runtime, recipe, service := read("servingruntime.yaml"), read("Containerfile"), read("inferenceservice.yaml")
	// list reads the JSON list that follows key on a line of text.
	list := func(text, key string) []string {
		m := regexp.MustCompile(`(?m)^\s*` + key + `:?\s+(\[.*\])\s*$`).FindStringSubmatch(text)
		var out []string
		if m == nil || json.Unmarshal([]byte(m[1]), &out) != nil {
			t.Fatalf("no list %s in %.80q", key, text)
		}
		return out
	}
	// values returns the values of key on the lines of text.
	values := func(text, key string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`(?m)^[\s-]*`+key+`:?\s+"?([^"\s]+)"?\s*$`).FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		return out
	}
	command, entry := list(runtime, "command"), list(recipe, "ENTRYPOINT")
	if !slices.Equal(command, []string{"/machines"}) || !slices.Equal(entry, command) {
		t.Errorf("command %q, entry point %q; want the binary /machines the recipe builds", command, entry)
	}
	for _, args := range [][]string{list(runtime, "args"), list(recipe, "CMD")} {
		if len(args) == 0 || args[0] != "serve" {
			t.Fatalf("arguments %q: want serve's", args)
		}
		o, err := parseServe(args[1:], io.Discard)
		if err != nil {
			t.Fatalf("arguments %q: %v", args, err)
		}
		_, port, _ := net.SplitHostPort(o.addr)
		if o.cfg.Dir != "/mnt/models" {
			t.Errorf("arguments %q serve %s, not /mnt/models, the folder KServe's storage initialiser fills", args, o.cfg.Dir)
		}
		for _, exposed := range [][]string{values(runtime, "containerPort"), values(runtime, "port"), values(recipe, "EXPOSE")} {
			if len(exposed) == 0 || slices.ContainsFunc(exposed, func(p string) bool { return p != port }) {
				t.Errorf("arguments %q listen on port %s; the manifests have %q", args, port, exposed)
			}
		}
	}
	for _, path := range values(runtime, "path") {
		if path != "/v2/health/ready" && path != "/v2/health/live" {
			t.Errorf("probe of %s: the probes take the health endpoints, which want no token", path)
		}
	}
	// The names are the runtime's, its format's and its container's; the
	// service's and its format's.
	names, asked := values(runtime, "name"), values(service, "name")
	if len(names) < 2 || len(asked) < 2 || !slices.Equal(values(service, "runtime"), names[:1]) || asked[1] != names[1] ||
		!strings.Contains(runtime, "protocolVersions:\n    - v2\n") || !slices.Equal(values(service, "protocolVersion"), []string{"v2"}) {
		t.Errorf("the InferenceService (runtime %q, format %q, protocol %q) does not ask for the runtime's (%q) format and protocol v2",
			values(service, "runtime"), asked, values(service, "protocolVersion"), names)
	}
}
