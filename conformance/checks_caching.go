package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/report"
)

// listMethod is a method whose complete result must carry ttlMs and
// cacheScope (server/utilities/caching.mdx).
type listMethod struct {
	slug       string
	method     string
	capability string
	member     string // the array member, for paging; "" for single results
}

var cacheable = []listMethod{
	{"server-discover", "server/discover", "", ""},
	{"tools-list", "tools/list", "tools", "tools"},
	{"prompts-list", "prompts/list", "prompts", "prompts"},
	{"resources-list", "resources/list", "resources", "resources"},
	{"resources-templates-list", "resources/templates/list", "resources", "resourceTemplates"},
	{"resources-read", "resources/read", "resources", ""},
}

func (lm listMethod) skip(e *Env) string {
	if lm.capability != "" {
		if reason := needs(lm.capability)(e); reason != "" {
			return reason
		}
	}
	if lm.method == "resources/read" && firstResourceURI(e) == "" {
		return "resources/list lists no resource to read"
	}
	return ""
}

func (lm listMethod) params(e *Env) map[string]any {
	if lm.method == "resources/read" {
		return map[string]any{"uri": firstResourceURI(e)}
	}
	return nil
}

func firstResourceURI(e *Env) string {
	for _, r := range e.resources {
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(r, &res) == nil && res.URI != "" {
			return res.URI
		}
	}
	return ""
}

// pages visits every page of lm (one page for single results) of this
// run's shared walk (listing.go), calling visit with each page's result
// members (the item array aside) and the evidence of its exchange.
func (e *Env) pages(ctx context.Context, lm listMethod, visit func(page int, m map[string]json.RawMessage, ev map[string]any) *Outcome) Outcome {
	l := e.listingOf(ctx, lm)
	for i, p := range l.pages {
		if o := visit(i, p.m, p.ev); o != nil {
			return *o
		}
		if o := visitFirst(i, p, visit); o != nil {
			return *o
		}
	}
	if l.fail != nil {
		return *l.fail
	}
	if l.bounded != "" {
		return check.PassInfo(l.bounded)
	}
	return check.Pass()
}

// toolsList is the tools/list entry of cacheable.
var toolsList = listMethod{"tools-list", "tools/list", "tools", "tools"}

func cachingChecks() []*Check {
	var out []*Check
	for _, lm := range cacheable {
		lm := lm
		out = append(out, &Check{
			ID: "caching/" + lm.slug, Reqs: []string{"utilities/cache-hints", "utilities/ttl-non-negative"}, Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("server/utilities/caching"),
			Title:   lm.method + " results carry ttlMs (integer ≥ 0) and cacheScope (public or private)",
			Skip:    lm.skip,
			Run: func(ctx context.Context, e *Env) Outcome {
				scope := ""
				return e.pages(ctx, lm, func(page int, m map[string]json.RawMessage, ev map[string]any) *Outcome {
					if rt := resultTypeOf(m); rt == "input_required" {
						o := check.Skip(lm.method + " answered input_required, which carries no cache fields")
						return &o
					}
					where := lm.method
					if page > 0 {
						where = fmt.Sprintf("%s page %d", lm.method, page+1)
					}
					ttl, ok := m["ttlMs"]
					if !ok {
						o := check.Fail(where+": ttlMs is missing", ev)
						return &o
					}
					if !isNonNegativeInteger(ttl) {
						o := check.Failf(ev, "%s: ttlMs is %s, not an integer ≥ 0", where, clip.Bytes(string(ttl), 40))
						return &o
					}
					var s string
					if err := json.Unmarshal(m["cacheScope"], &s); err != nil {
						o := check.Fail(where+": cacheScope is missing or not a string", ev)
						return &o
					}
					if s != "public" && s != "private" {
						o := check.Failf(ev, "%s: cacheScope is %q, want \"public\" or \"private\"", where, s)
						return &o
					}
					if scope != "" && s != scope {
						o := check.Failf(ev, "%s: cacheScope %q differs from the first page's %q (all pages of a list must use one scope)", where, s, scope)
						return &o
					}
					scope = s
					return nil
				})
			},
		})
	}
	return out
}

func isNonNegativeInteger(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	if s == "" || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
