package report

import (
	"bytes"
	"encoding/json"
)

// BytesPerToken is the divisor of every tool-list token estimate.
// Tokenizers of current models average about four bytes of English text or
// JSON per token; code-like JSON with short keys runs nearer three, so the
// estimate is on the low side for schema-heavy tools.
const BytesPerToken = 4

// ToolBytes is the size of one tool as a model is given it: its name,
// description and input schema as compact JSON (title, annotations and the
// output schema are not sent). The conformance lint and the telemetry
// footprint both count with it, so the reports show one figure.
func ToolBytes(name, description string, inputSchema json.RawMessage) int {
	schema := inputSchema
	var buf bytes.Buffer
	if len(schema) > 0 && json.Compact(&buf, schema) == nil {
		schema = buf.Bytes()
	} else if len(schema) == 0 {
		schema = nil
	}
	b, err := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	}{name, description, schema})
	if err != nil {
		// Invalid JSON in the schema: count its raw bytes.
		return len(name) + len(description) + len(inputSchema)
	}
	return len(b)
}

// EstimateTokens is the token estimate of n bytes: ceil(n / BytesPerToken).
func EstimateTokens(n int) int64 { return int64((n + BytesPerToken - 1) / BytesPerToken) }
