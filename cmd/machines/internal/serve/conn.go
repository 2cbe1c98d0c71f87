package serve

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// Listener returns ln with its connections wrapped so that the refusals
// net/http writes itself, before a request reaches the server (a path
// with a bad escape, a malformed request line, headers too large, an
// Expect header other than 100-continue), are the protocol's JSON
// errors like every other answer of the server.
func Listener(ln net.Listener) net.Listener { return jsonListener{ln} }

type jsonListener struct{ net.Listener }

func (l jsonListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return jsonConn{c}, nil
}

// jsonConn rewrites net/http's plain-text refusals into JSON.
type jsonConn struct{ net.Conn }

// plainRefusal ends the headers of net/http's own refusals, which it
// writes to the connection in one call: "HTTP/1.1 400 Bad Request",
// these headers, then the text.
const plainRefusal = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// emptyExpectationFailed ends net/http's answer to an Expect header
// other than 100-continue, "HTTP/1.1 417 Expectation Failed" and its
// headers, without a body.
const emptyExpectationFailed = "\r\nContent-Length: 0\r\n\r\n"

func (c jsonConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 4")) && !bytes.HasPrefix(p, []byte("HTTP/1.1 5")) {
		return c.Conn.Write(p)
	}
	var b []byte
	if status, text, ok := bytes.Cut(p, []byte(plainRefusal)); ok {
		b = append(b, status...)
		b = append(b, "\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"...)
		b = append(b, `{"error":`...)
		b = appendString(b, string(text))
		b = append(b, "}\n"...)
	} else if head, ok := bytes.CutSuffix(p, []byte(emptyExpectationFailed)); ok && bytes.HasPrefix(p, []byte("HTTP/1.1 417 ")) {
		const msg = `{"error":"Expect: this server knows only 100-continue"}` + "\n"
		b = append(b, head...)
		b = append(b, "\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(msg))+"\r\n\r\n"+msg...)
	} else {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite closes the writing side of a TCP connection, which
// net/http does after a refusal so that the client reads the answer
// before the connection is reset.
func (c jsonConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ShedIdle has hs close its idle keep-alive connections once it holds
// max connections, and keep none alive until it holds max/2: a client
// may keep idle connections for hs.IdleTimeout, and enough of them
// take every file the process may open, so that no one else, the
// health checks included, could connect. It sets hs.ConnState, and
// logs when shedding starts and ends.
func ShedIdle(hs *http.Server, max int, log *slog.Logger) {
	var (
		mu       sync.Mutex
		open     int
		shedding bool
	)
	hs.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateActive || state == http.StateIdle {
			return // each request's, and no change in the connections
		}
		mu.Lock()
		defer mu.Unlock()
		if state == http.StateNew {
			open++
		} else {
			open--
		}
		switch {
		case !shedding && open >= max:
			shedding = true
			log.Warn("too many connections: closing the idle ones, keeping none alive until they are half as many", "connections", open, "max", max)
			hs.SetKeepAlivesEnabled(false) // the closed connections call back from their goroutines
		case shedding && open <= max/2:
			shedding = false
			hs.SetKeepAlivesEnabled(true)
			log.Info("connections keep alive again", "connections", open)
		}
	}
}
