package conformance

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// maxProbedTools bounds how many safe tools setup calls.
const maxProbedTools = 10

// classifyTools calls each safe tool (at most maxProbedTools) twice during
// setup: once declaring no client capabilities, to find tools that need one
// (errors/missing-client-capability), and once declaring them all, to find
// tools that answer input_required (mrtr/shape). Only tools the server marks
// readOnlyHint, or the user lists as safe, are ever called.
func (e *Env) classifyTools(ctx context.Context) {
	tools := e.safeTools()
	if len(tools) > maxProbedTools {
		tools = tools[:maxProbedTools]
	}
	for _, t := range tools {
		args := schema.SampleArgs(t.InputSchema)
		_, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": args}, nil)
		if err == nil && x.Response != nil {
			if rerr := x.Response.Error; rerr != nil && rerr.Code == mcp.CodeMissingRequiredClientCapability {
				e.capabilityTools = append(e.capabilityTools, toolProbe{Tool: t, Args: args})
			} else if rerr == nil {
				if bad := undeclaredInputs(x.Response.Result, map[string]bool{}); bad != "" {
					e.capabilityTools = append(e.capabilityTools, toolProbe{Tool: t, Args: args, Bad: bad})
				}
			}
		}
		_, x, err = e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": args},
			func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() })
		if err == nil && x.Response != nil && x.Response.Error == nil {
			var rt struct {
				ResultType string `json:"resultType"`
			}
			if json.Unmarshal(x.Response.Result, &rt) == nil && rt.ResultType == "input_required" {
				e.inputTools = append(e.inputTools, toolProbe{Tool: t, Args: args})
			}
		}
	}
}

// allClientCapabilities declares every client capability of 2026-07-28, so
// that a server may ask for any kind of input.
func allClientCapabilities() map[string]any {
	return map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
		"sampling":    map[string]any{},
		"roots":       map[string]any{},
	}
}

// inputCapability maps an embedded input request to the client capability
// it needs (basic/patterns/mrtr.mdx).
var inputCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// undeclaredInputs returns, for an input_required result, the input
// requests whose capability is not in declared ("" if none).
func undeclaredInputs(result json.RawMessage, declared map[string]bool) string {
	var r struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType != "input_required" {
		return ""
	}
	var bad []string
	for k, req := range r.InputRequests {
		if c, ok := inputCapability[req.Method]; ok && !declared[c] {
			bad = append(bad, k+" ("+req.Method+")")
		}
	}
	sort.Strings(bad)
	return strings.Join(bad, ", ")
}

// propSchema is the part of a JSON Schema that paramHeaderTool reads.
type propSchema struct {
	Type       json.RawMessage            `json:"type"`
	Enum       []json.RawMessage          `json:"enum"`
	Properties map[string]json.RawMessage `json:"properties"`
	Header     string                     `json:"x-mcp-header"`
}

func (p propSchema) typeName() string { return schema.TypeName(p.Type) }

// paramHeaderTool finds a safe tool with an x-mcp-header property of a
// header-able type, returning the property path, header name and type.
func paramHeaderTool(e *Env) (mcp.Tool, []string, string, string, bool) {
	for _, t := range e.safeTools() {
		var root propSchema
		if json.Unmarshal(t.InputSchema, &root) != nil {
			continue
		}
		names := make([]string, 0, len(root.Properties))
		for n := range root.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			var p propSchema
			if json.Unmarshal(root.Properties[n], &p) != nil || p.Header == "" {
				continue
			}
			switch typ := p.typeName(); typ {
			case "string", "integer", "boolean":
				if len(p.Enum) == 0 {
					return t, []string{n}, p.Header, typ, true
				}
			}
		}
	}
	return mcp.Tool{}, nil, "", "", false
}

func setPath(m map[string]any, path []string, v any) {
	for i, p := range path {
		if i == len(path)-1 {
			m[p] = v
			return
		}
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
}
