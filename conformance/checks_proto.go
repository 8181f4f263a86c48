package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func httpChecks() []*Check {
	transport := spec("basic/transports/streamable-http")
	notAllowed := func(id, method string) *Check {
		return &Check{ID: id, Level: report.LevelShould, Revision: revModern, Transport: "http",
			SpecRef: transport + "#backward-compatibility",
			Title:   method + " on the endpoint → 405 Method Not Allowed",
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.modern.NewCall("", nil)
				call.HTTPMethod = method
				call.Body = []byte{}
				call.ID = nil
				call.Header = http.Header{}
				x, err := e.modern.Do(ctx, call)
				if err != nil && x == nil {
					return check.Errored(err, nil)
				}
				if x.Status != http.StatusMethodNotAllowed {
					return check.Failf(check.Protocol.Of(x), "%s answered %s, want 405 (the GET stream and DELETE of a session are gone in 2026-07-28)", method, cameBack(x))
				}
				return check.Pass()
			}}
	}
	return []*Check{
		notAllowed("http/get-not-allowed", http.MethodGet),
		notAllowed("http/delete-not-allowed", http.MethodDelete),
		{ID: "http/no-session-id", Level: report.LevelShould, Revision: revModern, Transport: "http",
			SpecRef: transport + "#backward-compatibility",
			Title:   "no Mcp-Session-Id is minted, and one sent is ignored",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, nil)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if sid := x.Header.Get(mcp.HeaderSessionID); sid != "" {
					return check.Fail("the server minted an Mcp-Session-Id; 2026-07-28 has no sessions", check.Protocol.Of(x))
				}
				_, x, err = e.send(ctx, "server/discover", nil, func(c *mcp.Call) { c.Header.Set(mcp.HeaderSessionID, "mcp-eval-probe-session") })
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Response == nil || x.Response.Error != nil || x.Status != http.StatusOK {
					got := cameBack(x)
					if rerr := x.RPCError(); rerr != nil {
						got = fmt.Sprintf("HTTP %d, error %d: %s", x.Status, rerr.Code, clip.Bytes(rerr.Message, 120))
					}
					return check.Failf(check.Protocol.Of(x), "a request carrying an unknown Mcp-Session-Id was refused (%s); servers should ignore the header", got)
				}
				if sid := x.Header.Get(mcp.HeaderSessionID); sid != "" {
					return check.Fail("the server echoed an Mcp-Session-Id", check.Protocol.Of(x))
				}
				return check.Pass()
			}},
		{ID: "http/origin-rejected", Level: report.LevelMust, Revision: revBoth, Transport: "http",
			SpecRef: transport + "#security-warning",
			Title:   "a request with an invalid Origin → HTTP 403 (loopback servers)",
			Skip: func(e *Env) string {
				if !e.isLoopback() {
					return "the server is not on loopback; which origins it allows is its own policy"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.client.NewCall("tools/list", nil)
				call.Header.Set("Origin", "http://mcp-eval-probe.invalid")
				x, err := e.client.Do(ctx, call)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Status != http.StatusForbidden {
					return check.Failf(check.Protocol.Of(x), "a request from Origin http://mcp-eval-probe.invalid got HTTP %d, want 403 (servers MUST validate Origin against DNS rebinding)", x.Status)
				}
				return check.Pass()
			}},
		{ID: "http/host-rejected", Level: report.LevelShould, Revision: revBoth, Transport: "http",
			SpecRef: spec("basic/security_best_practices") + "#local-mcp-server-compromise",
			Title:   "a request with a foreign Host header → HTTP 4xx (loopback servers; DNS rebinding)",
			Skip: func(e *Env) string {
				if !e.isLoopback() {
					return "the server is not on loopback; which hosts it serves is its own policy"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				// What a browser sends after DNS rebinding: the attacker's
				// name as Host, on a connection to 127.0.0.1.
				call := e.client.NewCall("tools/list", nil)
				call.Header.Set("Host", "mcp-eval-probe.invalid")
				x, err := e.client.Do(ctx, call)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Status < 400 || x.Status >= 500 {
					return check.Failf(check.Protocol.Of(x), "a request with Host: mcp-eval-probe.invalid got %s, want 403 (a loopback server should refuse names other than localhost and loopback addresses, or a DNS-rebinding page can call it)", cameBack(x))
				}
				return check.PassInfo(fmt.Sprintf("HTTP %d", x.Status))
			}},
		{ID: "http/content-type", Level: report.LevelMust, Revision: revBoth, Transport: "http", SpecRef: transport + "#sending-messages-to-the-server",
			Title: "answers are application/json or text/event-stream",
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.client.NewCall("tools/list", nil)
				x, err := e.client.Do(ctx, call)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.ContentType != "application/json" && x.ContentType != "text/event-stream" {
					return check.Failf(check.Protocol.Of(x), "Content-Type %q; a request's answer must be application/json or text/event-stream", x.Header.Get("Content-Type"))
				}
				return check.PassInfo("answers as " + x.ContentType)
			}},
	}
}

func jsonrpcChecks() []*Check {
	ref := spec("basic/index") + "#requests"
	return []*Check{
		{ID: "jsonrpc/id-echo-string", Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "a string id is echoed as the same JSON string (compared as values: \\u escapes are equal)",
			Run: func(ctx context.Context, e *Env) Outcome {
				id := fmt.Sprintf("mcp-eval-%d-ü", e.client.NextID())
				return e.echo(ctx, id, "tools/list")
			}},
		{ID: "jsonrpc/id-echo-integer", Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "an integer id is echoed as the same integer",
			Run: func(ctx context.Context, e *Env) Outcome {
				return e.echo(ctx, 7_000_000+e.client.NextID(), "tools/list")
			}},
		{ID: "jsonrpc/error-id-echo", Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/index") + "#responses",
			Title: "an error response echoes the request id",
			Run: func(ctx context.Context, e *Env) Outcome {
				return e.echo(ctx, 8_000_000+e.client.NextID(), probeMethod)
			}},
		{ID: "jsonrpc/version", Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/index"),
			Title: `every response carries "jsonrpc": "2.0"`,
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.client.NewCall("tools/list", nil)
				x, err := e.client.Do(ctx, call)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Response == nil {
					return check.Failf(check.Protocol.Of(x), "no JSON-RPC response (%s)", cameBack(x))
				}
				if !jsonIs(x.Response.JSONRPC, "2.0") {
					return check.Failf(check.Protocol.Of(x), `the response's jsonrpc member is %s, want "2.0"`, orAbsent(x.Response.JSONRPC))
				}
				return check.Pass()
			}},
		// The bad-body checks are also Layer 2's robustness probes of a bad
		// body (once resilience/batch and resilience/malformed-json, still
		// accepted as aliases: report.CheckAliases).
		{ID: "jsonrpc/batch-rejected", Level: report.LevelShould, Revision: revBoth,
			SpecRef: spec("basic/transports/streamable-http") + "#sending-messages-to-the-server",
			Title:   "a JSON array (batch) body gets a 4xx, not a 2xx or 5xx (stdio: the server survives the line)",
			Run: func(ctx context.Context, e *Env) Outcome {
				one := e.client.NewCall("tools/list", nil)
				two := e.client.NewCall("tools/list", nil)
				b1, _ := json.Marshal(&mcp.Request{ID: one.ID, Method: one.Method, Params: one.Params})
				b2, _ := json.Marshal(&mcp.Request{ID: two.ID, Method: two.Method, Params: two.Params})
				one.Body = []byte("[" + string(b1) + "," + string(b2) + "]")
				return e.badBody(ctx, one, "a batch")
			}},
		{ID: "jsonrpc/malformed-json", Level: report.LevelShould, Revision: revBoth,
			SpecRef: spec("basic/index"),
			Title:   "a body that is not JSON gets a 4xx, not a 5xx (stdio: the server survives the line)",
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.client.NewCall("tools/list", nil)
				call.Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`)
				return e.badBody(ctx, call, "malformed JSON")
			}},
		{ID: "jsonrpc/notification-no-response", Level: report.LevelMust, Revision: revBoth, Transport: "stdio",
			SpecRef: spec("basic/index") + "#notifications",
			Title:   "a notification is not answered",
			Run: func(ctx context.Context, e *Env) Outcome {
				st, ok := e.client.Transport().(*mcp.Stdio)
				if !ok {
					return check.Skip("not a stdio transport")
				}
				before := len(st.Orphans())
				note := e.client.NewCall("notifications/cancelled", map[string]any{"requestId": "mcp-eval-no-such-request", "reason": "probe"})
				note.ID = nil
				if _, err := e.client.Do(ctx, note); err != nil {
					return check.Errored(err, nil)
				}
				// A request after the notification; a server answers lines in
				// order, so an answer to the notification would come first.
				call := e.client.NewCall("tools/list", nil)
				if _, err := e.client.Do(ctx, call); err != nil {
					return check.Errored(err, nil)
				}
				time.Sleep(50 * time.Millisecond)
				for _, m := range st.Orphans()[before:] {
					if m.ID == nil || string(m.ID) == "null" || idIs(m.ID, "mcp-eval-no-such-request") {
						return check.Fail("the server answered a notification (receivers MUST NOT)", map[string]any{"answer": json.RawMessage(m.Raw)})
					}
				}
				return check.Pass()
			}},
	}
}

func idIs(raw json.RawMessage, s string) bool {
	var got string
	return json.Unmarshal(raw, &got) == nil && got == s
}

func orAbsent(b []byte) string {
	if b == nil {
		return "absent"
	}
	return clip.Bytes(string(b), 40)
}

// echo sends method with the given id and checks the answer's id is the
// same JSON value, of the same type.
func (e *Env) echo(ctx context.Context, id any, method string) Outcome {
	call := e.client.NewCall(method, nil)
	call.ID = id
	x, orphans, err := e.do(ctx, e.client, call)
	if len(orphans) > 0 {
		want, _ := json.Marshal(id)
		return check.Failf(map[string]any{"orphanIDs": orphans}, "no answer carried id %s; the server wrote answers with ids that match no request: %s", want, strings.Join(orphans, ", "))
	}
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if x.Response == nil {
		return check.Failf(check.Protocol.Of(x), "no JSON-RPC response (%s)", cameBack(x))
	}
	want, _ := json.Marshal(id)
	// Compared as JSON values: an escaping encoder writes "ü" as "\u00fc".
	if !sameJSON(x.Response.ID, want) {
		return check.Failf(check.Protocol.Of(x), "the answer's id is %s, want %s (ids must be echoed with their type)", orAbsent(x.Response.ID), want)
	}
	return check.Pass()
}

// badBody posts a body the spec says a client must not send. The spec sets
// no status or code for it, so the check asserts only a 4xx (a client
// error, not a server fault or a silent success) and that the server still
// answers afterwards; the code chosen is information (the JSON-RPC error
// body is a MAY: streamable-http.mdx §Sending Messages). Over stdio there
// is no status, and an error to an unreadable line cannot carry its id, so
// it asserts only that the server survives (badLine).
func (e *Env) badBody(ctx context.Context, call *mcp.Call, what string) Outcome {
	if e.kind == "stdio" {
		return e.badLine(ctx, call, what)
	}
	x, err := e.client.Do(ctx, call)
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	info := fmt.Sprintf("HTTP %d", x.Status)
	if rerr := x.RPCError(); rerr != nil {
		info += fmt.Sprintf(", error %d", rerr.Code)
	} else if x.Response == nil {
		info += ", no JSON-RPC error body"
	}
	switch {
	case x.Status >= 500:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(x),
			Message: fmt.Sprintf("%s got HTTP %d: a server fault where a client error (4xx) is due", what, x.Status)}
	case x.Status < 400:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(x),
			Message: fmt.Sprintf("%s got HTTP %d; a POST body must be a single JSON-RPC message, so a 4xx is due", what, x.Status)}
	}
	// Is the server still there? One request (the first page of tools/list
	// is enough): any JSON-RPC answer, a result or an error, says it is.
	follow := e.client.NewCall("tools/list", nil)
	fx, err := e.client.Do(ctx, follow)
	switch {
	case err != nil:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(fx),
			Message: fmt.Sprintf("after %s the next request got no answer: %v", what, err)}
	case fx.Response == nil:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(fx),
			Message: fmt.Sprintf("after %s the next request (tools/list) got HTTP %d with no JSON-RPC message (%s)", what, fx.Status, bodyExcerpt(fx))}
	}
	if rerr := fx.Response.Error; rerr != nil {
		info += fmt.Sprintf("; the next tools/list got error %d (the server still answers)", rerr.Code)
	}
	return check.PassInfo(info)
}

// badLine writes a bad line to a stdio server, then a tools/list behind it,
// which a server that reads its input in order answers after the bad line.
// What it wrote back to the bad line is information. Each run starts a
// process of its own: a server that dies of the line (the Go SDK's did)
// then fails this check alone, not every check running beside it, and no
// other check sees its answers without an id.
func (e *Env) badLine(ctx context.Context, call *mcp.Call, what string) Outcome {
	c, err := e.dial(ctx)
	if err != nil {
		return check.Errored(fmt.Errorf("starting a process of its own for the bad line: %w", err), nil)
	}
	defer c.Close()
	st, ok := c.Transport().(*mcp.Stdio)
	if !ok {
		return check.Errored(fmt.Errorf("the new process's transport is %T, not stdio", c.Transport()), nil)
	}
	call.ID = nil // the line has no id the transport could wait for
	if x, err := c.Do(ctx, call); err != nil {
		return check.Failf(check.WithError(check.Protocol.Of(x), err), "%s could not be written: %v", what, err)
	}
	x, err := c.Do(ctx, c.NewCall("tools/list", nil))
	if err != nil {
		return check.Failf(check.WithError(check.Protocol.Of(x), err), "after %s the server stopped answering tools/list: %v", what, err)
	}
	var seen []string
	for _, m := range st.Orphans() {
		if m.Error != nil {
			seen = append(seen, fmt.Sprintf("error %d", m.Error.Code))
		} else {
			seen = append(seen, "a result")
		}
	}
	if n := len(st.InvalidLines()); n > 0 {
		seen = append(seen, fmt.Sprintf("%d line(s) that are not JSON-RPC messages", n))
	}
	if len(seen) == 0 {
		return check.PassInfo("stdio: survived; wrote no answer to it")
	}
	return check.PassInfo("stdio: survived; answered with " + strings.Join(seen, ", "))
}

func eraChecks() []*Check {
	return []*Check{
		{ID: "era/modern", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/versioning"),
			Title: "the server speaks 2026-07-28",
			Once:  true,
			Run: func(ctx context.Context, e *Env) Outcome {
				p := e.client.Probe()
				switch e.era() {
				case mcp.EraModern:
					return check.PassInfo(p.Reason)
				case mcp.EraLegacy:
					msg := fmt.Sprintf("the server speaks only the initialize-based %s revision (%s); see the migration list", e.client.Version(), p.Reason)
					ev := check.Protocol.Of(p.Discover)
					if e.legacyWhy != "" {
						// The probe had taken it for modern; the
						// DiscoverResult itself says otherwise.
						msg = "this endpoint does not serve 2026-07-28: " + e.legacyWhy + ", so it is a legacy endpoint for this revision; see the migration list"
						ev = check.Protocol.Of(e.modern.Probe().Discover)
					}
					if h := e.legacyHint(); h != "" {
						msg += ". " + h
					}
					return check.Fail(msg, check.With(ev, "migration", migration(e)))
				}
				msg := "the server answered neither server/discover nor initialize"
				if p.Reason != "" {
					msg += ": " + p.Reason
				}
				if p.InitializeErr != nil {
					msg += "; initialize: " + p.InitializeErr.Error()
				}
				return check.Fail(msg, check.Protocol.Of(p.Discover))
			}},
		{ID: "era/legacy-handshake", Level: report.LevelMust, Revision: revLegacy, SpecRef: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle",
			Title: "initialize at 2025-11-25 succeeds",
			Once:  true,
			Run: func(ctx context.Context, e *Env) Outcome {
				if e.era() != mcp.EraLegacy {
					return check.Fail("the initialize handshake did not succeed", check.Protocol.Of(e.client.Probe().Initialize))
				}
				return check.PassInfo("negotiated " + e.client.Version())
			}},
	}
}

func metaChecks() []*Check {
	return []*Check{
		{ID: "meta/server-info", Level: report.LevelShould, Revision: revModern, SpecRef: spec("basic/index") + "#_meta",
			Title: `results carry _meta["io.modelcontextprotocol/serverInfo"] with name and version`,
			Run: func(ctx context.Context, e *Env) Outcome {
				m, x, o := e.discoverResult(ctx, nil)
				if o != nil {
					return *o
				}
				var meta map[string]json.RawMessage
				_ = json.Unmarshal(m["_meta"], &meta)
				var info struct {
					Name    *string `json:"name"`
					Version *string `json:"version"`
				}
				raw, ok := meta[mcp.MetaServerInfo]
				if !ok {
					return check.Fail("the server/discover result has no _meta serverInfo (servers SHOULD include it in every result)", check.Protocol.Of(x))
				}
				if json.Unmarshal(raw, &info) != nil || info.Name == nil || info.Version == nil {
					return check.Fail("serverInfo lacks name or version (an Implementation requires both)", check.Protocol.Of(x))
				}
				return check.Pass()
			}},
	}
}

func mrtrChecks() []*Check {
	return []*Check{
		{ID: "mrtr/no-server-requests", Level: report.LevelMust, Revision: revModern, SpecRef: spec("changelog"),
			Title: "no server-to-client request (roots/list, sampling/createMessage, elicitation/create) arrives on a 2026-07-28 connection",
			Run: func(ctx context.Context, e *Env) Outcome {
				// The likeliest trigger: the safe tools, called declaring
				// every client capability (setup called them too, and every
				// answer the checks read is watched).
				tools := e.safeTools()
				if len(tools) > maxProbedTools {
					tools = tools[:maxProbedTools]
				}
				for _, t := range tools {
					_, _, _ = e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": synthesizeArgs(t.InputSchema)},
						func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() })
				}
				seen := e.seenServerRequests()
				if len(seen) == 0 {
					return check.PassInfo(fmt.Sprintf("watched every answer of the run so far, %d safe tools called", len(tools)))
				}
				first := seen[0]
				where := "during " + first.During
				if first.During == "stdio" {
					where = "on stdout"
				}
				return check.Failf(map[string]any{"requests": seen},
					"the server sent a %s request %s; 2026-07-28 removed server-to-client requests (a server asks for input with an input_required result instead): %s",
					first.Method, where, clip.Bytes(string(first.Raw), 200))
			}},
		{ID: "mrtr/retry", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "retrying an input_required tool call with inputResponses (and requestState echoed) gets a result, not an error (safe tools only)",
			Skip:  needsInputTool,
			Run: func(ctx context.Context, e *Env) Outcome {
				o, _, _ := e.mrtrRoundTrip(ctx, false)
				return o
			}},
		{ID: "mrtr/tampered-state", Level: report.LevelShould, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "a retry with an altered requestState is refused (an error or a new input_required), not completed (safe tools only)",
			Skip:  needsInputTool,
			Run: func(ctx context.Context, e *Env) Outcome {
				o, _, _ := e.mrtrRoundTrip(ctx, true)
				return o
			}},
		{ID: "mrtr/shape", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "an input_required result is well formed",
			Skip: func(e *Env) string {
				if len(e.inputTools) == 0 {
					return "no safe tool answered input_required"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				p := e.inputTools[0]
				call, x, err := e.send(ctx, "tools/call", map[string]any{"name": p.Tool.Name, "arguments": p.Args},
					func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() })
				m, o := resultMembers(call, x, err)
				if o != nil {
					return *o
				}
				if resultTypeOf(m) != "input_required" {
					return check.Skip(p.Tool.Name + " no longer answers input_required")
				}
				return judgeInputRequired(m, x)
			}},
	}
}

func needsInputTool(e *Env) string {
	if len(e.inputTools) == 0 {
		return "no safe tool answered input_required"
	}
	return ""
}

// maxRounds bounds the retries of one MRTR round trip: a server may ask
// again (multi-round), but not forever.
const maxRounds = 3

// mrtrRoundTrip calls the first safe tool that answered input_required,
// declaring every client capability, and retries it as a client would
// (basic/patterns/mrtr.mdx): a new request with a new id repeating the
// params, inputResponses answering every input request (an elicitation
// accepted with values synthesised from its requestedSchema, a sampling
// request answered with a text, roots with none), and requestState echoed
// byte for byte, or altered when tamper is set.
func (e *Env) mrtrRoundTrip(ctx context.Context, tamper bool) (Outcome, *mcp.Exchange, error) {
	p := e.inputTools[0]
	caps := func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() }
	params := map[string]any{"name": p.Tool.Name, "arguments": p.Args}
	call, x, err := e.send(ctx, "tools/call", params, caps)
	m, o := resultMembers(call, x, err)
	if o != nil {
		return *o, x, err
	}
	if resultTypeOf(m) != "input_required" {
		return check.Skip(p.Tool.Name + " no longer answers input_required"), x, nil
	}
	for round := 1; round <= maxRounds; round++ {
		var state *string
		if raw, ok := m["requestState"]; ok {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return check.Fail("requestState is not a string (see mrtr/shape)", check.Protocol.Of(x)), x, nil
			}
			state = &s
		}
		if tamper && state == nil {
			return check.Skip(p.Tool.Name + " sent no requestState, so there is none to alter"), x, nil
		}
		retry := map[string]any{"name": p.Tool.Name, "arguments": p.Args, "inputResponses": inputResponses(m["inputRequests"])}
		if state != nil {
			s := *state
			if tamper {
				s = alterState(s)
			}
			retry["requestState"] = s
		}
		call, x, err = e.send(ctx, "tools/call", retry, caps)
		if err != nil {
			return check.Errored(err, check.Protocol.Of(x)), x, err
		}
		if x.Response == nil {
			return check.Failf(check.Protocol.Of(x), "the retry got no JSON-RPC answer (%s)", cameBack(x)), x, nil
		}
		if rerr := x.Response.Error; rerr != nil {
			if tamper {
				return check.PassInfo(fmt.Sprintf("the altered requestState was refused with error %d", rerr.Code)), x, nil
			}
			return check.Failf(check.Protocol.Of(x), "the retry of %s with inputResponses%s got error %d: %s; a server answers a retry with a result (or asks again with input_required)",
				p.Tool.Name, map[bool]string{true: " and requestState echoed", false: ""}[state != nil], rerr.Code, clip.Bytes(rerr.Message, 120)), x, nil
		}
		if json.Unmarshal(x.Response.Result, &m) != nil || m == nil {
			return check.Fail("the retry's result is not a JSON object", check.Protocol.Of(x)), x, nil
		}
		switch rt := resultTypeOf(m); {
		case rt == "input_required" && tamper:
			return check.PassInfo("the altered requestState was answered with a new input_required"), x, nil
		case rt == "input_required":
			continue // another round
		case tamper:
			return check.Failf(check.Protocol.Of(x), "a retry whose requestState was altered completed (resultType %q): servers must treat requestState as attacker-controlled and reject state that fails verification when it influences what the tool does", rt), x, nil
		default:
			return check.PassInfo(fmt.Sprintf("completed after %d round(s)", round)), x, nil
		}
	}
	return check.PassInfo(fmt.Sprintf("still input_required after %d rounds", maxRounds)), x, nil
}

// inputResponses answers every input request of an input_required result.
func inputResponses(raw json.RawMessage) map[string]any {
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode            string          `json:"mode"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	_ = json.Unmarshal(raw, &reqs)
	out := map[string]any{}
	for k, r := range reqs {
		switch r.Method {
		case "elicitation/create":
			if r.Params.Mode == "url" {
				out[k] = map[string]any{"action": "accept"}
				continue
			}
			out[k] = map[string]any{"action": "accept", "content": synthesizeArgs(r.Params.RequestedSchema)}
		case "sampling/createMessage":
			out[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcp-eval probe answer"},
				"model": "mcp-eval-probe", "stopReason": "endTurn"}
		case "roots/list":
			out[k] = map[string]any{"roots": []any{}}
		}
	}
	return out
}

// alterState changes one character in the middle of a requestState, within
// the same alphabet, so that only its integrity check can tell.
func alterState(s string) string {
	if s == "" {
		return "mcp-eval-probe-altered"
	}
	b := []byte(s)
	i := len(b) / 2
	switch c := b[i]; {
	case c == 'A':
		b[i] = 'B'
	case c >= '0' && c <= '9':
		b[i] = '0' + (c-'0'+1)%10
	case c >= 'a' && c <= 'z':
		b[i] = 'a' + (c-'a'+1)%26
	default:
		b[i] = 'A'
	}
	return string(b)
}

// judgeInputRequired applies the InputRequiredResult rules
// (basic/patterns/mrtr.mdx): at least one of inputRequests and
// requestState; each input request an embedded request of a known method
// with params and without jsonrpc or id; requestState a string.
func judgeInputRequired(m map[string]json.RawMessage, x *mcp.Exchange) Outcome {
	reqs, hasReqs := m["inputRequests"]
	state, hasState := m["requestState"]
	if !hasReqs && !hasState {
		return check.Fail("input_required without inputRequests or requestState (it MUST carry at least one)", check.Protocol.Of(x))
	}
	if hasState {
		var s string
		if json.Unmarshal(state, &s) != nil {
			return check.Fail("requestState is not a string", check.Protocol.Of(x))
		}
	}
	if hasReqs {
		var rs map[string]map[string]json.RawMessage
		if json.Unmarshal(reqs, &rs) != nil {
			return check.Fail("inputRequests is not a map of request objects", check.Protocol.Of(x))
		}
		for k, r := range rs {
			var method string
			_ = json.Unmarshal(r["method"], &method)
			if _, ok := inputCapability[method]; !ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] has method %q; want elicitation/create, sampling/createMessage or roots/list", k, method)
			}
			if _, ok := r["jsonrpc"]; ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] carries jsonrpc; embedded requests have neither jsonrpc nor id", k)
			}
			if _, ok := r["id"]; ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] carries an id; embedded requests have neither jsonrpc nor id", k)
			}
			if method != "roots/list" {
				if p := bytes.TrimSpace(r["params"]); len(p) == 0 || p[0] != '{' {
					return check.Failf(check.Protocol.Of(x), "inputRequests[%q] (%s) has no params object", k, method)
				}
			}
		}
	}
	return check.Pass()
}

// migration lists what a legacy server must change to speak 2026-07-28
// (changelog.mdx; basic/versioning.mdx).
func migration(e *Env) []string {
	var out []string
	if h := e.legacyHint(); h != "" {
		out = append(out, h)
	}
	out = append(out,
		"Implement server/discover (required): answer with supportedVersions, capabilities, resultType, ttlMs and cacheScope.",
		"Drop the initialize handshake and notifications/initialized: every request carries _meta io.modelcontextprotocol/protocolVersion and clientCapabilities; answer a missing key with -32602 (HTTP 400).",
		"Serve every request statelessly: no Mcp-Session-Id; tools/list, prompts/list and resources/list must not vary per connection.",
		"Add resultType to every result, and ttlMs with cacheScope to server/discover, the list results and resources/read.",
		"Answer an unsupported protocol version with -32022 and data.supported/data.requested (HTTP 400).",
		"ping, logging/setLevel and resources/subscribe/unsubscribe are removed: answer -32601 (HTTP 404); logging is opted into per request with _meta logLevel, subscriptions through subscriptions/listen.",
		"Server-initiated requests (elicitation/create, sampling/createMessage, roots/list) become input requests in an input_required result (multi round-trip requests).",
		"If you implemented the drafts' error codes: -32001 → -32020 (header mismatch), -32003 → -32021 (missing client capability), -32004 → -32022 (unsupported version).",
		"-32042 (URL elicitation required) is removed: return input_required with an elicitation/create request in url mode.",
	)
	if e.declares("resources") {
		out = append(out, "Resource not found: answer -32602 (with data.uri), no longer -32002.")
	}
	if e.kind == "http" {
		out = append(out, "Streamable HTTP: require and validate MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body (HTTP 400, -32020); answer GET and DELETE with 405.")
	}
	return out
}
