package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestShedIdle leaves more keep-alive connections idle than a server
// holds: it closes idle ones, so that a new client is answered, and
// keeps connections alive again once they are few.
func TestShedIdle(t *testing.T) {
	s, _ := newTestServer(t, Config{}, nil)
	ts := httptest.NewUnstartedServer(s)
	ShedIdle(ts.Config, 10, discardLogger())
	ts.Start()
	defer ts.Close()
	get := func(c net.Conn) (*http.Response, error) {
		if _, err := io.WriteString(c, "GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
		}
		return resp, err
	}
	var conns []net.Conn
	for range 12 {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := get(c); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		time.Sleep(10 * time.Millisecond) // the server marks it idle
	}
	closed := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed < 5 {
		t.Errorf("%d of 12 idle connections closed by a server that holds 10", closed)
	}
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := get(c)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Errorf("a new client after the shedding: %v %v, want 200 kept alive", resp, err)
	}
}
