package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func jsonrpcChecks() []*Check {
	ref := spec("basic/index") + "#requests"
	return []*Check{
		{ID: "jsonrpc/id-echo-string", Reqs: []string{"base/result-same-id"}, Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "a string id is echoed as the same JSON string (compared as values: \\u escapes are equal)",
			Run: func(ctx context.Context, e *Env) Outcome {
				id := fmt.Sprintf("mcp-eval-%d-ü", e.client.NextID())
				return e.echo(ctx, id, e.vehicle())
			}},
		{ID: "jsonrpc/id-echo-integer", Reqs: []string{"base/result-same-id"}, Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "an integer id is echoed as the same integer",
			Run: func(ctx context.Context, e *Env) Outcome {
				return e.echo(ctx, 7_000_000+e.client.NextID(), e.vehicle())
			}},
		// The same rule on every request the run sent, not only the two
		// probes above: judged after the other checks on what the
		// transports paired (engine/wire, IDEcho).
		{ID: "jsonrpc/id-echo-every-method", Reqs: []string{"base/result-same-id"}, Level: report.LevelMust, Revision: revBoth, Once: true, After: true, SpecRef: ref,
			Title: "every answer the run received carries its request's id as sent, the same JSON value and type, on every method",
			Skip:  needsWire,
			Run:   func(ctx context.Context, e *Env) Outcome { return judgeIDs(e.opts.Wire.Summary().IDs) }},
		{ID: "jsonrpc/error-id-echo", Reqs: []string{"base/error-same-id"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/index") + "#responses",
			Title: "an error response echoes the request id",
			Run: func(ctx context.Context, e *Env) Outcome {
				return e.echo(ctx, 8_000_000+e.client.NextID(), probeMethod)
			}},
		{ID: "jsonrpc/version", Reqs: []string{"base/json-rpc"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/index"),
			Title: `every response carries "jsonrpc": "2.0"`,
			Run:   rpcVersion},
		// The bad-body checks are also Layer 2's robustness probes of a bad
		// body (once resilience/batch and resilience/malformed-json, still
		// accepted as aliases: report.CheckAliases).
		{ID: "jsonrpc/batch-rejected", Reqs: []string{"guidance/jsonrpc-batch"}, Level: report.LevelShould, Revision: revBoth,
			SpecRef: spec("basic/transports/streamable-http") + "#sending-messages-to-the-server",
			Title:   "a JSON array (batch) body gets a 4xx, not a 2xx or 5xx (stdio: the server survives the line)",
			Run: func(ctx context.Context, e *Env) Outcome {
				one := e.client.NewCall(e.vehicle(), nil)
				two := e.client.NewCall(e.vehicle(), nil)
				b1, _ := json.Marshal(&mcp.Request{ID: one.ID, Method: one.Method, Params: one.Params})
				b2, _ := json.Marshal(&mcp.Request{ID: two.ID, Method: two.Method, Params: two.Params})
				one.Body = []byte("[" + string(b1) + "," + string(b2) + "]")
				return e.badBody(ctx, one, "a batch")
			}},
		{ID: "jsonrpc/malformed-json", Reqs: []string{"guidance/jsonrpc-parse-error"}, Level: report.LevelShould, Revision: revBoth,
			SpecRef: spec("basic/index"),
			Title:   "a body that is not JSON gets a 4xx, not a 5xx (stdio: the server survives the line)",
			Run: func(ctx context.Context, e *Env) Outcome {
				call := e.client.NewCall("tools/list", nil)
				call.Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`)
				return e.badBody(ctx, call, "malformed JSON")
			}},
		{ID: "jsonrpc/notification-no-response", Reqs: []string{"base/no-response-to-notification"}, Level: report.LevelMust, Revision: revBoth, Transport: "stdio",
			SpecRef: spec("basic/index") + "#notifications",
			Title:   "a notification is not answered",
			Run:     notificationUnanswered},
	}
}

// rpcVersion wants "jsonrpc": "2.0" in the answer.
func rpcVersion(ctx context.Context, e *Env) Outcome {
	x, o := e.firstPage(ctx, nil)
	if o != nil {
		return *o
	}
	if x.Response == nil {
		return check.Failf(check.Protocol.Of(x), "no JSON-RPC response (%s)", cameBack(x))
	}
	if !jsonIs(x.Response.JSONRPC, "2.0") {
		return check.Failf(check.Protocol.Of(x), `the response's jsonrpc member is %s, want "2.0"`, orAbsent(x.Response.JSONRPC))
	}
	return check.Pass()
}

// notificationUnanswered sends a notification over stdio: receivers MUST
// NOT answer one (basic/index §Notifications).
func notificationUnanswered(ctx context.Context, e *Env) Outcome {
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
	call := e.client.NewCall(e.vehicle(), nil)
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
}

func idIs(raw json.RawMessage, s string) bool {
	var got string
	return json.Unmarshal(raw, &got) == nil && got == s
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
	if !canon.EqualJSON(x.Response.ID, want) {
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
	// Is the server still there? One request (e.vehicle: a small answer
	// is enough): any JSON-RPC answer, a result or an error, says it is.
	follow := e.client.NewCall(e.vehicle(), nil)
	fx, err := e.client.Do(ctx, follow)
	switch {
	case err != nil:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(fx),
			Message: fmt.Sprintf("after %s the next request got no answer: %v", what, err)}
	case fx.Response == nil:
		return Outcome{Status: report.StatusFail, Info: info, Evidence: check.Protocol.Of(fx),
			Message: fmt.Sprintf("after %s the next request (%s) got HTTP %d with no JSON-RPC message (%s)", what, follow.Method, fx.Status, bodyExcerpt(fx))}
	}
	if rerr := fx.Response.Error; rerr != nil {
		info += fmt.Sprintf("; the next %s got error %d (the server still answers)", follow.Method, rerr.Code)
	}
	return check.PassInfo(info)
}

// Waiting for the answer behind a bad line: aliveFactor times what the same
// request took before the line, at least aliveFloor (a scheduler hiccup or
// a garbage collection must not read as a hang), at most the request
// timeout.
const (
	aliveFactor = 20
	aliveFloor  = time.Second
)

// aliveWithin is how long to wait for the answer behind the bad line, given
// what the same request took before it.
func aliveWithin(took, timeout time.Duration) time.Duration {
	d := max(aliveFloor, aliveFactor*took)
	if timeout > 0 {
		d = min(d, timeout)
	}
	return d
}

// badLine writes a bad line to a stdio server, then a request behind it
// (e.vehicle), which a server that reads its input in order answers after
// the bad line.
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
	// The same request first, while the process is known to be healthy,
	// twice: the first answer covers the process's start-up (under load
	// tens of milliseconds, which aliveFactor would make seconds), and how
	// fast the second, steady one comes sets how long to wait after the
	// bad line (aliveWithin), so that a server that hangs on the line costs
	// about a second, not the whole --timeout.
	method := e.vehicle()
	var took time.Duration
	for range 2 {
		start := time.Now()
		if x, err := c.Do(ctx, c.NewCall(method, nil)); err != nil {
			return check.Errored(fmt.Errorf("the process of its own did not answer %s before the bad line: %w", method, err), check.Protocol.Of(x))
		}
		took = time.Since(start)
	}
	wait := aliveWithin(took, c.Timeout())
	call.ID = nil // the line has no id the transport could wait for
	if x, err := c.Do(ctx, call); err != nil {
		return check.Failf(check.WithError(check.Protocol.Of(x), err), "%s could not be written: %v", what, err)
	}
	// The answer behind the line gets the request's whole timeout: a wait
	// of aliveWithin alone judged a correct server dead when a loaded
	// machine stalled it (beside 24 CPU-bound processes), so that wait only
	// says, in the info, that the answer came slower than before the line.
	sent := time.Now()
	x, err := c.Do(ctx, c.NewCall(method, nil))
	if err != nil {
		if ctx.Err() == nil && errors.As(err, new(*mcp.TimeoutError)) {
			err = fmt.Errorf("%w, where it answered the same request in %s before the line", err, took.Round(time.Microsecond))
		}
		return check.Failf(check.WithError(check.Protocol.Of(x), err), "after %s the server stopped answering %s: %v", what, method, err)
	}
	slow := ""
	if d := time.Since(sent); d > wait {
		slow = fmt.Sprintf(" (the next answer took %s, against %s before the line)", d.Round(time.Millisecond), took.Round(time.Microsecond))
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
		return check.PassInfo("stdio: survived; wrote no answer to it" + slow)
	}
	return check.PassInfo("stdio: survived; answered with " + strings.Join(seen, ", ") + slow)
}

// needsWire skips a check that judges what the run's message recorder saw
// when none is attached.
func needsWire(e *Env) string {
	if e.opts.Wire == nil {
		return "no message recorder is attached to this run's transports"
	}
	return ""
}

// judgeIDs fails when the answers of some method changed their request's
// id (a type, most often: 7 answered as "7").
func judgeIDs(ids wire.IDEcho) Outcome {
	seen := fmt.Sprintf("%d answers to %d methods (%s)", ids.Answers, len(ids.Methods), clip.Runes(strings.Join(ids.Methods, ", "), 200))
	if len(ids.Mismatches) == 0 {
		return check.PassInfo(seen + " carried their request's id")
	}
	var parts []string
	for _, m := range ids.Mismatches {
		parts = append(parts, fmt.Sprintf("%s answered id %s with %s (%d times)", m.Method, m.Sent, m.Got, m.Count))
	}
	return check.Failf(map[string]any{"mismatches": ids.Mismatches, "answers": ids.Answers, "methods": ids.Methods},
		"%d methods answered with an id other than the request's: %s; a response MUST carry the same id as its request, of the same type (of %s)",
		len(ids.Mismatches), strings.Join(parts, "; "), seen)
}
