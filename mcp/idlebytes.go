package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// Bytes after a complete response. RFC 9112 §6.3
// (https://www.rfc-editor.org/rfc/rfc9112#section-6.3): "If the final
// response to the last request on a connection has been completely received
// and there remains additional data to read, a user agent MAY discard the
// remaining data ... A client MUST NOT process, cache, or forward such extra
// data as a separate response". net/http discards them, logging
// "Unsolicited response received on idle HTTP channel" through the standard
// logger, and closes the connection; no error reaches the caller. A
// Content-Length counted in characters rather than bytes is enough to
// cause it. To make it a finding with evidence, mcp-eval's own HTTP
// clients dial through idleWatch: each plain-HTTP connection's bytes are
// followed by a passive HTTP/1.1 response framer (it reads what the
// transport reads, never changes it), and bytes that arrive after a final
// response while no request is outstanding are recorded as an
// AnomalyFraming on the transport that owns the client. TLS connections
// and connections through a CONNECT tunnel are not followed (their bytes
// are encrypted here); neither is HTTP/2, which frames every byte.

// idleWatch installs the framer on an http.Transport's connections and
// says where findings go.
type idleWatch struct {
	mu   sync.Mutex
	sink func(Anomaly) // the first transport to use the client
}

func (w *idleWatch) attach(sink func(Anomaly)) {
	w.mu.Lock()
	if w.sink == nil {
		w.sink = sink
	}
	w.mu.Unlock()
}

func (w *idleWatch) record(a Anomaly) {
	w.mu.Lock()
	sink := w.sink
	w.mu.Unlock()
	if sink != nil {
		sink(a)
	}
}

// watches maps the transports NewHTTPClient made to their idleWatch, so
// that the HTTP transport using one can attach to it.
var watches sync.Map // *http.Transport → *idleWatch

// watchIdle makes tr's connections followed by the framer.
func watchIdle(tr *http.Transport) {
	w := &idleWatch{}
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: c, w: w, addr: addr}, nil
	}
	watches.Store(tr, w)
}

// attachIdle sends the findings of c's connections to sink, when c is a
// client NewHTTPClient made.
func attachIdle(c *http.Client, sink func(Anomaly)) {
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		return
	}
	if w, ok := watches.Load(tr); ok {
		w.(*idleWatch).attach(sink)
	}
}

// watchedConn is a connection whose reads are followed by a framer.
type watchedConn struct {
	net.Conn
	w    *idleWatch
	addr string

	mu sync.Mutex
	f  framer
}

func (c *watchedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.f.wrote(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		extra := c.f.read(p[:n])
		c.mu.Unlock()
		if extra != nil {
			c.w.record(Anomaly{Kind: AnomalyFraming, Evidence: clip.Bytes(string(extra), 200),
				Detail: fmt.Sprintf("the server sent %s after a complete response, with no request outstanding, on a connection to %s (a Content-Length too small for its body, or a stray write)", plural(len(extra), "byte"), c.addr)})
		}
	}
	return n, err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// framer follows HTTP/1.1 responses (RFC 9112 §6.3) on the bytes a
// connection reads, as far as it needs to know where each ends. It never
// fails: on anything it cannot follow it stops (off), and net/http's own
// reading of the same bytes reports what is wrong with them.
type framer struct {
	state     framerState
	started   bool // the first write was seen
	awaiting  bool // a request was written whose final response has not ended
	head      bool // the outstanding request is a HEAD
	buf       []byte
	remaining int64 // body bytes (or chunk bytes) still to come
}

type framerState int

const (
	fsHeader    framerState = iota // reading a status line and header fields
	fsBody                         // a Content-Length body: remaining bytes
	fsChunkSize                    // a chunk-size line
	fsChunkData                    // remaining bytes of chunk data
	fsChunkCRLF                    // the CRLF after chunk data
	fsTrailer                      // trailer lines up to the empty line
	fsOff                          // not followed (TLS, a tunnel, a body to EOF, a confusion)
)

// maxFramerLine bounds a header section or a chunk line the framer holds.
const maxFramerLine = 64 << 10

// wrote notes a request being written.
func (f *framer) wrote(p []byte) {
	if !f.started {
		f.started = true
		// Plain HTTP/1.1 starts with a method token and a space; a TLS
		// handshake (0x16) or a CONNECT tunnel is not followed.
		if !plainRequest(p) {
			f.state = fsOff
		}
	}
	if f.state == fsOff || len(p) == 0 {
		return
	}
	if !f.awaiting {
		f.awaiting = true
		f.head = bytes.HasPrefix(p, []byte("HEAD "))
	}
}

func plainRequest(p []byte) bool {
	sp := bytes.IndexByte(p, ' ')
	if sp <= 0 || sp > 16 {
		return false
	}
	for _, c := range p[:sp] {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return !bytes.HasPrefix(p, []byte("CONNECT "))
}

// read follows p, bytes the connection read; it returns the bytes that
// came after a complete final response with no request outstanding (the
// finding), nil otherwise. It stops following the connection after such
// bytes: net/http closes it.
func (f *framer) read(p []byte) []byte {
	for len(p) > 0 {
		switch f.state {
		case fsOff:
			return nil
		case fsHeader:
			if !f.awaiting && len(f.buf) == 0 {
				f.state = fsOff
				return p
			}
			f.buf = append(f.buf, p...)
			end := bytes.Index(f.buf, []byte("\r\n\r\n"))
			if end < 0 {
				if len(f.buf) > maxFramerLine {
					f.state = fsOff
				}
				return nil
			}
			rest := f.buf[end+4:]
			f.header(f.buf[:end])
			p = append([]byte(nil), rest...)
			f.buf = f.buf[:0]
		case fsBody:
			n := min(int64(len(p)), f.remaining)
			f.remaining -= n
			p = p[n:]
			if f.remaining == 0 {
				f.done()
			}
		case fsChunkSize, fsTrailer, fsChunkCRLF:
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				f.buf = append(f.buf, p...)
				if len(f.buf) > maxFramerLine {
					f.state = fsOff
				}
				return nil
			}
			line := append(f.buf, p[:i]...)
			p = p[i+1:]
			f.buf = f.buf[:0]
			f.line(bytes.TrimSuffix(line, []byte("\r")))
		case fsChunkData:
			n := min(int64(len(p)), f.remaining)
			f.remaining -= n
			p = p[n:]
			if f.remaining == 0 {
				f.state = fsChunkCRLF
			}
		}
	}
	return nil
}

// header reads a status line and header fields (without the empty line)
// and sets what follows.
func (f *framer) header(h []byte) {
	lines := bytes.Split(h, []byte("\r\n"))
	status := lines[0]
	if !bytes.HasPrefix(status, []byte("HTTP/1.")) || len(status) < 12 {
		f.state = fsOff
		return
	}
	code, err := strconv.Atoi(string(status[9:12]))
	if err != nil {
		f.state = fsOff
		return
	}
	length := int64(-1)
	chunked := false
	for _, l := range lines[1:] {
		name, value, ok := bytes.Cut(l, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 || (length >= 0 && n != length) {
				f.state = fsOff
				return
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			codings := bytes.Split(value, []byte(","))
			chunked = bytes.EqualFold(bytes.TrimSpace(codings[len(codings)-1]), []byte("chunked"))
			if !chunked {
				f.state = fsOff // read to the close: nothing can come after
				return
			}
		}
	}
	switch {
	case code >= 100 && code < 200:
		f.state = fsHeader // an interim response: the final one follows
		if code == 101 {
			f.state = fsOff // switching protocols: no longer HTTP/1.1
		}
	case f.head || code == 204 || code == 304:
		f.done()
	case chunked:
		f.state = fsChunkSize
	case length >= 0:
		f.remaining = length
		if length == 0 {
			f.done()
		} else {
			f.state = fsBody
		}
	default:
		f.state = fsOff // a body to the connection's close
	}
}

// line reads one line of the chunked coding (RFC 9112 §7.1).
func (f *framer) line(l []byte) {
	switch f.state {
	case fsChunkCRLF:
		if len(l) != 0 {
			f.state = fsOff
			return
		}
		f.state = fsChunkSize
	case fsChunkSize:
		size, _, _ := bytes.Cut(l, []byte(";"))
		size = bytes.TrimSpace(size)
		n, err := strconv.ParseInt(string(size), 16, 64)
		if err != nil || n < 0 || len(size) == 0 || len(size) > 15 {
			f.state = fsOff
			return
		}
		if n == 0 {
			f.state = fsTrailer
			return
		}
		f.remaining, f.state = n, fsChunkData
	case fsTrailer:
		if len(l) == 0 {
			f.done()
		}
	}
}

// done ends a final response: the connection is idle until the next
// request is written.
func (f *framer) done() {
	f.state, f.awaiting, f.head, f.remaining = fsHeader, false, false, 0
}
