// Package passthrough is the listener of --passthrough-listener: an HTTP
// server a server's team points the server's upstream at, so that a token
// the server forwards there instead of one of its own can be seen. The
// authorization chapter's security considerations (Access Token Privilege
// Restriction) forbid it: "The MCP server MUST NOT pass through the token
// it received from the MCP client"
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations).
//
// The listener records what arrives (bounded) and answers every request
// 502: it is not an upstream, and a server that takes its answer for one
// sees an error rather than data.
package passthrough

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds: what one run may leave in memory.
const (
	MaxRequests = 200
	MaxBody     = 64 << 10
)

// Request is one request that reached the listener.
type Request struct {
	Method, URL string
	Header      http.Header
	Body        []byte
	At          time.Time
}

// Listener records the requests that reach it: the first MaxRequests/2,
// and the latest MaxRequests/2 after them (the listener lives through the
// whole run, and the model layers' tool calls come last: a token they
// carry must not be lost because the conformance probes filled the
// record), counting those in between that were let go.
type Listener struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	reqs    []Request // the first MaxRequests/2
	latest  []Request // a ring of the latest MaxRequests/2 after them
	next    int       // where the ring's next request goes
	dropped int
}

// Listen starts the listener on addr (HOST:PORT).
func Listen(addr string) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &Listener{ln: ln}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		MaxHeaderBytes: 64 << 10}
	go func() { _ = l.srv.Serve(ln) }()
	return l, nil
}

// Addr is the address the listener is bound to.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

func (l *Listener) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, MaxBody))
	req := Request{Method: r.Method, URL: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, At: time.Now()}
	l.mu.Lock()
	switch half := MaxRequests / 2; {
	case len(l.reqs) < half:
		l.reqs = append(l.reqs, req)
	case len(l.latest) < MaxRequests-half:
		l.latest = append(l.latest, req)
	default:
		l.latest[l.next] = req
		l.next = (l.next + 1) % len(l.latest)
		l.dropped++
	}
	l.mu.Unlock()
	http.Error(w, "mcp-eval passthrough listener: not an upstream", http.StatusBadGateway)
}

// Requests returns what is kept of what arrived so far, in the order it
// arrived, and how many requests were not kept (beyond MaxRequests, those
// between the first and the latest).
func (l *Listener) Requests() ([]Request, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Request(nil), l.reqs...)
	out = append(out, l.latest[l.next:]...)
	return append(out, l.latest[:l.next]...), l.dropped
}

// Close stops the listener within a second.
func (l *Listener) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := l.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return l.srv.Close()
	}
	return err
}
