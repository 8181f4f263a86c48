package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func httpChecks() []*Check {
	transport := spec("basic/transports/streamable-http")
	// notAllowed probes with an older client's GET or DELETE. The rule
	// binds only a server that serves 2026-07-28 alone
	// (streamable-http.mdx §Earlier Streamable HTTP Revisions): "A server
	// that supports only this revision and receives such traffic from an
	// older client SHOULD respond as follows: HTTP GET or DELETE to the
	// MCP endpoint: respond with 405 Method Not Allowed." A server that
	// also serves an earlier revision serves that traffic by the earlier
	// revision's rules (the GET stream, DELETE of a session).
	notAllowed := func(id, method string) *Check {
		return &Check{ID: id, Level: report.LevelShould, Revision: revModern, Transport: "http",
			SpecRef: transport + "#earlier-streamable-http-revisions",
			Title:   method + " on the endpoint → 405 Method Not Allowed (a server that serves only 2026-07-28)",
			Skip:    onlyThisRevision,
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.modern.NewCall("", nil)
				call.HTTPMethod = method
				call.Body = []byte{}
				call.ID = nil
				// What an older client sends: its own revision's header.
				call.Header = http.Header{mcp.HeaderProtocolVersion: {mcp.LegacyVersion}}
				x, err := e.modern.Do(ctx, call)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Status != http.StatusMethodNotAllowed {
					return check.Failf(check.Protocol.Of(x), "%s answered %s, want 405 (the GET stream and DELETE of a session are gone in 2026-07-28)", method, cameBack(x))
				}
				return check.Pass()
			}}
	}
	return []*Check{
		withReqs(notAllowed("http/get-not-allowed", http.MethodGet), "http/get-delete-405", "http/no-http-sse"),
		withReqs(notAllowed("http/delete-not-allowed", http.MethodDelete), "http/get-delete-405"),
		{ID: "http/no-session-id", Reqs: []string{"http/ignore-session-id"}, Level: report.LevelShould, Revision: revModern, Transport: "http",
			SpecRef: transport + "#backward-compatibility",
			Title:   "no Mcp-Session-Id is minted, and one sent is ignored",
			Skip: func(e *Env) string {
				if e.answered() == "" {
					return "the server answered neither server/discover nor tools/list, so no request shows what it does with a session id"
				}
				return ""
			},
			Run: noSessionID},
		{ID: "http/origin-rejected", Reqs: []string{"http/origin-validate"}, Level: report.LevelMust, Revision: revBoth, Transport: "http",
			SpecRef: transport + "#security-warning",
			Title:   "a request with an invalid Origin → HTTP 403 (loopback servers)",
			Skip:    onLoopback("which origins it allows"),
			Run:     originRejected},
		{ID: "http/host-rejected", Reqs: []string{"http/bind-localhost"}, Level: report.LevelShould, Revision: revBoth, Transport: "http",
			SpecRef: spec("basic/security_best_practices") + "#local-mcp-server-compromise",
			Title:   "a request with a foreign Host header → HTTP 4xx (loopback servers; DNS rebinding)",
			Skip:    onLoopback("which hosts it serves"),
			Run:     hostRejected},
		{ID: "http/content-type", Reqs: []string{"http/request-content-type"}, Level: report.LevelMust, Revision: revBoth, Transport: "http", SpecRef: transport + "#sending-messages-to-the-server",
			Title: "answers are application/json or text/event-stream",
			Run:   answerContentType},
	}
}

// answered is a method the server answered with a result during setup,
// for probes about something other than the method itself:
// server/discover, else tools/list; "" when it answered neither.
func (e *Env) answered() string {
	switch {
	case e.discover != nil:
		return "server/discover"
	case e.toolsErr == nil && (e.declares("tools") || e.capabilities == nil):
		return "tools/list"
	}
	return ""
}

// onlyThisRevision is the Skip of a rule for a server that serves only
// 2026-07-28: one whose server/discover lists an earlier revision too is
// not bound by it.
func onlyThisRevision(e *Env) string {
	if e.discover == nil {
		return ""
	}
	var others []string
	for _, v := range e.discover.SupportedVersions {
		if v != mcp.LatestVersion {
			others = append(others, v)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("the server also serves %s (server/discover supportedVersions), and the rule binds a server that supports only %s",
		strings.Join(others, ", "), mcp.LatestVersion)
}

// onLoopback is the Skip of a DNS-rebinding check: it applies to a server
// on loopback; elsewhere what it tests is the server's own policy.
func onLoopback(policy string) func(*Env) string {
	return func(e *Env) string {
		if !e.isLoopback() {
			return "the server is not on loopback; " + policy + " is its own policy"
		}
		return ""
	}
}

// noSessionID wants no Mcp-Session-Id minted, and one sent ignored:
// 2026-07-28 has no sessions. It probes with a request the server answered
// during setup, so that what it judges is the session id, not whether the
// server implements the method (a server without server/discover).
func noSessionID(ctx context.Context, e *Env) Outcome {
	method := e.answered()
	_, x, err := e.send(ctx, method, nil, nil)
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if sid := x.Header.Get(mcp.HeaderSessionID); sid != "" {
		return check.Fail("the server minted an Mcp-Session-Id; 2026-07-28 has no sessions", check.Protocol.Of(x))
	}
	_, x, err = e.send(ctx, method, nil, func(c *mcp.Call) { c.Header.Set(mcp.HeaderSessionID, "mcp-eval-probe-session") })
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
}

// originRejected sends a foreign Origin: a loopback server MUST refuse it
// with 403 against DNS rebinding.
func originRejected(ctx context.Context, e *Env) Outcome {
	x, o := e.firstPage(ctx, func(c *mcp.Call) { c.Header.Set("Origin", "http://mcp-eval-probe.invalid") })
	if o != nil {
		return *o
	}
	if x.Status != http.StatusForbidden {
		return check.Failf(check.Protocol.Of(x), "a request from Origin http://mcp-eval-probe.invalid got HTTP %d, want 403 (servers MUST validate Origin against DNS rebinding)", x.Status)
	}
	return check.Pass()
}

// hostRejected sends what a browser sends after DNS rebinding: the
// attacker's name as Host, on a connection to 127.0.0.1.
func hostRejected(ctx context.Context, e *Env) Outcome {
	x, o := e.firstPage(ctx, func(c *mcp.Call) { c.Header.Set("Host", "mcp-eval-probe.invalid") })
	if o != nil {
		return *o
	}
	if x.Status < 400 || x.Status >= 500 {
		return check.Failf(check.Protocol.Of(x), "a request with Host: mcp-eval-probe.invalid got %s, want 403 (a loopback server should refuse names other than localhost and loopback addresses, or a DNS-rebinding page can call it)", cameBack(x))
	}
	return check.PassInfo(fmt.Sprintf("HTTP %d", x.Status))
}

// answerContentType wants a request answered as JSON or an SSE stream.
func answerContentType(ctx context.Context, e *Env) Outcome {
	x, o := e.firstPage(ctx, nil)
	if o != nil {
		return *o
	}
	if x.ContentType != "application/json" && x.ContentType != "text/event-stream" {
		return check.Failf(check.Protocol.Of(x), "Content-Type %q; a request's answer must be application/json or text/event-stream", x.Header.Get("Content-Type"))
	}
	return check.PassInfo("answers as " + x.ContentType)
}
