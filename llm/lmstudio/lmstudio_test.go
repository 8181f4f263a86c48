package lmstudio

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// TestContentNeverNull: LM Studio refuses a null content, which OpenAI
// takes for a turn that only calls tools; the provider sends "".
func TestContentNeverNull(t *testing.T) {
	t.Parallel()
	srv, _, _ := providertest.Serve(t, Def, llmtest.Options{})
	res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"1","content":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("null content: %d, want 400", res.StatusCode)
	}
	p, _ := providertest.Rig(t, Def, llmtest.Options{Reply: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "done"} }})
	_, err = p.Complete(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "hi"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "365174486", Name: "f", Arguments: []byte(`{}`)}}},
		{Role: llm.RoleTool, ToolCallID: "365174486", Content: "x"},
	}})
	if err != nil {
		t.Error(err)
	}
}

// TestNoUsageIsUnknown: an answer without usage is an unknown cost, never
// zero tokens.
func TestNoUsageIsUnknown(t *testing.T) {
	t.Parallel()
	p, _ := providertest.Rig(t, Def, llmtest.Options{Quirks: map[string]bool{"no-usage": true}})
	resp, err := providertest.Ask(t, p, "m", "hi")
	if err != nil || !resp.Usage.Unknown {
		t.Errorf("%+v, %v", resp, err)
	}
}
