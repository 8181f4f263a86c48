package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func discoverChecks() []*Check {
	return []*Check{
		withReqs(discoverCheck("discover/responds", "server/discover with the modern envelope returns a result",
			func(map[string]json.RawMessage, *mcp.Exchange) Outcome { return check.Pass() }), "base/support-core", "base/implement-discover", "http/single-endpoint"),
		withReqs(discoverCheck("discover/supported-versions", "supportedVersions is a non-empty string array that includes 2026-07-28",
			func(m map[string]json.RawMessage, x *mcp.Exchange) Outcome {
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
			}), "base/implement-discover", "guidance/schema-shapes"),
		withReqs(discoverCheck("discover/capabilities", "capabilities is an object",
			func(m map[string]json.RawMessage, x *mcp.Exchange) Outcome {
				if c := bytes.TrimSpace(m["capabilities"]); len(c) == 0 || c[0] != '{' {
					return check.Fail("DiscoverResult has no capabilities object (required by the schema)", check.Protocol.Of(x))
				}
				return check.Pass()
			}), "base/implement-discover", "guidance/schema-shapes"),
		{ID: "discover/without-client-info", Reqs: []string{"base/stateless-context", "base/info-not-behaviour"}, Level: report.LevelMust, Revision: revModern,
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

// discoverCheck judges the result of a plain server/discover.
func discoverCheck(id, title string, judge func(m map[string]json.RawMessage, x *mcp.Exchange) Outcome) *Check {
	return &Check{ID: id, Title: title, Level: report.LevelMust, Revision: revModern, SpecRef: spec("server/discover"),
		Run: func(ctx context.Context, e *Env) Outcome {
			m, x, o := e.discoverResult(ctx, nil)
			if o != nil {
				return *o
			}
			return judge(m, x)
		}}
}

// discoverResult sends server/discover (optionally edited) and returns its
// result members.
func (e *Env) discoverResult(ctx context.Context, edit func(*mcp.Call)) (map[string]json.RawMessage, *mcp.Exchange, *Outcome) {
	call, x, err := e.send(ctx, "server/discover", nil, edit)
	m, o := resultMembers(call, x, err)
	return m, x, o
}
