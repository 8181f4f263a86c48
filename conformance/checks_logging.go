package conformance

import (
	"context"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func loggingChecks() []*Check {
	return []*Check{
		// server/utilities/logging §Per-request log level: "The server MUST
		// NOT emit notifications/message for a request that does not
		// include this field" (io.modelcontextprotocol/logLevel in _meta).
		// No request of mcp-eval carries it, so every one the run sees is
		// unrequested: on an answer stream over HTTP, on stdout over stdio.
		{ID: "logging/no-unrequested", Reqs: []string{"utilities/logging-only-requested"}, Level: report.LevelMust, Revision: revModern,
			SpecRef: spec("server/utilities/logging") + "#per-request-log-level", Once: true, After: true,
			Title: "no notifications/message arrives for a request without io.modelcontextprotocol/logLevel in _meta (mcp-eval sets it on none)",
			Run: func(ctx context.Context, e *Env) Outcome {
				seen := e.seen(&e.logNotes, (*mcp.Stdio).Notifications, func(m *mcp.Message) bool { return m.Method == "notifications/message" })
				if len(seen) == 0 {
					return check.PassInfo("watched every answer of the run")
				}
				return sentWhereNot(seen, "notifications", "%s", "on the answer stream of", "on stdout",
					"no request of the run set io.modelcontextprotocol/logLevel, and the server MUST NOT emit notifications/message for a request that does not")
			}},
	}
}
