package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// HTTP is the Streamable HTTP transport (basic/transports/streamable-http.mdx).
// Every message is its own POST; the server answers with one JSON object or
// with an SSE stream scoped to the request, and the client must accept both.
type HTTP struct {
	// URL is the MCP endpoint.
	URL string
	// Header holds headers added to every request (for example
	// Authorization); per-request headers win.
	Header http.Header
	// Client sends the requests; nil uses a client made for this transport.
	Client *http.Client
	// MaxBytes caps each answer; 0 means DefaultMaxMessageBytes.
	MaxBytes int64
	// Observer, if set, is told about every exchange.
	Observer Observer

	// health is shared by the transports of one target (and Fresh copies),
	// so that a hung server trips the breaker once for all of them.
	health *health
	anomalies

	mu        sync.Mutex
	sessionID string // legacy (2025-11-25) sessions only
	once      sync.Once
	client    *http.Client
}

var _ Transport = (*HTTP)(nil)

// NewHTTPClient returns an http.Client suited to probing one server: no
// overall timeout (each request carries a context deadline), keep-alive
// connections for the concurrent checks, and no proxy surprises beyond the
// environment's.
func NewHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	tr.ResponseHeaderTimeout = 0
	watchIdle(tr) // idlebytes.go: bytes after a response are a finding
	return &http.Client{
		Transport: tr,
		// Redirects are followed by net/http only for 307/308 with a body;
		// a server that redirects its MCP endpoint is reported as is.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (h *HTTP) httpClient() *http.Client {
	h.once.Do(func() {
		h.client = h.Client
		if h.client == nil {
			h.client = NewHTTPClient()
		}
		attachIdle(h.client, h.record)
		if h.health == nil {
			h.health = &health{}
		}
	})
	return h.client
}

func (h *HTTP) healthState() *health {
	h.httpClient()
	return h.health
}

// Fresh returns a transport to the same endpoint that shares no connection
// with h, for checks that a server does not vary by connection.
func (h *HTTP) Fresh() *HTTP {
	return &HTTP{URL: h.URL, Header: h.Header.Clone(), Client: NewHTTPClient(), MaxBytes: h.MaxBytes, Observer: h.Observer, health: h.healthState()}
}

// SetSession sets (or clears) the legacy Mcp-Session-Id sent on requests.
func (h *HTTP) SetSession(id string) {
	h.mu.Lock()
	h.sessionID = id
	h.mu.Unlock()
}

func (h *HTTP) session() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessionID
}

func (h *HTTP) maxBytes() int64 {
	if h.MaxBytes > 0 {
		return h.MaxBytes
	}
	return DefaultMaxMessageBytes
}

// Close releases idle connections.
func (h *HTTP) Close() error {
	h.httpClient().CloseIdleConnections()
	return nil
}

// Exchange implements Transport.
func (h *HTTP) Exchange(ctx context.Context, out *Outgoing) (x *Exchange, err error) {
	start := time.Now()
	x = &Exchange{Sent: out.Body}
	defer func() { finish(h.Observer, out, x, start, len(x.Body), err) }()
	// The request has a cancel of its own, so that the tail of an SSE
	// stream read after the response (readSSE) can be cut short.
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	seen := &httpSeen{}
	req, err := h.newRequest(httptrace.WithClientTrace(rctx, seen.trace()), out)
	if err != nil {
		return x, err
	}
	x.SentHeader = req.Header.Clone()
	if req.Host != "" && out.Header.Get("Host") != "" {
		x.SentHeader.Set("Host", req.Host)
	}

	resp, err := h.httpClient().Do(req)
	if err != nil {
		return x, seen.fail(out.Method, nil, classifyNetErr(ctx, out.Method, err))
	}
	defer resp.Body.Close()
	x.Status = resp.StatusCode
	x.Header = resp.Header.Clone()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x.ContentType = ct
	seen.status, seen.sse = resp.StatusCode, ct == "text/event-stream"

	// The request's context bounds the whole answer, body included: a body
	// that trickles or never comes ends at the deadline like a missing
	// header does. Every byte read is charged to the shared answer budget
	// (budget.go); net/http has already undone a gzip Content-Encoding, so
	// the limit counts decompressed bytes.
	g := &grant{ctx: ctx, limit: h.maxBytes()}
	defer g.done()
	framed := &framedBody{r: resp.Body} // framing.go
	answer := &budgetReader{r: seen.reader(framed), g: g}
	if ct == "text/event-stream" && out.ID == nil && req.Method != http.MethodPost {
		// A GET (or DELETE) carries no JSON-RPC message to answer: the
		// status and an event stream are the whole answer, and the
		// standalone stream of the earlier revisions stays open until the
		// client leaves, so it is not read.
		return x, nil
	}
	if ct == "text/event-stream" {
		err = h.readSSE(ctx, answer, out, x, rcancel)
	} else {
		err = h.readJSON(answer, out, x, resp.ContentLength)
	}
	h.noteFraming(rctx, out, resp, framed, x)
	if err != nil {
		return x, seen.fail(out.Method, x, classifyNetErr(ctx, out.Method, err))
	}
	return x, nil
}

// newRequest builds the HTTP request for out: POST by default, both media
// types in Accept, the transport's headers, then the call's (which win),
// less those out omits.
func (h *HTTP) newRequest(ctx context.Context, out *Outgoing) (*http.Request, error) {
	method := out.HTTPMethod
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(out.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.URL, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	// The client MUST list both media types in Accept (§Sending Messages).
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range h.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if sid := h.session(); sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	for k, vs := range out.Header {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	for _, k := range out.Omit {
		req.Header.Del(k)
	}
	// A Host header set on the call replaces the request's Host (net/http
	// sends req.Host, not Header["Host"]): the DNS-rebinding probe.
	if hv := req.Header.Get("Host"); hv != "" {
		req.Host = hv
		req.Header.Del("Host")
	}
	return req, nil
}

// readJSON reads a JSON answer; size is its Content-Length (-1 when
// unknown, as after net/http undid a gzip Content-Encoding).
func (h *HTTP) readJSON(r io.Reader, out *Outgoing, x *Exchange, size int64) error {
	limit := h.maxBytes()
	b, err := readCapped(r, limit, size)
	if errors.Is(err, errLimit) {
		b = cutRune(b) // an excerpt
	}
	orig := b
	b, bad := validUTF8(b)
	x.Body = b
	if bad > 0 {
		h.record(invalidUTF8("the answer to "+out.Method, orig, bad))
	}
	if errors.Is(err, errLimit) {
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil
	}
	m, perr := parseOwned(trimmed)
	if perr != nil {
		x.Invalid = append(x.Invalid, "body is not a JSON-RPC message: "+perr.Error())
		return nil
	}
	m.badUTF8 = bad
	x.Messages = append(x.Messages, m)
	if m.IsResponse() {
		x.Response = m
		if out.ID != nil && (m.ID == nil || idKey(m.ID) != idKey(out.ID)) && !idlessError(m) {
			h.record(Anomaly{Kind: AnomalyOrphan, Evidence: clip.Bytes(string(m.Raw), 200),
				Detail: "the answer to " + out.Method + " carries id " + orAbsentID(m.ID) + ", not the request's id " + string(out.ID)})
		}
	}
	return nil
}

// maxStreamMessages bounds the messages kept from one SSE stream: a stream
// of small notifications costs far more in parsed messages than in bytes.
const maxStreamMessages = 1000

// maxRawKept bounds the raw SSE bytes kept in Exchange.Body as evidence.
const maxRawKept = 1 << 20

// sseTail is how long the rest of an SSE stream is read after the
// response: the response SHOULD end the stream, so a server that ends it
// costs nothing, one that keeps it open costs this, and a second answer
// in the same stream (a duplicate) is seen, as it is on stdio.
const sseTail = 25 * time.Millisecond

// readSSE reads server-sent events until the response to out arrives and
// then the stream's end (at most sseTail more), the stream ends, or the
// size limit is hit: the limit caps the whole stream, and so every event
// in it. Comment lines (":") are keep-alives that clients must ignore;
// "data" lines of one event are joined with "\n" (the SSE specification's
// rules). cut ends the request, for the tail.
func (h *HTTP) readSSE(ctx context.Context, r io.Reader, out *Outgoing, x *Exchange, cut context.CancelFunc) error {
	limit := h.maxBytes()
	sr := &sseReader{h: h, out: out, x: x, data: &bytes.Buffer{}}
	if out.ID != nil {
		sr.want = idKey(out.ID)
	}
	br := bufio.NewReaderSize(&countingReader{r: r, limit: limit}, 64<<10)
	for {
		start := sr.data.Len()
		err := readLineInto(br, &sr.data, limit)
		line := sr.data.Bytes()[start:]
		sr.keepRaw(line)
		if err != nil && len(line) == 0 {
			sr.data.Truncate(start)
			if sr.answered {
				// The tail ended (the stream's end, the cut, the limit):
				// the answer is in.
				sr.dispatch()
				x.Body = sr.body()
				return nil
			}
			return sr.end(err, limit)
		}
		if sr.line(line, start) && !sr.answered {
			sr.answered = true
			if out.ID == nil {
				x.Body = sr.body()
				return nil
			}
			time.AfterFunc(sseTail, cut)
		}
		if ctx.Err() != nil {
			x.Body = sr.body()
			if sr.answered {
				return nil
			}
			return ctx.Err()
		}
	}
}

// sseReader is the state of one SSE answer being read.
type sseReader struct {
	h   *HTTP
	out *Outgoing
	x   *Exchange
	raw bytes.Buffer // the stream as read, up to maxRawKept, for x.Body
	// data holds the current event's data; each line is read into its end
	// and cut back if it is not a data line, so an event is buffered once.
	data     *bytes.Buffer
	haveData bool
	want     string // idKey of the request's id; "" for a notification
	answered bool   // the response has arrived; the rest is the tail
}

// body is the stream as kept, valid UTF-8 (each event was checked as it
// was dispatched).
func (sr *sseReader) body() []byte {
	b, _ := validUTF8(cutRune(sr.raw.Bytes()))
	return b
}

func (sr *sseReader) keepRaw(line []byte) {
	if sr.raw.Len() < maxRawKept {
		sr.raw.Write(line[:min(len(line), maxRawKept-sr.raw.Len())])
		sr.raw.WriteByte('\n')
	}
}

// line handles one line, read into data at start; it reports whether the
// response has arrived.
func (sr *sseReader) line(line []byte, start int) bool {
	switch {
	case len(line) == 0:
		sr.data.Truncate(start)
		return sr.dispatch()
	case line[0] == ':':
		// comment / keep-alive
		sr.data.Truncate(start)
		return false
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	if string(field) != "data" {
		sr.data.Truncate(start)
		return false
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	// Move the value to where the line began: after "\n" when it continues
	// an event, else at the start.
	b := sr.data.Bytes()
	at := start
	if sr.haveData {
		b[at] = '\n'
		at++
	}
	n := copy(b[at:], value)
	sr.data.Truncate(at + n)
	sr.haveData = true
	return false
}

// end finishes a stream that stopped with err: the end of the body, the
// size limit, or a read error.
func (sr *sseReader) end(err error, limit int64) error {
	sr.x.Body = sr.body()
	switch {
	case errors.Is(err, io.EOF):
		sr.dispatch()
		if sr.x.Response == nil && sr.out.ID != nil {
			return fmt.Errorf("%w: SSE stream ended without a response", ErrClosed)
		}
		return nil
	case errors.Is(err, errLimit):
		sr.x.Body = cutRune(sr.x.Body[:min(len(sr.x.Body), excerptBytes)])
		n := sr.data.Cap()
		sr.data = nil
		refusedBig(n)
		if sr.x.Response == nil && sr.out.ID != nil {
			return &floodError{method: sr.out.Method, limit: limit, messages: len(sr.x.Messages) + sr.x.Dropped}
		}
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	return err
}

// dispatch parses the event buffered in data; it reports whether it was
// the response to the request.
func (sr *sseReader) dispatch() bool {
	if !sr.haveData {
		return false
	}
	payload := sr.data.Bytes()
	sr.haveData = false
	if len(bytes.TrimSpace(payload)) == 0 {
		sr.data.Reset()
		return false
	}
	x, out := sr.x, sr.out
	if sr.answered {
		sr.tail(payload)
		return false
	}
	orig := payload
	payload, bad := validUTF8(payload)
	if bad > 0 {
		sr.h.record(invalidUTF8("an SSE event of the answer to "+out.Method, orig, bad))
	}
	m, err := parseOwned(payload)
	// The message owns the bytes now; start a new buffer.
	sr.data = &bytes.Buffer{}
	if err != nil {
		x.Invalid = appendCapped(x.Invalid, "SSE event is not a JSON-RPC message: "+err.Error())
		sr.h.record(Anomaly{Kind: AnomalyNonJSON, Detail: "an SSE event of the answer to " + out.Method + " is not a JSON-RPC message: " + err.Error(), Evidence: clip.Bytes(string(payload), 200)})
		return false
	}
	m.badUTF8 = bad
	if len(x.Messages) < maxStreamMessages {
		x.Messages = append(x.Messages, m)
	} else {
		x.Dropped++
	}
	if !m.IsResponse() {
		return false
	}
	if sr.want == "" || idKey(m.ID) == sr.want {
		x.Response = m
		// The final response SHOULD end the stream: what follows is read
		// for sseTail at most (readSSE).
		return true
	}
	if !idlessError(m) {
		sr.h.record(Anomaly{Kind: AnomalyOrphan, Detail: "the SSE stream answering " + out.Method + " carries a response to id " + orAbsentID(m.ID) + ", not to the request's id " + string(out.ID), Evidence: clip.Bytes(string(m.Raw), 200)})
	}
	if x.Response == nil {
		// An answer with another id: keep it (the caller reports the
		// mismatch) but read on in case the right one follows.
		x.Response = m
	}
	return false
}

// tail looks at an event after the response, for a second answer to the
// same request (a duplicate, as stdio sees it). Nothing else there is this
// request's business: a server of the earlier revisions may put its answer
// to another request on the stream, as it may on any open one.
func (sr *sseReader) tail(payload []byte) {
	sr.data = &bytes.Buffer{}
	payload, _ = validUTF8(payload)
	m, err := parseOwned(payload)
	if err != nil || !m.IsResponse() || m.ID == nil || idKey(m.ID) != sr.want {
		return
	}
	sr.h.record(Anomaly{Kind: AnomalyDuplicate, Detail: "the SSE stream answering " + sr.out.Method + " carries a second response to id " + clip.Bytes(string(m.ID), 60), Evidence: clip.Bytes(string(m.Raw), 200)})
}

var errLimit = errors.New("limit reached")

type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.limit {
		return 0, errLimit
	}
	if int64(len(p)) > c.limit-c.n {
		p = p[:c.limit-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readLineInto appends one line ending in \n, \r\n or \r (as SSE allows)
// to buf, without the terminator, scanning what is buffered rather than
// byte by byte. The caller's countingReader bounds it.
func readLineInto(br *bufio.Reader, bufp **bytes.Buffer, limit int64) error {
	for {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				return err
			}
		}
		b, _ := br.Peek(br.Buffered())
		growOnce(bufp, len(b), limit)
		buf := *bufp
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			buf.Write(b)
			br.Discard(len(b)) //nolint:errcheck // buffered
			continue
		}
		buf.Write(b[:i])
		br.Discard(i + 1) //nolint:errcheck // buffered
		if b[i] == '\r' {
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				br.Discard(1) //nolint:errcheck // peeked
			}
		}
		return nil
	}
}

// growOnce sizes *bufp for the rest of a large answer in one step once it
// passes the free allowance, so that a buffer near the limit is not the double of it that repeated
// doubling leaves (the stream's countingReader keeps it within limit).
func growOnce(bufp **bytes.Buffer, more int, limit int64) {
	buf := *bufp
	if n := buf.Len() + more; n > buf.Cap() && n > freeAnswerBytes {
		big := append(make([]byte, 0, max(limit, int64(n))+1), buf.Bytes()...)
		*bufp = bytes.NewBuffer(big)
	}
}

// classifyNetErr turns net/http failures into the package's errors: a
// deadline becomes a TimeoutError, a refused connection ErrUnreachable.
func classifyNetErr(ctx context.Context, method string, err error) error {
	if errors.Is(err, errLimit) {
		return ErrTooLarge
	}
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrClosed) {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		// The run was interrupted (SIGINT/SIGTERM): not the server's fault.
		return fmt.Errorf("%s: %w", method, context.Canceled)
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return &TimeoutError{Method: method, After: deadlineSpan(ctx)}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if strings.Contains(err.Error(), "unsupported protocol scheme") {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return err
}

type spanKey struct{}

// WithTimeout is context.WithTimeout that remembers the span, so a timeout
// error can say how long it waited.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx = context.WithValue(ctx, spanKey{}, d)
	return context.WithTimeout(ctx, d)
}

func deadlineSpan(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(spanKey{}).(time.Duration); ok {
		return d
	}
	return 0
}
