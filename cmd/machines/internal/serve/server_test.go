package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestEndpoints checks every endpoint of the protocol, and /metrics,
// with what they answer for a model that serves and one whose file did
// not load.
func TestEndpoints(t *testing.T) {
	s, _ := newTestServer(t, Config{Version: "v9"}, map[string]testFile{
		"a": {Value: 1, Width: 1},
		"b": {Fail: "broken on purpose"},
	})
	id := versionOf(t, testFile{Value: 1, Width: 1})
	infer := testRequest([]float64{2})
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/v2", "", 200, `{"extensions":[],"name":"machines","version":"v9"}`},
		{"GET", "/v2/health/live", "", 200, `{"live":true}`},
		{"GET", "/v2/health/ready", "", 400, `{"error":"models not ready: b","ready":false}`},
		{"GET", "/v2/models/a", "", 200, `{"inputs":[{"name":"x","datatype":"FP64","shape":[-1,1]},{"name":"tag","datatype":"BYTES","shape":[-1,1]}],` +
			`"name":"a","outputs":[{"name":"y","datatype":"FP64","shape":[-1,1]},{"name":"echo","datatype":"BYTES","shape":[-1]}],"platform":"test","versions":["` + id + `"]}`},
		{"HEAD", "/v2/models/a", "", 200, ``},
		{"GET", "/v2/models/a/versions/" + id, "", 200, `"versions":["` + id + `"]`},
		{"GET", "/v2/models/a/versions/1", "", 404, `{"error":"model \"a\" has no version \"1\"; it serves version \"` + id + `\""}`},
		{"GET", "/v2/models/a/ready", "", 200, `{"name":"a","ready":true,"version":"` + id + `"}`},
		{"GET", "/v2/models/a/versions/" + id + "/ready", "", 200, `"ready":true`},
		{"GET", "/v2/models/b/ready", "", 400, `{"error":"model \"b\" is not ready: its file did not load: `},
		{"GET", "/v2/models/b", "", 503, `broken on purpose`},
		{"POST", "/v2/models/b/infer", infer, 503, `{"error":"model \"b\" is not ready`},
		{"GET", "/v2/models/c", "", 404, `{"error":"no model \"c\""}`},
		{"GET", "/v2/models/c/ready", "", 404, `{"error":"no model \"c\""}`},
		{"POST", "/v2/models/a/infer", infer, 200, `{"model_name":"a","model_version":"` + id + `","outputs":[{"name":"y","datatype":"FP64","shape":[1,1],"data":[3]},` +
			`{"name":"echo","datatype":"BYTES","shape":[1],"data":["0"]}]}`},
		{"POST", "/v2/models/a/versions/" + id + "/infer", infer, 200, `"data":[3]`},
		{"POST", "/v2/models/a/versions/0/infer", infer, 404, `has no version \"0\"`},
		{"POST", "/v2/models/a/versions//infer", infer, 404, `no endpoint /v2/models/a/versions//infer`},
		{"GET", "/v2/models/a/versions/", "", 404, `no endpoint`},
		{"GET", "/v2/models/a/infer", "", 405, `{"error":"method GET: /v2/models/a/infer takes POST"}`},
		{"POST", "/v2/models/a", infer, 405, `takes GET`},
		{"PUT", "/v2", "", 405, `takes GET`},
		{"GET", "/v3", "", 404, `{"error":"no endpoint /v3: the server's are`},
		{"GET", "/v2/models/a/ready/x", "", 404, `no endpoint`},
		{"GET", "/v2/models", "", 404, `no endpoint`},
		{"GET", "/metrics", "", 200, `machines_serve_requests_total{code="200",model="a"} 2`},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			status, body := do(t, s, tc.method, tc.path, tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s\nwant %d and %s", status, body, tc.status, tc.want)
			}
		})
	}
}

// TestInfer checks what an inference response holds: the request's id,
// the outputs requested in their order, nulls for missing values and the
// warnings of the model.
func TestInfer(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 0.5, Width: 1}})
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"all outputs", testRequest([]float64{1, 2.25}, "3", "odd"), 200,
			`"parameters":{"warnings":"row 2 is odd"},"outputs":[{"name":"y","datatype":"FP64","shape":[2,1],"data":[1.5,2.75]},{"name":"echo","datatype":"BYTES","shape":[2],"data":["3","NaN"]}]}`},
		{"id and one output", `{"id":"r-1","outputs":[{"name":"echo"}],` + testRequest([]float64{1}, "7")[1:], 200,
			`"id":"r-1","outputs":[{"name":"echo","datatype":"BYTES","shape":[1],"data":["7"]}]}`},
		{"outputs reordered", `{"outputs":[{"name":"echo"},{"name":"y"}],` + testRequest([]float64{1})[1:], 200,
			`"outputs":[{"name":"echo","datatype":"BYTES","shape":[1],"data":["0"]},{"name":"y","datatype":"FP64","shape":[1,1],"data":[1.5]}]}`},
		{"missing value", `{"inputs":[{"name":"x","datatype":"FP64","shape":[1,1],"data":[null]},{"name":"tag","datatype":"BYTES","shape":[1,1],"data":["1"]}]}`, 200,
			`"data":[null]`},
		{"nested data", `{"inputs":[{"name":"x","datatype":"FP64","shape":[2,1],"data":[[1],[2]]},{"name":"tag","datatype":"BYTES","shape":[2,1],"data":[["1"],["2"]]}]}`, 200,
			`"data":[1.5,2.5]`},
		{"model refuses", testRequest([]float64{1, 2}, "1", "bad"), 400, `{"error":"input \"tag\", row 2: bad"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, s, "POST", "/v2/models/a/infer", tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s\nwant %d and %s", status, body, tc.status, tc.want)
			}
			if status == 200 {
				decodeResponse(t, body) // valid JSON of the protocol's fields
			}
		})
	}
}

// TestBlankRows checks that a row whose outputs are not finite numbers
// is answered as predict does: its outputs null, its texts empty, and
// the response says which rows.
func TestBlankRows(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"w": {Value: 0.5}})
	body := `{"inputs":[{"name":"x","datatype":"FP64","shape":[3,2],"data":[[1,2],[1e308,1e308],[3,4]]},` +
		`{"name":"tag","datatype":"BYTES","shape":[3,1],"data":["1","odd","3"]}]}`
	status, got := do(t, s, "POST", "/v2/models/w/infer", body)
	if status != 200 {
		t.Fatalf("%d %s", status, got)
	}
	r := decodeResponse(t, got)
	want := `"data":[3.5,null,7.5]},{"name":"echo","datatype":"BYTES","shape":[3],"data":["1","","3"]}`
	if !strings.Contains(got, want) || !slices.Equal(r.Parameters.BlankRows, []int{1}) ||
		!strings.Contains(r.Parameters.Warnings, "row 2 is odd\n1 of 3 rows have outputs that are not finite numbers (rows 2)") {
		t.Errorf("response %s\nwant %s, blank row 1 and a warning", got, want)
	}
}

// hostileRequest is a malformed or hostile request and the status it
// must get.
type hostileRequest struct {
	name   string
	status int
	send   func(url string) (*http.Response, error)
}

// post returns a hostileRequest posting body to path.
func post(name string, status int, path, body string) hostileRequest {
	return hostileRequest{name, status, func(url string) (*http.Response, error) {
		return http.Post(url+path, "application/json", strings.NewReader(body))
	}}
}

// raw returns a hostileRequest writing text to the connection as it is,
// for what an HTTP client would not send, and then, if hangUp, closing
// its side.
func raw(name string, status int, text string, hangUp bool) hostileRequest {
	return hostileRequest{name, status, func(url string) (*http.Response, error) {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			return nil, err
		}
		if _, err := io.WriteString(c, text); err != nil {
			return nil, err
		}
		if hangUp {
			c.(*net.TCPConn).CloseWrite()
		}
		return http.ReadResponse(bufio.NewReader(c), nil)
	}}
}

// hostileRequests returns the kinds of malformed and hostile requests
// of TestHostile: bad JSON, wrong shapes and datatypes, missing inputs,
// huge declared shapes, deep JSON, unknown models, path traversal,
// oversized and slow bodies and more. maxBody is the server's MaxBody.
func hostileRequests(maxBody int) []hostileRequest {
	const infer = "/v2/models/a/infer"
	good := testRequest([]float64{1})
	input := func(x string) string {
		return `{"inputs":[` + x + `,{"name":"tag","datatype":"BYTES","shape":[1,1],"data":["1"]}]}`
	}
	return []hostileRequest{
		post("not JSON", 400, infer, `hello`),
		post("empty body", 400, infer, ``),
		post("truncated JSON", 400, infer, good[:len(good)/2]),
		post("a JSON array", 400, infer, `[1,2,3]`),
		post("trailing garbage", 400, infer, good+`}`),
		post("unknown field", 400, infer, `{"inputz":[]}`),
		post("no inputs", 400, infer, `{}`),
		post("missing input", 400, infer, `{"inputs":[{"name":"x","datatype":"FP64","shape":[1,1],"data":[1]}]}`),
		post("unknown input", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":[1]},{"name":"z","datatype":"FP64","shape":[1,1],"data":[1]}`)),
		post("input twice", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":[1]},{"name":"x","datatype":"FP64","shape":[1,1],"data":[1]}`)),
		post("wrong datatype", 400, infer, input(`{"name":"x","datatype":"FP32","shape":[1,1],"data":[1]}`)),
		post("unknown datatype", 400, infer, input(`{"name":"x","datatype":"COMPLEX","shape":[1,1],"data":[1]}`)),
		post("wrong rank", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1],"data":[1]}`)),
		post("wrong dimension", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,2],"data":[1,2]}`)),
		post("data short of shape", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":[]}`)),
		post("huge declared shape", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1099511627776,1],"data":[1]}`)),
		post("overflowing shape", 400, "/v2/models/w/infer", `{"inputs":[{"name":"x","datatype":"FP64","shape":[1099511627776,1099511627776],"data":[1]}]}`),
		post("negative shape", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[-5,1],"data":[1]}`)),
		post("texts for numbers", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":["1"]}`)),
		post("NaN literal", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":[NaN]}`)),
		post("number out of range", 400, infer, input(`{"name":"x","datatype":"FP64","shape":[1,1],"data":[1e400]}`)),
		post("deep JSON", 400, infer, `{"inputs":[{"name":"x","data":`+strings.Repeat("[", 100000)),
		post("deep parameters", 400, infer, `{"parameters":{"p":`+strings.Repeat(`{"p":`, 10000)),
		post("invalid UTF-8", 400, infer, `{"id":"`+"\xc3\x28"+`"}`),
		post("unknown output", 400, infer, `{"outputs":[{"name":"secret"}],`+good[1:]),
		post("unknown model", 404, "/v2/models/nobody/infer", good),
		post("path traversal, escaped", 400, "/v2/models/..%2F..%2Fetc%2Fpasswd/infer", good),
		raw("path traversal, raw", 400, "POST /v2/models/../../etc/passwd HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", false),
		post("hidden file's name", 400, "/v2/models/.a.tmp/infer", good),
		post("model refuses the data", 400, infer, testRequest([]float64{1}, "bad")),
		hostileRequest{"GET on infer", 405, func(url string) (*http.Response, error) { return http.Get(url + infer) }},
		post("oversized body", 413, infer, strings.Repeat(" ", maxBody+1)+good),
		hostileRequest{"oversized body, chunked", 413, func(url string) (*http.Response, error) {
			// A reader of unknown length makes the client send chunks.
			return http.Post(url+infer, "application/json", io.MultiReader(strings.NewReader(strings.Repeat(" ", maxBody)), strings.NewReader(good)))
		}},
		raw("compressed body", 415, "POST "+infer+" HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n\x1f\x8b", false),
		raw("body short of Content-Length", 400, "POST "+infer+" HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"inputs\":", true),
		raw("bad escape in the path", 400, "GET /v2/models/%zz HTTP/1.1\r\nHost: x\r\n\r\n", false),
		raw("malformed request line", 400, "GET\r\n\r\n", false),
		raw("HTTP/2 preface", 505, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", false),
		raw("unknown expectation", 417, "POST "+infer+" HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", false),
		raw("headers too large", 431, "GET /v2 HTTP/1.1\r\nHost: x\r\nX: "+strings.Repeat("a", 2<<20)+"\r\n\r\n", false),
		raw("slow body", 408, "POST "+infer+" HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"inp", false),
	}
}

// TestHostile sends every kind of hostile request many times over: each
// gets its status with the protocol's JSON error, the server's memory
// stays bounded and the server still serves. It logs a table of the
// kinds with their status and error (go test -run Hostile -v).
func TestHostile(t *testing.T) {
	const maxBody = 1 << 20
	s, _ := newTestServer(t, Config{MaxBody: maxBody, Timeout: 300 * time.Millisecond}, map[string]testFile{"a": {Value: 1, Width: 1}, "w": {Value: 1}})
	s.log = s.log.With() // keep the server's debug lines out of this test's table
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = Listener(ts.Listener)
	ts.Start()
	defer ts.Close()
	kinds := hostileRequests(maxBody)
	if len(kinds) < 25 {
		t.Fatalf("%d kinds of hostile request, want at least 25", len(kinds))
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	before := heap()
	rounds := 5
	if testing.Short() {
		rounds = 1
	}
	for round := range rounds {
		for i, k := range kinds {
			resp, err := k.send(ts.URL)
			if err != nil {
				t.Fatalf("%s: %v", k.name, err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var body struct{ Error string }
			if resp.StatusCode != k.status || json.Unmarshal(data, &body) != nil || body.Error == "" ||
				resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s: %d %s, want %d with a JSON error", k.name, resp.StatusCode, data, k.status)
			}
			if round == 0 {
				t.Logf("%2d  %-28s %d  %.100s", i+1, k.name, resp.StatusCode, body.Error)
			}
		}
	}
	after := heap()
	if after > before+32<<20 {
		t.Errorf("heap in use grew from %d to %d bytes", before, after)
	}
	t.Logf("heap in use: %.1f MiB before, %.1f MiB after %d rounds of %d kinds", float64(before)/(1<<20), float64(after)/(1<<20), rounds, len(kinds))
	resp, err := http.Post(ts.URL+"/v2/models/a/infer", "application/json", strings.NewReader(testRequest([]float64{1})))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the hostile requests: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestContentCoding checks that a body in a content coding is refused
// with 415 before it is read, and one without, or in identity, served.
func TestContentCoding(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	for _, tc := range []struct {
		codings []string
		status  int
	}{
		{nil, 200},
		{[]string{"identity"}, 200},
		{[]string{"Identity"}, 200},
		{[]string{"gzip"}, 415},
		{[]string{"DEFLATE"}, 415},
		{[]string{"identity, br"}, 415},
		{[]string{"identity", "zstd"}, 415},
	} {
		r := httptest.NewRequest("POST", "/v2/models/a/infer", strings.NewReader(testRequest([]float64{1})))
		for _, c := range tc.codings {
			r.Header.Add("Content-Encoding", c)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.status || (tc.status == 415 && (w.Header().Get("Accept-Encoding") != "identity" || !strings.Contains(w.Body.String(), "reads bodies uncompressed"))) {
			t.Errorf("Content-Encoding %q: %d %v %s, want %d", tc.codings, w.Code, w.Header(), w.Body, tc.status)
		}
	}
}

// TestAuth checks that a token guards every endpoint but the server's
// health checks.
func TestAuth(t *testing.T) {
	s, _ := newTestServer(t, Config{Token: "s3cret"}, map[string]testFile{"a": {Value: 1, Width: 1}})
	for _, tc := range []struct {
		path, auth string
		status     int
	}{
		{"/v2/health/live", "", 200},
		{"/v2/health/ready", "", 200},
		{"/v2", "", 401},
		{"/v2", "Bearer s3cret", 200},
		{"/v2", "bearer s3cret", 200},
		{"/v2", "BEARER  s3cret", 200},
		{"/v2", "Bearer s3cre", 401},
		{"/v2", "Bearers3cret", 401},
		{"/v2", "Basic s3cret", 401},
		{"/v2", "s3cret", 401},
		{"/v2/models/a", "", 401},
		{"/v2/models/a/ready", "", 401},
		{"/v2/models/a/ready", "Bearer s3cret", 200},
		{"/v2/models/nobody", "", 401},
		{"/metrics", "", 401},
		{"/metrics", "Bearer s3cret", 200},
		{"/elsewhere", "", 401},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.status {
			t.Errorf("%s with %q: %d %s, want %d", tc.path, tc.auth, w.Code, w.Body, tc.status)
		}
		if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.path)
		}
	}
	req := httptest.NewRequest("POST", "/v2/models/a/infer", strings.NewReader(testRequest([]float64{1})))
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != 401 {
		t.Errorf("inference without the token: %d", w.Code)
	}
}

// TestReadyHidesNames checks that the server ready endpoint, which takes
// no token, names the models that failed only to a request that has it.
func TestReadyHidesNames(t *testing.T) {
	s, _ := newTestServer(t, Config{Token: "s3cret"}, map[string]testFile{"a": {Value: 1}, "secret-customer-model": {Fail: "broken"}})
	for _, tc := range []struct {
		auth, want string
		named      bool
	}{
		{"", "1 models not ready", false},
		{"Bearer wrong", "1 models not ready", false},
		{"Bearer s3cret", "models not ready: secret-customer-model", true},
	} {
		r := httptest.NewRequest("GET", "/v2/health/ready", nil)
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if got := w.Body.String(); w.Code != 400 || !strings.Contains(got, tc.want) || strings.Contains(got, "secret-customer") != tc.named {
			t.Errorf("with %q: %d %s, want 400 saying %q", tc.auth, w.Code, got, tc.want)
		}
	}
}

// TestLimits checks the answers beyond the server's limits: requests in
// flight (429), memory after a wait (503), the model's time (503) and
// the body's (408).
func TestLimits(t *testing.T) {
	slow := map[string]testFile{"a": {Value: 1, Width: 1, DelayMS: 300}}
	body := testRequest([]float64{1})
	for _, tc := range []struct {
		name   string
		cfg    Config
		status int
		want   string
	}{
		{"in flight", Config{MaxInFlight: 1}, 429, "1 requests in flight, the most this server takes"},
		// The second waits its turn for half its time, the first's
		// computation longer.
		{"memory", Config{MaxBody: int64(len(body)), MaxMemory: int64(len(body)) * memoryFactor * 3 / 2, Timeout: 400 * time.Millisecond},
			503, "memory budget: this request waited 200ms in a queue of 1 for its turn"},
		{"queue wait", Config{MaxBody: int64(len(body)), MaxMemory: int64(len(body)) * memoryFactor * 3 / 2, Timeout: 400 * time.Millisecond,
			QueueWait: 100 * time.Millisecond}, 503, "memory budget: this request waited 100ms in a queue of 1 for its turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, tc.cfg, slow)
			first := make(chan int)
			go func() {
				status, _ := do(t, s, "POST", "/v2/models/a/infer", body)
				first <- status
			}()
			waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.inFlight == 1 })
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest("POST", "/v2/models/a/infer", strings.NewReader(body)))
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) || w.Header().Get("Retry-After") == "" {
				t.Errorf("second request: %d %s %v, want %d and %q with Retry-After", w.Code, w.Body, w.Header(), tc.status, tc.want)
			}
			if status := <-first; status != 200 {
				t.Errorf("first request: %d", status)
			}
			if status, _ := do(t, s, "POST", "/v2/models/a/infer", body); status != 200 {
				t.Errorf("third request, after the first: %d", status)
			}
		})
	}
	t.Run("model time", func(t *testing.T) {
		s, _ := newTestServer(t, Config{Timeout: 50 * time.Millisecond}, slow)
		status, got := do(t, s, "POST", "/v2/models/a/infer", body)
		if status != 503 || !strings.Contains(got, "the model did not answer within 50ms") {
			t.Errorf("%d %s", status, got)
		}
	})
}

// TestSlowBodies checks that bodies on their way hold no place among the
// requests in flight: clients that send a few bytes of their bodies and
// stall do not keep the requests that have arrived from running.
func TestSlowBodies(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxInFlight: 2}, map[string]testFile{"a": {Value: 1, Width: 1}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	for range 4 {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /v2/models/a/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"in")
	}
	waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.memory >= 4*100*memoryFactor })
	resp, err := http.Post(ts.URL+"/v2/models/a/infer", "application/json", strings.NewReader(testRequest([]float64{1})))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a request beside 4 slow bodies: %d %s", resp.StatusCode, got)
	}
}

// TestMemoryBudget checks that a request is refused (413) when computing
// it would take more memory than the budget leaves it, and served up to
// that: the largest signal a convolutional machine takes, and one more
// position.
func TestMemoryBudget(t *testing.T) {
	const maxMemory = 64 << 20
	s, dir := newTestServer(t, Config{MaxMemory: maxMemory}, nil)
	memoryModels(t, dir)
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}
	v, _, err := s.version(target{model: "conv"})
	if err != nil {
		t.Fatal(err)
	}
	request := func(length int) string {
		return `{"inputs":[{"name":"y0","datatype":"FP32","shape":[1,1,` + strconv.Itoa(length) + `],"data":[0` + strings.Repeat(",0", length-1) + `]}]}`
	}
	fits := func(length int) bool {
		need, _, err := requestMemory(v.model, &v.meta, zeroInputs(v.meta.Inputs, []int{1, 1, length}), new(Rows))
		return err == nil && need <= maxMemory-s.cfg.MaxBody*memoryFactor
	}
	v.release()
	lo, hi := 3, 1<<22 // fits(lo), !fits(hi)
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if status, got := do(t, s, "POST", "/v2/models/conv/infer", request(lo)); status != 200 {
		t.Errorf("the largest signal, %d positions: %d %.200s", lo, status, got)
	}
	status, got := do(t, s, "POST", "/v2/models/conv/infer", request(hi))
	if status != 413 || !strings.Contains(got, "of memory to compute, more than the 40 MiB") || !strings.Contains(got, "a single sample of this shape is too large") {
		t.Errorf("one position more, %d: %d %.200s", hi, status, got)
	}
	// Samples of a shorter signal: the most the budget takes, and one more.
	many := func(n int) string {
		return `{"inputs":[{"name":"y0","datatype":"FP32","shape":[` + strconv.Itoa(n) + `,1,100],"data":[0` + strings.Repeat(",0", 100*n-1) + `]}]}`
	}
	status, got = do(t, s, "POST", "/v2/models/conv/infer", many(2*lo/100))
	m := regexp.MustCompile(`send at most (\d+) samples of this shape at once`).FindStringSubmatch(got)
	if status != 413 || m == nil {
		t.Fatalf("%d samples of 100 positions: %d %.300s", 2*lo/100, status, got)
	}
	most, _ := strconv.Atoi(m[1])
	if status, got := do(t, s, "POST", "/v2/models/conv/infer", many(most)); status != 200 {
		t.Errorf("the most samples said, %d: %d %.200s", most, status, got)
	}
	if status, got := do(t, s, "POST", "/v2/models/conv/infer", many(most+1)); status != 413 {
		t.Errorf("one sample more than said, %d: %d %.200s", most+1, status, got)
	}
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("timed out")
}

// TestBatching sends concurrent requests of samples of two widths to a
// model of one worker that takes its time, so that requests queue while
// it works: they are computed in batches of several requests, only those
// of one width together, and each request gets its own rows back.
func TestBatching(t *testing.T) {
	s, _ := newTestServer(t, Config{Workers: 1, BatchSize: 8}, map[string]testFile{"a": {Value: 100, DelayMS: 50}})
	const requests = 24
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			width, rows := 1+i%2, 1+i%3
			x := make([]float64, width*rows)
			for j := range x {
				x[j] = float64(i)
			}
			xs, _ := json.Marshal(x)
			tags, _ := json.Marshal(strings.Split(strings.Repeat(strconv.Itoa(i)+",", rows), ",")[:rows])
			body := fmt.Sprintf(`{"inputs":[{"name":"x","datatype":"FP64","shape":[%d,%d],"data":%s},{"name":"tag","datatype":"BYTES","shape":[%d,1],"data":%s}]}`,
				rows, width, xs, rows, tags)
			status, got := do(t, s, "POST", "/v2/models/a/infer", body)
			r := decodeResponse(t, got)
			if status != 200 || len(r.Outputs) != 2 || len(r.Outputs[0].Data) != rows {
				t.Errorf("request %d: %d %s", i, status, got)
				return
			}
			for j := range rows {
				if y, echo := r.Outputs[0].Data[j], r.Outputs[1].Data[j]; y != float64(100+width*i) || echo != strconv.Itoa(i) {
					t.Errorf("request %d of width %d, row %d: y %v, echo %v", i, width, j, y, echo)
				}
			}
		}()
	}
	wg.Wait()
	_, metrics := do(t, s, "GET", "/metrics", "")
	count := regexp.MustCompile(`machines_serve_batch_rows_count\{model="a"\} (\d+)`).FindStringSubmatch(metrics)
	sum := regexp.MustCompile(`machines_serve_batch_rows_sum\{model="a"\} (\d+)`).FindStringSubmatch(metrics)
	if count == nil || sum == nil {
		t.Fatalf("no batch metrics in\n%s", metrics)
	}
	batches, _ := strconv.Atoi(count[1])
	rows, _ := strconv.Atoi(sum[1])
	if rows != 48 || batches >= requests/2 {
		t.Errorf("%d rows in %d batches, want 48 rows in fewer than %d", rows, batches, requests/2)
	}
	t.Logf("%d requests, %d rows, in %d batches", requests, rows, batches)
}

// TestBatchAlone checks that a lone request does not wait for others to
// join its batch: no other request is in flight. The batch delay is an
// hour, so a request that waited would hold the test until go test's
// own timeout, with no deadline of its own that a loaded machine could
// miss.
func TestBatchAlone(t *testing.T) {
	s, _ := newTestServer(t, Config{BatchDelay: time.Hour}, map[string]testFile{"a": {Value: 1, Width: 1}})
	if status, body := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
}

// TestReload changes the directory under a server: models added,
// replaced, broken, mended and removed, and names and files that are
// not models.
func TestReload(t *testing.T) {
	s, dir := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	infer := func(name string) (int, string) {
		return do(t, s, "POST", "/v2/models/"+name+"/infer", testRequest([]float64{0}))
	}
	ready := func(name string) string { _, body := do(t, s, "GET", "/v2/models/"+name+"/ready", ""); return body }
	scan := func() {
		if err := s.models.scan(); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		change func()
		model  string
		status int
		want   string
	}{
		{"added", func() { writeModel(t, dir, "c", testFile{Value: 7, Width: 1}) }, "c", 200, `"data":[7]`},
		{"replaced", func() { writeModel(t, dir, "a", testFile{Value: 2, Width: 1}) }, "a", 200,
			`"model_version":"` + versionOf(t, testFile{Value: 2, Width: 1}) + `"`},
		{"broken: the last version serves on", func() { writeModel(t, dir, "a", testFile{Fail: "no good"}) }, "a", 200, `"data":[2]`},
		{"mended", func() { writeModel(t, dir, "a", testFile{Value: 3, Width: 1}) }, "a", 200, `"data":[3]`},
		{"removed", func() { os.Remove(filepath.Join(dir, "c.json")) }, "c", 404, `no model \"c\"`},
		{"bad name", func() { writeModel(t, dir, "b c", testFile{Value: 1, Width: 1}) }, "b%20c", 400, `model name \"b c\"`},
		{"hidden", func() { writeModel(t, dir, ".d", testFile{Value: 1, Width: 1}) }, ".d", 400, `model name \".d\"`},
		{"another extension", func() { os.WriteFile(filepath.Join(dir, "e.txt"), []byte("{}"), 0o644) }, "e", 404, `no model \"e\"`},
		{"a directory", func() { os.Mkdir(filepath.Join(dir, "f.json"), 0o755) }, "f", 404, `no model \"f\"`},
		{"not a model", func() { os.WriteFile(filepath.Join(dir, "g.json"), []byte(`{"format":"other"}`), 0o644) }, "g", 503,
			`format \"other\" is not a model this server loads (\"serve-test-model\", \"machines\" of kind \"finite-machine\", \"machines-finite-machine\", \"machines\" of kind \"model\", \"machines-hypergraph-machine\")`},
		{"not JSON", func() { os.WriteFile(filepath.Join(dir, "h.json"), []byte(`{"format":`), 0o644) }, "h", 503, `not JSON`},
	}
	for _, st := range steps {
		st.change()
		scan()
		status, body := infer(st.model)
		if status != st.status || !strings.Contains(body, st.want) {
			t.Errorf("%s: %d %s\nwant %d and %s", st.name, status, body, st.status, st.want)
		}
		if st.name == "broken: the last version serves on" && (!strings.Contains(ready("a"), `"ready":true`) ||
			!strings.Contains(ready("a"), "no good")) {
			t.Errorf("%s: ready says %s", st.name, ready("a"))
		}
		if st.name == "mended" && strings.Contains(ready("a"), "error") {
			t.Errorf("%s: ready says %s", st.name, ready("a"))
		}
	}
	// The same content written anew keeps its version.
	before := ready("a")
	writeModel(t, dir, "a", testFile{Value: 3, Width: 1})
	scan()
	if after := ready("a"); after != before {
		t.Errorf("the same file written again: ready %s, was %s", after, before)
	}
}

// TestPoll checks that the server finds a new model file by itself.
func TestPoll(t *testing.T) {
	s, dir := newTestServer(t, Config{Poll: 10 * time.Millisecond}, nil)
	writeModel(t, dir, "a", testFile{Value: 1, Width: 1})
	waitFor(t, func() bool { status, _ := do(t, s, "GET", "/v2/models/a/ready", ""); return status == 200 })
}

// TestRescan checks that Rescan has the directory read at once, with
// an hour to the next poll.
func TestRescan(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	writeModel(t, dir, "a", testFile{Value: 1, Width: 1})
	s.Rescan()
	s.Rescan() // a second ask while one waits is not blocked
	waitFor(t, func() bool { status, _ := do(t, s, "GET", "/v2/models/a/ready", ""); return status == 200 })
}

// TestUnreadableRetried checks that a file that could not be read (made
// unreadable, or opened when the process had no file left) is read
// again at the next scan, though its stat has not changed, and that its
// failure is logged once, not at every scan.
func TestUnreadableRetried(t *testing.T) {
	var fails atomic.Int32
	fails.Store(3)
	flaky := Kind{Format: "flaky-test", Load: func(path string, data []byte) (Model, error) {
		if fails.Add(-1) >= 0 {
			return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EMFILE}
		}
		return testKind().Load(path, data)
	}}
	var log bytes.Buffer
	s, dir := newTestServer(t, Config{Kinds: []Kind{flaky}, Logger: slog.New(slog.NewTextHandler(&log, nil))}, nil)
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"format":"flaky-test","value":1,"width":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.models.scan(); err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{true: 200, false: 400}[i == 3]
		if status, body := do(t, s, "GET", "/v2/models/a/ready", ""); status != want {
			t.Errorf("scan %d: ready %d %s, want %d", i+1, status, body, want)
		}
	}
	if n := strings.Count(log.String(), "model failed to load"); n != 1 {
		t.Errorf("the same failure logged %d times, want once:\n%s", n, log.String())
	}
}

// TestNoModels checks that a server started on a directory without model
// files says so, and one with a model does not.
func TestNoModels(t *testing.T) {
	for _, tc := range []struct {
		models map[string]testFile
		warns  bool
	}{
		{nil, true},
		{map[string]testFile{"a": {Value: 1, Width: 1}}, false},
	} {
		var log bytes.Buffer
		newTestServer(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))}, tc.models)
		if warns := strings.Contains(log.String(), "level=WARN msg=\"no model files NAME.json in the directory yet"); warns != tc.warns {
			t.Errorf("%d models: warned %v, want %v; log:\n%s", len(tc.models), warns, tc.warns, log.String())
		}
	}
}

// TestReplaceUnderLoad replaces a model ten times while requests stream
// in (run it with -race): no request fails, and every response is
// computed by the version it names, which is the one the request
// started on.
func TestReplaceUnderLoad(t *testing.T) {
	s, dir := newTestServer(t, Config{Logger: discardLogger()}, map[string]testFile{"a": {Value: 0, Width: 1, DelayMS: 1}})
	values := map[string]float64{versionOf(t, testFile{Value: 0, Width: 1, DelayMS: 1}): 0}
	for v := 1; v <= 10; v++ {
		values[versionOf(t, testFile{Value: float64(v), Width: 1, DelayMS: 1})] = float64(v)
	}
	var (
		stop     atomic.Bool
		wg       sync.WaitGroup
		requests atomic.Int64
		seen     sync.Map // versions that answered
	)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				x := float64(g*1000 + i%1000)
				status, body := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{x}))
				requests.Add(1)
				if status != 200 {
					t.Errorf("%d %s", status, body)
					return
				}
				r := decodeResponse(t, body)
				value, ok := values[r.ModelVersion]
				if y := r.Outputs[0].Data[0]; !ok || y != value+x {
					t.Errorf("version %s (value %v) gave %v for x %v", r.ModelVersion, value, y, x)
					return
				}
				seen.Store(r.ModelVersion, true)
			}
		}()
	}
	for v := 1; v <= 10; v++ {
		time.Sleep(20 * time.Millisecond)
		writeModel(t, dir, "a", testFile{Value: float64(v), Width: 1, DelayMS: 1})
		if err := s.models.scan(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	versions := 0
	seen.Range(func(any, any) bool { versions++; return true })
	if versions < 5 {
		t.Errorf("%d versions answered, want most of the 11", versions)
	}
	t.Logf("%d requests, answered by %d versions", requests.Load(), versions)
}

// TestClose checks that closing the server lets the queued requests
// finish on their version.
func TestClose(t *testing.T) {
	s, _ := newTestServer(t, Config{Workers: 1}, map[string]testFile{"a": {Value: 1, Width: 1, DelayMS: 50}})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, body := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 200 {
				t.Errorf("%d %s", status, body)
			}
		}()
	}
	waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.inFlight == 4 })
	s.Close()
	wg.Wait()
	if status, _ := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 404 {
		t.Errorf("after Close: %d, want 404", status)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestModelFaults checks that a model that panics in Prepare or Infer
// gets 500 with the protocol's JSON error, and no detail, that one whose
// loader panics is reported as not loaded, and that the server serves
// on.
func TestModelFaults(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1},
		"p": {Panic: "Prepare", Width: 1}, "i": {Panic: "Infer", Width: 1}, "l": {Panic: "Load", Width: 1}})
	for _, name := range []string{"p", "i"} {
		status, body := do(t, s, "POST", "/v2/models/"+name+"/infer", testRequest([]float64{1}))
		if status != 500 || body != `{"error":"the model failed; the server's log says why"}`+"\n" {
			t.Errorf("%s: %d %s", name, status, body)
		}
	}
	if _, body := do(t, s, "GET", "/v2/models/l/ready", ""); !strings.Contains(body, `the loader of \"serve-test-model\" panicked: test model panics in Load`) {
		t.Errorf("a loader that panics: %s", body)
	}
	if status, _ := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 200 {
		t.Errorf("the other model: %d", status)
	}
}

// TestStaleQueue fills a model's queue with the job of a request that
// has given up: the next request waits for a place in the queue no
// longer than its time.
func TestStaleQueue(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxInFlight: 2, Workers: 1, Timeout: 100 * time.Millisecond},
		map[string]testFile{"a": {Value: 1, Width: 1, DelayMS: 4000}})
	body := testRequest([]float64{1})
	statuses := make(chan int, 3)
	for range 3 { // the first keeps the worker busy; the others' jobs fill the queue
		go func() { status, _ := do(t, s, "POST", "/v2/models/a/infer", body); statuses <- status }()
		time.Sleep(20 * time.Millisecond)
		waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.inFlight < 2 })
	}
	for range 3 {
		if status := <-statuses; status != 503 {
			t.Errorf("a request that outlived its time: %d", status)
		}
	}
	start := time.Now()
	status, got := do(t, s, "POST", "/v2/models/a/infer", body)
	// Waiting for the busy worker would take the job's 4 s; the bound
	// leaves room for a loaded machine.
	if status != 503 || time.Since(start) > 3*time.Second {
		t.Errorf("behind a full queue: %d %s after %v", status, got, time.Since(start))
	}
}

// BenchmarkInfer times the answer to one-row requests of ten values,
// from decoding to the response, the test model computing nothing.
func BenchmarkInfer(b *testing.B) {
	s, _ := newTestServer(b, Config{Logger: discardLogger(), BatchDelay: time.Nanosecond}, map[string]testFile{"a": {Value: 1, Width: 10}})
	body := `{"inputs":[{"name":"x","datatype":"FP64","shape":[1,10],"data":[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1]},{"name":"tag","datatype":"BYTES","shape":[1,1],"data":["1"]}]}`
	w := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		w.Body.Reset()
		s.ServeHTTP(w, httptest.NewRequest("POST", "/v2/models/a/infer", strings.NewReader(body)))
	}
	if w.Code != 200 {
		b.Fatal(w.Code, w.Body)
	}
}

// TestHalfClose sends a request and closes the connection's sending
// side, as some clients do once the body is sent, which net/http takes
// for a client gone: the client still reads an answer that says so,
// not an empty 200.
func TestHalfClose(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1, DelayMS: 200}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := testRequest([]float64{1})
	fmt.Fprintf(c, "POST /v2/models/a/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.(*net.TCPConn).CloseWrite()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != statusClientClosed || !strings.Contains(string(got), `"error":"the client closed the connection`) {
		t.Errorf("%d %q, want %d with a JSON error", resp.StatusCode, got, statusClientClosed)
	}
}

// smallBuffers is a listener whose connections have small send
// buffers, so that an answer of a few hundred kilobytes waits for its
// client to read it.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(4 << 10)
	}
	return c, err
}

// TestSlowReader sends a request whose answer is large and does not
// read it: the client is cut once it reads slower than the server's
// least rate, and what the request held given back, although the
// server has no write timeout.
func TestSlowReader(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	defer ts.Close()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(smallReceiveBuffer)
	}}
	c, err := d.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	x := make([]float64, 50000)
	for i := range x {
		x[i] = 0.1234567890123 + float64(i)
	}
	body := testRequest(x)
	fmt.Fprintf(c, "POST /v2/models/a/infer HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.memory > 0 })
	waitFor(t, func() bool { s.admitMu.Lock(); defer s.admitMu.Unlock(); return s.memory == 0 && s.inFlight == 0 })
	resp, err := http.Post(ts.URL+"/v2/models/a/infer", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(got)) || len(got) < 1<<20 {
		t.Errorf("a client that reads: %d, %d bytes of %d", resp.StatusCode, len(got), resp.ContentLength)
	}
}

// TestChunkedCloses sends requests with a chunked body, with and
// without a Content-Length beside, and another request after each on
// the connection: the first is answered and the connection closed, so
// that a body framed two ways cannot smuggle the second past a proxy.
func TestChunkedCloses(t *testing.T) {
	s, _ := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	body := testRequest([]float64{1})
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	for _, extra := range []string{"", "Content-Length: 4\r\n", "Content-Length: 0\r\n"} {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v2/models/a/infer HTTP/1.1\r\nHost: x\r\n%sTransfer-Encoding: chunked\r\n\r\n%sGET /v2/models/a HTTP/1.1\r\nHost: x\r\n\r\n", extra, chunked)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil || !bytes.HasPrefix(got, []byte("HTTP/1.1 200 OK\r\n")) || bytes.Count(got, []byte("HTTP/1.1 ")) != 1 ||
			!bytes.Contains(got, []byte("\r\nConnection: close\r\n")) {
			t.Errorf("%q: %v, %q, want one answer, then the connection closed", extra, err, got)
		}
	}
}

// TestBrokenLinks checks that a model file that is a link round a loop,
// or to nowhere, is a model not ready, which the log and its ready
// endpoint explain, and is served once the link leads to a model.
func TestBrokenLinks(t *testing.T) {
	s, dir := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	for _, link := range []struct{ name, to, want string }{
		{"loop", "loop.json", "too many levels of symbolic links"},
		{"nowhere", "gone.json", "no such file or directory"},
	} {
		if err := os.Symlink(link.to, filepath.Join(dir, link.name+".json")); err != nil {
			t.Fatal(err)
		}
		if err := s.models.scan(); err != nil {
			t.Fatal(err)
		}
		if status, got := do(t, s, "GET", "/v2/models/"+link.name+"/ready", ""); status != 400 || !strings.Contains(got, link.want) {
			t.Errorf("%s: %d %s, want 400 and %q", link.name, status, got, link.want)
		}
	}
	if status, got := do(t, s, "GET", "/v2/health/ready", ""); status != 400 || !strings.Contains(got, "models not ready: loop, nowhere") {
		t.Errorf("server ready: %d %s", status, got)
	}
	os.Remove(filepath.Join(dir, "loop.json"))
	if err := os.Symlink("a.json", filepath.Join(dir, "loop.json")); err != nil {
		t.Fatal(err)
	}
	s.models.scan()
	if status, got := do(t, s, "POST", "/v2/models/loop/infer", testRequest([]float64{1})); status != 200 {
		t.Errorf("the link mended: %d %s", status, got)
	}
}

// TestModelFileLimit checks the largest model file the server reads on
// machines of some memories, and that a file larger is a model not
// ready, which says why.
func TestModelFileLimit(t *testing.T) {
	for _, tc := range []struct{ memory, want int64 }{
		{64 << 30, 1 << 30},
		{4 << 30, 4 << 30 / 20},
		{512 << 20, 512 << 20 / 20},
	} {
		if got := modelFileLimit(tc.memory); got != tc.want {
			t.Errorf("memory %d: %d, want %d", tc.memory, got, tc.want)
		}
	}
	s, dir := newTestServer(t, Config{}, map[string]testFile{"a": {Value: 1, Width: 1}})
	s.models.maxFile = 100
	writeModel(t, dir, "b", testFile{Value: 1, Width: 1, Fail: strings.Repeat("x", 100)})
	s.models.scan()
	if status, got := do(t, s, "GET", "/v2/models/b/ready", ""); status != 400 || !strings.Contains(got, "more than the 100 a model file may have on this machine") {
		t.Errorf("a file too large: %d %s", status, got)
	}
	if status, got := do(t, s, "POST", "/v2/models/a/infer", testRequest([]float64{1})); status != 200 {
		t.Errorf("a file small enough: %d %s", status, got)
	}
}

// deadlineRecorder records the write deadlines a handler sets.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	if !t.IsZero() {
		d.deadlines = append(d.deadlines, t)
	}
	return nil
}

// TestMinWriteRate checks the time each chunk of an answer has to be
// written: a chunk at Config.MinWriteRate, and no later than a Timeout
// after the request's own.
func TestMinWriteRate(t *testing.T) {
	x := make([]float64, 20000) // an answer of several chunks
	body := testRequest(x)
	for _, tc := range []struct {
		name string
		cfg  Config
		want time.Duration // after the chunk's start
	}{
		{"default", Config{Timeout: time.Hour}, 2 * time.Second},
		{"1KiB/s", Config{Timeout: time.Hour, MinWriteRate: 1 << 10}, 64 * time.Second},
		{"1KiB/s within the timeout", Config{Timeout: 10 * time.Second, MinWriteRate: 1 << 10}, 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, tc.cfg, map[string]testFile{"a": {Value: 1, Width: 1}})
			w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
			start := time.Now()
			s.ServeHTTP(w, httptest.NewRequest("POST", "/v2/models/a/infer", strings.NewReader(body)))
			end := time.Now()
			if w.Code != 200 || len(w.deadlines) < 2 {
				t.Fatalf("%d, %d deadlines: %.200s", w.Code, len(w.deadlines), w.Body)
			}
			for i, d := range w.deadlines {
				if d.Before(start.Add(tc.want)) || d.After(end.Add(tc.want)) {
					t.Errorf("chunk %d: deadline %v after the request's start, want %v", i, d.Sub(start), tc.want)
				}
			}
		})
	}
}

// TestConfigCheck checks the refusals of settings that make no sense.
func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{QueueWait: -time.Second}, "negative setting"},
		{Config{MinWriteRate: -1}, "negative setting"},
		{Config{Timeout: time.Second, QueueWait: 2 * time.Second}, "QueueWait 2s is more than Timeout 1s"},
		{Config{MinWriteRate: MaxWriteRate + 1}, "MinWriteRate 1073741825 bytes/s is more than 1073741824"},
		{Config{MaxBody: 1 << 20, MaxMemory: 6 << 20}, "leaves nothing for the computation"},
		{Config{Timeout: time.Second, QueueWait: time.Second, MinWriteRate: MaxWriteRate}, ""},
	} {
		tc.cfg.Dir, tc.cfg.Kinds = t.TempDir(), []Kind{testKind()}
		err := tc.cfg.withDefaults().check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
