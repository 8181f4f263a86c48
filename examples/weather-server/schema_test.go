package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/spectest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestWireSchema validates what the server answers over HTTP against the
// official 2026-07-28 schema, and compiles every tool schema as JSON Schema
// 2020-12, which is what mcp-eval's result-type, caching and schema checks
// look at.
func TestWireSchema(t *testing.T) {
	t.Parallel()
	// The official schema is not in the repository: spectest finds it
	// (or skips, or fails under MCP_EVAL_REQUIRE_SPEC=1).
	f, err := os.Open(spectest.Schema(t, "2026-07-28"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	const specURL = "https://modelcontextprotocol.io/schema/2026-07-28.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(specURL, doc); err != nil {
		t.Fatal(err)
	}

	ts := httptest.NewServer(newHTTPHandler(newServer(new(outbox), testLogger(t)), true, testLogger(t)))
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"

	tests := []struct {
		method, name string
		params       map[string]any
		def          string
	}{
		{"server/discover", "", nil, "DiscoverResult"},
		{"tools/list", "", nil, "ListToolsResult"},
		{"tools/call", "get_weather", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}}, "CallToolResult"},
		{"tools/call", "get_weather", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Gotham"}}, "CallToolResult"},
		{"tools/call", "search_invoices", map[string]any{"name": "search_invoices", "arguments": map[string]any{"customer": "acme"}}, "CallToolResult"},
		{"tools/call", "send_email", map[string]any{"name": "send_email", "arguments": map[string]any{"to": "a@example.com", "subject": "s", "body": "b"}}, "CallToolResult"},
		{"prompts/list", "", nil, "ListPromptsResult"},
		{"prompts/get", "weather_report", map[string]any{"name": "weather_report"}, "GetPromptResult"},
		{"resources/list", "", nil, "ListResourcesResult"},
		{"resources/templates/list", "", nil, "ListResourceTemplatesResult"},
		{"resources/read", stationsURI, map[string]any{"uri": stationsURI}, "ReadResourceResult"},
	}
	var tools []json.RawMessage
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.name, func(t *testing.T) {
			status, r := post(t, url, tt.method, tt.name, withMeta(tt.params), nil)
			if status != 200 || r.Error != nil {
				t.Fatalf("status %d, error %+v", status, r.Error)
			}
			raw, _ := json.Marshal(r.Result)
			validate(t, c, specURL+"#/$defs/"+tt.def, raw)
			if tt.method == "tools/list" {
				var res struct{ Tools []json.RawMessage }
				json.Unmarshal(raw, &res)
				tools = res.Tools
			}
		})
	}

	// Every input and output schema compiles on its own as 2020-12, the
	// dialect a schema without $schema has in 2026-07-28.
	if len(tools) == 0 {
		t.Fatal("no tools listed")
	}
	for _, raw := range tools {
		var tool struct {
			Name         string
			InputSchema  json.RawMessage
			OutputSchema json.RawMessage
		}
		json.Unmarshal(raw, &tool)
		for kind, s := range map[string]json.RawMessage{"input": tool.InputSchema, "output": tool.OutputSchema} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
			if err != nil {
				t.Fatal(err)
			}
			tc := jsonschema.NewCompiler()
			tc.DefaultDraft(jsonschema.Draft2020)
			loc := fmt.Sprintf("mem://%s/%s.json", tool.Name, kind)
			if err := tc.AddResource(loc, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := tc.Compile(loc); err != nil {
				t.Errorf("%s %s schema does not compile: %v", tool.Name, kind, err)
			}
		}
	}
}

func validate(t *testing.T, c *jsonschema.Compiler, loc string, raw []byte) {
	t.Helper()
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("result does not match %s: %v\n%s", loc, err, raw)
	}
}
