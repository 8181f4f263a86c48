package conformance

import (
	"context"
	"encoding/json"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

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
		reqs := []string{"base/result-type", "base/result-type-values", "tasks/result-type-task-only"}
		if !mrtrAllowed {
			reqs = append(reqs, "base/mrtr-supported-requests")
		}
		out = append(out, &Check{
			ID: "result-type/" + lm.slug, Reqs: reqs, Level: report.LevelMust, Revision: revModern, SpecRef: ref,
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
		&Check{ID: "result-type/prompts-get", Reqs: []string{"base/result-type", "base/result-type-values", "tasks/result-type-task-only"}, Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "prompts/get results carry a valid resultType",
			Skip: func(e *Env) string {
				if reason := needs("prompts")(e); reason != "" {
					return reason
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
		&Check{ID: "result-type/tools-call", Reqs: []string{"base/result-type", "base/result-type-values"}, Level: report.LevelMust, Revision: revModern, SpecRef: ref,
			Title: "tools/call results carry a valid resultType (safe tools only)",
			Skip: func(e *Env) string {
				if len(e.safeTools()) == 0 {
					return "no tool is marked readOnlyHint or listed in --safe-tools, so no tool is called"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				t := e.callableTool()
				call, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)}, nil)
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
	case rt == "task" && method == "tools/call" && e.declaresExtension(tasksExt):
		return nil
	case rt == "task" && e.declaresExtension(tasksExt):
		o := check.Failf(ev, "%s answered resultType \"task\", which the tasks extension allows on a CreateTaskResult only (a tools/call answer)", method)
		return &o
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
