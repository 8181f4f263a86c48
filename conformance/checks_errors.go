package conformance

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func errorChecks() []*Check {
	versioning := spec("basic/versioning")
	removed := func(slug, method string, params map[string]any) *Check {
		return &Check{ID: "errors/removed-" + slug, Reqs: []string{"http/method-not-found-404"}, Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("changelog"),
			Title:   method + " (removed in 2026-07-28) → -32601 (HTTP 404)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, method, params, nil)
				return e.expectError(x, err, method, e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
			}}
	}
	return []*Check{
		{ID: "errors/unsupported-version", Reqs: []string{"base/reserved-range", "base/unsupported-version", "http/unsupported-version-400"}, Level: report.LevelMust, Revision: revModern, SpecRef: versioning,
			Title: "an unsupported protocol version → -32022 (HTTP 400)",
			Run: func(ctx context.Context, e *Env) Outcome {
				_, x, err := e.send(ctx, "server/discover", nil, unsupportedVersion)
				return e.expectError(x, err, "version "+probeVersion, e.httpStatus(http.StatusBadRequest), mcp.CodeUnsupportedProtocolVersion)
			}},
		{ID: "errors/unsupported-version-data", Reqs: []string{"base/unsupported-version", "http/unsupported-version-400"}, Level: report.LevelMust, Revision: revModern, SpecRef: versioning,
			Title: "-32022 carries data.supported and data.requested",
			Run:   unsupportedVersionData},
		withReqs(missingMeta("errors/missing-meta", "a request without params._meta → -32602 (HTTP 400)", "no _meta", true,
			func(c *mcp.Call) { delete(c.Params, "_meta") }), "base/missing-meta-rejected"),
		withReqs(missingMeta("errors/missing-meta-protocol-version", "_meta without protocolVersion → -32602 (HTTP 400)", "_meta without protocolVersion", true,
			func(c *mcp.Call) { delete(c.Meta(), mcp.MetaProtocolVersion) }), "base/missing-meta-rejected"),
		withReqs(missingMeta("errors/missing-meta-client-capabilities", "_meta without clientCapabilities → -32602 (HTTP 400)", "_meta without clientCapabilities", false,
			func(c *mcp.Call) { delete(c.Meta(), mcp.MetaClientCapabilities) }), "base/missing-meta-rejected"),
		{ID: "errors/resource-not-found", Reqs: []string{"base/removed-codes", "features/resource-not-found", "features/resource-no-empty-contents", "features/resources-security"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("server/resources") + "#error-handling",
			Title: "resources/read of an unknown URI → -32602, never -32002 or empty contents",
			Skip:  needs("resources"),
			Run:   resourceNotFound},
		{ID: "errors/missing-client-capability", Reqs: []string{"base/reserved-range", "base/undeclared-capability", "base/mrtr-declared-only", "features/elicitation-declared-modes", "features/sampling-tools-declared"}, Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("basic/index") + "#_meta",
			Title:   "a tool that needs an undeclared client capability → -32021 with data.requiredCapabilities (HTTP 400), never an input request for it",
			Skip: func(e *Env) string {
				if len(e.capabilityTools) == 0 {
					return "no safe tool asked for a client capability when none was declared, so the rule could not be provoked"
				}
				return ""
			},
			Run: missingClientCapability},
		removed("initialize", "initialize", map[string]any{
			"protocolVersion": mcp.LegacyVersion, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "mcp-eval", "version": "probe"}}),
		removed("ping", "ping", nil),
		removed("logging-set-level", "logging/setLevel", map[string]any{"level": "info"}),
		removed("resources-subscribe", "resources/subscribe", map[string]any{"uri": probeURI}),
		removed("resources-unsubscribe", "resources/unsubscribe", map[string]any{"uri": probeURI}),
		{ID: "errors/unknown-method", Reqs: []string{"http/method-not-found-404"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("basic/transports/streamable-http"),
			Title: "an unknown method → -32601 (HTTP 404 on 2026-07-28)",
			Run:   unknownMethod},
		{ID: "errors/capability-gated-method", Reqs: []string{"features/tools-capability", "features/resources-capability", "features/prompts-capability", "http/method-not-found-404", "utilities/completions-capability", "utilities/completion-errors"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/index"),
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
			Run: capabilityGatedMethod},
	}
}

// missingMeta is a check of a server/discover whose _meta edit breaks:
// -32602. dualEra says a dual-era stdio server may take the request for a
// legacy one (legacyAmbiguous).
func missingMeta(id, title, what string, dualEra bool, edit func(*mcp.Call)) *Check {
	return &Check{ID: id, Title: title, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/index") + "#_meta",
		Run: func(ctx context.Context, e *Env) Outcome {
			_, x, err := e.send(ctx, "server/discover", nil, edit)
			o := e.expectError(x, err, what, e.httpStatus(http.StatusBadRequest), mcp.CodeInvalidParams)
			if dualEra {
				o = e.legacyAmbiguous(x, o)
			}
			return o
		}}
}

// unsupportedVersionData checks the data of -32022: the versions the
// server supports (all of them in server/discover's list) and the one it
// was asked for.
func unsupportedVersionData(ctx context.Context, e *Env) Outcome {
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
}

// resourceNotFound reads a URI no server has: contents, even empty ones,
// are wrong, and so is -32002 (the legacy code).
func resourceNotFound(ctx context.Context, e *Env) Outcome {
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
}

// missingClientCapability calls a tool that needs a client capability the
// request does not declare: -32021 naming it, never an input request for it.
func missingClientCapability(ctx context.Context, e *Env) Outcome {
	// Every tool setup found asking for a capability is judged: one that
	// answers -32021 properly does not excuse another that asks anyway.
	for _, p := range e.capabilityTools {
		if o := missingCapabilityOf(ctx, e, p); o.Status != report.StatusPass {
			return o
		}
	}
	return check.Pass()
}

func missingCapabilityOf(ctx context.Context, e *Env, p toolProbe) Outcome {
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
}

// capabilityGatedMethod calls a method of a capability the server does
// not declare.
func capabilityGatedMethod(ctx context.Context, e *Env) Outcome {
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
}

// unknownMethod sends a method no revision has; a legacy server is asked
// in its own envelope.
func unknownMethod(ctx context.Context, e *Env) Outcome {
	if e.opts.Version == mcp.LegacyVersion || e.era() == mcp.EraLegacy {
		call := e.client.NewCall(probeMethod, nil)
		x, err := e.client.Do(ctx, call)
		return e.expectError(x, err, probeMethod, 0, mcp.CodeMethodNotFound)
	}
	_, x, err := e.send(ctx, probeMethod, nil, nil)
	return e.expectError(x, err, probeMethod, e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
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
