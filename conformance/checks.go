package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/internal/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// spec links a section of the 2026-07-28 specification.
func spec(path string) string {
	return "https://modelcontextprotocol.io/specification/2026-07-28/" + path
}

var (
	checksOnce sync.Once
	allChecks  []*Check
)

// Checks returns every check, sorted by id. The ids are stable: they are
// listed in docs/checks.md, which a test keeps in step with this list.
func Checks() []*Check {
	checksOnce.Do(func() {
		var all []*Check
		all = append(all, discoverChecks()...)
		all = append(all, orderingChecks()...)
		all = append(all, cachingChecks()...)
		all = append(all, resultTypeChecks()...)
		all = append(all, schemaChecks()...)
		all = append(all, errorChecks()...)
		all = append(all, headerChecks()...)
		all = append(all, httpChecks()...)
		all = append(all, jsonrpcChecks()...)
		all = append(all, eraChecks()...)
		all = append(all, metaChecks()...)
		all = append(all, mrtrChecks()...)
		all = append(all, lintChecks()...)
		all = append(all, paginationChecks()...)
		all = append(all, completionChecks()...)
		all = append(all, subscriptionChecks()...)
		all = append(all, resourceChecks()...)
		all = append(all, hygieneChecks()...)
		sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
		allChecks = all
	})
	return allChecks
}

// ---- discover ----

func discoverChecks() []*Check {
	ref := spec("server/discover")
	return []*Check{
		{ID: "discover/responds", Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "server/discover with the modern envelope returns a result",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, _, o := e.discoverResult(ctx, nil)
				if o != nil {
					return *o
				}
				return check.Pass()
			}},
		{ID: "discover/supported-versions", Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "supportedVersions is a non-empty string array that includes 2026-07-28",
			Run: func(ctx context.Context, e *Env) Outcome {
				m, x, o := e.discoverResult(ctx, nil)
				if o != nil {
					return *o
				}
				var vs []string
				if err := json.Unmarshal(m["supportedVersions"], &vs); err != nil {
					return check.Fail("supportedVersions is missing or not an array of strings", check.Protocol.Of(x))
				}
				if len(vs) == 0 {
					return check.Fail("supportedVersions is empty", check.Protocol.Of(x))
				}
				for _, v := range vs {
					if v == mcp.LatestVersion {
						return check.PassInfo("supports " + strings.Join(vs, ", "))
					}
				}
				return check.Failf(check.Protocol.Of(x), "supportedVersions %v does not include %s, the revision mcp-eval speaks", vs, mcp.LatestVersion)
			}},
		{ID: "discover/capabilities", Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "capabilities is an object",
			Run: func(ctx context.Context, e *Env) Outcome {
				m, x, o := e.discoverResult(ctx, nil)
				if o != nil {
					return *o
				}
				if c := bytes.TrimSpace(m["capabilities"]); len(c) == 0 || c[0] != '{' {
					return check.Fail("DiscoverResult has no capabilities object (required by the schema)", check.Protocol.Of(x))
				}
				return check.Pass()
			}},
		{ID: "discover/without-client-info", Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("basic/index") + "#_meta",
			Title:   "a request without clientInfo in _meta succeeds (clientInfo is optional)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, _, o := e.discoverResult(ctx, func(c *mcp.Call) { delete(c.Meta(), mcp.MetaClientInfo) })
				if o != nil {
					o.Message = "without clientInfo: " + o.Message
					return *o
				}
				return check.Pass()
			}},
	}
}

// discoverResult sends server/discover (optionally edited) and returns its
// result members.
func (e *Env) discoverResult(ctx context.Context, edit func(*mcp.Call)) (map[string]json.RawMessage, *mcp.Exchange, *Outcome) {
	call, x, err := e.send(ctx, "server/discover", nil, edit)
	m, o := resultMembers(call, x, err)
	return m, x, o
}

// ---- ordering ----

func orderingChecks() []*Check {
	return []*Check{
		{ID: "ordering/tools-list", Level: report.LevelShould, Revision: revBoth, SpecRef: spec("server/tools") + "#listing-tools",
			Title: "two consecutive tools/list return the same tools in the same order",
			Skip:  needsTools,
			Run: func(ctx context.Context, e *Env) Outcome {
				// The run's shared listing, then one more.
				l := e.listingOf(ctx, toolsList)
				if l.fail != nil {
					return Outcome{Status: report.StatusError, Message: "tools/list: " + l.fail.Message, Evidence: l.fail.Evidence}
				}
				b, o := e.listTools(ctx, e.client)
				if o != nil {
					return Outcome{Status: report.StatusError, Message: "second tools/list: " + o.Message, Evidence: o.Evidence}
				}
				na, nb := toolNames(l.tools.tools), toolNames(b)
				if strings.Join(na, "\x00") != strings.Join(nb, "\x00") {
					return check.Fail("tools/list order differs between two consecutive calls",
						map[string]any{"first": firstN(na, 50), "second": firstN(nb, 50)})
				}
				return check.Pass()
			}},
		{ID: "ordering/tools-list-fresh-connection", Level: report.LevelMust, Revision: revBoth,
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
				if e.toolsErr != nil {
					return check.Errored(fmt.Errorf("tools/list on the first connection: %w", e.toolsErr), nil)
				}
				b, o := e.listTools(ctx, fresh)
				if o != nil {
					return Outcome{Status: report.StatusError, Message: "tools/list on the new connection: " + o.Message, Evidence: o.Evidence}
				}
				return compareSurfaces(e.tools, b)
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

func needsTools(e *Env) string {
	if e.capabilities != nil && !e.declares("tools") && len(e.tools) == 0 {
		return "the server does not declare the tools capability"
	}
	return ""
}

func toolNames(ts []mcp.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// ---- caching and result-type ----

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
	if lm.capability != "" && !e.declares(lm.capability) {
		return "the server does not declare the " + lm.capability + " capability"
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
			ID: "caching/" + lm.slug, Level: report.LevelMust, Revision: revModern,
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

func resultTypeOf(m map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(m["resultType"], &s)
	return s
}

func resultTypeChecks() []*Check {
	ref := spec("basic/index") + "#resulttype"
	var out []*Check
	for _, lm := range cacheable {
		lm := lm
		mrtrAllowed := lm.method == "resources/read"
		out = append(out, &Check{
			ID: "result-type/" + lm.slug, Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: lm.method + " results carry a valid resultType",
			Skip:  lm.skip,
			Run: func(ctx context.Context, e *Env) Outcome {
				return e.pages(ctx, lm, func(_ int, m map[string]json.RawMessage, ev map[string]any) *Outcome {
					return e.judgeResultType(lm.method, m, ev, mrtrAllowed)
				})
			},
		})
	}
	out = append(out,
		&Check{ID: "result-type/prompts-get", Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "prompts/get results carry a valid resultType",
			Skip: func(e *Env) string {
				if !e.declares("prompts") {
					return "the server does not declare the prompts capability"
				}
				if promptWithoutRequiredArgs(e) == "" {
					return "every prompt has required arguments, so none can be fetched without guessing"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				call, x, err := e.send(ctx, "prompts/get", map[string]any{"name": promptWithoutRequiredArgs(e)}, nil)
				m, o := resultMembers(call, x, err)
				if o != nil {
					return *o
				}
				if o := e.judgeResultType("prompts/get", m, check.Protocol.Of(x), true); o != nil {
					return *o
				}
				return check.Pass()
			}},
		&Check{ID: "result-type/tools-call", Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "tools/call results carry a valid resultType (safe tools only)",
			Skip: func(e *Env) string {
				if len(e.safeTools()) == 0 {
					return "no tool is marked readOnlyHint or listed in --safe-tools, so no tool is called"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				t := e.callableTool()
				call, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": synthesizeArgs(t.InputSchema)}, nil)
				m, o := resultMembers(call, x, err)
				if o != nil {
					if x != nil && x.RPCError() != nil && x.RPCError().Code == mcp.CodeMissingRequiredClientCapability {
						return check.Skip(t.Name + " needs a client capability; see errors/missing-client-capability")
					}
					return *o
				}
				if o := e.judgeResultType("tools/call", m, check.Protocol.Of(x), true); o != nil {
					return *o
				}
				return check.Pass()
			}},
	)
	return out
}

// judgeResultType applies the resultType rules: servers MUST send it; the
// core values are "complete" and "input_required" (the latter only on
// tools/call, resources/read and prompts/get); extensions may add values
// only when advertised; an unknown value is invalid.
func (e *Env) judgeResultType(method string, m map[string]json.RawMessage, ev map[string]any, mrtrAllowed bool) *Outcome {
	raw, ok := m["resultType"]
	if !ok {
		o := check.Fail(method+": resultType is missing (the 2026-07-28 schema requires it on every result)", ev)
		return &o
	}
	var rt string
	if json.Unmarshal(raw, &rt) != nil {
		o := check.Failf(ev, "%s: resultType %s is not a string", method, clip.Bytes(string(raw), 40))
		return &o
	}
	switch {
	case rt == "complete":
		return nil
	case rt == "input_required" && mrtrAllowed:
		return nil
	case rt == "input_required":
		o := check.Failf(ev, "%s answered input_required, which is allowed only on tools/call, resources/read and prompts/get", method)
		return &o
	case rt == "task" && e.declaresExtension("io.modelcontextprotocol/tasks"):
		return nil
	}
	o := check.Failf(ev, "%s: resultType %q is not a core value nor one of an advertised extension (clients treat it as invalid)", method, rt)
	return &o
}

// callableTool returns the first safe tool that did not ask for a client
// capability during setup (those are errors/missing-client-capability's).
func (e *Env) callableTool() mcp.Tool {
	safe := e.safeTools()
	for _, t := range safe {
		needs := false
		for _, p := range e.capabilityTools {
			if p.Tool.Name == t.Name {
				needs = true
			}
		}
		if !needs {
			return t
		}
	}
	return safe[0]
}

func promptWithoutRequiredArgs(e *Env) string {
	for _, p := range e.prompts {
		var pr struct {
			Name      string `json:"name"`
			Arguments []struct {
				Required bool `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(p, &pr) != nil || pr.Name == "" {
			continue
		}
		ok := true
		for _, a := range pr.Arguments {
			if a.Required {
				ok = false
			}
		}
		if ok {
			return pr.Name
		}
	}
	return ""
}

// ---- resources ----

func resourceChecks() []*Check {
	return []*Check{
		{ID: "resources/templates-list", Level: report.LevelMust, Revision: revBoth, SpecRef: spec("server/resources") + "#resource-templates",
			Title: "resources/templates/list answers resourceTemplates, each with a uriTemplate and a name (resources declared)",
			Skip: func(e *Env) string {
				if !e.declares("resources") {
					return "the server does not declare the resources capability"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				lm := cacheable[4]
				l := e.listingOf(ctx, lm)
				if l.fail != nil {
					o := *l.fail
					o.Message = lm.method + ": " + o.Message
					return o
				}
				var p problems
				for i, raw := range l.items {
					var t struct {
						URITemplate *string `json:"uriTemplate"`
						Name        *string `json:"name"`
					}
					if json.Unmarshal(raw, &t) != nil {
						p = append(p, fmt.Sprintf("template %d is not an object", i+1))
						continue
					}
					what := fmt.Sprintf("template %d", i+1)
					if t.Name != nil && *t.Name != "" {
						what = fmt.Sprintf("%q", *t.Name)
					}
					if t.URITemplate == nil || *t.URITemplate == "" {
						p = append(p, what+": no uriTemplate (required)")
					}
					if t.Name == nil || *t.Name == "" {
						p = append(p, what+": no name (required)")
					}
				}
				if len(p) == 0 {
					return check.PassInfo(fmt.Sprintf("%d templates", len(l.items)))
				}
				return p.outcome("resource templates without their required members")
			}},
	}
}

// ---- completion ----

// completionTarget picks what to complete: the first prompt argument, else
// the first variable of a resource template.
func completionTarget(e *Env) (ref map[string]any, arg string) {
	for _, p := range e.prompts {
		var pr struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(p, &pr) == nil && pr.Name != "" && len(pr.Arguments) > 0 && pr.Arguments[0].Name != "" {
			return map[string]any{"type": "ref/prompt", "name": pr.Name}, pr.Arguments[0].Name
		}
	}
	for _, t := range e.templates {
		var tp struct {
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(t, &tp) != nil {
			continue
		}
		if _, rest, ok := strings.Cut(tp.URITemplate, "{"); ok {
			if v, _, ok := strings.Cut(rest, "}"); ok {
				v = strings.TrimLeft(v, "+#./;?&")
				v, _, _ = strings.Cut(v, ",")
				v = strings.TrimSuffix(strings.Split(v, ":")[0], "*")
				if v != "" {
					return map[string]any{"type": "ref/resource", "uri": tp.URITemplate}, v
				}
			}
		}
	}
	return nil, ""
}

func completionChecks() []*Check {
	return []*Check{
		{ID: "completion/complete", Level: report.LevelMust, Revision: revBoth, SpecRef: spec("server/utilities/completion"),
			Title: "with completions declared, completion/complete answers completion.values (strings, at most 100), total and hasMore well typed",
			Skip: func(e *Env) string {
				if !e.declares("completions") {
					return "the server does not declare the completions capability"
				}
				if ref, _ := completionTarget(e); ref == nil {
					return "no prompt has an argument and no resource template has a variable to complete"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				ref, arg := completionTarget(e)
				call := e.client.NewCall("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}})
				x, _, err := e.do(ctx, e.client, call)
				m, o := resultMembers(call, x, err)
				if o != nil {
					return *o
				}
				var comp struct {
					Values  json.RawMessage `json:"values"`
					Total   json.RawMessage `json:"total"`
					HasMore json.RawMessage `json:"hasMore"`
				}
				if json.Unmarshal(m["completion"], &comp) != nil {
					return check.Fail("the result has no completion object", check.Protocol.Of(x))
				}
				var values []string
				if json.Unmarshal(comp.Values, &values) != nil || values == nil {
					return check.Failf(check.Protocol.Of(x), "completion.values is %s, not an array of strings", orAbsent(comp.Values))
				}
				if len(values) > 100 {
					return check.Failf(check.Protocol.Of(x), "completion.values has %d entries; at most 100 are allowed", len(values))
				}
				if len(comp.Total) > 0 && !isNonNegativeInteger(comp.Total) {
					return check.Failf(check.Protocol.Of(x), "completion.total is %s, not an integer ≥ 0", clip.Bytes(string(comp.Total), 40))
				}
				if len(comp.HasMore) > 0 && !jsonIs(comp.HasMore, true) && !jsonIs(comp.HasMore, false) {
					return check.Failf(check.Protocol.Of(x), "completion.hasMore is %s, not a boolean", clip.Bytes(string(comp.HasMore), 40))
				}
				return check.PassInfo(fmt.Sprintf("%d values for %s %v", len(values), arg, ref["name"]))
			}},
	}
}

// ---- pagination ----

// paginated are the list methods with cursors (server/utilities/pagination).
var paginated = []listMethod{cacheable[1], cacheable[2], cacheable[3], cacheable[4]}

func declaredLists(e *Env) []listMethod {
	var out []listMethod
	for _, lm := range paginated {
		if e.declares(lm.capability) || (lm.capability == "tools" && e.capabilities == nil) {
			out = append(out, lm)
		}
	}
	return out
}

func needsLists(e *Env) string {
	if len(declaredLists(e)) == 0 {
		return "the server declares none of tools, prompts and resources, so it has no list to page"
	}
	return ""
}

func paginationChecks() []*Check {
	ref := spec("server/utilities/pagination")
	return []*Check{
		{ID: "pagination/cursor-round-trip", Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "every declared list can be paged to its end: each nextCursor sent back gets the next page, and no page or cursor repeats",
			Skip:  needsLists,
			Run: func(ctx context.Context, e *Env) Outcome {
				// The run's shared walks: the same pages the caching and
				// tool checks judge.
				pages := 0
				for _, lm := range declaredLists(e) {
					l := e.listingOf(ctx, lm)
					if l.fail != nil {
						o := *l.fail
						o.Message = lm.method + ": " + o.Message
						return o
					}
					pages += len(l.pages)
				}
				return check.PassInfo(fmt.Sprintf("%d pages in all", pages))
			}},
		{ID: "pagination/invalid-cursor", Level: report.LevelShould, Revision: revBoth, SpecRef: ref,
			Title: "a cursor the server never issued → -32602 on every declared list",
			Skip:  needsLists,
			Run: func(ctx context.Context, e *Env) Outcome {
				for _, lm := range declaredLists(e) {
					call := e.client.NewCall(lm.method, map[string]any{"cursor": probeCursor})
					x, _, err := e.do(ctx, e.client, call)
					if o := e.expectError(x, err, lm.method+" with an invalid cursor", 0, mcp.CodeInvalidParams); o.Status != report.StatusPass {
						return o
					}
				}
				return check.Pass()
			}},
	}
}

// ---- errors ----

// expectError judges an answer that must be a JSON-RPC error with code want
// and, on HTTP, the status wantStatus.
func (e *Env) expectError(x *mcp.Exchange, err error, what string, wantStatus, want int) Outcome {
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if x.Response == nil {
		if x.Status != 0 {
			if wantStatus == 0 {
				return check.Failf(check.Protocol.Of(x), "%s: HTTP %d with no JSON-RPC error body (%s), want error %d", what, x.Status, bodyExcerpt(x), want)
			}
			return check.Failf(check.Protocol.Of(x), "%s: HTTP %d with no JSON-RPC error body (%s), want HTTP %d with error %d", what, x.Status, bodyExcerpt(x), wantStatus, want)
		}
		return check.Failf(check.Protocol.Of(x), "%s: no JSON-RPC answer, want error %d", what, want)
	}
	if x.Response.Error == nil {
		return check.Failf(check.Protocol.Of(x), "%s: the server accepted the request (answered with a result), want error %d", what, want)
	}
	if got := x.Response.Error.Code; got != want {
		return check.Failf(check.Protocol.Of(x), "%s: error %d%s, want %d", what, got, codeHint(got), want)
	}
	if x.Status != 0 && wantStatus != 0 && x.Status != wantStatus {
		return check.Failf(check.Protocol.Of(x), "%s: error %d with HTTP %d, want HTTP %d", what, want, x.Status, wantStatus)
	}
	return check.Pass()
}

// cameBack says what came back instead of a JSON-RPC message: on HTTP the
// status, content type and first bytes; on stdio that nothing readable
// answered.
func cameBack(x *mcp.Exchange) string {
	switch {
	case x == nil:
		return "nothing came back"
	case x.Status != 0:
		return fmt.Sprintf("HTTP %d, %s", x.Status, bodyExcerpt(x))
	case len(x.Invalid) > 0:
		return "stdout had no answer but: " + clip.Bytes(strings.Join(x.Invalid, "; "), 200)
	}
	return "no answer on stdout"
}

// bodyExcerpt says what came back when an answer was no JSON-RPC message:
// the content type and the first bytes of the body.
func bodyExcerpt(x *mcp.Exchange) string {
	if x == nil {
		return "nothing"
	}
	b := strings.TrimSpace(string(x.Body))
	ct := x.ContentType
	if ct == "" {
		ct = "no content type"
	}
	if b == "" {
		return ct + ", empty body"
	}
	return fmt.Sprintf("%s: %q", ct, clip.Bytes(b, 120))
}

// codeHint explains codes that come from drafts or older revisions.
func codeHint(code int) string {
	switch code {
	case -32001:
		return " (the draft-only HeaderMismatch code; released as -32020)"
	case -32003:
		return " (the draft-only MissingRequiredClientCapability code; released as -32021)"
	case -32004:
		return " (the draft-only UnsupportedProtocolVersion code; released as -32022)"
	case mcp.CodeLegacyResourceNotFound:
		return " (the 2025-11-25 resource-not-found code, which 2026-07-28 servers MUST NOT emit)"
	case mcp.CodeLegacyURLElicitationRequired:
		return " (removed in 2026-07-28)"
	}
	return ""
}

// legacyAmbiguous relaxes a missing-_meta verdict on stdio for a dual-era
// server. Over stdio the protocol version in _meta is the only sign of the
// era, and a dual-era server chooses the era per request
// (basic/versioning.mdx §Dual-era servers); a request without it may be
// served as a legacy request, where server/discover does not exist before
// initialize. Over HTTP the MCP-Protocol-Version header names the era, so
// there the rule applies in full.
func (e *Env) legacyAmbiguous(x *mcp.Exchange, o Outcome) Outcome {
	if o.Status != report.StatusFail || e.kind != "stdio" || !e.dualEra() {
		return o
	}
	if rerr := x.RPCError(); rerr != nil && rerr.Code == mcp.CodeMethodNotFound {
		return check.PassInfo("served as a legacy request (-32601): without a protocol version a dual-era stdio server cannot tell the era")
	}
	return o
}

// dualEra reports whether server/discover lists a legacy revision too.
func (e *Env) dualEra() bool {
	if e.discover == nil {
		return false
	}
	for _, v := range e.discover.SupportedVersions {
		if v < mcp.LatestVersion {
			return true
		}
	}
	return false
}

// httpStatus returns s on HTTP and 0 (meaning "no status") on stdio.
func (e *Env) httpStatus(s int) int {
	if e.kind == "http" {
		return s
	}
	return 0
}

func errorChecks() []*Check {
	versioning := spec("basic/versioning")
	meta := spec("basic/index") + "#_meta"
	removed := func(slug, method string, params map[string]any) *Check {
		return &Check{ID: "errors/removed-" + slug, Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("changelog"),
			Title:   method + " (removed in 2026-07-28) → -32601 (HTTP 404)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, method, params, nil)
				return e.expectError(x, err, method, e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
			}}
	}
	return []*Check{
		{ID: "errors/unsupported-version", Level: report.LevelMust, Revision: revModern, SpecRef: versioning,
			Title: "an unsupported protocol version → -32022 (HTTP 400)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, unsupportedVersion)
				return e.expectError(x, err, "version "+probeVersion, e.httpStatus(http.StatusBadRequest), mcp.CodeUnsupportedProtocolVersion)
			}},
		{ID: "errors/unsupported-version-data", Level: report.LevelMust, Revision: revModern, SpecRef: versioning,
			Title: "-32022 carries data.supported and data.requested",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, unsupportedVersion)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				rerr := x.RPCError()
				if rerr == nil || rerr.Code != mcp.CodeUnsupportedProtocolVersion {
					return check.Skip("the server did not answer -32022 (see errors/unsupported-version)")
				}
				var data struct {
					Supported *[]string `json:"supported"`
					Requested *string   `json:"requested"`
				}
				if len(rerr.Data) == 0 || json.Unmarshal(rerr.Data, &data) != nil {
					return check.Fail("the -32022 error has no data object with supported and requested", check.Protocol.Of(x))
				}
				if data.Supported == nil {
					return check.Fail("data.supported is missing or not an array of strings", check.Protocol.Of(x))
				}
				if len(*data.Supported) == 0 {
					return check.Fail("data.supported is empty", check.Protocol.Of(x))
				}
				if data.Requested == nil || *data.Requested != probeVersion {
					return check.Failf(check.Protocol.Of(x), "data.requested should echo %q", probeVersion)
				}
				if e.discover != nil {
					known := map[string]bool{}
					for _, v := range e.discover.SupportedVersions {
						known[v] = true
					}
					for _, v := range *data.Supported {
						if !known[v] {
							return check.Failf(check.Protocol.Of(x), "data.supported lists %q, which server/discover's supportedVersions %v does not", v, e.discover.SupportedVersions)
						}
					}
				}
				return check.Pass()
			}},
		{ID: "errors/missing-meta", Level: report.LevelMust, Revision: revModern, SpecRef: meta,
			Title: "a request without params._meta → -32602 (HTTP 400)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, func(c *mcp.Call) { delete(c.Params, "_meta") })
				return e.legacyAmbiguous(x, e.expectError(x, err, "no _meta", e.httpStatus(http.StatusBadRequest), mcp.CodeInvalidParams))
			}},
		{ID: "errors/missing-meta-protocol-version", Level: report.LevelMust, Revision: revModern, SpecRef: meta,
			Title: "_meta without protocolVersion → -32602 (HTTP 400)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, func(c *mcp.Call) { delete(c.Meta(), mcp.MetaProtocolVersion) })
				return e.legacyAmbiguous(x, e.expectError(x, err, "_meta without protocolVersion", e.httpStatus(http.StatusBadRequest), mcp.CodeInvalidParams))
			}},
		{ID: "errors/missing-meta-client-capabilities", Level: report.LevelMust, Revision: revModern, SpecRef: meta,
			Title: "_meta without clientCapabilities → -32602 (HTTP 400)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, func(c *mcp.Call) { delete(c.Meta(), mcp.MetaClientCapabilities) })
				return e.expectError(x, err, "_meta without clientCapabilities", e.httpStatus(http.StatusBadRequest), mcp.CodeInvalidParams)
			}},
		{ID: "errors/resource-not-found", Level: report.LevelMust, Revision: revModern, SpecRef: spec("server/resources") + "#error-handling",
			Title: "resources/read of an unknown URI → -32602, never -32002 or empty contents",
			Skip: func(e *Env) string {
				if !e.declares("resources") {
					return "the server does not declare the resources capability"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "resources/read", map[string]any{"uri": probeURI}, nil)
				if err == nil && x.Response != nil && x.Response.Error == nil {
					var res struct {
						Contents []json.RawMessage `json:"contents"`
					}
					_ = json.Unmarshal(x.Response.Result, &res)
					if len(res.Contents) == 0 {
						return check.Fail("resources/read of an unknown URI returned empty contents (servers MUST NOT; answer -32602)", check.Protocol.Of(x))
					}
					return check.Fail("resources/read of an unknown URI returned contents, want -32602", check.Protocol.Of(x))
				}
				return e.expectError(x, err, "unknown resource", 0, mcp.CodeInvalidParams)
			}},
		{ID: "errors/missing-client-capability", Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("basic/index") + "#_meta",
			Title:   "a tool that needs an undeclared client capability → -32021 with data.requiredCapabilities (HTTP 400), never an input request for it",
			Skip: func(e *Env) string {
				if len(e.capabilityTools) == 0 {
					return "no safe tool asked for a client capability when none was declared, so the rule could not be provoked"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				p := e.capabilityTools[0]
				_, x, err := e.send(ctx, "tools/call", map[string]any{"name": p.Tool.Name, "arguments": p.Args}, nil)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if x.Response != nil && x.Response.Error == nil {
					if bad := undeclaredInputs(x.Response.Result, map[string]bool{}); bad != "" {
						return check.Failf(check.Protocol.Of(x), "%s asked for %s although the request declared no client capabilities; want -32021", p.Tool.Name, bad)
					}
				}
				o := e.expectError(x, err, p.Tool.Name+" without client capabilities", e.httpStatus(http.StatusBadRequest), mcp.CodeMissingRequiredClientCapability)
				if o.Status != report.StatusPass {
					return o
				}
				var data struct {
					Required json.RawMessage `json:"requiredCapabilities"`
				}
				if json.Unmarshal(x.Response.Error.Data, &data) != nil || len(objectMembers(data.Required)) == 0 {
					return check.Fail("-32021 without data.requiredCapabilities (a ClientCapabilities object naming what is needed)", check.Protocol.Of(x))
				}
				return check.Pass()
			}},
		removed("initialize", "initialize", map[string]any{
			"protocolVersion": mcp.LegacyVersion, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "mcp-eval", "version": "probe"}}),
		removed("ping", "ping", nil),
		removed("logging-set-level", "logging/setLevel", map[string]any{"level": "info"}),
		removed("resources-subscribe", "resources/subscribe", map[string]any{"uri": probeURI}),
		removed("resources-unsubscribe", "resources/unsubscribe", map[string]any{"uri": probeURI}),
		{ID: "errors/unknown-method", Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/transports/streamable-http"),
			Title: "an unknown method → -32601 (HTTP 404 on 2026-07-28)",
			Run: func(ctx context.Context, e *Env) Outcome {
				if e.opts.Version == mcp.LegacyVersion || e.era() == mcp.EraLegacy {
					call := e.client.NewCall(probeMethod, nil)
					x, err := e.client.Do(ctx, call)
					return e.expectError(x, err, probeMethod, 0, mcp.CodeMethodNotFound)
				}
				_, x, err := e.send(ctx, probeMethod, nil, nil)
				return e.expectError(x, err, probeMethod, e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
			}},
		{ID: "errors/capability-gated-method", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/index"),
			Title: "a method of an undeclared server capability → -32601 (HTTP 404)",
			Skip: func(e *Env) string {
				if !e.capsKnown {
					return "the server's capabilities are unknown (no capabilities object from server/discover)"
				}
				if gatedMethod(e) == "" {
					return "the server declares tools, prompts, resources and completions, so no method is gated off"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				m := gatedMethod(e)
				var params map[string]any
				if m == "completion/complete" {
					params = map[string]any{
						"ref":      map[string]any{"type": "ref/prompt", "name": "mcp-eval-probe"},
						"argument": map[string]any{"name": "a", "value": ""},
					}
				}
				_, x, err := e.send(ctx, m, params, nil)
				return e.expectError(x, err, m+" (capability not declared)", e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
			}},
	}
}

// paramCheck is a check that calls the safe tool with an x-mcp-header
// parameter with its Mcp-Param-* header broken by breakHeader (given the
// header name and a value that differs from the argument), expecting the
// header rejection before the tool runs.
func paramCheck(id, title string, breakHeader func(header, other string) (what string, edit func(*mcp.Call))) *Check {
	return &Check{ID: id, Title: title, Level: report.LevelMust, Revision: revModern, Transport: "http",
		SpecRef: spec("server/tools") + "#x-mcp-header",
		Skip: func(e *Env) string {
			if _, _, _, _, ok := paramHeaderTool(e); !ok {
				return "no safe tool has an x-mcp-header parameter"
			}
			return ""
		},
		Run: func(ctx context.Context, e *Env) Outcome {
			name, args, header, other := paramHeaderCall(e)
			what, edit := breakHeader(header, other)
			_, x, err := e.send(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, edit)
			return e.expectError(x, err, what, http.StatusBadRequest, mcp.CodeHeaderMismatch)
		}}
}

// paramHeaderCall builds a call of the safe tool with an x-mcp-header
// parameter: its arguments (with a value of the property's own type for
// that parameter), the header name, and a header value that differs from
// the argument, so a probe can drop or contradict the header and nothing
// else is wrong.
func paramHeaderCall(e *Env) (tool string, args map[string]any, header, other string) {
	t, path, header, typ, _ := paramHeaderTool(e)
	args = synthesizeArgs(t.InputSchema)
	body, other := any("mcp-eval-a"), "mcp-eval-b"
	switch typ {
	case "integer":
		body, other = 1, "2"
	case "boolean":
		body, other = true, "false"
	}
	setPath(args, path, body)
	return t.Name, args, header, other
}

// Probe values chosen so that no real server can have them.
//
// probeVersion is a future date rather than a past one: a date before
// 2026-07-28 names the legacy era, whose rules let a server answer an
// unknown version with any 400 (2025-11-25 transports §Protocol Version
// Header), and dual-era servers such as the Go SDK's route it there. A
// version no revision has reached yet can only be answered under the
// 2026-07-28 rule: -32022 with data.supported and data.requested.
const (
	probeVersion = "2099-12-31"
	probeURI     = "mcp-eval-probe://absent/resource"
	probeMethod  = "mcp-eval/probe-unknown-method"
	probeTool    = "mcp-eval-probe-absent-tool"
	probeCursor  = "mcp-eval-probe-invalid-cursor"
)

func unsupportedVersion(c *mcp.Call) {
	c.Meta()[mcp.MetaProtocolVersion] = probeVersion
	c.Header.Set(mcp.HeaderProtocolVersion, probeVersion)
}

func gatedMethod(e *Env) string {
	for _, g := range []struct{ cap, method string }{
		{"prompts", "prompts/list"}, {"resources", "resources/list"}, {"tools", "tools/list"}, {"completions", "completion/complete"},
	} {
		if !e.declares(g.cap) {
			return g.method
		}
	}
	return ""
}

// ---- headers ----

func headerChecks() []*Check {
	ref := spec("basic/transports/streamable-http") + "#request-metadata-headers"
	mismatch := func(id, title string, method string, params func(e *Env) map[string]any, skip func(e *Env) string, edit func(*mcp.Call)) *Check {
		return &Check{ID: id, Title: title, Level: report.LevelMust, Revision: revModern, Transport: "http", SpecRef: ref, Skip: skip,
			Run: func(ctx context.Context, e *Env) Outcome {
				var p map[string]any
				if params != nil {
					p = params(e)
				}
				_, x, err := e.send(ctx, method, p, edit)
				return e.expectError(x, err, title, http.StatusBadRequest, mcp.CodeHeaderMismatch)
			}}
	}
	absentTool := func(*Env) map[string]any { return map[string]any{"name": probeTool, "arguments": map[string]any{}} }
	absentPrompt := func(*Env) map[string]any { return map[string]any{"name": "mcp-eval-probe-absent-prompt"} }
	absentResource := func(*Env) map[string]any { return map[string]any{"uri": probeURI} }
	needs := func(capability string) func(*Env) string {
		return func(e *Env) string {
			if !e.declares(capability) {
				return "the server does not declare the " + capability + " capability"
			}
			return ""
		}
	}
	del := func(h string) func(*mcp.Call) {
		return func(c *mcp.Call) { c.Header.Del(h); c.Omit = append(c.Omit, h) }
	}
	set := func(h, v string) func(*mcp.Call) { return func(c *mcp.Call) { c.Header.Set(h, v) } }
	return []*Check{
		mismatch("headers/missing-protocol-version", "no MCP-Protocol-Version header → HTTP 400, -32020", "tools/list", nil, nil, del(mcp.HeaderProtocolVersion)),
		mismatch("headers/protocol-version-mismatch", "MCP-Protocol-Version ≠ _meta protocolVersion → HTTP 400, -32020", "tools/list", nil, nil,
			func(c *mcp.Call) { c.Meta()[mcp.MetaProtocolVersion] = probeVersion }),
		mismatch("headers/missing-method", "no Mcp-Method header → HTTP 400, -32020", "tools/list", nil, nil, del(mcp.HeaderMethod)),
		mismatch("headers/method-mismatch", "Mcp-Method ≠ method → HTTP 400, -32020", "server/discover", nil, nil, set(mcp.HeaderMethod, "tools/list")),
		mismatch("headers/missing-name-tools-call", "tools/call without Mcp-Name → HTTP 400, -32020", "tools/call", absentTool, nil, del(mcp.HeaderName)),
		mismatch("headers/name-mismatch-tools-call", "Mcp-Name ≠ params.name on tools/call → HTTP 400, -32020", "tools/call", absentTool, nil, set(mcp.HeaderName, probeTool+"-other")),
		mismatch("headers/missing-name-prompts-get", "prompts/get without Mcp-Name → HTTP 400, -32020", "prompts/get", absentPrompt, needs("prompts"), del(mcp.HeaderName)),
		mismatch("headers/name-mismatch-prompts-get", "Mcp-Name ≠ params.name on prompts/get → HTTP 400, -32020", "prompts/get", absentPrompt, needs("prompts"), set(mcp.HeaderName, "mcp-eval-probe-other")),
		mismatch("headers/missing-name-resources-read", "resources/read without Mcp-Name → HTTP 400, -32020", "resources/read", absentResource, needs("resources"), del(mcp.HeaderName)),
		mismatch("headers/name-mismatch-resources-read", "Mcp-Name ≠ params.uri on resources/read → HTTP 400, -32020", "resources/read", absentResource, needs("resources"), set(mcp.HeaderName, probeURI+"-other")),
		{ID: "headers/name-base64", Level: report.LevelMust, Revision: revModern, Transport: "http", SpecRef: ref,
			Title: "a =?base64?…?= Mcp-Name is decoded before comparing",
			Run: func(ctx context.Context, e *Env) Outcome {
				name := probeTool + "-ünïcödé"
				_, x, err := e.send(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, nil)
				if err != nil {
					return check.Errored(err, check.Protocol.Of(x))
				}
				if rerr := x.RPCError(); rerr != nil && rerr.Code == mcp.CodeHeaderMismatch {
					return check.Fail("the server rejected a base64-encoded Mcp-Name that matches the body after decoding (servers MUST decode before comparing)", check.Protocol.Of(x))
				}
				if x.Response == nil {
					return check.Failf(check.Protocol.Of(x), "no JSON-RPC answer (%s)", cameBack(x))
				}
				info := "answered with a result"
				if rerr := x.RPCError(); rerr != nil {
					info = fmt.Sprintf("answered error %d (HTTP %d)", rerr.Code, x.Status)
				}
				return check.PassInfo(info)
			}},
		paramCheck("headers/param-missing", "a missing Mcp-Param-* header while its argument is in the body → HTTP 400, -32020 (safe tools only)",
			func(header, _ string) (string, func(*mcp.Call)) {
				return "no Mcp-Param-" + header + " header", del(mcp.HeaderParamPrefix + header)
			}),
		paramCheck("headers/param-mismatch", "a Mcp-Param-* header that differs from its argument → HTTP 400, -32020 (safe tools only)",
			func(header, other string) (string, func(*mcp.Call)) {
				return "Mcp-Param-" + header + " ≠ argument", set(mcp.HeaderParamPrefix+header, other)
			}),
	}
}
