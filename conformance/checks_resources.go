package conformance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
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
		// server/resources.mdx, Error Handling: the not-found error SHOULD
		// carry the URI in data.uri (https://modelcontextprotocol.io/specification/2026-07-28/server/resources). Its code is
		// errors/resource-not-found's, a hard assertion; this is a SHOULD.
		{ID: "resources/not-found-uri", Reqs: []string{"features/resource-not-found-uri"}, Level: report.LevelShould, Revision: revModern, SpecRef: spec("server/resources") + "#error-handling",
			Title: "the -32602 for an unknown resource carries data.uri, the URI requested (resources declared)",
			Skip:  needs("resources"),
			Run:   notFoundURI},
	}
}

// notFoundURI reads a URI no server has and wants the URI back in the
// -32602's data.uri. An answer that is not -32602 is
// errors/resource-not-found's to judge, not this check's.
func notFoundURI(ctx context.Context, e *Env) Outcome {
	_, x, err := e.send(ctx, "resources/read", map[string]any{"uri": probeURI}, nil)
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	rerr := x.RPCError()
	if rerr == nil || rerr.Code != mcp.CodeInvalidParams {
		return check.Skip("the unknown resource was not answered with -32602 (see errors/resource-not-found)")
	}
	var data struct {
		URI *string `json:"uri"`
	}
	if len(rerr.Data) == 0 || json.Unmarshal(rerr.Data, &data) != nil || data.URI == nil {
		return check.Fail("the -32602 for an unknown resource has no data.uri (servers SHOULD include the URI)", check.Protocol.Of(x))
	}
	if *data.URI != probeURI {
		return check.Failf(check.Protocol.Of(x), "data.uri is %q, not the URI requested, %q", *data.URI, probeURI)
	}
	return check.Pass()
}
