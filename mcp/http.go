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
	"strings"
	"sync"
	"time"
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
	})
	return h.client
}

// Fresh returns a transport to the same endpoint that shares no connection
// with h, for checks that a server does not vary by connection.
func (h *HTTP) Fresh() *HTTP {
	return &HTTP{URL: h.URL, Header: h.Header.Clone(), Client: NewHTTPClient(), MaxBytes: h.MaxBytes, Observer: h.Observer}
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
	defer func() {
		x.Duration = time.Since(start)
		if h.Observer != nil {
			h.Observer.RequestDone(out.Method, out.Name, x.Duration, len(x.Body), err)
		}
	}()
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
		return x, fmt.Errorf("build request: %w", err)
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
	x.SentHeader = req.Header.Clone()
	if req.Host != "" && out.Header.Get("Host") != "" {
		x.SentHeader.Set("Host", req.Host)
	}

	resp, err := h.httpClient().Do(req)
	if err != nil {
		return x, classifyNetErr(ctx, out.Method, err)
	}
	defer resp.Body.Close()
	x.Status = resp.StatusCode
	x.Header = resp.Header.Clone()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x.ContentType = ct

	if ct == "text/event-stream" {
		err = h.readSSE(ctx, resp.Body, out, x)
	} else {
		err = h.readJSON(resp.Body, out, x)
	}
	if err != nil {
		return x, classifyNetErr(ctx, out.Method, err)
	}
	return x, nil
}

func (h *HTTP) readJSON(r io.Reader, out *Outgoing, x *Exchange) error {
	limit := h.maxBytes()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	x.Body = b
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if int64(len(b)) > limit {
		x.Body = b[:limit]
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil
	}
	m, perr := ParseMessage(trimmed)
	if perr != nil {
		x.Invalid = append(x.Invalid, "body is not a JSON-RPC message: "+perr.Error())
		return nil
	}
	x.Messages = append(x.Messages, m)
	if m.IsResponse() {
		x.Response = m
	}
	return nil
}

// readSSE reads server-sent events until the response to out arrives, the
// stream ends, or the size limit is hit. Comment lines (":") are keep-alives
// that clients must ignore; "data" lines of one event are joined with "\n"
// (the SSE specification's rules).
func (h *HTTP) readSSE(ctx context.Context, r io.Reader, out *Outgoing, x *Exchange) error {
	limit := h.maxBytes()
	counted := &countingReader{r: r, limit: limit}
	br := bufio.NewReaderSize(counted, 64<<10)
	var raw bytes.Buffer
	var data bytes.Buffer
	haveData := false
	want := ""
	if out.ID != nil {
		want = idKey(out.ID)
	}
	dispatch := func() bool {
		if !haveData {
			return false
		}
		payload := data.Bytes()
		haveData = false
		if len(bytes.TrimSpace(payload)) == 0 {
			data.Reset()
			return false
		}
		m, err := ParseMessage(payload)
		if err != nil {
			x.Invalid = append(x.Invalid, "SSE event is not a JSON-RPC message: "+err.Error())
			data.Reset()
			return false
		}
		data.Reset()
		x.Messages = append(x.Messages, m)
		if m.IsResponse() {
			if want == "" || idKey(m.ID) == want {
				x.Response = m
				// The final response SHOULD end the stream; stop reading at
				// it rather than wait for a server that keeps it open.
				return true
			}
			if x.Response == nil {
				// An answer with another id: keep it (the caller reports
				// the mismatch) but read on in case the right one follows.
				x.Response = m
			}
		}
		return false
	}
	for {
		line, err := readLine(br, limit)
		if len(raw.Bytes()) < 1<<20 {
			raw.Write(line)
			raw.WriteByte('\n')
		}
		if err != nil && len(line) == 0 {
			x.Body = raw.Bytes()
			if errors.Is(err, io.EOF) {
				dispatch()
				if x.Response == nil && out.ID != nil {
					return fmt.Errorf("%w: SSE stream ended without a response", ErrClosed)
				}
				return nil
			}
			if errors.Is(err, errLimit) {
				return fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
			}
			return err
		}
		switch {
		case len(line) == 0:
			if dispatch() {
				x.Body = raw.Bytes()
				return nil
			}
		case line[0] == ':':
			// comment / keep-alive
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if haveData {
					data.WriteByte('\n')
				}
				data.Write(value)
				haveData = true
			}
		}
		if ctx.Err() != nil {
			x.Body = raw.Bytes()
			return ctx.Err()
		}
	}
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

// readLine reads one line ending in \n, \r\n or \r (as SSE allows), without
// the terminator, refusing lines longer than limit.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			return line, err
		}
		switch b {
		case '\n':
			return line, nil
		case '\r':
			if next, err := br.Peek(1); err == nil && next[0] == '\n' {
				br.ReadByte() //nolint:errcheck // peeked
			}
			return line, nil
		}
		line = append(line, b)
		if int64(len(line)) > limit {
			return nil, errLimit
		}
	}
}

// classifyNetErr turns net/http failures into the package's errors: a
// deadline becomes a TimeoutError, a refused connection ErrUnreachable.
func classifyNetErr(ctx context.Context, method string, err error) error {
	if errors.Is(err, errLimit) {
		return ErrTooLarge
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
