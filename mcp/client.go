package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Era says which generation of the protocol a server speaks.
type Era string

// Eras (basic/versioning.mdx §Terminology).
const (
	EraModern  Era = "modern"  // 2026-07-28 and later: per-request _meta
	EraLegacy  Era = "legacy"  // 2025-11-25 and earlier: initialize handshake
	EraUnknown Era = "unknown" // neither probe succeeded
)

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target is a server to connect to: an HTTP endpoint or a command.
type Target interface {
	// Dial opens a transport. For a command it starts a new process, which
	// the era probe uses to fall back to initialize on a clean server.
	Dial(ctx context.Context) (Transport, error)
	// Kind is "http" or "stdio".
	Kind() string
	String() string
}

// HTTPTarget is a Streamable HTTP endpoint.
type HTTPTarget struct {
	URL      string
	Header   http.Header
	MaxBytes int64
	Observer Observer
	Client   *http.Client

	once   sync.Once
	health *health
}

// Dial implements Target; every dial shares the target's connection pool
// and its health (see Client.Do) but not its legacy session.
func (t *HTTPTarget) Dial(context.Context) (Transport, error) {
	t.once.Do(func() { t.health = &health{} })
	return &HTTP{URL: t.URL, Header: t.Header, MaxBytes: t.MaxBytes, Observer: t.Observer, Client: t.Client, health: t.health}, nil
}

// Kind implements Target.
func (t *HTTPTarget) Kind() string { return "http" }

func (t *HTTPTarget) String() string { return t.URL }

// CommandTarget is a server launched as a subprocess speaking stdio.
type CommandTarget struct{ Command Command }

// Dial implements Target by starting a new server process.
func (t *CommandTarget) Dial(ctx context.Context) (Transport, error) {
	return StartCommand(ctx, t.Command)
}

// Kind implements Target.
func (t *CommandTarget) Kind() string { return "stdio" }

func (t *CommandTarget) String() string { return t.Command.String() }

// Options configure a Client.
type Options struct {
	// ClientInfo is sent in _meta (modern) or initialize (legacy).
	ClientInfo Implementation
	// Capabilities is the clientCapabilities object sent with every request;
	// nil sends {} (no optional capabilities).
	Capabilities map[string]any
	// Timeout bounds each request; 0 means 10 seconds.
	Timeout time.Duration
	// Version forces a revision: LegacyVersion skips the server/discover
	// probe and uses initialize. Empty means LatestVersion with fallback.
	Version string
	// NoFallback keeps a client on the modern era even when the probe says
	// the server is legacy (conformance reports the probe instead).
	NoFallback bool
	// StartRequest, if set, is called as each modern request is sent: a
	// non-empty traceparent it returns replaces the random one in _meta
	// (SEP-414), so that the server's spans join the caller's trace, and end
	// is called when the exchange is over. Telemetry's OTLP exporter
	// provides it; mcp knows nothing of OpenTelemetry.
	StartRequest func(ctx context.Context, method, name string) (traceparent string, end func(error))
	// StartTimeout bounds the first answer of a stdio server (to the era
	// probe), which includes the server's start-up (`go run` compiling,
	// `npx` installing); the per-request Timeout applies after it. 0 means
	// Timeout.
	StartTimeout time.Duration
	// Waiting, if set, is called every few seconds while that first answer
	// is awaited, with the time waited so far.
	Waiting func(waited time.Duration)
}

// startKey marks a context whose request may take the start-up budget.
type startKey struct{}

// waitingEvery is how often Options.Waiting is called.
var waitingEvery = 5 * time.Second

// DiscoverResult is the part of server/discover's result a client uses.
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	Raw               json.RawMessage `json:"-"`
}

// Probe records how the era was decided, for reports.
type Probe struct {
	// Discover is the exchange of the server/discover probe, if one was sent.
	Discover *Exchange
	// DiscoverErr is the transport error of that probe.
	DiscoverErr error
	// Initialize is the legacy handshake's exchange, if one was attempted.
	Initialize    *Exchange
	InitializeErr error
	// Reason explains the decision in one sentence.
	Reason string
}

// Client talks to one server in one era. It is safe for concurrent use.
type Client struct {
	target Target
	t      Transport
	opts   Options

	era        Era
	version    string
	discover   *DiscoverResult
	initResult json.RawMessage
	probe      Probe

	ids atomic.Int64
	bg  sync.WaitGroup // transports being closed (closeLater)

	// paramHeaders is shared by the clients WithTransport derives.
	paramHeaders *paramHeaderCache
}

// paramHeaderCache maps tool names to their x-mcp-header bindings.
type paramHeaderCache struct {
	mu sync.Mutex
	m  map[string][]paramHeader
}

// Connect dials target and decides the era: it probes with server/discover
// (on both transports, so a legacy server fails deterministically rather
// than running a request under legacy rules) and falls back to the
// 2025-11-25 initialize handshake on any answer that is not a recognised
// modern one — never keyed to a single error code (basic/versioning.mdx,
// basic/transports/stdio.mdx §Backward compatibility). On stdio the
// fallback runs in a fresh process, since some legacy servers exit on an
// unknown pre-initialize request.
//
// An error wrapping ErrUnreachable means the server could not be reached at
// all (or, over HTTP, did not answer the probe in time).
func Connect(ctx context.Context, target Target, opts Options) (_ *Client, err error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo = Implementation{Name: "mcp-eval", Version: "dev"}
	}
	c := &Client{target: target, opts: opts, era: EraUnknown, paramHeaders: &paramHeaderCache{m: map[string][]paramHeader{}}}
	defer func() {
		if err != nil {
			c.bg.Wait()
		}
	}()
	if opts.Version == LegacyVersion {
		err := c.connectLegacy(ctx)
		switch {
		case err == nil:
			return c, nil
		case errors.Is(err, ErrUnreachable):
			return nil, err
		case target.Kind() == "stdio" && errors.Is(err, ErrClosed):
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		if ue := unauthorized(c.probe.Initialize); ue != nil {
			return nil, ue
		}
		if !gotJSONRPC(c.probe.Initialize) {
			return nil, notMCP(target, c.probe, err)
		}
		// The server answered, but not with a handshake: keep a transport
		// so that checks can report what it does.
		t, derr := target.Dial(ctx)
		if derr != nil {
			return nil, derr
		}
		c.t, c.era, c.version = t, EraUnknown, LegacyVersion
		return c, nil
	}
	t, err := target.Dial(ctx)
	if err != nil {
		return nil, err
	}
	c.t = t
	c.version = LatestVersion
	c.era = EraModern
	x, err := c.doFirst(ctx, c.NewCall("server/discover", nil))
	c.probe.Discover, c.probe.DiscoverErr = x, err
	if ue := unauthorized(x); ue != nil {
		t.Close()
		return nil, ue
	}
	modern, reason, fatal := classifyProbe(target.Kind(), x, err)
	c.probe.Reason = reason
	if fatal != nil {
		t.Close()
		return nil, fatal
	}
	if modern {
		if x != nil && x.Response != nil && x.Response.Result != nil {
			var d DiscoverResult
			if json.Unmarshal(x.Response.Result, &d) == nil {
				d.Raw = x.Response.Result
				c.discover = &d
			}
		}
		return c, nil
	}
	if opts.NoFallback {
		c.era = EraUnknown
		return c, nil
	}
	// Legacy fallback. Over stdio the probe's process may be dead or in an
	// odd state; start over.
	if target.Kind() == "stdio" {
		// Closed while the fallback runs, so that its grace periods are
		// not added to the start of the next process.
		c.closeLater(t)
		c.t = nil
	}
	modernT := c.t
	legacyCtx := ctx
	if x := c.probe.Discover; target.Kind() == "stdio" && x != nil && x.Response != nil {
		// The fresh process starts up again: give its first answer as long
		// as the first process took for its own, twice over, within the
		// start-up budget.
		legacyCtx = context.WithValue(ctx, startKey{}, min(max(opts.StartTimeout, opts.Timeout), 2*x.Duration))
	}
	if err := c.connectLegacy(legacyCtx); err != nil {
		if errors.Is(err, ErrUnreachable) {
			return nil, err
		}
		if target.Kind() == "stdio" && errors.Is(c.probe.DiscoverErr, ErrClosed) && errors.Is(err, ErrClosed) {
			// The process exited twice without answering anything: it did
			// not start, whatever the era.
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		if !gotJSONRPC(c.probe.Discover) && !gotJSONRPC(c.probe.Initialize) {
			// Nothing at the target speaks JSON-RPC: there is nothing to
			// evaluate, and no check may pass against it.
			if modernT != nil {
				modernT.Close()
			}
			nm := notMCP(target, c.probe, err)
			if st, ok := t.(*Stdio); ok {
				nm.Stderr = urlLine(st.StderrTail())
				if nm.Stderr != "" {
					nm.Hint = "it looks like an HTTP server: start it with --server-start and point --server-url at it"
				}
			}
			return nil, nm
		}
		// Neither era answered. Keep a modern transport so that checks can
		// run and report exactly what the server does.
		c.probe.InitializeErr = err
		c.era, c.version = EraUnknown, LatestVersion
		if modernT == nil {
			if modernT, err = target.Dial(ctx); err != nil {
				return nil, err
			}
		}
		c.t = modernT
		return c, nil
	}
	if modernT != nil && modernT != c.t {
		modernT.Close()
	}
	return c, nil
}

// doFirst sends the first request of a connection. Over stdio it may take
// the start-up budget, and Options.Waiting hears about the wait.
func (c *Client) doFirst(ctx context.Context, call *Call) (*Exchange, error) {
	if c.target.Kind() != "stdio" || c.opts.StartTimeout <= c.opts.Timeout {
		return c.Do(ctx, call)
	}
	ctx = context.WithValue(ctx, startKey{}, c.opts.StartTimeout)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, _ := c.t.(*Stdio)
	stop := make(chan struct{})
	defer close(stop)
	var gaveUp atomic.Bool
	start := time.Now()
	every := waitingEvery
	go func() {
		tick := time.NewTicker(startPoll)
		defer tick.Stop()
		next := every
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			waited := time.Since(start)
			if c.opts.Waiting != nil && waited >= next {
				c.opts.Waiting(waited)
				next += every
			}
			// An HTTP server given as a stdio command names its URL on
			// stderr and never writes stdout: past the ordinary timeout,
			// that is no slow start.
			if st != nil && waited >= c.opts.Timeout && st.silent() && urlLine(st.StderrTail()) != "" {
				gaveUp.Store(true)
				cancel()
				return
			}
		}
	}()
	x, err := c.Do(ctx, call)
	if err != nil && gaveUp.Load() {
		err = &TimeoutError{Method: call.Method, After: time.Since(start)}
	}
	return x, err
}

// startPoll is how often the start-up wait looks at the server.
const startPoll = 100 * time.Millisecond

// urlLine returns the last line of s that names an http(s) URL.
func urlLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Contains(l, "http://") || strings.Contains(l, "https://") {
			return truncate(l, 200)
		}
	}
	return ""
}

// unauthorized returns an *UnauthorizedError for a 401 or 403 answer.
func unauthorized(x *Exchange) error {
	if x == nil || (x.Status != http.StatusUnauthorized && x.Status != http.StatusForbidden) {
		return nil
	}
	return &UnauthorizedError{Status: x.Status, Challenge: x.Header.Get("WWW-Authenticate")}
}

// gotJSONRPC reports whether an exchange received any JSON-RPC message: a
// response or a request or notification (a JSON object with neither, such
// as another service's {"status":"ok"}, is not one).
func gotJSONRPC(x *Exchange) bool {
	if x == nil {
		return false
	}
	for _, m := range x.Messages {
		if m.IsResponse() || m.Method != "" {
			return true
		}
	}
	return x.Response != nil
}

// notMCP describes what came back when neither probe got JSON-RPC.
func notMCP(target Target, p Probe, lastErr error) *NotMCPError {
	e := &NotMCPError{}
	x := p.Discover
	if p.Initialize != nil && (x == nil || x.Status == 0) {
		x = p.Initialize
	}
	switch {
	case x != nil && x.Status != 0:
		ct := x.ContentType
		if ct == "" {
			ct = "no content type"
		}
		e.Got = fmt.Sprintf("HTTP %d, %s", x.Status, ct)
		if b := bytes.TrimSpace(x.Body); len(b) > 0 {
			e.Got += fmt.Sprintf(", body %q", truncate(string(b), 120))
		} else {
			e.Got += ", empty body"
		}
		if x.Status == http.StatusNotFound {
			e.Hint = "check the path of --server-url (the MCP endpoint is often /mcp)"
		}
	case p.DiscoverErr != nil:
		e.Got = p.DiscoverErr.Error()
		if lastErr != nil {
			e.Got += "; " + lastErr.Error()
		}
	default:
		e.Got = "no JSON-RPC message came back"
	}
	if target.Kind() == "stdio" {
		e.Got = "the process wrote no JSON-RPC message on stdout: " + e.Got
	}
	return e
}

// classifyProbe decides from the server/discover answer whether the server
// is modern. fatal is set when the server could not be reached at all.
func classifyProbe(kind string, x *Exchange, err error) (modern bool, reason string, fatal error) {
	if err != nil {
		if errors.Is(err, ErrUnreachable) {
			return false, "", err
		}
		var te *TimeoutError
		if kind == "http" && errors.As(err, &te) {
			// Over HTTP a probe timeout is an outage, not evidence of a
			// legacy server.
			return false, "", fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		return false, "server/discover got no usable answer (" + err.Error() + "); trying the legacy handshake", nil
	}
	if x.Response == nil {
		return false, fmt.Sprintf("server/discover got no JSON-RPC answer (HTTP %d); trying the legacy handshake", x.Status), nil
	}
	if x.Response.Error == nil {
		return true, "server/discover answered with a result", nil
	}
	switch code := x.Response.Error.Code; {
	case code == CodeHeaderMismatch || code == CodeMissingRequiredClientCapability:
		return true, fmt.Sprintf("server/discover answered with the modern error %d", code), nil
	case code == CodeUnsupportedProtocolVersion:
		var data struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(x.Response.Error.Data, &data)
		for _, v := range data.Supported {
			if v == LatestVersion {
				return true, "server/discover answered -32022 yet lists " + LatestVersion, nil
			}
		}
		return false, fmt.Sprintf("server/discover answered -32022 and supports %v; trying the legacy handshake", data.Supported), nil
	case code == CodeMethodNotFound && kind == "http" && x.Status == http.StatusNotFound:
		return true, "server/discover answered 404 with a JSON-RPC -32601 body (a modern server without server/discover)", nil
	}
	return false, fmt.Sprintf("server/discover answered error %d (not a modern error); trying the legacy handshake", x.Response.Error.Code), nil
}

// connectLegacy performs the 2025-11-25 initialize handshake on a new
// transport.
func (c *Client) connectLegacy(ctx context.Context) error {
	t, err := c.target.Dial(ctx)
	if err != nil {
		return err
	}
	prevEra, prevT := c.era, c.t
	c.t, c.era, c.version = t, EraLegacy, LegacyVersion
	params := map[string]any{
		"protocolVersion": LegacyVersion,
		"capabilities":    c.capabilities(),
		"clientInfo":      c.opts.ClientInfo,
	}
	call := c.NewCall("initialize", params)
	// initialize precedes version negotiation, so no version header.
	call.Omit = append(call.Omit, HeaderProtocolVersion)
	x, err := c.Do(ctx, call)
	c.probe.Initialize = x
	fail := func(err error) error {
		t.Close()
		c.t, c.era = prevT, prevEra
		c.probe.InitializeErr = err
		return err
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "initialize") {
			err = fmt.Errorf("initialize: %w", err)
		}
		return fail(err)
	}
	if x.Response == nil {
		return fail(fmt.Errorf("initialize: no JSON-RPC answer (HTTP %d)", x.Status))
	}
	if x.Response.Error != nil {
		return fail(fmt.Errorf("initialize: %w", x.Response.Error))
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(x.Response.Result, &res); err != nil || res.ProtocolVersion == "" {
		return fail(errors.New("initialize: result has no protocolVersion"))
	}
	c.version = res.ProtocolVersion
	c.initResult = x.Response.Result
	if h, ok := t.(*HTTP); ok {
		h.SetSession(x.Header.Get(HeaderSessionID))
	}
	note := c.NewCall("notifications/initialized", nil)
	note.ID = nil
	if _, err := c.Do(ctx, note); err != nil {
		return fail(fmt.Errorf("notifications/initialized: %w", err))
	}
	if c.probe.Reason == "" {
		c.probe.Reason = "legacy handshake requested"
	}
	return nil
}

// closeLater closes t in the background; Close (or a failing Connect)
// waits for it, so no process outlives the client.
func (c *Client) closeLater(t Transport) {
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		t.Close()
	}()
}

// Close closes the transport, and waits for those being closed in the
// background.
func (c *Client) Close() error {
	defer c.bg.Wait()
	if c.t == nil {
		return nil
	}
	return c.t.Close()
}

// Era returns the era the server was found to speak.
func (c *Client) Era() Era { return c.era }

// Version returns the protocol revision in use.
func (c *Client) Version() string { return c.version }

// Discover returns the server/discover result of the probe (modern era).
func (c *Client) Discover() *DiscoverResult { return c.discover }

// InitializeResult returns the raw initialize result (legacy era).
func (c *Client) InitializeResult() json.RawMessage { return c.initResult }

// Probe returns how the era was decided.
func (c *Client) Probe() Probe { return c.probe }

// Anomalies returns the protocol-hygiene findings the transport recorded
// (orphan and duplicate responses, non-JSON lines or events, unparseable
// answers), oldest first.
func (c *Client) Anomalies() []Anomaly {
	if src, ok := c.t.(anomalySource); ok {
		return src.Anomalies()
	}
	return nil
}

// Unresponsive returns the *UnresponsiveError requests now fail with, or
// nil while the server answers.
func (c *Client) Unresponsive() error {
	if src, ok := c.t.(healthSource); ok {
		return src.healthState().check()
	}
	return nil
}

// Transport returns the transport in use (for raw probes).
func (c *Client) Transport() Transport { return c.t }

// Target returns the target the client was connected to.
func (c *Client) Target() Target { return c.target }

// Timeout returns the per-request timeout.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// WithTransport returns a client sharing c's era and settings over another
// transport (for example HTTP.Fresh).
func (c *Client) WithTransport(t Transport) *Client {
	c2 := &Client{target: c.target, t: t, opts: c.opts, era: c.era, version: c.version,
		discover: c.discover, initResult: c.initResult, probe: c.probe, paramHeaders: c.paramHeaders}
	c2.ids.Store(c.ids.Load() + 1_000_000)
	return c2
}

func (c *Client) capabilities() map[string]any {
	if c.opts.Capabilities == nil {
		return map[string]any{}
	}
	return c.opts.Capabilities
}

// Call is one request before it is sent. Probes may change any part of it.
type Call struct {
	// ID is an int64 or a string; nil sends a notification.
	ID     any
	Method string
	// Params is sent as the params member; for the modern era it holds
	// "_meta" with the required keys (see Meta).
	Params map[string]any
	// Header is the set of MCP headers (HTTP only); Omit removes headers the
	// transport would add.
	Header     http.Header
	Omit       []string
	HTTPMethod string
	// Body, if set, is sent instead of the encoded request.
	Body []byte
}

// Meta returns the call's params._meta map, creating it if needed.
func (cl *Call) Meta() map[string]any {
	if cl.Params == nil {
		cl.Params = map[string]any{}
	}
	m, ok := cl.Params["_meta"].(map[string]any)
	if !ok {
		m = map[string]any{}
		cl.Params["_meta"] = m
	}
	return m
}

// NextID returns a fresh request id.
func (c *Client) NextID() int64 { return c.ids.Add(1) }

// NewCall builds a request in the client's era: for 2026-07-28, params._meta
// carries the protocol version, client capabilities, client info and a W3C
// traceparent, and the MCP headers mirror the body; for the legacy era the
// negotiated version header only.
func (c *Client) NewCall(method string, params map[string]any) *Call {
	p := make(map[string]any, len(params)+1)
	for k, v := range params {
		p[k] = v
	}
	call := &Call{ID: c.NextID(), Method: method, Params: p, Header: http.Header{}}
	if c.era == EraLegacy {
		if len(p) == 0 {
			call.Params = nil
		}
		call.Header.Set(HeaderProtocolVersion, c.version)
		return call
	}
	meta := call.Meta()
	meta[MetaProtocolVersion] = c.version
	meta[MetaClientCapabilities] = c.capabilities()
	meta[MetaClientInfo] = c.opts.ClientInfo
	meta[MetaTraceParent] = newTraceParent()
	call.Header.Set(HeaderProtocolVersion, c.version)
	call.Header.Set(HeaderMethod, method)
	if name, ok := nameOf(method, p); ok {
		call.Header.Set(HeaderName, EncodeHeaderValue(name))
	}
	if method == "tools/call" {
		c.setParamHeaders(call)
	}
	return call
}

// nameOf returns the value Mcp-Name mirrors for the three methods that
// carry it.
func nameOf(method string, params map[string]any) (string, bool) {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return "", false
	}
	s, ok := params[key].(string)
	return s, ok
}

// newTraceParent returns a W3C traceparent with random ids (SEP-414: trace
// context travels in _meta).
func newTraceParent() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
}

// Do sends a call and returns the exchange, under the client's per-request
// timeout.
func (c *Client) Do(ctx context.Context, call *Call) (*Exchange, error) {
	if c.t == nil {
		return nil, ErrClosed
	}
	body := call.Body
	var id json.RawMessage
	if body == nil {
		req := &Request{ID: call.ID, Method: call.Method, Params: call.Params}
		b, err := json.Marshal(req)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", call.Method, err)
		}
		body = b
	}
	if call.ID != nil {
		b, err := json.Marshal(call.ID)
		if err != nil {
			return nil, fmt.Errorf("encode id: %w", err)
		}
		id = b
	}
	name, _ := nameOf(call.Method, call.Params)
	var end func(error)
	if c.opts.StartRequest != nil && call.Body == nil {
		if meta, ok := call.Params["_meta"].(map[string]any); ok {
			var tp string
			if tp, end = c.opts.StartRequest(ctx, call.Method, name); tp != "" {
				meta[MetaTraceParent] = tp
				b, err := json.Marshal(&Request{ID: call.ID, Method: call.Method, Params: call.Params})
				if err != nil {
					return nil, fmt.Errorf("encode %s: %w", call.Method, err)
				}
				body = b
			}
		}
	}
	label := call.Method
	if name != "" {
		label += " " + truncate(name, 80)
	}
	var hs *health
	if src, ok := c.t.(healthSource); ok {
		hs = src.healthState()
		if err := hs.check(); err != nil {
			return &Exchange{Sent: body}, err
		}
	}
	timeout := c.opts.Timeout
	if d, ok := ctx.Value(startKey{}).(time.Duration); ok && d > timeout {
		timeout = d
	}
	ctx, cancel := WithTimeout(ctx, timeout)
	defer cancel()
	sent := time.Now()
	x, err := c.t.Exchange(ctx, &Outgoing{
		ID: id, Body: body, Method: call.Method, Name: name,
		HTTPMethod: call.HTTPMethod, Header: call.Header, Omit: call.Omit,
	})
	if hs != nil && call.ID != nil {
		hs.record(label, sent, err)
	}
	if end != nil {
		if err == nil && x.RPCError() != nil {
			end(x.RPCError())
		} else {
			end(err)
		}
	}
	return x, err
}

// ProtocolError describes an answer that is not a usable JSON-RPC response:
// no response, a response with the wrong id, or an HTTP error without a
// JSON-RPC body.
type ProtocolError struct {
	Method string
	Status int
	Detail string
}

func (e *ProtocolError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Method, e.Status, e.Detail)
	}
	return fmt.Sprintf("%s: %s", e.Method, e.Detail)
}

// Result checks that x holds the response to call and returns its result
// member, the JSON-RPC error as *Error, or a *ProtocolError.
func Result(call *Call, x *Exchange) (json.RawMessage, error) {
	if x.Response == nil {
		detail := "no JSON-RPC response"
		if len(x.Invalid) > 0 {
			detail = x.Invalid[0]
		} else if len(x.Body) > 0 {
			detail += ": " + truncate(string(bytes.TrimSpace(x.Body)), 200)
		}
		return nil, &ProtocolError{Method: call.Method, Status: x.Status, Detail: detail}
	}
	want, _ := json.Marshal(call.ID)
	if !bytes.Equal(bytes.TrimSpace(x.Response.ID), want) && x.Response.Error == nil {
		return nil, &ProtocolError{Method: call.Method, Status: x.Status,
			Detail: fmt.Sprintf("response id %s does not match request id %s", truncate(string(x.Response.ID), 60), want)}
	}
	if x.Response.Error != nil {
		return nil, x.Response.Error
	}
	if x.Status != 0 && (x.Status < 200 || x.Status > 299) {
		return nil, &ProtocolError{Method: call.Method, Status: x.Status, Detail: "a result with a non-2xx status"}
	}
	return x.Response.Result, nil
}

// Call sends method with params and decodes the result into out (which may
// be nil). A JSON-RPC error is returned as *Error.
func (c *Client) Call(ctx context.Context, method string, params map[string]any, out any) error {
	call := c.NewCall(method, params)
	x, err := c.Do(ctx, call)
	if err != nil {
		return err
	}
	res, err := Result(call, x)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			return fmt.Errorf("%s: decode result: %w", method, err)
		}
	}
	return nil
}

// Bounds on one listing. They are mcp-eval's, not the spec's: the spec
// puts no limit on a list (server/utilities/pagination.mdx), so reaching one
// is reported as mcp-eval stopping, not as the server failing.
const (
	// MaxListItems bounds the items of one listing over all its pages.
	MaxListItems = 100_000
	// MaxListPages bounds the pages (a server may send empty pages).
	MaxListPages = 10_000
)

// ListStopError says why a listing stopped before its last page: the server
// sent a cursor it had sent before (Loop: following it would never end), or
// the listing reached one of mcp-eval's bounds. The pages before are kept.
type ListStopError struct {
	Method string
	// Loop is set when Cursor was already followed, at page Again.
	Loop   bool
	Cursor string
	Again  int
	// Pages and Items are what was read before stopping.
	Pages, Items int
}

func (e *ListStopError) Error() string {
	if e.Loop {
		return fmt.Sprintf("%s: page %d returned nextCursor %q, already followed after page %d: a pagination loop; stopped after %d items",
			e.Method, e.Pages, truncate(e.Cursor, 80), e.Again, e.Items)
	}
	return fmt.Sprintf("%s: stopped after %d pages and %d items, mcp-eval's bound on one listing (%d items, %d pages); not a fault of the server",
		e.Method, e.Pages, e.Items, MaxListItems, MaxListPages)
}

// Page is one page of a paginated list, for checks that judge every page.
type Page struct {
	// Cursor is the cursor sent for this page; nil for the first.
	Cursor *string
	// Result is the page's result member, raw.
	Result json.RawMessage
	// Items are the raw entries of the list member.
	Items []json.RawMessage
	// Status and Header are the HTTP status and headers (0 and nil on stdio).
	Status int
	Header http.Header
}

// ListPages calls a paginated list method from the first page until
// nextCursor is absent (an empty string is a cursor, not the end:
// server/utilities/pagination.mdx), and returns every page read; on an
// error the pages before it come with it (see ListStopError).
func (c *Client) ListPages(ctx context.Context, method, member string) ([]Page, error) {
	return c.listPages(ctx, method, member, true)
}

func (c *Client) listPages(ctx context.Context, method, member string, keepResult bool) ([]Page, error) {
	var pages []Page
	var cursor *string
	seen := map[string]int{} // cursor → the page after which it came
	items := 0
	for {
		if len(pages) >= MaxListPages || items >= MaxListItems {
			return pages, &ListStopError{Method: method, Pages: len(pages), Items: items}
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		call := c.NewCall(method, params)
		x, err := c.Do(ctx, call)
		if err != nil {
			return pages, err
		}
		res, err := Result(call, x)
		if err != nil {
			return pages, err
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(res, &members); err != nil {
			return pages, fmt.Errorf("%s: result is not an object", method)
		}
		p := Page{Cursor: cursor, Status: x.Status, Header: x.Header}
		if keepResult {
			p.Result = res
		}
		if raw, ok := members[member]; ok && string(bytes.TrimSpace(raw)) != "null" {
			// Items alias the member's bytes rather than copy them.
			if p.Items, err = splitArray(raw); err != nil {
				return pages, fmt.Errorf("%s: %s is not an array", method, member)
			}
		}
		items += len(p.Items)
		pages = append(pages, p)
		next, ok := members["nextCursor"]
		if !ok || string(next) == "null" {
			return pages, nil
		}
		var s string
		if err := json.Unmarshal(next, &s); err != nil {
			return pages, fmt.Errorf("%s: nextCursor is not a string", method)
		}
		if at, dup := seen[s]; dup {
			return pages, &ListStopError{Method: method, Loop: true, Cursor: s, Again: at, Pages: len(pages), Items: items}
		}
		seen[s] = len(pages)
		cursor = &s
	}
}

// ListAll is ListPages reduced to the items of every page, in order.
func (c *Client) ListAll(ctx context.Context, method, member string) ([]json.RawMessage, error) {
	pages, err := c.listPages(ctx, method, member, false)
	var all []json.RawMessage
	for _, p := range pages {
		all = append(all, p.Items...)
	}
	return all, err
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Raw          json.RawMessage  `json:"-"`
}

// ToolAnnotations are the behaviour hints of a tool. They are hints from an
// untrusted server; mcp-eval uses readOnlyHint only to decide what a probe
// may call.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether the tool declares readOnlyHint: true.
func (t Tool) ReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// ListTools returns every tool over all pages and remembers the tools'
// x-mcp-header bindings for later tools/call requests.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	raws, err := c.ListAll(ctx, "tools/list", "tools")
	tools := make([]Tool, 0, len(raws))
	for _, r := range raws {
		var t Tool
		if json.Unmarshal(r, &t) != nil {
			continue
		}
		t.Raw = r
		tools = append(tools, t)
	}
	c.learnParamHeaders(tools)
	return tools, err
}

// CallToolResult is the result of tools/call, or an input_required result.
type CallToolResult struct {
	ResultType        string                     `json:"resultType"`
	Content           []json.RawMessage          `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent,omitempty"`
	IsError           bool                       `json:"isError,omitempty"`
	InputRequests     map[string]json.RawMessage `json:"inputRequests,omitempty"`
	RequestState      *string                    `json:"requestState,omitempty"`
	Raw               json.RawMessage            `json:"-"`
}

// CallTool calls a tool. extra is merged into params (for inputResponses
// and requestState on a multi round-trip retry).
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any, extra map[string]any) (*CallToolResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	for k, v := range extra {
		params[k] = v
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "tools/call", params, &raw); err != nil {
		return nil, err
	}
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call %s: decode result: %w", name, err)
	}
	res.Raw = raw
	return &res, nil
}

// paramHeader binds a tool argument (a path of property names) to the
// Mcp-Param-{Header} it must be mirrored in.
type paramHeader struct {
	Path   []string
	Header string
}

func (c *Client) learnParamHeaders(tools []Tool) {
	ph := c.paramHeaders
	ph.mu.Lock()
	defer ph.mu.Unlock()
	for _, t := range tools {
		var bindings []paramHeader
		collectParamHeaders(t.InputSchema, nil, &bindings, 0)
		if len(bindings) > 0 {
			ph.m[t.Name] = bindings
		} else {
			delete(ph.m, t.Name)
		}
	}
}

// collectParamHeaders walks properties chains only: x-mcp-header is valid
// only on properties reachable from the root through "properties" keys
// (server/tools.mdx §x-mcp-header).
func collectParamHeaders(schema json.RawMessage, path []string, out *[]paramHeader, depth int) {
	if depth > 32 {
		return
	}
	var s struct {
		Header     string                     `json:"x-mcp-header"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	if s.Header != "" && len(path) > 0 {
		*out = append(*out, paramHeader{Path: append([]string(nil), path...), Header: s.Header})
	}
	for name, sub := range s.Properties {
		collectParamHeaders(sub, append(path, name), out, depth+1)
	}
}

// setParamHeaders adds Mcp-Param-* headers for arguments bound by
// x-mcp-header, when the argument is present and not null.
func (c *Client) setParamHeaders(call *Call) {
	name, _ := call.Params["name"].(string)
	c.paramHeaders.mu.Lock()
	bindings := c.paramHeaders.m[name]
	c.paramHeaders.mu.Unlock()
	args, _ := call.Params["arguments"].(map[string]any)
	for _, b := range bindings {
		v, ok := lookupPath(args, b.Path)
		if !ok || v == nil {
			continue
		}
		if s, ok := headerScalar(v); ok {
			call.Header.Set(HeaderParamPrefix+b.Header, EncodeHeaderValue(s))
		}
	}
}

func lookupPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = mm[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// headerScalar renders a string, integer or boolean argument as the spec's
// header value: strings as is, integers in decimal, booleans as true/false.
func headerScalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10), true
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10), true
		}
	}
	return "", false
}

// AsModern returns a copy of c that sends the 2026-07-28 envelope on the
// same transport whatever era the probe found: conformance uses it to show
// what a legacy server answers to modern requests.
func (c *Client) AsModern() *Client {
	c2 := c.WithTransport(c.t)
	c2.era, c2.version = EraModern, LatestVersion
	return c2
}
