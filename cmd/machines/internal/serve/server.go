package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parametric-machines/machines/internal/budget"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config configures a Server. Its zero fields mean the defaults, which
// are those of machines serve.
type Config struct {
	// Dir is the directory of the model files: the server serves each
	// file NAME.json in it, hidden files aside, as the model NAME.
	Dir string
	// Kinds are the kinds of model file the server loads.
	Kinds []Kind
	// Version is the server's version, given by the server metadata
	// endpoint.
	Version string
	// Token, if not empty, is the bearer token that every request must
	// carry in its Authorization header, except the server's health
	// checks, /v2/health/live and /v2/health/ready.
	Token string
	// BatchSize is the most rows of one model computed as one batch
	// (default 256); a larger request is computed alone.
	BatchSize int
	// BatchDelay is how long a batch waits for more requests once the
	// queue is empty (default 200 µs): a short wait gathers requests
	// into batches, which costs less CPU per request under load.
	BatchDelay time.Duration
	// Workers is the number of batches of one model computed at once
	// (default GOMAXPROCS).
	Workers int
	// MaxBody is the largest request body in bytes (default 4 MiB).
	MaxBody int64
	// MaxInFlight is the most inference requests admitted at once
	// (default 256); beyond it, requests get 429 Too Many Requests.
	MaxInFlight int
	// MaxMemory bounds the memory of the requests in bytes (default 512
	// MiB), each counted as memoryFactor times its body and the memory
	// of its computation, which may take at most MaxMemory less
	// memoryFactor times MaxBody; beyond, requests wait their turn, at
	// most QueueWait, then get 503 Service Unavailable, or 413 Request
	// Entity Too Large for what the budget could never hold.
	MaxMemory int64
	// Timeout bounds the time from a request's arrival to its answer
	// (default 10 s): a body not read by then gets 408 Request Timeout,
	// a model not done by then 503 Service Unavailable. The answer is
	// then read within another Timeout, at MinWriteRate at least.
	Timeout time.Duration
	// QueueWait is the most time a request waits its turn for the
	// memory budget (default half of Timeout, at most Timeout), and
	// never beyond its own Timeout.
	QueueWait time.Duration
	// MinWriteRate is the slowest, in bytes per second, that a client
	// may read an answer before it is cut and the memory of its request
	// given back (default 32 KiB/s, at most MaxWriteRate).
	MinWriteRate int64
	// MaxDepth bounds the nesting of arrays and objects in a request
	// (default 32).
	MaxDepth int
	// Poll is how often the directory is read for changes (default 1 s).
	Poll time.Duration
	// Logger receives a line per model load at level Info and per
	// request at Debug (default slog.Default()).
	Logger *slog.Logger
}

// memoryFactor is what a request is counted as against MaxMemory, in
// multiples of its body: the body and the tensors decoded from it, at 8
// bytes per number and 16 per string plus its bytes.
const memoryFactor = 6

func (c Config) withDefaults() Config {
	or := func(v, def int) int {
		if v == 0 {
			return def
		}
		return v
	}
	c.BatchSize = or(c.BatchSize, 256)
	c.Workers = or(c.Workers, runtime.GOMAXPROCS(0))
	c.MaxInFlight = or(c.MaxInFlight, 256)
	c.MaxDepth = or(c.MaxDepth, 32)
	if c.MaxBody == 0 {
		c.MaxBody = 4 << 20
	}
	if c.MaxMemory == 0 {
		c.MaxMemory = 512 << 20
	}
	if c.BatchDelay == 0 {
		c.BatchDelay = 200 * time.Microsecond
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.QueueWait == 0 {
		c.QueueWait = c.Timeout / 2
	}
	if c.MinWriteRate == 0 {
		c.MinWriteRate = 32 << 10
	}
	if c.Poll == 0 {
		c.Poll = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// check reports the first field of c that makes no sense.
func (c Config) check() error {
	switch {
	case c.Dir == "":
		return errors.New("serve: no directory of models")
	case len(c.Kinds) == 0:
		return errors.New("serve: no kinds of model")
	case c.BatchSize < 0, c.Workers < 0, c.MaxInFlight < 0, c.MaxDepth < 0, c.MaxBody < 0, c.MaxMemory < 0,
		c.BatchDelay < 0, c.Timeout < 0, c.Poll < 0, c.QueueWait < 0, c.MinWriteRate < 0:
		return fmt.Errorf("serve: negative setting in %+v", c)
	case c.QueueWait > c.Timeout:
		return fmt.Errorf("serve: QueueWait %v is more than Timeout %v, which bounds every request's wait", c.QueueWait, c.Timeout)
	case c.MinWriteRate > MaxWriteRate:
		return fmt.Errorf("serve: MinWriteRate %d bytes/s is more than %d, which would cut every answer", c.MinWriteRate, MaxWriteRate)
	case c.MaxBody*memoryFactor >= c.MaxMemory:
		return fmt.Errorf("serve: a body of MaxBody %d bytes counts %d bytes, MaxMemory %d leaves nothing for the computation", c.MaxBody, c.MaxBody*memoryFactor, c.MaxMemory)
	}
	return nil
}

// Server serves the models of a directory over the Open Inference
// Protocol's REST API. It is an http.Handler.
type Server struct {
	cfg     Config
	log     *slog.Logger
	models  *registry
	metrics *metrics
	exposer http.Handler // /metrics
	scratch sync.Pool    // *scratch
	rows    rowsPool

	admitMu  sync.Mutex
	inFlight int
	memory   int64            // bytes of the memory budget held
	bodies   int64            // of which by requests not computing yet
	waiting  []*waiter        // the queue for the memory budget (admit.go)
	tags     map[string]int64 // each client's last tag in the queue
	served   int64            // the latest tag answered first in the queue

	stop    chan struct{}
	rescan  chan struct{} // asks the poll for a scan now
	polling sync.WaitGroup
	closing sync.Once
}

// scratch holds a request's buffers between requests.
type scratch struct {
	body  []byte
	arena []float64
	out   []byte
}

// noSuchDir is the error of a directory of models that does not exist,
// in words of its own, wrapping fs.ErrNotExist.
type noSuchDir string

func (d noSuchDir) Error() string { return "serve: " + string(d) + ": no such directory" }
func (noSuchDir) Unwrap() error   { return fs.ErrNotExist }

// Check returns the error of a configuration that New refuses before it
// loads any model: settings out of range, and a directory of models
// that is not one.
func (c Config) Check() error {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return err
	}
	if fi, err := os.Stat(c.Dir); errors.Is(err, fs.ErrNotExist) {
		return noSuchDir(c.Dir)
	} else if err != nil {
		return fmt.Errorf("serve: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("serve: %s is not a directory", c.Dir)
	}
	return nil
}

// New returns a server of the models in cfg.Dir, having loaded them,
// and starts reading the directory for changes every cfg.Poll. A file
// that fails to load is reported in the log and by the model's ready
// endpoint.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	m := newMetrics()
	s := &Server{cfg: cfg, log: cfg.Logger, metrics: m, stop: make(chan struct{}), rescan: make(chan struct{}, 1), tags: map[string]int64{},
		exposer: promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})}
	s.models = &registry{dir: cfg.Dir, maxFile: modelFileLimit(budget.Memory()), kinds: cfg.Kinds, log: cfg.Logger, metrics: m, entries: map[string]*entry{},
		batch: batching{size: cfg.BatchSize, delay: cfg.BatchDelay, workers: cfg.Workers, queue: cfg.MaxInFlight, pool: &s.rows}}
	if err := s.models.scan(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if len(s.models.entries) == 0 {
		// A server that answers 404 to every model would otherwise look
		// as if it were working.
		s.log.Warn("no model files NAME"+modelExt+" in the directory yet: each is served once it appears", "dir", cfg.Dir)
	}
	s.polling.Add(1)
	go s.poll()
	return s, nil
}

// Rescan asks for the directory to be read now rather than at the next
// Config.Poll, as machines serve does on SIGHUP. It does not wait for
// the scan.
func (s *Server) Rescan() {
	select {
	case s.rescan <- struct{}{}:
	default: // a scan is already asked for
	}
}

// poll scans the directory every cfg.Poll, and when Rescan asks, until
// Close.
func (s *Server) poll() {
	defer s.polling.Done()
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	var last string // the last error, logged once
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.rescan:
		}
		err := s.models.scan()
		switch {
		case err != nil && err.Error() != last:
			s.log.Error("cannot read the directory of models; the loaded models are still served", "error", err.Error())
			last = err.Error()
		case err == nil:
			last = ""
		}
	}
}

// Close stops reading the directory and retires every model, whose
// queued requests are still computed; it waits for them. Close the HTTP
// server first, so that no request arrives after.
func (s *Server) Close() {
	s.closing.Do(func() {
		close(s.stop)
		s.polling.Wait()
		for _, v := range s.models.retireAll() {
			v.stopped.Wait()
		}
	})
}

// The endpoints of the server.
type endpoint int

const (
	noEndpoint endpoint = iota
	serverMetadata
	serverLive
	serverReady
	modelMetadata
	modelReady
	modelInfer
	metricsEndpoint
)

// target is what a request's path asks for.
type target struct {
	endpoint       endpoint
	model, version string
}

// parseTarget reads the escaped path of a request. Model names and
// versions are looked up in the server's own tables, never used as
// paths: a name that is not a model's, such as "..", is an error.
func parseTarget(path string) (target, error) {
	if path == "/metrics" {
		return target{endpoint: metricsEndpoint}, nil
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, seg := range segs {
		v, err := url.PathUnescape(seg)
		if err != nil {
			return target{}, badRequest("bad escape in the path %q", path)
		}
		segs[i] = v
	}
	if segs[0] != "v2" {
		return target{}, nil
	}
	rest := segs[1:]
	switch {
	case len(rest) == 0:
		return target{endpoint: serverMetadata}, nil
	case len(rest) == 2 && rest[0] == "health" && rest[1] == "live":
		return target{endpoint: serverLive}, nil
	case len(rest) == 2 && rest[0] == "health" && rest[1] == "ready":
		return target{endpoint: serverReady}, nil
	case len(rest) < 2 || rest[0] != "models":
		return target{}, nil
	}
	t := target{model: rest[1]}
	if !validName(t.model) {
		return target{}, badRequest("model name %q: model names hold letters, digits, '.', '_' and '-', and do not start with '.'", t.model)
	}
	rest = rest[2:]
	if len(rest) >= 2 && rest[0] == "versions" && rest[1] != "" {
		t.version, rest = rest[1], rest[2:]
	}
	switch {
	case len(rest) == 0:
		t.endpoint = modelMetadata
	case len(rest) == 1 && rest[0] == "ready":
		t.endpoint = modelReady
	case len(rest) == 1 && rest[0] == "infer":
		t.endpoint = modelInfer
	}
	return t, nil
}

// outcome is how a request ended, for the log and the metrics.
type outcome struct {
	status int
	model  *modelMetrics // nil if the request reached no model
	reason string        // why an inference request failed
	rows   int
}

// ServeHTTP answers a request of the protocol, or /metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.TransferEncoding != nil {
		// net/http reads a chunked body and drops a Content-Length sent
		// with it, but keeps the connection: a proxy before the server
		// that reads the Content-Length would take the rest of the body
		// for another request, and smuggle it in. RFC 9112 (section 6.1)
		// has the connection closed after the answer (golang/go#80942).
		w.Header().Set("Connection", "close")
	}
	t, err := parseTarget(r.URL.EscapedPath())
	var o outcome
	switch {
	case r.ProtoMajor != 1:
		// The preface of HTTP/2 without TLS, which net/http passes on
		// as a request for "*".
		o = fail(w, &requestError{http.StatusHTTPVersionNotSupported, r.Proto + ": this server speaks HTTP/1.1 and 1.0"}, "bad_request")
	case err != nil:
		o = fail(w, err, "bad_request")
	case t.endpoint != serverLive && t.endpoint != serverReady && !s.authorized(r):
		w.Header().Set("WWW-Authenticate", `Bearer realm="machines"`)
		o = fail(w, &requestError{http.StatusUnauthorized, "this server wants an Authorization: Bearer token"}, "unauthorized")
	default:
		o = s.route(w, r, t)
	}
	if t.endpoint == modelInfer {
		s.metrics.request(o.model, o.status, o.reason)
		if o.model != nil && o.status == http.StatusOK {
			o.model.latency.Observe(time.Since(start).Seconds())
		}
	}
	if s.log.Enabled(r.Context(), slog.LevelDebug) {
		model := ""
		if o.model != nil {
			model = o.model.name
		}
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "request", slog.String("method", r.Method),
			slog.String("path", r.URL.EscapedPath()), slog.String("model", model), slog.Int("status", o.status),
			slog.Int("rows", o.rows), slog.Duration("duration", time.Since(start)), slog.String("remote", r.RemoteAddr))
	}
}

// authorized reports whether r carries the server's bearer token, or
// the server wants none. The scheme's name is case-insensitive, as HTTP
// has it (RFC 9110, section 11.1).
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimLeft(token, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) == 1
}

// route answers r, which asks for t.
func (s *Server) route(w http.ResponseWriter, r *http.Request, t target) outcome {
	method := http.MethodGet
	if t.endpoint == modelInfer {
		method = http.MethodPost
	}
	switch {
	case t.endpoint == noEndpoint:
		return fail(w, &requestError{http.StatusNotFound, fmt.Sprintf("no endpoint %s: the server's are /v2, /v2/health/live, /v2/health/ready, "+
			"/v2/models/NAME[/versions/VERSION][/ready|/infer] and /metrics", r.URL.Path)}, "not_found")
	case r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead):
		w.Header().Set("Allow", method)
		return fail(w, &requestError{http.StatusMethodNotAllowed, fmt.Sprintf("method %s: %s takes %s", r.Method, r.URL.Path, method)}, "bad_request")
	}
	switch t.endpoint {
	case metricsEndpoint:
		s.exposer.ServeHTTP(w, r)
		return outcome{status: http.StatusOK}
	case serverMetadata:
		return reply(w, http.StatusOK, map[string]any{"name": "machines", "version": s.cfg.Version, "extensions": []string{}})
	case serverLive:
		return reply(w, http.StatusOK, map[string]bool{"live": true})
	case serverReady:
		return s.serverReady(w, s.authorized(r))
	case modelInfer:
		return s.infer(w, r, t)
	}
	v, status, err := s.version(t)
	if t.endpoint == modelReady {
		return s.modelReady(w, t, v, status, err)
	}
	if err != nil {
		return fail(w, &requestError{status, err.Error()}, "")
	}
	defer v.release()
	return reply(w, http.StatusOK, map[string]any{"name": t.model, "versions": []string{v.id},
		"platform": v.meta.Platform, "inputs": v.meta.Inputs, "outputs": v.meta.Outputs})
}

// version returns the version of the model that t asks for, with a
// reference taken, or the status and error of its absence.
func (s *Server) version(t target) (*version, int, error) {
	v, known, failed := s.models.acquire(t.model)
	switch {
	case !known:
		return nil, http.StatusNotFound, fmt.Errorf("no model %q", t.model)
	case v == nil:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("model %q is not ready: its file did not load: %v", t.model, failed)
	case t.version != "" && t.version != v.id:
		v.release()
		return nil, http.StatusNotFound, fmt.Errorf("model %q has no version %q; it serves version %q", t.model, t.version, v.id)
	}
	return v, http.StatusOK, nil
}

// modelReady answers the model ready endpoint: 200 if a version is
// served, 400 if none is (the protocol's 4xx for false). A file that
// did not load is reported even while the previous version serves.
func (s *Server) modelReady(w http.ResponseWriter, t target, v *version, status int, err error) outcome {
	if status == http.StatusNotFound {
		return fail(w, &requestError{status, err.Error()}, "")
	}
	body := map[string]any{"name": t.model, "ready": v != nil}
	if v == nil {
		body["error"] = err.Error()
		return reply(w, http.StatusBadRequest, body)
	}
	defer v.release()
	body["version"] = v.id
	if failed := s.models.failure(t.model); failed != nil {
		body["error"] = fmt.Sprintf("the file changed and did not load; the version loaded before is served: %v", failed)
	}
	return reply(w, http.StatusOK, body)
}

// serverReady answers the server ready endpoint: ready when every model
// file has a version served. The endpoint takes no token, so the names
// of the models not ready are given only to a request that has it.
func (s *Server) serverReady(w http.ResponseWriter, authorized bool) outcome {
	var waiting []string
	s.models.mu.RLock()
	for name, e := range s.models.entries {
		if e.current == nil {
			waiting = append(waiting, name)
		}
	}
	s.models.mu.RUnlock()
	if len(waiting) == 0 {
		return reply(w, http.StatusOK, map[string]bool{"ready": true})
	}
	msg := fmt.Sprintf("%d models not ready; with the token, this endpoint names them", len(waiting))
	if authorized {
		sort.Strings(waiting)
		msg = "models not ready: " + strings.Join(waiting, ", ")
	}
	return reply(w, http.StatusBadRequest, map[string]any{"ready": false, "error": msg})
}

// jsonType is the Content-Type of every answer, shared so that setting
// it allocates nothing; net/http only reads it.
var jsonType = []string{"application/json"}

// reply writes v as a JSON response with the given status.
func reply(w http.ResponseWriter, status int, v any) outcome {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the server's replies always marshal
	}
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
	return outcome{status: status}
}

// fail writes err as the protocol's JSON error: a *requestError with its
// status, other errors, the server's own, with 500.
func fail(w http.ResponseWriter, err error, reason string) outcome {
	status := http.StatusInternalServerError
	var re *requestError
	if errors.As(err, &re) {
		status = re.status
	}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	o := reply(w, status, map[string]string{"error": err.Error()})
	o.reason = reason
	return o
}

// infer answers an inference request: it reads the body within the
// memory budget, takes a place among the requests in flight, decodes
// the request, takes the memory its computation needs and computes it
// in a batch.
func (s *Server) infer(w http.ResponseWriter, r *http.Request, t target) outcome {
	v, status, err := s.version(t)
	if err != nil {
		reason := "not_found"
		if status == http.StatusServiceUnavailable {
			reason = "unavailable"
		}
		return fail(w, &requestError{status, err.Error()}, reason)
	}
	held := true
	defer func() {
		if held {
			v.release()
		}
	}()
	v.active.Add(1)
	defer v.active.Add(-1)
	body, reason, err := s.readRequest(w, r)
	if body != nil {
		defer s.done(body)
	}
	if err != nil {
		return s.failModel(w, v, err, reason)
	}
	ctx, cancel := context.WithDeadline(r.Context(), body.deadline)
	defer cancel()
	req, err := decodeInfer(body.data, &v.meta, s.cfg.MaxDepth, &body.sc.arena)
	if err != nil {
		return s.failModel(w, v, err, "bad_request")
	}
	rows, reason, err := s.prepared(ctx, v, body, req.inputs)
	switch {
	case reason == "internal":
		return s.modelFault(w, v, err)
	case err != nil:
		return s.failModel(w, v, err, reason)
	}
	n, warnings := rows.N, append(slices.Clip(v.meta.Warnings), rows.Warnings...)
	j := &job{ctx: ctx, rows: rows, n: n, done: make(chan struct{})}
	// The queue holds MaxInFlight jobs, but those of requests that have
	// given up stay in it until a worker drops them.
	select {
	case v.queue <- j:
	case <-ctx.Done():
		s.rows.put(rows)
		return s.gaveUp(w, r, v)
	}
	v.release()
	held = false
	select {
	case <-j.done:
	case <-ctx.Done():
		return s.gaveUp(w, r, v)
	}
	if j.err != nil {
		return s.modelFault(w, v, j.err)
	}
	blank := blankRows(j.outputs, j.lo, j.hi)
	if len(blank) > 0 {
		warnings = append(warnings, blankWarning(blank, n))
	}
	out := appendResponse(body.sc.out[:0], &response{model: v.name, version: v.id, req: req, warnings: warnings,
		outputs: j.outputs, lo: j.lo, hi: j.hi, blank: blank})
	body.sc.out = out
	if err := writeAnswer(w, out, chunkTime(s.cfg.MinWriteRate), body.deadline.Add(s.cfg.Timeout)); err != nil {
		reason := "canceled"
		if errors.Is(err, os.ErrDeadlineExceeded) {
			reason = "slow_reader"
		}
		return outcome{status: statusClientClosed, model: v.metrics, reason: reason, rows: n}
	}
	return outcome{status: http.StatusOK, model: v.metrics, rows: n}
}

// An answer is written in chunks of writeChunk bytes, each within the
// time that Config.MinWriteRate gives it: a client that reads slower is
// cut, and the memory its request holds given back, rather than keep it
// for as long as the server's write timeout.
const writeChunk = 64 << 10

// MaxWriteRate bounds Config.MinWriteRate: at 1 GiB/s a chunk has 61 µs,
// less than a shared machine's scheduler gives a goroutine, and a
// faster rate would cut readers that keep up.
const MaxWriteRate = 1 << 30

// chunkTime is the time to write a chunk at rate bytes per second.
func chunkTime(rate int64) time.Duration {
	return time.Duration(writeChunk) * time.Second / time.Duration(rate)
}

// writeAnswer writes the JSON answer p, each chunk within perChunk, and
// all of it by end.
func writeAnswer(w http.ResponseWriter, p []byte, perChunk time.Duration, end time.Time) error {
	w.Header()["Content-Type"] = jsonType
	w.Header().Set("Content-Length", strconv.Itoa(len(p)))
	// A ResponseWriter that cannot set deadlines (a test recorder) has
	// no slow readers.
	rc := http.NewResponseController(w)
	for len(p) > 0 {
		deadline := time.Now().Add(perChunk)
		if deadline.After(end) {
			deadline = end
		}
		rc.SetWriteDeadline(deadline)
		n, err := w.Write(p[:min(len(p), writeChunk)])
		if err != nil {
			return err
		}
		p = p[n:]
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	// The connection's next request has the server's write timeout
	// again, or none.
	rc.SetWriteDeadline(time.Time{})
	return nil
}

// prepared takes the memory that computing the request of inputs in
// takes on v and prepares its rows, or returns the error of a request
// refused, with its reason. A request's computation may take the budget
// but for the largest body's share, whatever its own body: the samples
// of a shape that a request may hold do not depend on how they are
// written.
func (s *Server) prepared(ctx context.Context, v *version, b *body, in []Tensor) (*Rows, string, error) {
	rows := s.rows.get()
	need, done, err := requestMemory(v.model, &v.meta, in, rows)
	if err == nil {
		if room := s.cfg.MaxMemory - s.cfg.MaxBody*memoryFactor; need > room {
			err = tooLarge(need, room, mostSamples(v.model, &v.meta, in, room))
		} else {
			err = s.reserve(ctx, b, need, true)
		}
	}
	if err == nil && !done {
		err = prepare(v.model, rows, in)
	}
	if err == nil {
		return rows, "", nil
	}
	s.rows.put(rows)
	return nil, reasonOf(err), err
}

// reasonOf returns the reason, for the metrics, of a request refused
// with err: the server's own error is "internal".
func reasonOf(err error) string {
	var re *requestError
	switch {
	case !errors.As(err, &re):
		return "internal"
	case re.status == http.StatusServiceUnavailable:
		return "overloaded"
	case re.status == http.StatusRequestEntityTooLarge:
		return "too_large"
	case re.status == statusClientClosed:
		return "canceled"
	}
	return "bad_request"
}

// statusClientClosed is the status of a request whose client closed
// the connection before the answer, as nginx names it.
const statusClientClosed = 499

// gaveUp answers a request to model v whose time ran out, or whose
// client has closed the connection. net/http takes a client that closes
// only its sending side, as some do once the body is sent, for gone:
// such a client reads the answer, which must say what happened, not be
// the empty 200 that net/http sends for a handler that wrote nothing.
func (s *Server) gaveUp(w http.ResponseWriter, r *http.Request, v *version) outcome {
	if r.Context().Err() != nil {
		return s.failModel(w, v, &requestError{statusClientClosed,
			"the client closed the connection, or its sending side, before the answer; the request was dropped"}, "canceled")
	}
	return s.failModel(w, v, &requestError{http.StatusServiceUnavailable,
		fmt.Sprintf("the model did not answer within %v", s.cfg.Timeout)}, "timeout")
}

// modelFault logs a failure of model v and answers 500, without the
// details, which are for the server's operator.
func (s *Server) modelFault(w http.ResponseWriter, v *version, err error) outcome {
	s.log.Error("the model failed", "model", v.name, "version", v.id, "error", err.Error())
	return s.failModel(w, v, errors.New("the model failed; the server's log says why"), "internal")
}

// failModel is fail for a request that reached model v.
func (s *Server) failModel(w http.ResponseWriter, v *version, err error, reason string) outcome {
	o := fail(w, err, reason)
	o.model = v.metrics
	return o
}

// prepare calls m.Prepare, making its errors the client's and a panic
// the server's error.
func prepare(m Model, rows *Rows, in []Tensor) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the model panicked preparing the request: %v\n%s", p, debug.Stack())
		}
	}()
	if err := m.Prepare(rows, in); err != nil {
		return badRequest("%v", err)
	}
	return nil
}

// body is a request's body, read within the request's time, and what
// the request holds of the server's limits.
type body struct {
	data      []byte
	deadline  time.Time
	sc        *scratch
	reserved  int64  // bytes of the memory budget
	computing int64  // of which for the computation, once granted
	inFlight  bool   // a place among the requests in flight
	client    string // the remote address, without its port
}

// readRequest reads the body of r within the server's limits, then takes
// a place among the requests in flight: a body on its way holds memory,
// as much as it has sent, but no place, so that slow clients cannot
// keep the requests that have arrived from running. It returns the
// body, to be given back with done even on error, and the error of a
// request refused with its reason.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (*body, string, error) {
	if r.ContentLength > s.cfg.MaxBody {
		return nil, "too_large", &requestError{http.StatusRequestEntityTooLarge,
			fmt.Sprintf("a body of %d bytes, more than the %d this server takes", r.ContentLength, s.cfg.MaxBody)}
	}
	if err := checkCoding(w, r); err != nil {
		return nil, "bad_request", err
	}
	sc, _ := s.scratch.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	b := &body{deadline: time.Now().Add(s.cfg.Timeout), sc: sc, client: client(r.RemoteAddr)}
	sc.arena = sc.arena[:0]
	var err error
	if b.data, err = s.readBody(w, r, b); err != nil {
		return b, reasonOf(err), err
	}
	if err := s.enter(); err != nil {
		return b, "overloaded", err
	}
	b.inFlight = true
	return b, "", nil
}

// client returns the client of a request from remote address addr: its
// host, whichever port its connection has.
func client(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// checkCoding refuses a body in a content coding (gzip, deflate...),
// which would otherwise be read as JSON and refused as malformed, with
// 415 and the Accept-Encoding that says what the server reads (RFC
// 7694).
func checkCoding(w http.ResponseWriter, r *http.Request) error {
	for _, v := range r.Header.Values("Content-Encoding") {
		for coding := range strings.SplitSeq(v, ",") {
			if coding = strings.TrimSpace(coding); coding != "" && !strings.EqualFold(coding, "identity") {
				w.Header().Set("Accept-Encoding", "identity")
				w.Header().Set("Connection", "close") // rather than drain the body
				return &requestError{http.StatusUnsupportedMediaType,
					fmt.Sprintf("Content-Encoding %q: this server reads bodies uncompressed; send the JSON as it is", coding)}
			}
		}
	}
	return nil
}

// readBody reads the body of r into b's scratch, by its deadline and up
// to MaxBody bytes, holding memoryFactor times the bytes it may hold of
// the memory budget: a body of known length from the start, another as
// it arrives. On error the connection is closed after the answer,
// rather than drained of a body that may never end.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, b *body) ([]byte, error) {
	grow := func(size int64) error {
		if need := size * memoryFactor; need > b.reserved {
			need = min(max(need, 2*b.reserved), s.cfg.MaxBody*memoryFactor)
			return s.reserve(r.Context(), b, need-b.reserved, false)
		}
		return nil
	}
	size := int64(4 << 10)
	if r.ContentLength >= 0 {
		size = r.ContentLength
	}
	if err := grow(size); err != nil {
		return nil, err
	}
	// A ResponseWriter that cannot set deadlines (a test recorder) has
	// no slow clients; the server's ReadTimeout backs this one up.
	rc := http.NewResponseController(w)
	hasDeadline := rc.SetReadDeadline(b.deadline) == nil
	in := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	buf := b.sc.body[:0]
	if r.ContentLength > int64(cap(buf)) {
		buf = make([]byte, 0, r.ContentLength+1)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		b.sc.body = buf
		if err == nil {
			err = grow(int64(len(buf)))
		}
		if err == nil {
			continue
		}
		if err == io.EOF {
			if hasDeadline {
				rc.SetReadDeadline(time.Time{})
			}
			return buf, nil
		}
		w.Header().Set("Connection", "close")
		var tooLarge *http.MaxBytesError
		var re *requestError
		switch {
		case errors.As(err, &re):
			return nil, err
		case errors.As(err, &tooLarge):
			return nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("a body of more than the %d bytes this server takes", s.cfg.MaxBody)}
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, &requestError{http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %v", s.cfg.Timeout)}
		}
		return nil, badRequest("reading the body: %v", err)
	}
}
