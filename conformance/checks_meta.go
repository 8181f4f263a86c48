package conformance

import (
	"context"
	"encoding/json"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func metaChecks() []*Check {
	return []*Check{
		{ID: "meta/server-info", Reqs: []string{"base/server-info", "features/discover-server-info"}, Level: report.LevelShould, Revision: revModern, SpecRef: spec("basic/index") + "#_meta",
			Title: `results carry _meta["io.modelcontextprotocol/serverInfo"] with name and version`,
			Run: func(ctx context.Context, e *Env) Outcome {
				m, x, o := e.discoverResult(ctx, nil)
				if o != nil {
					return *o
				}
				var meta map[string]json.RawMessage
				_ = json.Unmarshal(m["_meta"], &meta)
				var info struct {
					Name    *string `json:"name"`
					Version *string `json:"version"`
				}
				raw, ok := meta[mcp.MetaServerInfo]
				if !ok {
					return check.Fail("the server/discover result has no _meta serverInfo (servers SHOULD include it in every result)", check.Protocol.Of(x))
				}
				if json.Unmarshal(raw, &info) != nil || info.Name == nil || info.Version == nil {
					return check.Fail("serverInfo lacks name or version (an Implementation requires both)", check.Protocol.Of(x))
				}
				return check.Pass()
			}},
	}
}
