package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Protocol hygiene: what the transports saw while the other checks ran.
// The mcp package records every response that answers no request in
// flight, every second answer to one id, and every stdout line or SSE
// event that is not a JSON-RPC message (mcp.Anomaly); these checks run
// after all others (Check.After) and report what was recorded on every
// connection of the run, with the offending messages as evidence.

// maxAnomalyExcerpts bounds the excerpts a hygiene check quotes; the
// counts cover everything.
const maxAnomalyExcerpts = 5

// anomalyConn is one connection of the run and what its transport saw.
type anomalyConn struct {
	label  string
	list   []mcp.Anomaly
	counts map[string]int
}

// anomalyConns returns the connections the run used — the main client, the
// modern-envelope client and the fresh connection when they have transports
// of their own — with their anomalies.
func (e *Env) anomalyConns() []anomalyConn {
	e.freshMu.Lock()
	fresh := e.fresh
	e.freshMu.Unlock()
	var out []anomalyConn
	seen := map[mcp.Transport]bool{}
	for _, lc := range []struct {
		label string
		c     *mcp.Client
	}{{"main", e.client}, {"modern", e.modern}, {"fresh connection", fresh}} {
		if lc.c == nil || seen[lc.c.Transport()] {
			continue
		}
		seen[lc.c.Transport()] = true
		ac := anomalyConn{label: lc.label, list: lc.c.Anomalies()}
		if src, ok := lc.c.Transport().(interface{ AnomalyCounts() map[string]int }); ok {
			ac.counts = src.AnomalyCounts()
		} else {
			ac.counts = map[string]int{}
			for _, a := range ac.list {
				ac.counts[a.Kind]++
			}
		}
		out = append(out, ac)
	}
	return out
}

// anomalyFinding is what the run saw of some anomaly kinds.
type anomalyFinding struct {
	counts map[string]int
	total  int
	first  []map[string]string
}

func (e *Env) findAnomalies(kinds ...string) anomalyFinding {
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	f := anomalyFinding{counts: map[string]int{}}
	conns := e.anomalyConns()
	for _, c := range conns {
		for k, n := range c.counts {
			if want[k] {
				f.counts[k] += n
				f.total += n
			}
		}
		for _, a := range c.list {
			if want[a.Kind] && len(f.first) < maxAnomalyExcerpts {
				x := map[string]string{"kind": a.Kind, "detail": a.Detail, "received": a.Evidence}
				if len(conns) > 1 {
					x["connection"] = c.label
				}
				f.first = append(f.first, x)
			}
		}
	}
	return f
}

// evidence is the bounded evidence of a finding: the counts and the first
// few offending messages.
func (f anomalyFinding) evidence() map[string]any {
	return map[string]any{"counts": f.counts, "first": f.first}
}

// summary says "2 duplicate, 1 orphan" in a stable order.
func (f anomalyFinding) summary() string {
	var parts []string
	for k, n := range f.counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func (f anomalyFinding) example() string {
	if len(f.first) == 0 {
		return ""
	}
	return "; first: " + f.first[0]["detail"]
}

func hygieneChecks() []*Check {
	return []*Check{
		// JSON-RPC 2.0 §5: the server replies to each request with exactly
		// one response whose id is the request's; MCP's id rules (basic
		// §Requests, §Responses) rely on that pairing. An answer after
		// mcp-eval's own timeout is a slow server, not a wrong one.
		{ID: "jsonrpc/one-response-per-request", Reqs: []string{"base/result-same-id"}, Level: report.LevelShould, Revision: revBoth, After: true,
			SpecRef: spec("basic/index") + "#responses",
			Title:   "every response answers a request in flight, exactly once (no responses to ids never sent, no duplicates)",
			Run: func(ctx context.Context, e *Env) Outcome {
				f := e.findAnomalies(mcp.AnomalyOrphan, mcp.AnomalyDuplicate)
				late := e.findAnomalies(mcp.AnomalyLate)
				if f.total > 0 {
					ev := f.evidence()
					if late.total > 0 {
						ev["late"] = late.counts[mcp.AnomalyLate]
					}
					return check.Failf(ev, "the server sent %d response(s) that answer no request in flight (%s)%s",
						f.total, f.summary(), f.example())
				}
				if late.total > 0 {
					return check.PassInfo(fmt.Sprintf("%d answer(s) came after mcp-eval had given up on the request (timeout): a slow server, not a wrong one%s",
						late.total, late.example()))
				}
				return check.Pass()
			}},
		// A start-up banner breaks clients that read the first line as a
		// message; stdio.mdx forbids anything on stdout that is not a
		// message, but a banner before the first one is common and most
		// clients skip it, so it is a warning (see jsonrpc/only-messages
		// for what comes later).
		{ID: "jsonrpc/no-stdout-banner", Reqs: []string{"stdio/only-messages"}, Level: report.LevelShould, Revision: revBoth, Transport: "stdio", After: true,
			SpecRef: spec("basic/transports/stdio"),
			Title:   "nothing but JSON-RPC on stdout before the first message (no start-up banner)",
			Run: func(ctx context.Context, e *Env) Outcome {
				f := e.findAnomalies(mcp.AnomalyBanner)
				if f.total > 0 {
					// A banner is per process, and the run starts several:
					// say how long one is, and in how many it came.
					lines, procs := 0, 0
					for _, c := range e.anomalyConns() {
						if n := c.counts[mcp.AnomalyBanner]; n > 0 {
							lines, procs = max(lines, n), procs+1
						}
					}
					in := ""
					if procs > 1 {
						in = fmt.Sprintf(" (in each of the %d server processes the run started)", procs)
					}
					return check.Failf(f.evidence(), "the server wrote %s to stdout before its first JSON-RPC message%s; stdout is for MCP messages only (log to stderr)%s",
						plural(lines, "line"), in, f.example())
				}
				return check.Pass()
			}},
		// stdio.mdx: "The server MUST NOT write anything to its stdout that
		// is not a valid MCP message" (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio: stdout carries only
		// valid MCP messages). Over HTTP the same holds for the events of
		// an SSE response (streamable-http.mdx: the stream carries
		// JSON-RPC messages). A line after the first message desynchronises
		// a client mid-conversation: a failure, unlike a banner.
		{ID: "jsonrpc/only-messages", Reqs: []string{"base/json-rpc", "base/utf-8", "stdio/no-embedded-newlines", "stdio/only-messages"}, Level: report.LevelMust, Revision: revBoth, After: true,
			SpecRef: spec("basic/transports/stdio"),
			Title:   "after the first message, every stdout line (stdio) and SSE event (HTTP) is a valid JSON-RPC message",
			Run: func(ctx context.Context, e *Env) Outcome {
				f := e.findAnomalies(mcp.AnomalyNonJSON, mcp.AnomalyUnparseable)
				if f.total > 0 {
					where := "stdout lines"
					if e.kind == "http" {
						where = "SSE events"
					}
					return check.Failf(f.evidence(), "the server wrote %d %s that are not valid JSON-RPC messages (%s)%s",
						f.total, where, f.summary(), f.example())
				}
				return check.Pass()
			}},
	}
}

// plural is "1 line" or "3 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
