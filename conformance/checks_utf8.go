package conformance

import (
	"context"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// utf8Checks: JSON text is UTF-8, and so is every MCP message. The
// transports replace what is not (each invalid sequence by U+FFFD, so
// that every output stays valid UTF-8) and record where (mcp.Anomaly of
// kind invalid-utf8); this check runs after the others and reports what
// the run saw on every connection.
//
// The rule, 2026-07-28 basic/transports §Messages (and 2025-11-25
// basic/transports.mdx): "JSON-RPC messages MUST be UTF-8 encoded."; JSON
// itself, RFC 8259 §8.1: "JSON text exchanged between systems that are not
// part of a closed ecosystem MUST be encoded using UTF-8".
func utf8Checks() []*Check {
	return []*Check{
		{ID: "jsonrpc/valid-utf8", Reqs: []string{"base/utf-8"}, Level: report.LevelMust, Revision: revBoth, After: true,
			SpecRef: spec("basic/transports"),
			Title:   "every message from the server is valid UTF-8",
			Run: func(ctx context.Context, e *Env) Outcome {
				f := e.findAnomalies(mcp.AnomalyInvalidUTF8)
				if f.total > 0 {
					return check.Failf(f.evidence(), "the server sent %s with bytes that are not UTF-8, which JSON text and every MCP message must be (shown as U+FFFD in this report)%s",
						plural(f.total, "message"), f.example())
				}
				return check.Pass()
			}},
	}
}
