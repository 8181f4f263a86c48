package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

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
		opts.Timeout = defaultTimeout
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
		return c.connectForcedLegacy(ctx)
	}
	probeT, decided, err := c.probeModern(ctx)
	if err != nil {
		return nil, err
	}
	if decided {
		return c, nil
	}
	return c.fallBack(ctx, probeT)
}

// connectForcedLegacy connects with the initialize handshake only
// (Options.Version is LegacyVersion).
func (c *Client) connectForcedLegacy(ctx context.Context) (*Client, error) {
	// The handshake is the process's first request, so its answer gets the
	// start-up budget (--start-timeout, "until its first answer"), as the
	// modern probe's does in doFirst. Before, it had --timeout, stretched
	// only by mcp-eval's own concurrent starts: a Node server beside 24
	// CPU-bound processes was reported as no MCP server after 11 s.
	err := c.handshake(ctx, true)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrAuthorization):
		return nil, err
	case c.target.Kind() == "stdio" && errors.Is(err, ErrClosed):
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if ue := c.unauthorized(c.probe.Initialize); ue != nil {
		return nil, ue
	}
	if !gotJSONRPC(c.probe.Initialize) {
		return nil, notMCP(c.target, c.probe, err)
	}
	// The server answered, but not with a handshake: keep a transport so
	// that checks can report what it does.
	t, err := c.target.Dial(ctx)
	if err != nil {
		return nil, err
	}
	c.t, c.era, c.version = t, EraUnknown, LegacyVersion
	return c, nil
}

// probeModern dials and sends the server/discover probe. decided is true
// when the client is ready as it stands (a modern server, or NoFallback);
// otherwise the caller falls back to the legacy handshake, and probeT is
// the probe's transport.
func (c *Client) probeModern(ctx context.Context) (probeT Transport, decided bool, err error) {
	t, err := c.target.Dial(ctx)
	if err != nil {
		return nil, false, err
	}
	c.t, c.version, c.era = t, LatestVersion, EraModern
	call := c.NewCall("server/discover", nil)
	x, err := c.doFirst(ctx, call)
	c.probe.Discover, c.probe.DiscoverErr = x, err
	if errors.Is(err, ErrAuthorization) {
		t.Close()
		return nil, false, err
	}
	if ue := c.unauthorized(x); ue != nil {
		t.Close()
		return nil, false, ue
	}
	modern, reason, fatal := classifyProbe(c.target.Kind(), x, err)
	c.probe.Reason = reason + wrongID(call, x)
	if fatal != nil {
		t.Close()
		return nil, false, fatal
	}
	if modern {
		if x != nil && x.Response != nil && x.Response.Result != nil {
			var d DiscoverResult
			if json.Unmarshal(x.Response.Result, &d) == nil {
				d.Raw = x.Response.Result
				c.discover = &d
			}
		}
		return t, true, nil
	}
	if c.opts.NoFallback {
		c.era = EraUnknown
		return t, true, nil
	}
	return t, false, nil
}

// fallBack runs the legacy handshake after a probe that found no modern
// server. Over stdio the probe's process may be dead or in an odd state,
// so the handshake starts a fresh one.
func (c *Client) fallBack(ctx context.Context, probeT Transport) (*Client, error) {
	stdio := c.target.Kind() == "stdio"
	if stdio {
		// Closed while the fallback runs, so that its grace periods are
		// not added to the start of the next process.
		c.closeLater(probeT)
		c.t = nil
	}
	modernT := c.t
	legacyCtx := ctx
	if x := c.probe.Discover; stdio && x != nil && x.Response != nil {
		// The fresh process starts up again: give its first answer as long
		// as the first process took for its own, twice over, within the
		// start-up budget.
		legacyCtx = context.WithValue(ctx, startKey{}, min(max(c.opts.StartTimeout, c.opts.Timeout), 2*x.Duration))
	}
	if err := c.connectLegacy(legacyCtx); err != nil {
		return c.neitherEra(ctx, probeT, modernT, err)
	}
	if modernT != nil && modernT != c.t {
		modernT.Close()
	}
	return c, nil
}

// neitherEra decides what a failed legacy fallback means: nothing
// reachable, nothing MCP at the target, or a server that answers JSON-RPC
// in neither era's way, which keeps a modern transport (modernT, or a new
// one) so that checks can run and report exactly what it does.
func (c *Client) neitherEra(ctx context.Context, probeT, modernT Transport, err error) (*Client, error) {
	if errors.Is(err, ErrUnreachable) {
		return nil, err
	}
	if c.target.Kind() == "stdio" && errors.Is(c.probe.DiscoverErr, ErrClosed) && errors.Is(err, ErrClosed) {
		// The process exited twice without answering anything: it did not
		// start, whatever the era.
		if ee, ok := errors.AsType[*ExitError](err); ok {
			return nil, fmt.Errorf("%w: the process exited before answering server/discover, and again before initialize: %v", ErrUnreachable, ee)
		}
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	if !gotJSONRPC(c.probe.Discover) && !gotJSONRPC(c.probe.Initialize) {
		// Nothing at the target speaks JSON-RPC: there is nothing to
		// evaluate, and no check may pass against it.
		if modernT != nil {
			modernT.Close()
		}
		nm := notMCP(c.target, c.probe, err)
		if st, ok := probeT.(*Stdio); ok {
			if nm.Stderr = urlLine(st.StderrTail()); nm.Stderr != "" {
				nm.URL, nm.Hint = printedURL(nm.Stderr), httpServerHint
			}
		}
		return nil, nm
	}
	c.probe.InitializeErr = err
	c.era, c.version = EraUnknown, LatestVersion
	if why := modernWithoutDiscover(c.probe.Discover, err); why != "" {
		c.era, c.probe.Reason = EraModern, why
	}
	if modernT == nil {
		if modernT, err = c.target.Dial(ctx); err != nil {
			return nil, err
		}
	}
	c.t = modernT
	return c, nil
}

// doFirst sends the first request of a connection. Over stdio it may take
// the start-up budget, Options.Waiting hears about the wait, and a process
// that turns out to be an HTTP server (httpserver.go) ends the wait with a
// *NotMCPError.
func (c *Client) doFirst(ctx context.Context, call *Call) (*Exchange, error) {
	st, _ := c.t.(*Stdio)
	if c.target.Kind() != "stdio" || st == nil {
		return c.Do(ctx, call)
	}
	if c.opts.StartTimeout > c.opts.Timeout {
		ctx = context.WithValue(ctx, startKey{}, c.opts.StartTimeout)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	var found atomic.Pointer[NotMCPError]
	start := time.Now()
	every := waitingEvery // read here: the tests change it between connections
	go func() {
		tick := time.NewTicker(startPoll)
		defer tick.Stop()
		next := every
		w := &httpWatch{timeout: c.opts.Timeout}
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			waited := time.Since(start)
			if c.opts.Waiting != nil && c.opts.StartTimeout > c.opts.Timeout && waited >= next {
				c.opts.Waiting(waited)
				next += every
			}
			if nm := w.look(ctx, st, waited); nm != nil {
				found.Store(nm)
				cancel()
				return
			}
		}
	}()
	x, err := c.Do(ctx, call)
	if nm := found.Load(); err != nil && nm != nil {
		err = nm
	}
	return x, err
}

// wrongID says, for a reason, that the answer x came under an id other
// than call's ("" when it did not): evidence in itself, which the
// jsonrpc/id-echo checks judge.
func wrongID(call *Call, x *Exchange) string {
	if x == nil || x.Response == nil || x.Response.ID == nil || idlessError(x.Response) {
		return ""
	}
	want, _ := json.Marshal(call.ID)
	if idKey(x.Response.ID) == idKey(want) {
		return ""
	}
	return fmt.Sprintf(" (under id %s, not the request's id %s)", clip.Bytes(string(x.Response.ID), 60), want)
}

// startPoll is how often the start-up wait looks at the server.
const startPoll = 100 * time.Millisecond

// unauthorized returns an *UnauthorizedError for a 401 or 403 answer.
func (c *Client) unauthorized(x *Exchange) error {
	if x == nil || (x.Status != http.StatusUnauthorized && x.Status != http.StatusForbidden) {
		return nil
	}
	e := &UnauthorizedError{Status: x.Status, Challenge: x.Header.Get("WWW-Authenticate"),
		Authorized: c.opts.Authorizer != nil && x.SentHeader.Get("Authorization") != "",
		Body:       oneLine(x.Body, 160)}
	if !e.Authorized {
		if scheme, tok, ok := strings.Cut(x.SentHeader.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			if exp, ok := jwtExp(strings.TrimSpace(tok)); ok && exp.Before(time.Now()) {
				e.Expired = exp
			}
		}
	}
	return e
}

// oneLine is the start of b as one line of at most n bytes: control
// characters become spaces (an answer body is untrusted text).
func oneLine(b []byte, n int) string {
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(string(b)))
	return clip.Bytes(s, n)
}

// jwtExp reads the exp claim of a JWT, unverified: only to say that a
// token the run was given has expired.
func jwtExp(tok string) (time.Time, bool) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(parts[1]) > 64<<10 {
		return time.Time{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var c struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(b, &c) != nil || c.Exp == nil || *c.Exp <= 0 || *c.Exp > 1e11 {
		return time.Time{}, false
	}
	return time.Unix(int64(*c.Exp), 0), true
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
			e.Got += fmt.Sprintf(", body %q", clip.Bytes(string(b), 120))
		} else {
			e.Got += ", empty body"
		}
		if len(x.Invalid) > 0 && strings.Contains(x.Invalid[0], "exceeded max depth") {
			// Valid JSON, but deeper than any parser here reads: say so,
			// rather than let the body pass for not being JSON-RPC.
			e.Lead = "the server's answer nests arrays and objects more than 10000 deep"
			e.Hint = "mcp-eval's bound on nesting, encoding/json's (RFC 8259 §9 lets a parser limit nesting depth); no MCP answer nests that deep"
		}
		switch x.Status {
		case http.StatusNotFound:
			e.Hint = "check the path of --server-url (the MCP endpoint is often /mcp)"
		case http.StatusTooManyRequests:
			// RFC 6585 §4: the client sent too many requests; says nothing
			// of what serves the URL.
			e.Lead = "the server is rate limiting mcp-eval (HTTP 429 Too Many Requests, RFC 6585 §4)"
			e.Hint = "not evidence of a missing MCP server: run again later, or raise the server's limit for this client"
			if ra := x.Header.Get("Retry-After"); ra != "" {
				e.Hint += " (it asks to wait: Retry-After " + clip.Bytes(ra, 40) + ")"
			}
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			// RFC 9110 §15.4: the answer names another URL. The client
			// follows none, so that --header values never reach another
			// origin (http.go).
			e.Lead = fmt.Sprintf("the server redirects (HTTP %d %s, RFC 9110 §15.4)", x.Status, http.StatusText(x.Status))
			e.Hint = "mcp-eval follows no redirect, so that --header values never reach another origin"
			if loc := x.Header.Get("Location"); loc != "" {
				e.Hint += ": give --server-url " + clip.Bytes(loc, 200)
			}
		}
	case p.DiscoverErr != nil:
		e.Got = p.DiscoverErr.Error()
		if lastErr != nil {
			e.Got += "; " + lastErr.Error()
		}
	case lastErr != nil:
		// Only the handshake was sent (a forced legacy connection): what
		// became of it.
		e.Got = lastErr.Error()
	default:
		e.Got = "no JSON-RPC message came back"
	}
	if x == nil || x.Status == 0 {
		for _, err := range []error{p.DiscoverErr, lastErr} {
			if err != nil && strings.Contains(err.Error(), "exceeded max depth") {
				// The stdio answer was too deep to read: named, as over
				// HTTP above.
				e.Lead = "the server's answer nests arrays and objects more than 10000 deep"
				e.Hint = "mcp-eval's bound on nesting, encoding/json's (RFC 8259 §9 lets a parser limit nesting depth); no MCP answer nests that deep"
			}
		}
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
		if errors.Is(err, ErrUnreachable) || errors.As(err, new(*NotMCPError)) {
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

// modernWithoutDiscover says why a server that answered server/discover
// with -32601 and then refused initialize (initErr) is a modern server that
// lacks server/discover ("" when it is not): it refused the handshake with
// an error of the 2026-07-28 rules, -32601 for a removed method, -32602 for
// the _meta a modern request carries, or a code of -32020…-32022, where a
// legacy server would have answered with its handshake. Over HTTP a 404
// with the -32601 says the same at once (classifyProbe); over stdio, which
// has no status, this is the same rule's evidence, so the era is the same
// on both transports.
func modernWithoutDiscover(discover *Exchange, initErr error) string {
	d := discover.RPCError()
	ie, ok := errors.AsType[*Error](initErr)
	if d == nil || d.Code != CodeMethodNotFound || !ok {
		return ""
	}
	switch ie.Code {
	case CodeMethodNotFound, CodeInvalidParams, CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion:
		return fmt.Sprintf("server/discover answered -32601 and initialize the modern error %d: a modern server without server/discover", ie.Code)
	}
	return ""
}

// connectLegacy performs the 2025-11-25 initialize handshake on a new
// transport.
func (c *Client) connectLegacy(ctx context.Context) error { return c.handshake(ctx, false) }

// handshake starts a legacy connection: a new transport and initialize on
// it, sent through doFirst when it is the run's first process's first
// request (its answer is the process's start-up).
func (c *Client) handshake(ctx context.Context, first bool) error {
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
	do := c.Do
	if first {
		do = c.doFirst
	}
	x, err := do(ctx, call)
	c.probe.Initialize = x
	fail := func(err error) error {
		t.Close()
		c.t, c.era = prevT, prevEra
		c.probe.InitializeErr = err
		return err
	}
	if err != nil {
		if !namesMethod(err, "initialize") {
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

// namesMethod reports whether err, from a request for method, says so
// already: the transports' timeout and protocol errors carry the method,
// and their cancellation errors begin with it.
func namesMethod(err error, method string) bool {
	if te, ok := errors.AsType[*TimeoutError](err); ok {
		return te.Method == method
	}
	if pe, ok := errors.AsType[*ProtocolError](err); ok {
		return pe.Method == method
	}
	return errors.Is(err, context.Canceled)
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
