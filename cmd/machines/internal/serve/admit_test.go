package serve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMemoryQueue checks the queue for the memory budget (admit.go): a
// request waits its turn, behind the first waiter even when it would
// fit; a computation passes a first waiter stuck behind bodies, and a
// body passes only a body; a stuck computation is refused at once when none
// computes; bodies hold at most half the budget; a wait ends in 503
// with how long.
func TestMemoryQueue(t *testing.T) {
	// MaxMemory 100 leaves bodies 50.
	type step struct {
		req       string // the request: a reservation, or "-" its done
		bytes     int64
		computing bool
		want      string // "granted", "waits", or the refusal's error
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"in turn", []step{
			{"a", 60, true, "granted"},
			{"b", 60, true, "waits"},
			{"c", 10, true, "waits"}, // it would fit, but b is first
			{"-a", 0, false, ""},
			{"b", 0, false, "granted"},
			{"c", 0, false, "granted"},
		}},
		{"a computation passes a stuck first waiter", []step{
			{"c0", 5, true, "granted"},
			{"b1", 40, false, "granted"},
			{"b2", 10, false, "granted"},
			{"b1", 60, true, "waits"}, // stuck: bodies 50 and 60 are more than 100
			{"b2", 20, true, "granted"},
			{"-b2", 0, false, ""},
			{"b1", 0, false, "waits"}, // no longer stuck, but c0 holds 5
			{"-c0", 0, false, ""},
			{"b1", 0, false, "granted"},
		}},
		{"a body does not pass a stuck first waiter", []step{
			{"c0", 5, true, "granted"},
			{"b1", 40, false, "granted"},
			{"b1", 61, true, "waits"}, // stuck: bodies 40 and 61 are more than 100
			{"b3", 5, false, "waits"}, // it would fit, and hold more of the bodies' memory
			{"-c0", 0, false, ""},
			{"b1", 0, false, "the requests in flight fill this server's memory budget; retry later"},
			{"b3", 0, false, "granted"},
		}},
		{"a body passes a body stuck behind the bodies' half", []step{
			{"b1", 30, false, "granted"},
			{"b2", 30, false, "waits"},
			{"b3", 10, false, "granted"},
			{"b4", 5, true, "granted"},
		}},
		{"a stuck computation is refused when none computes", []step{
			{"b1", 40, false, "granted"},
			{"b2", 10, false, "granted"},
			{"b1", 60, true, "the requests in flight fill this server's memory budget; retry later"},
			{"b2", 20, true, "granted"},
		}},
		{"bodies hold half the budget", []step{
			{"b1", 30, false, "granted"},
			{"b2", 30, false, "waits"},
			{"b1", 10, true, "granted"}, // b1's body computes: b2's fits
			{"b2", 0, false, "granted"},
		}},
		{"a wait ends", []step{
			{"a", 60, true, "granted"},
			{"b", 60, true, "this request waited 100ms in a queue of 1 for its turn"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, Config{MaxMemory: 100, MaxBody: 1, Timeout: 200 * time.Millisecond}, nil)
			if tc.name != "a wait ends" {
				s.cfg.Timeout, s.cfg.QueueWait = time.Hour, time.Hour
			}
			bodies := map[string]*body{}
			answers := map[string]chan error{}
			for i, st := range tc.steps {
				if name, ok := strings.CutPrefix(st.req, "-"); ok {
					s.done(bodies[name])
					continue
				}
				if st.bytes > 0 {
					b := bodies[st.req]
					if b == nil {
						b = &body{deadline: time.Now().Add(time.Hour), sc: new(scratch)}
						bodies[st.req] = b
					}
					answers[st.req] = reserveLater(t, s, b, st.bytes, st.computing)
				}
				got := "waits"
				select {
				case err := <-answers[st.req]:
					got = "granted"
					if err != nil {
						got = err.Error()
					}
				case <-time.After(300 * time.Millisecond):
				}
				if !strings.Contains(got, st.want) {
					t.Fatalf("step %d, %s of %d: %s, want %s", i+1, st.req, st.bytes, got, st.want)
				}
			}
		})
	}
}

// TestFairClients checks that the queue serves clients in rounds: the
// requests of a client with three waiting take turns with another's one,
// a client that comes later joins the round being served, and the
// requests of one client are served in their order. The tags of the
// clients gone are forgotten.
func TestFairClients(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxMemory: 100, MaxBody: 1, Timeout: time.Hour, QueueWait: time.Hour}, nil)
	bodies := map[string]*body{}
	answers := map[string]chan error{}
	reserve := func(name string) { // 60 of 100: one at a time
		bodies[name] = &body{deadline: time.Now().Add(time.Hour), sc: new(scratch), client: name[:1]}
		answers[name] = reserveLater(t, s, bodies[name], 60, true)
	}
	for _, name := range []string{"x", "a1", "a2", "a3", "b1"} {
		reserve(name)
	}
	last := ""
	for _, want := range []string{"x", "a1", "b1", "a2", "c1", "a3"} {
		if last != "" {
			s.done(bodies[last])
		}
		got := ""
		for ; got == ""; time.Sleep(time.Millisecond) {
			for name, ch := range answers {
				select {
				case err := <-ch:
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got = name
				default:
				}
			}
		}
		if got != want {
			t.Fatalf("served %s, want %s", got, want)
		}
		delete(answers, got)
		last = got
		if got == "a1" {
			reserve("c1") // a2's round, after it
		}
	}
	s.done(bodies[last])
	for i := range 100 { // clients served at once, one after another
		b := &body{deadline: time.Now().Add(time.Hour), sc: new(scratch), client: fmt.Sprint(i)}
		if err := s.reserve(context.Background(), b, 1, true); err != nil {
			t.Fatal(err)
		}
		s.done(b)
	}
	if len(s.tags) > 17 {
		t.Errorf("%d clients' tags kept, with none waiting", len(s.tags))
	}
}

// TestFairPassing checks that a waiter served out of its turn, passing
// a stuck first waiter, does not move the round on: a client that comes
// next still goes before the later requests of the one with many.
func TestFairPassing(t *testing.T) {
	s, _ := newTestServer(t, Config{}, nil)
	s.admitMu.Lock()
	defer s.admitMu.Unlock()
	for _, name := range []string{"a1", "a2", "a3"} {
		s.enqueue(&waiter{client: name[:1], need: int64(name[1])})
	}
	s.answer(2, true) // a3 passes
	s.enqueue(&waiter{client: "c", need: 'c'})
	var order string
	for _, w := range s.waiting {
		order += string(rune(w.need))
	}
	if order != "1c2" {
		t.Errorf("the queue %q, want a1, c, a2", order)
	}
}

// TestClient checks that a client is its address without the port.
func TestClient(t *testing.T) {
	for addr, want := range map[string]string{"192.0.2.1:1234": "192.0.2.1", "192.0.2.1:5678": "192.0.2.1", "[::1]:80": "::1", "@": "@"} {
		if got := client(addr); got != want {
			t.Errorf("%q: %q, want %q", addr, got, want)
		}
	}
}

// reserveLater asks s for bytes of the memory budget for b, and returns
// the channel of the answer once the request is answered or queued.
func reserveLater(t *testing.T, s *Server, b *body, bytes int64, computing bool) chan error {
	s.admitMu.Lock()
	queued := len(s.waiting)
	s.admitMu.Unlock()
	ch := make(chan error, 1)
	go func() { ch <- s.reserve(context.Background(), b, bytes, computing) }()
	waitFor(t, func() bool {
		s.admitMu.Lock()
		defer s.admitMu.Unlock()
		return len(ch) == 1 || len(s.waiting) > queued
	})
	return ch
}

// TestMemoryMetrics checks the gauges of the memory budget held and of
// the requests waiting for it.
func TestMemoryMetrics(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxMemory: 100, MaxBody: 1, Timeout: time.Hour}, nil)
	a, b := &body{deadline: time.Now().Add(time.Hour), sc: new(scratch)}, &body{deadline: time.Now().Add(time.Hour), sc: new(scratch)}
	check := func(when string, memory, waiting int) {
		t.Helper()
		_, got := do(t, s, "GET", "/metrics", "")
		for _, want := range []string{fmt.Sprintf("\nmachines_serve_memory_bytes %d\n", memory), fmt.Sprintf("\nmachines_serve_memory_waiting_requests %d\n", waiting)} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: no %q in the metrics", when, strings.TrimSpace(want))
			}
		}
	}
	if err := <-reserveLater(t, s, a, 60, true); err != nil {
		t.Fatal(err)
	}
	second := reserveLater(t, s, b, 60, true)
	check("one granted, one waiting", 60, 1)
	s.done(a)
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	check("the first done", 60, 0)
	s.done(b)
	check("both done", 0, 0)
}
