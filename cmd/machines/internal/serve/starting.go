package serve

import (
	"net/http"
	"sync/atomic"
)

// Starting answers the requests that arrive while a server's models
// load, so that the listener may take connections before New returns:
// the live endpoint answers that the process is live, and every other
// request gets 503 with Retry-After, the ready endpoint included, until
// Start hands the requests to the server. An orchestrator's liveness
// probe (Kubernetes', under KServe) would otherwise find no port open
// while large models load, and restart the server before it is up.
// The zero value is ready to use.
type Starting struct {
	srv atomic.Pointer[Server]
}

// Start has s answer every request from now on.
func (h *Starting) Start(s *Server) { h.srv.Store(s) }

// ServeHTTP answers r as the server given to Start does, or, until
// then, as one whose models are still loading.
func (h *Starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s := h.srv.Load(); s != nil {
		s.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/v2/health/live" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		reply(w, http.StatusOK, map[string]bool{"live": true})
		return
	}
	fail(w, &requestError{http.StatusServiceUnavailable, "the server is loading its models; retry later"}, "")
}
