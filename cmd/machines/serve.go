package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/serve"
	"github.com/parametric-machines/machines/internal/budget"
)

// serveOptions are the parsed flags of serve.
type serveOptions struct {
	cfg   serve.Config
	addr  string
	grace time.Duration
}

func runServe(args []string, stdout, stderr io.Writer) error {
	o, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A log that cannot be written, its reader gone (a log collector
	// that died, a script that read the first line), loses its lines
	// rather than end the process by SIGPIPE, as Go has it for standard
	// output and error.
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	// SIGHUP, which would end the process, reads the models' directory.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	return serveUntil(ctx, o, stdout, hup)
}

// parseServe parses and checks the flags of serve.
func parseServe(args []string, stderr io.Writer) (*serveOptions, error) {
	fs := newFlagSet("serve", "usage: machines serve -models DIR [-addr 127.0.0.1:8080] [-token-file FILE] [-insecure] [flags]\n\n"+
		"serves the model files of DIR over the Open Inference Protocol (KServe V2, REST)")
	var (
		o         serveOptions
		maxBody   = byteSize(4 << 20)
		maxMemory = byteSize(512 << 20)
		writeRate = byteSize(32 << 10)
		level     = slog.LevelInfo
	)
	dir := fs.String("models", "", "serve every model file NAME.json of this `directory` as the model NAME (required)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen on this `address`; beyond loopback only with -token-file or -insecure")
	tokenFile := fs.String("token-file", "", "require the bearer token held in this `file` on every endpoint but /v2/health/live and /v2/health/ready")
	insecure := fs.Bool("insecure", false, "allow an -addr beyond loopback without -token-file")
	fs.IntVar(&o.cfg.BatchSize, "batch-size", 256, "the most `rows` of one model computed as one batch, at most 65536")
	fs.DurationVar(&o.cfg.BatchDelay, "batch-delay", 200*time.Microsecond, "the most time a batch waits for more requests")
	fs.IntVar(&o.cfg.Workers, "workers", 0, "`batches` of one model computed at once, at most 256 (default: the cores, GOMAXPROCS)")
	fs.Var(&maxBody, "max-body", "the largest request body: a `size` in bytes, or with KiB, MiB or GiB")
	fs.IntVar(&o.cfg.MaxInFlight, "max-inflight", 256, "the most inference `requests` in flight; more get 429")
	fs.Var(&maxMemory, "max-memory", "the memory budget of the requests in flight, a `size`, each counted as 6 times its body and the memory its computation takes, at most the machine's memory; beyond it requests get 503, or 413 for one the budget could not hold")
	fs.DurationVar(&o.cfg.Timeout, "timeout", 10*time.Second, "the most time from a request's arrival to its answer")
	fs.DurationVar(&o.cfg.QueueWait, "queue-wait", 0, "the most time a request waits its turn for the memory budget, then gets 503, at most -timeout (default: half of -timeout)")
	fs.Var(&writeRate, "min-write-rate", "the slowest a client may read an answer, a `size` per second: a slower reader is cut, and the memory of its request given back")
	fs.DurationVar(&o.grace, "grace", 30*time.Second, "on SIGTERM or SIGINT, the most time to finish the requests in flight")
	fs.DurationVar(&o.cfg.Poll, "poll", time.Second, "how often to read the directory for changed models (and at once on SIGHUP)")
	interval := fs.Float64("interval", 0.9, "the `level` of the prediction intervals, the outputs lower and upper, of the regression models of fit\nthat hold held-out residuals, and of a classifier's prediction sets, the output set, as predict -interval computes them")
	fs.TextVar(&level, "log-level", slog.LevelInfo, "log `level`: DEBUG (a line per request), INFO (per model load), WARN or ERROR")
	if err := parseCommand(fs, args, stderr, "models"); err != nil {
		return nil, err
	}
	set := setFlags(fs)
	for _, f := range []struct {
		name  string
		value int64
	}{{"batch-size", int64(o.cfg.BatchSize)}, {"workers", int64(o.cfg.Workers)}, {"max-inflight", int64(o.cfg.MaxInFlight)},
		{"max-body", int64(maxBody)}, {"max-memory", int64(maxMemory)}, {"batch-delay", int64(o.cfg.BatchDelay)},
		{"timeout", int64(o.cfg.Timeout)}, {"grace", int64(o.grace)}, {"poll", int64(o.cfg.Poll)},
		{"queue-wait", int64(o.cfg.QueueWait)}, {"min-write-rate", int64(writeRate)}} {
		if f.value < 0 || (f.value == 0 && (set[f.name] || f.name != "workers" && f.name != "queue-wait")) {
			return nil, usagef("-%s %s: want a positive value", f.name, fs.Lookup(f.name).Value)
		}
	}
	o.cfg.MinWriteRate = int64(writeRate)
	if err := checkServeBounds(o.cfg, int64(maxMemory)); err != nil {
		return nil, err
	}
	if int64(maxBody)*6 >= int64(maxMemory) {
		return nil, usagef("-max-memory %s: want more than 6 times -max-body %s, the rest for the requests' computation", &maxMemory, &maxBody)
	}
	if err := checkAddr(o.addr, *tokenFile != "", *insecure); err != nil {
		return nil, err
	}
	o.cfg.Dir, o.cfg.MaxBody, o.cfg.MaxMemory = *dir, int64(maxBody), int64(maxMemory)
	if !(*interval > 0 && *interval < 1) {
		return nil, usagef("-interval %v: want a level between 0 and 1, such as 0.9", *interval)
	}
	o.cfg.Kinds = append(append(kernelKinds(*interval), serve.FiniteKinds()...), serve.ModelKinds()...)
	o.cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if bi, ok := debug.ReadBuildInfo(); ok {
		o.cfg.Version = bi.Main.Version
	}
	if *tokenFile != "" {
		token, err := readToken(*tokenFile)
		if err != nil {
			return nil, err
		}
		o.cfg.Token = token
	}
	return &o, nil
}

// The bounds of serve's flags beyond what the machine can take: a batch
// holds its rows' graph, and a worker a copy of a composed model.
const (
	maxServeBatch   = 1 << 16
	maxServeWorkers = 256
)

// checkServeBounds refuses settings the machine cannot hold, before
// anything listens.
func checkServeBounds(cfg serve.Config, maxMemory int64) error {
	switch {
	case cfg.BatchSize > maxServeBatch:
		return usagef("-batch-size %d: want at most %d rows", cfg.BatchSize, maxServeBatch)
	case cfg.Workers > maxServeWorkers:
		return usagef("-workers %d: want at most %d", cfg.Workers, maxServeWorkers)
	case cfg.QueueWait > cfg.Timeout:
		return usagef("-queue-wait %v: want at most -timeout %v, which bounds every request's wait", cfg.QueueWait, cfg.Timeout)
	case cfg.MinWriteRate > serve.MaxWriteRate:
		return usagef("-min-write-rate %s: want at most 1GiB a second, or every answer is cut", (*byteSize)(&cfg.MinWriteRate))
	case maxMemory > budget.Memory():
		return usagef("-max-memory %s: more than this machine's memory, %s", budget.Bytes(float64(maxMemory)), budget.Bytes(float64(budget.Memory())))
	}
	return nil
}

// checkAddr refuses an address beyond loopback unless a token guards it
// or insecure says so.
func checkAddr(addr string, token, insecure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("-addr %s: %v", addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && !token && !insecure {
		return usagef("-addr %s listens beyond loopback: give -token-file FILE to require a bearer token, or -insecure to serve anyone who can connect", addr)
	}
	return nil
}

// readToken reads a bearer token from the first line of the file at
// path, which others than its owner must not be able to read.
func readToken(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("-token-file %s: mode %v lets others read the token: chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token, _, _ := strings.Cut(string(data), "\n")
	token = strings.TrimSpace(token)
	if token == "" {
		return "", fmt.Errorf("-token-file %s: no token on its first line", path)
	}
	return token, nil
}

// serveUntil serves until ctx is done, then stops taking connections,
// finishes the requests in flight within the grace period and returns.
// Each value from rescan has the models' directory read at once.
func serveUntil(ctx context.Context, o *serveOptions, stdout io.Writer, rescan <-chan os.Signal) error {
	logger := o.cfg.Logger
	if err := o.cfg.Check(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	// Connections are taken while the models load: the live endpoint
	// answers, the others 503 (serve.Starting).
	starting := new(serve.Starting)
	hs := &http.Server{
		Handler:           starting,
		ReadHeaderTimeout: o.cfg.Timeout,
		WriteTimeout:      2 * o.cfg.Timeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(slogWriter{logger}, "", 0),
	}
	files, ok := budget.OpenFiles()
	serve.ShedIdle(hs, maxConns(o.cfg.MaxMemory, files, ok), logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(serve.Listener(ln)) }()
	srv, err := startServer(ctx, o.cfg)
	if err != nil {
		hs.Close()
		return err
	}
	defer tuneGC(o.cfg.MaxMemory)()
	starting.Start(srv)
	// The line that scripts wait for, with the port chosen for ":0":
	// the models are loaded.
	fmt.Fprintf(stdout, "serve: listening on %s\n", ln.Addr())
	for stopping := false; !stopping; {
		select {
		case err := <-served:
			srv.Close()
			return err
		case sig := <-rescan:
			logger.Info("reading the directory of models now", "signal", sig.String())
			srv.Rescan()
		case <-ctx.Done():
			stopping = true
		}
	}
	logger.Info("shutting down: no new connections; finishing the requests in flight", "in_flight", srv.InFlight(), "grace", o.grace)
	sctx, cancel := context.WithTimeout(context.Background(), o.grace)
	defer cancel()
	err = hs.Shutdown(sctx)
	if err != nil {
		left := srv.InFlight()
		hs.Close()
		srv.Close()
		return fmt.Errorf("%d requests still in flight after the grace period of %v: %w", left, o.grace, err)
	}
	srv.Close()
	logger.Info("stopped: every request in flight answered")
	return nil
}

// connMemory is about what an idle connection holds: its goroutine and
// buffers (7.7 KB each measured over 5,000 idle keep-alive connections).
const connMemory = 8 << 10

// maxConns returns the most connections serve holds before it sheds
// the idle ones: their memory at most the requests' budget, maxMemory,
// and, if the system tells the most files the process may open, at most
// three quarters of them, a quarter left for the model files and the
// rest.
func maxConns(maxMemory int64, files int, known bool) int {
	n := int(min(maxMemory/connMemory, 1<<30))
	if known {
		n = min(n, files*3/4)
	}
	return max(n, 1)
}

// startServer loads the models and returns their server, or returns
// at once when ctx is done while they load: a signal at start-up stops
// the process, however long a model file takes to read.
func startServer(ctx context.Context, cfg serve.Config) (*serve.Server, error) {
	type started struct {
		srv *serve.Server
		err error
	}
	ch := make(chan started, 1)
	go func() {
		srv, err := serve.New(cfg)
		ch <- started{srv, err}
	}()
	select {
	case s := <-ch:
		return s.srv, s.err
	case <-ctx.Done():
		go func() {
			if s := <-ch; s.srv != nil {
				s.srv.Close()
			}
		}()
		return nil, errors.New("stopped while loading the models")
	}
}

// serveGCPercent is serve's garbage collector target unless the
// environment sets GOGC. A server's live heap is small, the models and
// the pools, while every request allocates in net/http and the decoder:
// at the default of 100 it collects many times a second under load. Each
// collection stops every goroutine twice, and on shared cores a stop
// waits for a thread the kernel has put aside. docs/serving.md has what
// 400 did to the requests per second and their latency.
const serveGCPercent = 400

// tuneGC sets serve's garbage collector target, and, unless GOMEMLIMIT
// is set, a soft memory limit of twice the memory budget of the
// requests and the heap of the models loaded, so that the target does
// not let a full budget's heap grow to 5 times it: near the limit the
// collector runs as often as the default target would have it. It
// returns a function that restores the settings.
func tuneGC(maxMemory int64) (restore func()) {
	limit := debug.SetMemoryLimit(-1) // a negative limit only reads it
	percent := debug.SetGCPercent(serveGCPercent)
	if os.Getenv("GOGC") != "" {
		debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		debug.SetMemoryLimit(2 * (maxMemory + int64(ms.HeapAlloc)))
	}
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// slogWriter passes the net/http server's own messages (TLS handshakes,
// malformed requests it answers itself) to the log at level Warn.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(strings.TrimSpace(string(p)))
	return len(p), nil
}

// byteSize is a flag of a size in bytes, given as a whole number with
// an optional suffix KiB, MiB or GiB.
type byteSize int64

func (b *byteSize) String() string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if int64(*b) >= u.size && int64(*b)%u.size == 0 {
			return strconv.FormatInt(int64(*b)/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	num, unit := s, int64(1)
	for suffix, size := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if v, ok := strings.CutSuffix(s, suffix); ok {
			num, unit = v, size
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/unit {
		return errors.New("want a whole number of bytes, with KiB, MiB or GiB if you like")
	}
	*b = byteSize(n * unit)
	return nil
}
