package conformance

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/passthrough"
	"github.com/mcp-eval/mcp-eval/internal/redact"
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
// knows, with the request as evidence (tokens masked). Requests judged are
// those the server made while the conformance layer probed it (a proxy
// forwards each request; a tool that calls its upstream only when called
// is not reached by these probes).
func noTokenPassthrough(ctx context.Context, e *Env) Outcome {
	s := e.authState(ctx)
	a := e.opts.Auth
	reqs, dropped := a.Passthrough.Requests()
	if len(reqs) == 0 {
		return check.Skip(fmt.Sprintf("no request reached the passthrough listener (%s) while the server was probed: its upstream was not called, or is not pointed there", a.Passthrough.Addr()))
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
			ev := e.maskTokens(map[string]any{"listener": a.Passthrough.Addr(), "method": r.Method, "url": r.URL,
				"headers": names, "foundIn": where, "body": clip.Bytes(string(r.Body), 500)})
			return check.Failf(ev, "a token mcp-eval presented to the server reached the passthrough listener %s (%s %s, in %s): the server passes the client's token through to its upstream; it MUST use a token issued for the upstream instead",
				a.Passthrough.Addr(), r.Method, clip.Bytes(r.URL, 100), where)
		}
	}
	info := fmt.Sprintf("%d requests reached the passthrough listener; none carried a token the run presented", len(reqs))
	if dropped > 0 {
		info += fmt.Sprintf(" (%d more not kept)", dropped)
	}
	return check.PassInfo(info)
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
