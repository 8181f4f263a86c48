package conformance

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/passthrough"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
)

// PassthroughLog is what reached the run's --passthrough-listener, and how
// many requests were not kept beyond its bound.
type PassthroughLog interface {
	Addr() string
	Requests() ([]passthrough.Request, int)
}

// passthroughPrepare runs auth/no-token-passthrough only with a listener.
func passthroughPrepare(ctx context.Context, e *Env) string {
	if reason := authPrepare(ctx, e); reason != "" {
		return reason
	}
	if a := e.opts.Auth; a == nil || a.Passthrough == nil {
		return noPassthroughListener
	}
	return ""
}

// noPassthroughListener is the skip reason of auth/no-token-passthrough
// in a run without --passthrough-listener.
const noPassthroughListener = "no --passthrough-listener: point the server's upstream at one for mcp-eval to see whether it forwards the tokens it receives"

// noTokenPassthrough: security-considerations.mdx §Access Token Privilege
// Restriction, "If the MCP server makes requests to upstream APIs, it may
// act as an OAuth client to them. The access token used at the upstream
// API is a separate token, issued by the upstream authorization server.
// The MCP server MUST NOT pass through the token it received from the MCP
// client." A server's upstream requests are invisible to a client, unless
// the server's team points the upstream at the listener mcp-eval runs
// (--passthrough-listener): the check runs after the other auth checks
// and fails if any token the run presented to the server (its own, the
// probes', forged ones) reached the listener, in any spelling the redactor
// knows, with the request as evidence (tokens masked). Run judges the
// requests the server made while the conformance layer probed it; the
// pipeline judges again once the model layers have run
// (Result.PassthroughCheck), since a tool that calls its upstream only
// when called is reached by their tool calls, made with the run's token.
func noTokenPassthrough(ctx context.Context, e *Env) Outcome {
	return judgePassthrough(ctx, e, time.Time{})
}

// judgePassthrough judges what the listener holds now; requests that
// arrived after layer0 (zero: none did) are said to come from the model
// layers' tool calls.
func judgePassthrough(ctx context.Context, e *Env, layer0 time.Time) Outcome {
	s := e.authState(ctx)
	a := e.opts.Auth
	reqs, dropped := a.Passthrough.Requests()
	if len(reqs) == 0 {
		when := "while the server was probed"
		if !layer0.IsZero() {
			when = "during the run (the conformance probes and the model layers' tool calls)"
		}
		return check.Skip(fmt.Sprintf("%s (%s) %s: its upstream was not called, or is not pointed there", noPassthroughRequest, a.Passthrough.Addr(), when))
	}
	s.mu.Lock()
	tokens := append([]string{s.token}, s.minted...)
	s.mu.Unlock()
	if a.Presented != nil {
		tokens = append(tokens, a.Presented()...)
	}
	for _, r := range reqs {
		if where := tokenIn(r, tokens); where != "" {
			names := make([]string, 0, len(r.Header))
			for k := range r.Header {
				names = append(names, k)
			}
			sort.Strings(names)
			when := "while the conformance layer probed the server"
			if !layer0.IsZero() && r.At.After(layer0) {
				when = "after the conformance layer, while the model layers called tools with the run's token"
			}
			ev := e.maskTokens(map[string]any{"listener": a.Passthrough.Addr(), "method": r.Method, "url": r.URL,
				"headers": names, "foundIn": where, "body": clip.Bytes(string(r.Body), 500), "arrived": when})
			return check.Failf(ev, "a token mcp-eval presented to the server reached the passthrough listener %s (%s %s, in %s, %s): the server passes the client's token through to its upstream; it MUST use a token issued for the upstream instead",
				a.Passthrough.Addr(), r.Method, clip.Bytes(r.URL, 100), where, when)
		}
	}
	info := fmt.Sprintf("%d requests reached the passthrough listener; none carried a token the run presented", len(reqs))
	if !layer0.IsZero() {
		info = fmt.Sprintf("%d requests reached the passthrough listener during the run (conformance probes and model layers); none carried a token the run presented", len(reqs))
	}
	if dropped > 0 {
		info += fmt.Sprintf(" (%d more not kept)", dropped)
	}
	return check.PassInfo(info)
}

// noPassthroughRequest starts the skip of auth/no-token-passthrough when
// nothing reached the listener (the pipeline judges such a check again
// after the model layers).
const noPassthroughRequest = "no request reached the passthrough listener"

// passthroughRejudge is what Result.PassthroughCheck calls: set by Run
// when it ran auth/no-token-passthrough.
type passthroughRejudge struct {
	judge  func() Outcome
	layer0 time.Time
}

// keepPassthrough lets the Result judge auth/no-token-passthrough again
// after Run returned, when Run ran it (the auth state is then discovered:
// judging again reads it, and the listener, but sends nothing).
func (e *Env) keepPassthrough(ctx context.Context, res *Result, ran []*Check) {
	if a := e.opts.Auth; a == nil || a.Passthrough == nil ||
		!slices.ContainsFunc(ran, func(c *Check) bool { return c.ID == "auth/no-token-passthrough" }) {
		return
	}
	end := time.Now()
	res.passthrough = &passthroughRejudge{layer0: end, judge: func() Outcome { return judgePassthrough(ctx, e, end) }}
}

// PassthroughCheck judges auth/no-token-passthrough again on every request
// the listener received until now, for the pipeline to replace prev, the
// entry Run made before the model layers ran. False when there is nothing
// to judge again: Run did not run the check, or prev is a verdict already
// (a failure found during the conformance layer stands), or a skip for
// another reason than an empty listener.
func (r *Result) PassthroughCheck(prev report.Check) (report.Check, bool) {
	if r == nil || r.passthrough == nil || prev.ID != "auth/no-token-passthrough" {
		return report.Check{}, false
	}
	if prev.Status != report.StatusPass && (prev.Status != report.StatusSkip || !strings.HasPrefix(prev.Message, noPassthroughRequest)) {
		return report.Check{}, false
	}
	for _, c := range Checks() {
		if c.ID == prev.ID {
			return check.Fold(c, report.LayerConformance, []Outcome{r.passthrough.judge()}), true
		}
	}
	return report.Check{}, false
}

// tokenIn names where a request carries one of tokens in any spelling
// (a header name, or "body"), "" if nowhere.
func tokenIn(r passthrough.Request, tokens []string) string {
	for _, t := range tokens {
		if len(t) < 8 {
			continue
		}
		for _, sp := range redact.Spellings(t) {
			for k, vs := range r.Header {
				for _, v := range vs {
					if strings.Contains(v, sp) {
						return "header " + http.CanonicalHeaderKey(k)
					}
				}
			}
			if strings.Contains(string(r.Body), sp) || strings.Contains(r.URL, sp) {
				return "body or URL"
			}
		}
	}
	return ""
}
