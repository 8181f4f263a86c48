package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/report"
)

// The MCP Apps extension (io.modelcontextprotocol/ui, SEP-1865), whose
// normative text is specification/2026-01-26/apps.mdx of
// modelcontextprotocol/ext-apps: a tool links a UI resource through
// _meta.ui.resourceUri, a ui:// URI the server serves with resources/read
// as text/html;profile=mcp-app. The checks run when the server declares
// the extension under capabilities.extensions ("must be explicitly
// negotiated … through the extension capabilities mechanism"); the host
// side (sandboxing, CSP, the postMessage protocol) is no server's and not
// checked. They read what tools/list and resources/read answer and call
// only safe tools.

const (
	appsExt     = "io.modelcontextprotocol/ui"
	appsMIME    = "text/html;profile=mcp-app"
	appsRef     = "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx"
	appsFlatKey = "ui/resourceUri" // the deprecated flat _meta key
	// maxAppResources bounds the UI resources one check reads.
	maxAppResources = 10
)

func appsChecks() []*Check {
	return []*Check{
		appsCheck(&Check{ID: "apps/tool-ui-meta", Reqs: []string{"apps/ui-uri-scheme", "apps/tool-meta-shape"}, Level: report.LevelMust,
			SpecRef: appsRef + "#resource-discovery",
			Title:   "every tool's _meta.ui names a ui:// resourceUri (the flat ui/resourceUri agreeing) and a visibility of only \"model\" and \"app\"",
			Run:     appsToolMeta}),
		appsCheck(&Check{ID: "apps/resource-exists", Reqs: []string{"apps/resource-exists"}, Level: report.LevelMust,
			SpecRef: appsRef + "#resource-discovery",
			Title:   "every UI resource a tool links is served by resources/read (up to 10)",
			Run:     appsResourceExists}),
		appsCheck(&Check{ID: "apps/resource-content", Reqs: []string{"apps/content-mime-type", "apps/content-text-or-blob", "apps/content-html5"}, Level: report.LevelMust,
			SpecRef: appsRef + "#ui-resource-format",
			Title:   "a linked UI resource reads as text/html;profile=mcp-app, its content in text or base64 blob, an HTML document (<!DOCTYPE html>) (up to 10)",
			Run:     appsResourceContent}),
		appsCheck(&Check{ID: "apps/tool-text-fallback", Reqs: []string{"apps/tool-content", "apps/text-fallback"}, Level: report.LevelMust,
			SpecRef: appsRef + "#server-behavior",
			Title:   "a tool that links a UI answers a non-empty content array, to a client that declares the extension and to one that does not (safe tools only)",
			Run:     appsTextFallback}),
	}
}

// appsCheck fills in what the extension's checks share.
func appsCheck(c *Check) *Check {
	c.Revision, c.Skip = revBoth, needsApps
	return c
}

// needsApps is the Skip of the extension's checks: the server declares it
// and some tool links a UI resource.
func needsApps(e *Env) string {
	linked := len(e.appTools())
	if !e.declaresExtension(appsExt) {
		if linked > 0 {
			return fmt.Sprintf("the server does not declare the extension %s, although %d tools link UI resources through _meta.ui (a server of MCP Apps declares it under capabilities.extensions)", appsExt, linked)
		}
		return "the server does not declare the extension " + appsExt
	}
	if linked == 0 {
		return "no tool links a UI resource (_meta.ui.resourceUri)"
	}
	return ""
}

// appTool is a tool that links a UI resource.
type appTool struct {
	index int
	name  string
	// ui is _meta.ui (null when absent), flat _meta["ui/resourceUri"].
	ui, flat json.RawMessage
	uri      string // resourceUri, from ui or else from the flat key
	safe     bool
}

// appTools returns the tools whose _meta has a ui member or the flat
// ui/resourceUri key, in listing order.
func (e *Env) appTools() []appTool {
	var out []appTool
	for i, t := range e.tools {
		var m struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(t.Raw, &m) != nil {
			continue
		}
		ui, flat := m.Meta["ui"], m.Meta[appsFlatKey]
		if ui == nil && flat == nil {
			continue
		}
		a := appTool{index: i, name: t.Name, ui: ui, flat: flat, safe: e.isSafe(t)}
		var u struct {
			ResourceURI string `json:"resourceUri"`
		}
		if json.Unmarshal(ui, &u) == nil && u.ResourceURI != "" {
			a.uri = u.ResourceURI
		} else {
			_ = json.Unmarshal(flat, &a.uri)
		}
		out = append(out, a)
	}
	return out
}

// appURIs returns the distinct ui:// resources the tools link, sorted.
func (e *Env) appURIs() []string {
	seen := map[string]bool{}
	for _, a := range e.appTools() {
		if strings.HasPrefix(a.uri, "ui://") {
			seen[a.uri] = true
		}
	}
	out := make([]string, 0, len(seen))
	for u := range seen {
		out = append(out, u)
	}
	sort.Strings(out)
	return out[:min(len(out), maxAppResources)]
}

// appsToolMeta: apps.mdx, UIResource.uri "MUST use the `ui://` URI
// scheme"; McpUiToolMeta.visibility is Array<"model" | "app">.
func appsToolMeta(ctx context.Context, e *Env) Outcome {
	var p problems
	tools := e.appTools()
	for _, a := range tools {
		var ui struct {
			ResourceURI *json.RawMessage `json:"resourceUri"`
			Visibility  *json.RawMessage `json:"visibility"`
		}
		if a.ui != nil && (json.Unmarshal(a.ui, &ui) != nil || bytes.TrimSpace(a.ui)[0] != '{') {
			p = append(p, fmt.Sprintf("%s: _meta.ui is %s, not an object", a.name, clip.Bytes(string(a.ui), 60)))
			continue
		}
		if !strings.HasPrefix(a.uri, "ui://") {
			p = append(p, fmt.Sprintf("%s: the UI resource %q is not a ui:// URI (a UI resource MUST use the ui:// scheme)", a.name, a.uri))
		}
		if ui.Visibility != nil {
			var vis []string
			if json.Unmarshal(*ui.Visibility, &vis) != nil {
				p = append(p, fmt.Sprintf("%s: _meta.ui.visibility is %s, not an array of strings", a.name, clip.Bytes(string(*ui.Visibility), 60)))
			}
			for _, v := range vis {
				if v != "model" && v != "app" {
					p = append(p, fmt.Sprintf("%s: _meta.ui.visibility has %q (only \"model\" and \"app\" are defined)", a.name, v))
				}
			}
		}
		if a.flat != nil && ui.ResourceURI != nil {
			var flat string
			if json.Unmarshal(a.flat, &flat) == nil && flat != a.uri {
				p = append(p, fmt.Sprintf("%s: the deprecated _meta[%q] is %q, _meta.ui.resourceUri %q: hosts reading either render different UIs", a.name, appsFlatKey, flat, a.uri))
			}
		}
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d tools link UI resources", len(tools)))
	}
	return p.outcome("tools whose _meta.ui breaks the extension's rules")
}

// readApp reads a UI resource; the outcome is set when no result came.
func (e *Env) readApp(ctx context.Context, uri string) (map[string]json.RawMessage, any, *Outcome) {
	call, x, err := e.send(ctx, "resources/read", map[string]any{"uri": uri}, nil)
	m, o := resultMembers(call, x, err)
	return m, check.Protocol.Of(x), o
}

// appsResourceExists: apps.mdx §Resource Discovery, "Resource MUST exist
// on the server" and "Host MUST use `resources/read` to fetch the
// referenced resource URI".
func appsResourceExists(ctx context.Context, e *Env) Outcome {
	uris := e.appURIs()
	if len(uris) == 0 {
		return check.Skip("no tool links a ui:// resource (see apps/tool-ui-meta)")
	}
	for _, uri := range uris {
		if _, _, o := e.readApp(ctx, uri); o != nil {
			if o.Status == report.StatusError {
				return *o
			}
			return check.Failf(o.Evidence, "the UI resource %s, which %s links, cannot be read: %s (the resource MUST exist on the server)", uri, e.linkers(uri), o.Message)
		}
	}
	return check.PassInfo(fmt.Sprintf("%d UI resources read", len(uris)))
}

// linkers names the tools that link uri.
func (e *Env) linkers(uri string) string {
	var names []string
	for _, a := range e.appTools() {
		if a.uri == uri {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, ", ")
}

// appsResourceContent: apps.mdx §UI Resource Format, Content
// Requirements: "`mimeType` MUST be `text/html;profile=mcp-app`",
// "Content MUST be provided via either `text` (string) or `blob`
// (base64-encoded)", "Content MUST be valid HTML5 document". Of the last,
// what a client can tell without a browser: the HTML Standard's document
// begins with a DOCTYPE (after an optional BOM, comments and whitespace).
func appsResourceContent(ctx context.Context, e *Env) Outcome {
	uris := e.appURIs()
	if len(uris) == 0 {
		return check.Skip("no tool links a ui:// resource (see apps/tool-ui-meta)")
	}
	var p problems
	var ev any
	read := 0
	for _, uri := range uris {
		m, x, o := e.readApp(ctx, uri)
		if o != nil {
			continue // apps/resource-exists judges it
		}
		read++
		if bad := appContent(uri, m["contents"]); bad != "" {
			p = append(p, uri+": "+bad)
			if ev == nil {
				ev = x
			}
		}
	}
	if read == 0 {
		return check.Skip("no linked UI resource could be read (see apps/resource-exists)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d UI resources read as %s", read, appsMIME))
	}
	o := p.outcome("UI resources whose content breaks the extension's rules")
	o.Evidence = map[string]any{"problems": p, "first": ev}
	return o
}

// appContent judges the contents of a UI resource read as uri; "" when
// they are right.
func appContent(uri string, raw json.RawMessage) string {
	var contents []struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	}
	if json.Unmarshal(raw, &contents) != nil || len(contents) == 0 {
		return "no contents"
	}
	c := contents[0]
	for _, k := range contents {
		if k.URI == uri {
			c = k
			break
		}
	}
	if c.MIMEType != appsMIME {
		return fmt.Sprintf("mimeType %q; a UI resource's mimeType MUST be %q", c.MIMEType, appsMIME)
	}
	var html []byte
	switch {
	case c.Text != nil:
		html = []byte(*c.Text)
	case c.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			return "blob is not base64: " + err.Error()
		}
		html = b
	default:
		return "neither text nor blob; the content MUST be provided in one of them"
	}
	if !htmlDocument(html) {
		return fmt.Sprintf("the content (%s) does not begin with <!DOCTYPE html>; it MUST be a valid HTML5 document", clip.Bytes(string(html), 60))
	}
	return ""
}

// htmlDocument reports whether b starts as an HTML document must (HTML
// Standard §13.1 Writing HTML documents): an optional BOM, any comments
// and ASCII whitespace, then a DOCTYPE, "<!DOCTYPE html" in any case.
func htmlDocument(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	for {
		b = bytes.TrimLeft(b, " \t\n\f\r")
		if !bytes.HasPrefix(b, []byte("<!--")) {
			break
		}
		end := bytes.Index(b[4:], []byte("-->"))
		if end < 0 {
			return false
		}
		b = b[4+end+3:]
	}
	const doctype = "<!doctype"
	if len(b) < len(doctype) || !strings.EqualFold(string(b[:len(doctype)]), doctype) {
		return false
	}
	rest := bytes.TrimLeft(b[len(doctype):], " \t\n\f\r")
	return len(rest) >= 4 && strings.EqualFold(string(rest[:4]), "html")
}

// appsTextFallback: apps.mdx §Server Behavior, Graceful Degradation:
// "Tools MUST return meaningful content array even when UI is available"
// and "Servers SHOULD provide text-only fallback behavior for all
// UI-enabled tools" — a client without the extension ("If host does not
// support MCP Apps, tool behaves as standard tool (text-only fallback)").
// Of "meaningful", a client can check that the array is not empty.
func appsTextFallback(ctx context.Context, e *Env) Outcome {
	var called []string
	for _, a := range e.appTools() {
		if !a.safe || len(called) >= maxProbedTools {
			continue
		}
		t := e.tools[a.index]
		for _, declared := range []bool{true, false} {
			caps := allClientCapabilities()
			who := "a client without the extension"
			if declared {
				caps["extensions"] = map[string]any{appsExt: map[string]any{"mimeTypes": []string{appsMIME}}}
				who = "a client that declares the extension"
			}
			call, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)}, withCaps(caps))
			if err != nil {
				return check.Errored(err, check.Protocol.Of(x))
			}
			if x.RPCError() != nil {
				continue // the sample arguments may be refused; not this check's
			}
			m, o := resultMembers(call, x, nil)
			if o != nil || resultTypeOf(m) != "complete" && resultTypeOf(m) != "" {
				continue
			}
			var content []json.RawMessage
			if json.Unmarshal(m["content"], &content) != nil || len(content) == 0 {
				return check.Failf(check.Protocol.Of(x), "%s answered %s with content %s: a tool that links a UI MUST return a meaningful content array even when the UI is available, and SHOULD fall back to text for a client without the extension",
					t.Name, who, orAbsent(m["content"]))
			}
		}
		called = append(called, t.Name)
	}
	if len(called) == 0 {
		return check.Skip("no safe tool links a UI resource")
	}
	return check.PassInfo("called with and without the extension: " + strings.Join(called, ", "))
}
