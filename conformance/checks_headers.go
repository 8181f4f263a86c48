package conformance

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

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
	args = schema.SampleArgs(t.InputSchema)
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
		withReqs(mismatch("headers/missing-protocol-version", "no MCP-Protocol-Version header → HTTP 400, -32020", "tools/list", nil, nil, del(mcp.HeaderProtocolVersion)), "base/reserved-range", "http/missing-version-header", "http/validation-400"),
		withReqs(mismatch("headers/protocol-version-mismatch", "MCP-Protocol-Version ≠ _meta protocolVersion → HTTP 400, -32020", "tools/list", nil, nil,
			func(c *mcp.Call) { c.Meta()[mcp.MetaProtocolVersion] = probeVersion }), "http/protocol-version-match", "http/header-body-match"),
		withReqs(mismatch("headers/missing-method", "no Mcp-Method header → HTTP 400, -32020", "tools/list", nil, nil, del(mcp.HeaderMethod)), "base/reserved-range", "http/validation-400"),
		withReqs(mismatch("headers/method-mismatch", "Mcp-Method ≠ method → HTTP 400, -32020", "server/discover", nil, nil, set(mcp.HeaderMethod, "tools/list")), "http/header-body-match", "http/validation-400"),
		withReqs(mismatch("headers/missing-name-tools-call", "tools/call without Mcp-Name → HTTP 400, -32020", "tools/call", absentTool, nil, del(mcp.HeaderName)), "http/validation-400"),
		withReqs(mismatch("headers/name-mismatch-tools-call", "Mcp-Name ≠ params.name on tools/call → HTTP 400, -32020", "tools/call", absentTool, nil, set(mcp.HeaderName, probeTool+"-other")), "http/header-body-match", "http/validation-400"),
		withReqs(mismatch("headers/missing-name-prompts-get", "prompts/get without Mcp-Name → HTTP 400, -32020", "prompts/get", absentPrompt, needs("prompts"), del(mcp.HeaderName)), "http/validation-400"),
		withReqs(mismatch("headers/name-mismatch-prompts-get", "Mcp-Name ≠ params.name on prompts/get → HTTP 400, -32020", "prompts/get", absentPrompt, needs("prompts"), set(mcp.HeaderName, "mcp-eval-probe-other")), "http/header-body-match", "http/validation-400"),
		withReqs(mismatch("headers/missing-name-resources-read", "resources/read without Mcp-Name → HTTP 400, -32020", "resources/read", absentResource, needs("resources"), del(mcp.HeaderName)), "http/validation-400"),
		withReqs(mismatch("headers/name-mismatch-resources-read", "Mcp-Name ≠ params.uri on resources/read → HTTP 400, -32020", "resources/read", absentResource, needs("resources"), set(mcp.HeaderName, probeURI+"-other")), "http/header-body-match", "http/validation-400"),
		{ID: "headers/name-base64", Reqs: []string{"http/decode-base64"}, Level: report.LevelMust, Revision: revModern, Transport: "http", SpecRef: ref,
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
		withReqs(paramCheck("headers/param-missing", "a missing Mcp-Param-* header while its argument is in the body → HTTP 400, -32020 (safe tools only)",
			func(header, _ string) (string, func(*mcp.Call)) {
				return "no Mcp-Param-" + header + " header", del(mcp.HeaderParamPrefix + header)
			}), "http/param-missing"),
		withReqs(paramCheck("headers/param-mismatch", "a Mcp-Param-* header that differs from its argument → HTTP 400, -32020 (safe tools only)",
			func(header, other string) (string, func(*mcp.Call)) {
				return "Mcp-Param-" + header + " ≠ argument", set(mcp.HeaderParamPrefix+header, other)
			}), "http/param-match"),
	}
}
