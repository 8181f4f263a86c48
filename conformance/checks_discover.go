package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

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
