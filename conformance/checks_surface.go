package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// The tool surface a client sees must be one: server/tools.mdx, the set of
// tools "MAY change over time, but MUST NOT vary per-connection or as a
// side effect of other requests on the connection". Statelessness lets two
// requests of one conversation reach two replicas behind one name, so
// surface/replicas lists every replica (--server-url given again) and
// compares it with the run's listing; surface/over-run lists again once
// every other check has run. Each names the tools added, removed or
// defined otherwise, and calls out what grows a client's trust: a tool no
// longer read-only, a new destructive one (ordering/tools-list and
// ordering/tools-list-fresh-connection judge order and new connections).

func surfaceChecks() []*Check {
	return []*Check{
		{ID: "surface/replicas", Reqs: []string{"features/tools-list-stable"}, Level: report.LevelMust, Revision: revModern, Transport: "http", Once: true,
			SpecRef: spec("server/tools") + "#capabilities",
			Title:   "every replica given with --server-url lists the same tools as the first (names, descriptions, schemas, annotations)",
			Skip: func(e *Env) string {
				if len(e.opts.Replicas) == 0 {
					return "one server URL: give --server-url once per replica to compare their tool surfaces"
				}
				return needsTools(e)
			},
			Run: surfaceReplicas},
		{ID: "surface/over-run", Reqs: []string{"features/tools-list-stable"}, Level: report.LevelShould, Revision: revBoth, Once: true, After: true,
			SpecRef: spec("server/tools") + "#capabilities",
			Title:   "tools/list at the end of the run lists the tools of its start: a surface that changed under mcp-eval's read-only requests, and above all one that grew (readOnlyHint dropped, a new destructive tool), is called out",
			Skip:    needsTools,
			Run:     surfaceOverRun},
	}
}

// baseline is the run's listing, or the outcome when there is none to
// compare with.
func (e *Env) baseline() *Outcome {
	var o Outcome
	switch {
	case isBound(e.toolsErr):
		o = check.Skip("tools/list did not end within mcp-eval's bound, so there is no whole listing to compare: " + e.toolsErr.Error())
	case e.toolsErr != nil:
		o = check.Errored(fmt.Errorf("tools/list: %w", e.toolsErr), nil)
	default:
		return nil
	}
	return &o
}

func surfaceReplicas(ctx context.Context, e *Env) Outcome {
	if o := e.baseline(); o != nil {
		return *o
	}
	var fails []string
	ev := map[string]any{}
	for _, r := range e.opts.Replicas {
		c, err := mcp.Connect(ctx, r.HTTPTarget, mcp.Options{Timeout: e.client.Timeout(), NoFallback: true, Authorizer: r.Authorizer})
		if err != nil {
			return check.Errored(fmt.Errorf("replica %s: %w", r.URL, err), nil)
		}
		l := e.walk(ctx, c, toolsList, false)
		c.Close()
		switch {
		case l.fail != nil:
			return Outcome{Status: report.StatusError, Message: "tools/list on replica " + r.URL + ": " + l.fail.Message, Evidence: l.fail.Evidence}
		case l.bounded != "":
			return check.Skip("tools/list on replica " + r.URL + " did not end within mcp-eval's bound: " + l.bounded)
		}
		if d := diffSurface(e.tools, l.tools.tools); d != nil {
			fails = append(fails, "replica "+r.URL+": "+d.summary())
			ev[r.URL] = d.evidence()
		}
	}
	if len(fails) > 0 {
		return check.Failf(ev, "the replicas serve different tool surfaces (the set of tools MUST NOT vary per connection): %s", strings.Join(fails, "; "))
	}
	return check.PassInfo(fmt.Sprintf("%d replicas list the same %d tools", len(e.opts.Replicas), len(e.tools)))
}

func surfaceOverRun(ctx context.Context, e *Env) Outcome {
	if o := e.baseline(); o != nil {
		return *o
	}
	l := e.walk(ctx, e.client, toolsList, false)
	switch {
	case l.fail != nil:
		return Outcome{Status: report.StatusError, Message: "tools/list at the end of the run: " + l.fail.Message, Evidence: l.fail.Evidence}
	case l.bounded != "":
		return check.Skip("tools/list at the end of the run did not end within mcp-eval's bound: " + l.bounded)
	}
	d := diffSurface(e.tools, l.tools.tools)
	if d == nil {
		return check.PassInfo(fmt.Sprintf("the same %d tools at the end of the run", len(e.tools)))
	}
	return check.Failf(d.evidence(), "tools/list changed during the run, under mcp-eval's read-only requests (it MAY change over time, MUST NOT as a side effect of requests; a client that cached it per ttlMs holds another): %s", d.summary())
}

// surfaceDiff is how a second listing differs from the baseline.
type surfaceDiff struct {
	removed, added, changed []string
	// grown are the changes that widen what a client trusts the tools to do.
	grown        []string
	first, later map[string]string // canonical definitions
}

// diffSurface compares two listings as sets of canonical definitions; nil
// when they are the same.
func diffSurface(base, other []mcp.Tool) *surfaceDiff {
	if sameTools(base, other) {
		return nil
	}
	d := &surfaceDiff{first: canonicalTools(base), later: canonicalTools(other)}
	byName := func(ts []mcp.Tool) map[string]mcp.Tool {
		m := make(map[string]mcp.Tool, len(ts))
		for _, t := range ts {
			m[t.Name] = t
		}
		return m
	}
	a, b := byName(base), byName(other)
	for name, ca := range d.first {
		cb, ok := d.later[name]
		switch {
		case !ok:
			d.removed = append(d.removed, name)
		case ca != cb:
			d.changed = append(d.changed, name)
			if a[name].ReadOnly() && !b[name].ReadOnly() {
				d.grown = append(d.grown, name+": readOnlyHint no longer true")
			}
			if !destructive(a[name]) && destructive(b[name]) {
				d.grown = append(d.grown, name+": now destructive")
			}
		}
	}
	for name := range d.later {
		if _, ok := d.first[name]; !ok {
			d.added = append(d.added, name)
			if destructive(b[name]) {
				d.grown = append(d.grown, name+": a new destructive tool")
			}
		}
	}
	if len(d.removed)+len(d.added)+len(d.changed) == 0 {
		return nil
	}
	for _, s := range [][]string{d.removed, d.added, d.changed, d.grown} {
		sort.Strings(s)
	}
	return d
}

// destructive reports whether a client must treat t as destructive:
// server/tools.mdx ToolAnnotations, destructiveHint defaults to true and
// matters only when readOnlyHint is false.
func destructive(t mcp.Tool) bool {
	if t.ReadOnly() {
		return false
	}
	return t.Annotations == nil || t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint
}

func (d *surfaceDiff) summary() string {
	var parts []string
	if len(d.grown) > 0 {
		parts = append(parts, "capabilities grown: "+strings.Join(firstN(d.grown, 3), ", "))
	}
	if len(d.removed) > 0 {
		parts = append(parts, "missing: "+strings.Join(firstN(d.removed, 3), ", "))
	}
	if len(d.added) > 0 {
		parts = append(parts, "added: "+strings.Join(firstN(d.added, 3), ", "))
	}
	if len(d.changed) > 0 {
		parts = append(parts, "defined differently: "+strings.Join(firstN(d.changed, 3), ", "))
	}
	return strings.Join(parts, "; ")
}

func (d *surfaceDiff) evidence() map[string]any {
	ev := map[string]any{}
	if len(d.grown) > 0 {
		ev["grown"] = firstN(d.grown, 20)
	}
	if len(d.removed) > 0 {
		ev["missing"] = firstN(d.removed, 20)
	}
	if len(d.added) > 0 {
		ev["added"] = firstN(d.added, 20)
	}
	if len(d.changed) > 0 {
		n := d.changed[0]
		ev["changed"] = firstN(d.changed, 20)
		ev["before"] = json.RawMessage(d.first[n])
		ev["after"] = json.RawMessage(d.later[n])
	}
	return ev
}
