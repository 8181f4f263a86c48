package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// toolBytesByMarshal is ToolBytes written out: the bytes encoding/json
// writes, counted.
func toolBytesByMarshal(name, description string, inputSchema json.RawMessage) int {
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
		return len(name) + len(description) + len(inputSchema)
	}
	return len(b)
}

var toolBytesCases = []struct{ name, description, schema string }{
	{"get_weather", "Weather for a city.", `{"type":"object","properties":{"city":{"type":"string"}}}`},
	{"a", "", ""},
	{"a", "", "null"},
	{"quote\"back\\slash", "tab\tnew\nline\rbell\x07 <b>&amp;</b>", ` { "type" : "object" ,
	  "description": "a \"quoted\" <tag> & \\ \u2028 \u2029 é 日本" } `},
	{"bad\xffutf8", "\xe2\x80\xa8 and \xe2\x80\xa9, \xc3", `{"pattern":"^\\d+$","enum":["\u003c", "<", 1.5e3, true, null]}`},
	{"x", "y", `{"a":`},
	{"x", "y", `{"a":1} {"b":2}`},
	{"x", "", `"\u2028 <&> \u003e"`},
	{"x", "", "[1,\n2,\t3]"},
}

func TestToolBytesAsMarshal(t *testing.T) {
	for _, c := range toolBytesCases {
		if got, want := ToolBytes(c.name, c.description, json.RawMessage(c.schema)), toolBytesByMarshal(c.name, c.description, json.RawMessage(c.schema)); got != want {
			t.Errorf("ToolBytes(%q, %q, %q) = %d, want %d", c.name, c.description, c.schema, got, want)
		}
	}
	for _, raw := range mcptest.BigToolsJSON(50) {
		var tool struct {
			Name, Description string
			InputSchema       json.RawMessage
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		if got, want := ToolBytes(tool.Name, tool.Description, tool.InputSchema), toolBytesByMarshal(tool.Name, tool.Description, tool.InputSchema); got != want {
			t.Errorf("%s: ToolBytes = %d, want %d", tool.Name, got, want)
		}
	}
}

func FuzzToolBytes(f *testing.F) {
	for _, c := range toolBytesCases {
		f.Add(c.name, c.description, []byte(c.schema))
	}
	f.Fuzz(func(t *testing.T, name, description string, schema []byte) {
		if got, want := ToolBytes(name, description, schema), toolBytesByMarshal(name, description, schema); got != want {
			t.Fatalf("ToolBytes(%q, %q, %q) = %d, want %d", name, description, schema, got, want)
		}
	})
}
