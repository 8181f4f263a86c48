package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func orderingChecks() []*Check {
	return []*Check{
		{ID: "ordering/tools-list", Reqs: []string{"features/tools-order"}, Level: report.LevelShould, Revision: revBoth, SpecRef: spec("server/tools") + "#listing-tools",
			Title: "two consecutive tools/list return the same tools in the same order",
			Skip:  needsTools,
			Run: func(ctx context.Context, e *Env) Outcome {
				// The setup's listing, then the run's shared walk: two
				// listings on the client, one after the other, and no walk
				// of its own.
				if e.toolsErr != nil && !isBound(e.toolsErr) {
					return check.Errored(fmt.Errorf("the first tools/list: %w", e.toolsErr), nil)
				}
				l := e.listingOf(ctx, toolsList)
				if l.fail != nil {
					return l.unavailable("tools/list")
				}
				ta, tb := e.tools, l.tools.tools
				bounded := e.toolsErr != nil || l.bounded != ""
				if bounded {
					// A listing cut at mcp-eval's bound: compare what both read.
					n := min(len(ta), len(tb))
					ta, tb = ta[:n], tb[:n]
				}
				// Compared in place: copies of the names (and their joins)
				// were 8 MB beside a 100 000-tool listing.
				if !slices.EqualFunc(ta, tb, func(a, b mcp.Tool) bool { return a.Name == b.Name }) {
					return check.Fail("tools/list order differs between two consecutive calls",
						map[string]any{"first": firstNames(ta, 50), "second": firstNames(tb, 50)})
				}
				if bounded {
					return check.PassInfo(fmt.Sprintf("compared the first %d tools, which both listings read before mcp-eval's bound", len(ta)))
				}
				return check.Pass()
			}},
		{ID: "ordering/tools-list-fresh-connection", Reqs: []string{"base/stateless-context", "base/stateless-no-connection-reuse", "features/tools-list-stable"}, Level: report.LevelMust, Revision: revBoth,
			SpecRef: spec("changelog"),
			Title:   "tools/list on a new connection returns the same tools (the same canonical definitions)",
			Skip:    needsTools,
			Run: func(ctx context.Context, e *Env) Outcome {
				fresh, err := e.freshClient(ctx)
				if err != nil {
					return check.Errored(fmt.Errorf("open a second connection: %w", err), nil)
				}
				// The setup's listing was made on the first connection the
				// run opened; the client's pool may have opened others since.
				if isBound(e.toolsErr) {
					return check.Skip("tools/list did not end within mcp-eval's bound, so there is no whole listing to compare: " + e.toolsErr.Error())
				}
				if e.toolsErr != nil {
					return check.Errored(fmt.Errorf("tools/list on the first connection: %w", e.toolsErr), nil)
				}
				l := e.walk(ctx, fresh, toolsList, false)
				switch {
				case l.fail != nil:
					return Outcome{Status: report.StatusError, Message: "tools/list on the new connection: " + l.fail.Message, Evidence: l.fail.Evidence}
				case l.bounded != "":
					return check.Skip("tools/list on the new connection did not end within mcp-eval's bound, so there is no whole listing to compare: " + l.bounded)
				}
				return compareSurfaces(e.tools, l.tools.tools)
			}},
	}
}

// compareSurfaces compares two listings as sets of canonical tool
// definitions (each tool decoded and re-encoded with sorted keys, so that
// key order and whitespace do not count, but any change of title,
// description, schema or annotation does); order is ordering/tools-list's
// business. A tool whose definition changes on a new connection breaks the
// stateless rule as surely as one that appears (changelog: list results
// must not vary per connection).
func compareSurfaces(first, second []mcp.Tool) Outcome {
	if sameTools(first, second) {
		return check.Pass() // byte for byte, the usual case: nothing to decode
	}
	a, b := canonicalTools(first), canonicalTools(second)
	var onlyFirst, onlyNew, changed []string
	for name, da := range a {
		db, ok := b[name]
		switch {
		case !ok:
			onlyFirst = append(onlyFirst, name)
		case da != db:
			changed = append(changed, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			onlyNew = append(onlyNew, name)
		}
	}
	if len(onlyFirst)+len(onlyNew)+len(changed) == 0 {
		return check.Pass()
	}
	sort.Strings(onlyFirst)
	sort.Strings(onlyNew)
	sort.Strings(changed)
	ev := map[string]any{}
	var parts []string
	if len(onlyFirst) > 0 {
		ev["onlyOnFirstConnection"] = firstN(onlyFirst, 20)
		parts = append(parts, "missing on the new connection: "+strings.Join(firstN(onlyFirst, 3), ", "))
	}
	if len(onlyNew) > 0 {
		ev["onlyOnNewConnection"] = firstN(onlyNew, 20)
		parts = append(parts, "only on the new connection: "+strings.Join(firstN(onlyNew, 3), ", "))
	}
	if len(changed) > 0 {
		n := changed[0]
		ev["changed"] = firstN(changed, 20)
		ev["firstConnection"] = json.RawMessage(a[n])
		ev["newConnection"] = json.RawMessage(b[n])
		parts = append(parts, "defined differently: "+strings.Join(firstN(changed, 3), ", "))
	}
	return check.Fail("tools/list differs between connections (list results must not vary per connection): "+strings.Join(parts, "; "), ev)
}

// sameTools reports whether two listings are the same tools, byte for
// byte, in the same order.
func sameTools(a, b []mcp.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Raw, b[i].Raw) {
			return false
		}
	}
	return true
}

// canonicalTools maps each tool's name to its canonical JSON (decoded and
// re-encoded: encoding/json sorts object keys). A name listed twice keeps
// both definitions, so a duplicate that differs is a change too.
func canonicalTools(ts []mcp.Tool) map[string]string {
	out := make(map[string]string, len(ts))
	for _, t := range ts {
		var v any
		c := string(t.Raw)
		if json.Unmarshal(t.Raw, &v) == nil {
			if b, err := json.Marshal(v); err == nil {
				c = string(b)
			}
		}
		if prev, ok := out[t.Name]; ok && prev != c {
			c = prev + "\x00" + c
		}
		out[t.Name] = c
	}
	return out
}

// isBound reports whether err is a listing that mcp-eval stopped at one
// of its bounds (not a loop, not a failure of the server).
func isBound(err error) bool {
	se, ok := errors.AsType[*mcp.ListStopError](err)
	return ok && se.Bound != ""
}

func needsTools(e *Env) string {
	if e.capabilities != nil && !e.declares("tools") && len(e.tools) == 0 {
		return "the server does not declare the tools capability"
	}
	return ""
}

// firstNames is firstN of the tools' names, naming only the first n.
func firstNames(ts []mcp.Tool, n int) []string {
	out := make([]string, 0, min(len(ts), n)+1)
	for _, t := range ts[:min(len(ts), n)] {
		out = append(out, t.Name)
	}
	if len(ts) > n {
		out = append(out, fmt.Sprintf("+%d more", len(ts)-n))
	}
	return out
}
