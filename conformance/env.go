package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// Env is what every check sees: the connected client and what setup learnt
// about the server. It is read-only once Run starts the checks.
type Env struct {
	opts   Options
	client *mcp.Client
	// modern talks the 2026-07-28 envelope even to a legacy server, for the
	// checks that show what such a server lacks.
	modern *mcp.Client
	kind   string

	discover     *mcp.DiscoverResult
	capabilities map[string]json.RawMessage
	// capsKnown says the server declared its capabilities as an object.
	capsKnown  bool
	serverInfo json.RawMessage

	tools     []mcp.Tool
	toolsRaw  []json.RawMessage
	toolsErr  error
	prompts   []json.RawMessage
	resources []json.RawMessage
	templates []json.RawMessage

	// legacyWhy is set when the server answered server/discover but does
	// not serve 2026-07-28 on this endpoint (supportedVersions lacks it):
	// a legacy endpoint for this revision, whatever the probe concluded.
	legacyWhy string

	safe map[string]bool
	// probes of safe tools made during setup (see classifyTools).
	capabilityTools []toolProbe // answered -32021 or asked for undeclared input
	inputTools      []toolProbe // answered input_required with capabilities declared
	// tasks: the safe tools that answer with a task when the request
	// declares the tasks extension (checks_tasks.go), found once.
	tasks     taskState
	taskTools []toolProbe

	// listings are the runs' walks of the list methods (listing.go).
	listMu     sync.Mutex
	walkSem    chan struct{}
	listings   map[string]*listingSlot
	firstWalks map[string]*firstWalk // by method
	toolSets   []*toolSet
	schemas    sync.Map // string(schema bytes) → *compiled

	// serverRequests are requests the server sent on HTTP response
	// streams (mrtr/no-server-requests).
	s2cMu          sync.Mutex
	serverRequests []seenRequest
	unsolicited    []seenRequest // subscription notifications outside a listen stream
	logNotes       []seenRequest // notifications/message on answer streams (logging/no-unrequested)

	listen listenState // the run's subscription (listen.go)

	freshMu sync.Mutex
	fresh   *mcp.Client
	closers []func()

	// authz is the auth group's shared discovery (auth.go); docHTTP fetches
	// its metadata documents.
	authz authState
	// trace is the trace checks' probes and spans (checks_trace.go).
	trace   traceState
	docOnce sync.Once
	docHTTP *http.Client
}

// seenRequest is a server-to-client request and the request whose answer
// carried it.
type seenRequest struct {
	During string          `json:"during"`
	Method string          `json:"method"`
	Raw    json.RawMessage `json:"message"`
}

// maxSeenRequests bounds what is kept of a server that sends many.
const maxSeenRequests = 20

// note records a message the server sent on the stream of an ordinary
// request: a request (mrtr/no-server-requests) or a list-changed or
// updated notification (subscriptions/no-unsolicited).
func (e *Env) note(list *[]seenRequest, during string, m *mcp.Message) {
	e.s2cMu.Lock()
	defer e.s2cMu.Unlock()
	if len(*list) < maxSeenRequests {
		*list = append(*list, seenRequest{During: during, Method: m.Method, Raw: m.Raw})
	}
}

// seen returns the messages recorded in list by do (from HTTP answer
// streams), then those that fromStdio takes from each stdio transport in
// use (the main and the modern one) and keep accepts.
func (e *Env) seen(list *[]seenRequest, fromStdio func(*mcp.Stdio) []*mcp.Message, keep func(*mcp.Message) bool) []seenRequest {
	e.s2cMu.Lock()
	out := append([]seenRequest(nil), *list...)
	e.s2cMu.Unlock()
	done := map[mcp.Transport]bool{}
	for _, c := range []*mcp.Client{e.client, e.modern} {
		st, ok := c.Transport().(*mcp.Stdio)
		if !ok || done[st] {
			continue
		}
		done[st] = true
		for _, m := range fromStdio(st) {
			if keep(m) {
				out = append(out, seenRequest{During: "stdio", Method: m.Method, Raw: m.Raw})
			}
		}
	}
	return out
}

// seenServerRequests returns the requests the server has sent so far.
func (e *Env) seenServerRequests() []seenRequest {
	return e.seen(&e.serverRequests, (*mcp.Stdio).Requests, func(*mcp.Message) bool { return true })
}

// sentWhereNot fails on the first message of seen, which the server sent
// where the rule says it must not: what is a format naming its method,
// onStream says where an HTTP one came (before its request's method),
// onStdio where a stdio one did.
func sentWhereNot(seen []seenRequest, key, what, onStream, onStdio, rule string) Outcome {
	first := seen[0]
	where := onStream + " " + first.During
	if first.During == "stdio" {
		where = onStdio
	}
	return check.Failf(map[string]any{key: seen}, "the server sent %s %s; %s: %s",
		fmt.Sprintf(what, first.Method), where, rule, clip.Bytes(string(first.Raw), 200))
}

type toolProbe struct {
	Tool mcp.Tool
	Args map[string]any
	// Bad is set when the tool asked for input the request had not
	// declared a capability for.
	Bad string
}

func newEnv(ctx context.Context, c *mcp.Client, opts Options) (*Env, error) {
	e := &Env{opts: opts, client: c, kind: c.Target().Kind(), safe: map[string]bool{}, listings: map[string]*listingSlot{},
		firstWalks: map[string]*firstWalk{}, walkSem: make(chan struct{}, 2)}
	for _, n := range opts.SafeTools {
		e.safe[n] = true
	}
	e.modern = c
	if why := legacyEndpoint(c, opts); why != "" {
		// The era comes from the answer's content: a
		// DiscoverResult that does not list 2026-07-28 says this endpoint
		// serves only older revisions. The checks of both revisions then
		// talk the revision it serves, as for any legacy server; the
		// 2026-07-28 checks are skipped with era/modern's reason.
		e.legacyWhy = why
		if lc, err := mcp.Connect(ctx, c.Target(), mcp.Options{Version: mcp.LegacyVersion, Timeout: c.Timeout(), StartTimeout: c.StartTimeout()}); err == nil {
			if lc.Era() == mcp.EraLegacy {
				e.client = lc
				e.closers = append(e.closers, func() { lc.Close() })
			} else {
				// No handshake either: keep the modern client, so that
				// the checks of both revisions report what it does.
				lc.Close()
			}
		}
	}
	if c.Era() == mcp.EraLegacy && opts.Version != mcp.LegacyVersion {
		t, err := c.Target().Dial(ctx)
		if err != nil {
			return nil, err
		}
		e.modern = c.WithTransport(t).AsModern()
		e.closers = append(e.closers, func() { t.Close() })
	}
	e.discover = c.Discover()
	e.capabilities, e.capsKnown, e.serverInfo = describe.Declared(c)
	// Even when the era is unknown, list what can be listed: the checks
	// then report what the server does rather than skip.
	e.gather(ctx)
	return e, nil
}

// gather lists the server's surface once, so that checks can decide what
// applies, or takes it from the run's description (Options.Listed) when
// that was made on the same client; the runs' shared walks (listing.go)
// are what the listing checks judge.
func (e *Env) gather(ctx context.Context) {
	listed := e.opts.Listed
	if e.client != e.modern {
		listed = nil // a legacy endpoint's own connection
	}
	if e.declares("tools") || e.capabilities == nil {
		// ListTools teaches the client the tools' x-mcp-header bindings
		// for later calls (the description's did, on this client); should
		// it fail, the checks' own walk decides.
		if listed != nil {
			e.tools, e.toolsErr = listed.Tools, listed.ToolsErr
		} else {
			e.tools, e.toolsErr = e.client.ListTools(ctx)
		}
		if e.toolsErr != nil && !errors.As(e.toolsErr, new(*mcp.ListStopError)) && listingAnswered(e.toolsErr) {
			if ts, o := e.listTools(ctx, e.client); o == nil {
				e.tools, e.toolsErr = ts, nil
			}
		}
		for _, t := range e.tools {
			e.toolsRaw = append(e.toolsRaw, t.Raw)
		}
		if e.toolsErr == nil {
			// The first known listing: the runs' walks match against it
			// and share its memory when they find the same tools.
			ts := e.internTools(e.toolsRaw, e.tools)
			e.tools, e.toolsRaw = ts.tools, ts.raws
		}
	}
	if e.declares("prompts") {
		if listed != nil {
			e.prompts = listed.Prompts
		} else {
			e.prompts, _ = e.client.ListAll(ctx, "prompts/list", "prompts")
		}
	}
	if e.declares("resources") {
		e.resources, _ = e.client.ListAll(ctx, "resources/list", "resources")
		if listed != nil {
			e.templates = listed.Templates
		} else {
			e.templates, _ = e.client.ListAll(ctx, "resources/templates/list", "resourceTemplates")
		}
	}
	if e.era() == mcp.EraModern {
		e.classifyTools(ctx)
	}
}

// listingAnswered reports whether a listing that failed with err got an answer
// (one the client could not use, which the checks' more lenient walk may):
// a listing that got none (a timeout, a closed or unresponsive server) is
// not walked again here, since that would only wait --timeout once more
// before the checks start (a stdio server that never ends its lines cost
// 4 × --timeout where the hostile bound is 3 × --timeout + 2 s); the
// checks' own walks report it.
func listingAnswered(err error) bool {
	return !errors.As(err, new(*mcp.TimeoutError)) && !errors.Is(err, mcp.ErrClosed) &&
		!errors.Is(err, mcp.ErrUnresponsive) && !errors.Is(err, mcp.ErrUnreachable) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

func (e *Env) close() {
	if e.listen.cancel != nil {
		e.listen.cancel()
		<-e.listen.done
	}
	for _, f := range e.closers {
		f()
	}
	e.freshMu.Lock()
	if e.fresh != nil {
		e.fresh.Close()
	}
	e.freshMu.Unlock()
}

func objectMembers(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// era is the server's era for this run: the client's, except that an
// endpoint whose server/discover does not list 2026-07-28 is legacy.
func (e *Env) era() mcp.Era {
	if e.legacyWhy != "" {
		return mcp.EraLegacy
	}
	return e.client.Era()
}

// legacyEndpoint says why a server the client took for modern does not
// serve 2026-07-28 ("" if it does): its DiscoverResult's supportedVersions
// lacks the revision (basic/versioning.mdx: a server lists there the
// revisions it serves; a client MUST NOT use one that is not listed).
func legacyEndpoint(c *mcp.Client, opts Options) string {
	if c.Era() != mcp.EraModern || opts.Version == mcp.LegacyVersion {
		return ""
	}
	d := c.Discover()
	if d == nil {
		return ""
	}
	for _, v := range d.SupportedVersions {
		if v == mcp.LatestVersion {
			return ""
		}
	}
	return fmt.Sprintf("server/discover lists supportedVersions %v, without %s", d.SupportedVersions, mcp.LatestVersion)
}

// knowsDiscover reports whether the server answered the server/discover
// probe in the 2026-07-28 way (a result, or -32022 with the versions it
// supports) although it serves only older revisions: a dual-era SDK
// serving this endpoint in its legacy mode, the likely cause named by the
// hint.
func (e *Env) knowsDiscover() bool {
	if e.legacyWhy != "" {
		return true
	}
	x := e.modern.Probe().Discover
	if x == nil {
		x = e.client.Probe().Discover
	}
	if x == nil || x.Response == nil || x.Response.Error == nil {
		return false
	}
	return x.Response.Error.Code == mcp.CodeUnsupportedProtocolVersion
}

// legacyHint names the likely cause of a dual-era server that does not
// serve 2026-07-28 on this endpoint.
func (e *Env) legacyHint() string {
	if !e.knowsDiscover() {
		return ""
	}
	if e.kind == "http" {
		return "Likely cause: the SDK serves this endpoint with its stateful (session) HTTP handler, which speaks only the initialize-based revisions; 2026-07-28 is stateless. " +
			"Go SDK: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})."
	}
	return "Likely cause: the SDK knows 2026-07-28 but does not enable it for this server; check its protocol-version options (for the Go SDK, ServerOptions.SupportedProtocolVersions)."
}

// declares reports whether the server declared a capability.
func (e *Env) declares(capability string) bool {
	_, ok := e.capabilities[capability]
	return ok
}

// declaresExtension reports whether capabilities.extensions lists id.
func (e *Env) declaresExtension(id string) bool {
	ext := objectMembers(e.capabilities["extensions"])
	_, ok := ext[id]
	return ok
}

// isSafe reports whether probes may call the tool: marked readOnlyHint by
// the server, or listed by the user with --safe-tools.
func (e *Env) isSafe(t mcp.Tool) bool { return t.ReadOnly() || e.safe[t.Name] }

func (e *Env) safeTools() []mcp.Tool {
	var out []mcp.Tool
	for _, t := range e.tools {
		if e.isSafe(t) {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// skipReason applies the rules common to all checks: transport, revision
// and era (the runner then asks the check's own Skip).
func (e *Env) skipReason(ch *Check) string {
	if ch.Transport != "" && ch.Transport != e.kind {
		if ch.Transport == "http" {
			return "applies to Streamable HTTP only; this server speaks stdio"
		}
		return "applies to stdio only; this server speaks Streamable HTTP"
	}
	legacyMode := e.opts.Version == mcp.LegacyVersion
	switch ch.Revision {
	case revModern:
		if legacyMode {
			return "a 2026-07-28 rule; skipped under --protocol-version " + mcp.LegacyVersion
		}
		if e.era() == mcp.EraLegacy && ch.Group() != "discover" && ch.ID != "era/modern" {
			if e.legacyWhy != "" {
				return "this endpoint does not serve 2026-07-28 (" + e.legacyWhy + "; see era/modern and the migration list)"
			}
			return "the server speaks only " + e.client.Version() + " (see era/modern and the migration list)"
		}
	case revLegacy:
		if !legacyMode {
			return "runs only with --protocol-version " + mcp.LegacyVersion
		}
	}
	return ""
}

// freshClient returns a client on a new connection (HTTP) or a second
// process (stdio), shared by all runs of the checks that need one.
func (e *Env) freshClient(ctx context.Context) (*mcp.Client, error) {
	e.freshMu.Lock()
	defer e.freshMu.Unlock()
	if e.fresh != nil {
		return e.fresh, nil
	}
	c, err := e.dial(ctx)
	if err != nil {
		return nil, err
	}
	e.fresh = c
	return c, nil
}

// dial returns a client on a new connection (HTTP) or a new process
// (stdio); the caller closes it unless it is shared for the whole run.
func (e *Env) dial(ctx context.Context) (*mcp.Client, error) {
	if t, ok := e.client.Transport().(*mcp.HTTP); ok && e.client.Era() != mcp.EraLegacy {
		return e.client.WithTransport(t.Fresh()), nil
	}
	// A new process, or a legacy server's own initialize handshake (it
	// keeps state per session). The run's connection found an MCP server,
	// so a new one that fails is that check's error, never "no MCP server
	// at the target", however many processes start at once.
	return e.client.Redial(ctx)
}

// result fills the server description of a run.
func (e *Env) result() *Result {
	r := &Result{Era: e.era(), Version: e.client.Version(), ServerInfo: e.serverInfo,
		Tools: e.toolsRaw, Prompts: e.prompts, Templates: e.templates}
	if e.discover != nil {
		r.Supported = e.discover.SupportedVersions
		r.Capabilities = e.discover.Capabilities
	} else if caps, err := json.Marshal(e.capabilities); err == nil && e.capabilities != nil {
		r.Capabilities = caps
	}
	if e.era() == mcp.EraLegacy && e.opts.Version != mcp.LegacyVersion {
		r.Migration = migration(e)
	}
	return r
}

// isLoopback reports whether the HTTP target is on this machine.
func (e *Env) isLoopback() bool {
	u, err := url.Parse(e.client.Target().String())
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// do sends call on c. When a stdio request times out it also returns the
// ids of answers that arrived meanwhile matching no request: on stdio an
// answer with a wrong id cannot be paired with its request and shows up
// only that way.
//
// It also records any request the server sent back on the way (on an
// HTTP response stream; stdio's are kept by the transport), for
// mrtr/no-server-requests.
func (e *Env) do(ctx context.Context, c *mcp.Client, call *mcp.Call) (*mcp.Exchange, []string, error) {
	st, _ := c.Transport().(*mcp.Stdio)
	before := 0
	if st != nil {
		before = len(st.Orphans())
	}
	x, err := c.Do(ctx, call)
	if x != nil {
		for _, m := range x.Messages {
			switch {
			case m.IsRequest():
				e.note(&e.serverRequests, call.Method, m)
			case m.IsNotification() && isSubscriptionNote(m.Method) && call.Method != "subscriptions/listen":
				e.note(&e.unsolicited, call.Method, m)
			case m.IsNotification() && m.Method == "notifications/message":
				e.note(&e.logNotes, call.Method, m)
			}
		}
	}
	var te *mcp.TimeoutError
	var ids []string
	if st != nil && errors.As(err, &te) {
		for _, m := range st.Orphans()[before:] {
			ids = append(ids, orAbsent(m.ID))
		}
	}
	return x, ids, err
}

// send builds and sends a call on the modern client, letting edit change
// it first.
func (e *Env) send(ctx context.Context, method string, params map[string]any, edit func(*mcp.Call)) (*mcp.Call, *mcp.Exchange, error) {
	call := e.modern.NewCall(method, params)
	if edit != nil {
		edit(call)
	}
	x, orphans, err := e.do(ctx, e.modern, call)
	if len(orphans) > 0 {
		err = fmt.Errorf("%w; meanwhile the server wrote answers whose ids match no request (%s)", err, strings.Join(orphans, ", "))
	}
	return call, x, err
}

// resultMembers returns the members of a successful result, or an outcome
// explaining why there is none.
func resultMembers(call *mcp.Call, x *mcp.Exchange, err error) (map[string]json.RawMessage, *Outcome) {
	if err != nil {
		o := check.Errored(err, check.Protocol.Of(x))
		return nil, &o
	}
	_, rerr := mcp.Result(call, x)
	if rerr != nil {
		o := check.Fail(fmt.Sprintf("%s did not return a result: %v", call.Method, rerr), check.Protocol.Of(x))
		if _, ok := rerr.(*mcp.ProtocolError); ok && x.Response == nil {
			o.Status = "error"
		}
		return nil, &o
	}
	// The members share the answer's bytes (a page of a big list is not
	// copied); a caller that keeps one copies it.
	m, merr := x.Response.ResultMembers()
	if merr != nil {
		o := check.Fail(call.Method+" result is not a JSON object", check.Protocol.Of(x))
		return nil, &o
	}
	return m, nil
}
