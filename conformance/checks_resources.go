package conformance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-eval/mcp-eval/internal/check"
	"github.com/mcp-eval/mcp-eval/report"
)

func resourceChecks() []*Check {
	return []*Check{
		{ID: "resources/templates-list", Reqs: []string{"guidance/schema-shapes"}, Level: report.LevelMust, Revision: revBoth, SpecRef: spec("server/resources") + "#resource-templates",
			Title: "resources/templates/list answers resourceTemplates, each with a uriTemplate and a name (resources declared)",
			Skip:  needs("resources"),
			Run: func(ctx context.Context, e *Env) Outcome {
				lm := cacheable[4]
				l := e.listingOf(ctx, lm)
				if l.fail != nil {
					return l.failure(lm.method)
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
