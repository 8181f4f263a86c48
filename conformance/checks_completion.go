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
		{ID: "completion/complete", Reqs: []string{"guidance/schema-shapes", "utilities/completion-values"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("server/utilities/completion"),
			Title: "with completions declared, completion/complete answers completion.values (strings, at most 100), total and hasMore well typed",
			Skip: func(e *Env) string {
				if reason := needs("completions")(e); reason != "" {
					return reason
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
