package telemetry

import (
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// BytesPerToken is the divisor of the tool-list estimate (report's, shared
// with the conformance lint so that the reports show one figure).
const BytesPerToken = report.BytesPerToken

// FootprintMethod says how Footprint estimates, for the report.
const FootprintMethod = "estimate: ceil(bytes/4) of each tool's name, description and inputSchema as compact JSON, the part of every request the tools take; providers add their own framing and tokenizers differ, so the real count differs"

// Footprint estimates what the tool list costs every conversation: the
// definitions the agent passes to the model with each request (name,
// description and input schema; title, annotations and output schema are
// not sent). It is an estimate from the bytes, not a provider's count: an
// exact figure would need a model call with and without the tools, which
// costs money and differs per provider. It returns nil for no tools.
func Footprint(tools []mcp.Tool) *report.ToolListFootprint {
	if len(tools) == 0 {
		return nil
	}
	f := &report.ToolListFootprint{Tools: len(tools), Method: FootprintMethod, PerTool: map[string]int64{}}
	for _, t := range tools {
		n := toolBytes(t)
		f.Bytes += n
		// Duplicate names (a broken server) add up rather than overwrite.
		f.PerTool[t.Name] += tokens(n)
	}
	f.EstimatedTokens = tokens(f.Bytes)
	return f
}

func tokens(bytes int) int64 { return report.EstimateTokens(bytes) }

// toolBytes is the size of a tool as the model is given it.
func toolBytes(t mcp.Tool) int { return report.ToolBytes(t.Name, t.Description, t.InputSchema) }
