package serve

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// The admission of requests: a place among the requests in flight,
// which a request takes or is refused at once (429), and the memory
// budget, for which requests wait their turn in a queue.
//
// An impolite client that retries a 503 at once would otherwise take
// the memory that any other request frees before that request's retry
// arrives, and spend the server's time reading bodies that the budget
// then refuses: a flood of large requests starved every other client.
// In the queue, a request is served in its turn, and a retry goes to
// the back of it. The turns are a client's (by remote address), taken
// in rounds: a client's requests are served one a round, between the
// other clients' (start-time fair queueing: each waiter's tag is one
// past the later of its client's last tag and the last tag served), so
// that a client with 64 connections does not get 64 turns to another's
// one. Clients behind one proxy share an address, and so their turns.
// A request waits at most the server's QueueWait,
// and never beyond its own time, then gets 503.
//
// A request whose body is read holds the body's memory while it waits
// for its computation's, so bodies could take the whole budget and
// leave none to compute them. The bodies of the requests not computing
// yet hold at most half the budget (or memoryFactor times MaxBody, if
// more). A computation first in the queue may still need more than the
// bodies leave: it is stuck. Then the computations behind it that fit
// are served first: they end and give their bodies back. If none
// computes, it is refused at once rather than block the queue. A body
// first in the queue that the bodies' half cannot take now is stuck
// too, behind bodies that may arrive slowly: the requests behind it
// that fit are served first, so that a few clients sending large
// bodies slowly do not hold up everyone else.

// waiter is a request's turn in the queue for the memory budget.
type waiter struct {
	need      int64
	client    string        // the remote address of the request
	tag       int64         // its turn: the queue is in the order of the tags
	computing bool          // memory for a computation, not a body
	body      int64         // for a computation, the bytes its body holds
	done      bool          // granted or refused
	granted   bool          // the memory is the request's
	ready     chan struct{} // closed when done, for a waiter that waits
}

// errMemoryFull is the error of a request whose memory the budget
// cannot give it now.
var errMemoryFull = &requestError{http.StatusServiceUnavailable, "the requests in flight fill this server's memory budget; retry later"}

// reserve takes bytes of the memory budget for the request of b, for
// its body or, if computing, for its computation, waiting its turn in
// the queue; or returns the error of a request refused: 503 after the
// wait or when it could not be served, 499 for a client gone while
// waiting.
func (s *Server) reserve(ctx context.Context, b *body, bytes int64, computing bool) error {
	w := &waiter{need: bytes, client: b.client, computing: computing, body: b.reserved}
	s.admitMu.Lock()
	s.enqueue(w)
	s.grant()
	if !w.done {
		w.ready = make(chan struct{})
	}
	queued := len(s.waiting)
	s.admitMu.Unlock()
	if w.ready != nil {
		wait := min(s.cfg.QueueWait, time.Until(b.deadline))
		timer := time.NewTimer(wait)
		defer timer.Stop()
		var err error
		select {
		case <-w.ready:
		case <-timer.C:
			err = &requestError{http.StatusServiceUnavailable, fmt.Sprintf(
				"the requests in flight fill this server's memory budget: this request waited %v in a queue of %d for its turn; retry later",
				wait.Round(time.Millisecond), queued)}
		case <-ctx.Done():
			err = &requestError{statusClientClosed, "the client closed the connection while its request waited for the memory budget"}
		}
		if err != nil && !s.leaveQueue(w) {
			return err
		}
	}
	if !w.granted {
		return errMemoryFull
	}
	b.reserved += bytes
	if computing {
		b.computing = bytes
	}
	return nil
}

// enqueue gives w its tag and puts it in the queue behind the waiters
// of its tag or an earlier one. The caller holds admitMu.
func (s *Server) enqueue(w *waiter) {
	w.tag = max(s.served, s.tags[w.client]) + 1
	s.tags[w.client] = w.tag
	i := len(s.waiting)
	for i > 0 && s.waiting[i-1].tag > w.tag {
		i--
	}
	s.waiting = slices.Insert(s.waiting, i, w)
	if len(s.tags) > 2*len(s.waiting)+16 {
		// A tag served is no later than the next one given.
		maps.DeleteFunc(s.tags, func(_ string, tag int64) bool { return tag <= s.served })
	}
}

// leaveQueue takes w out of the queue, unless it is done; it reports
// whether it was.
func (s *Server) leaveQueue(w *waiter) bool {
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	if w.done {
		return true
	}
	s.waiting = slices.DeleteFunc(s.waiting, func(x *waiter) bool { return x == w })
	s.grant() // those behind w may fit
	return false
}

// grant serves the queue for the memory budget in its order, as the
// comment at the top of this file says. The caller holds admitMu.
func (s *Server) grant() {
	for s.serveQueue() && s.waiting[0].computing && s.memory == s.bodies {
		s.answer(0, false) // stuck, and no computation will end to help it
	}
	s.metrics.memory.Set(float64(s.memory))
	s.metrics.waiting.Set(float64(len(s.waiting)))
}

// serveQueue serves the waiters that fit, the first first, and the
// computations behind it if it is stuck; it reports whether it is.
func (s *Server) serveQueue() (stuck bool) {
	for i := 0; i < len(s.waiting); {
		w := s.waiting[i]
		fits := s.memory+w.need <= s.cfg.MaxMemory && (w.computing || s.bodies+w.need <= s.bodyCap())
		// Past the first, stuck: a computation, or a body when the
		// first is a body too, which would wait for the bodies anyway.
		passes := w.computing || !s.waiting[0].computing
		if fits && (i == 0 || passes) {
			s.memory += w.need
			if w.computing {
				s.bodies -= w.body // the request's body computes with it
			} else {
				s.bodies += w.need
			}
			s.answer(i, true)
			i = 0 // what it gave back, or the first's turn
			continue
		}
		if i == 0 && !s.stuck(w) {
			return false // w fits once computations end: the others wait behind it
		}
		i++
	}
	return len(s.waiting) > 0 && s.stuck(s.waiting[0])
}

// bodyCap is the most memory the requests not computing yet may hold.
func (s *Server) bodyCap() int64 { return max(s.cfg.MaxMemory/2, s.cfg.MaxBody*memoryFactor) }

// stuck reports whether w could not be served even once every
// computation had ended.
func (s *Server) stuck(w *waiter) bool {
	if w.computing {
		return s.bodies+w.need > s.cfg.MaxMemory
	}
	return s.bodies+w.need > s.bodyCap()
}

// answer takes the i-th waiter out of the queue, its memory granted
// or refused.
func (s *Server) answer(i int, granted bool) {
	w := s.waiting[i]
	w.granted, w.done = granted, true
	if i == 0 {
		// Only the first: a computation that passes a stuck first
		// waiter may be a client's latest, far ahead of the round.
		s.served = max(s.served, w.tag)
	}
	if w.ready != nil {
		close(w.ready)
	}
	s.waiting = slices.Delete(s.waiting, i, i+1)
}

// done gives back what the request of b held.
func (s *Server) done(b *body) {
	s.admitMu.Lock()
	if b.inFlight {
		s.inFlight--
		s.metrics.inFlight.Set(float64(s.inFlight))
	}
	s.memory -= b.reserved
	if b.computing == 0 {
		s.bodies -= b.reserved
	}
	s.grant()
	s.admitMu.Unlock()
	sc := b.sc
	if cap(sc.body) <= maxPooled && cap(sc.arena) <= maxPooled && cap(sc.out) <= maxPooled {
		s.scratch.Put(sc)
	}
}

// enter takes a place among the requests in flight, or returns the
// error of a request refused.
func (s *Server) enter() error {
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	if s.inFlight >= s.cfg.MaxInFlight {
		return &requestError{http.StatusTooManyRequests, fmt.Sprintf("%d requests in flight, the most this server takes; retry later", s.inFlight)}
	}
	s.inFlight++
	s.metrics.inFlight.Set(float64(s.inFlight))
	return nil
}

// InFlight returns the number of inference requests admitted and not
// yet answered.
func (s *Server) InFlight() int {
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	return s.inFlight
}
