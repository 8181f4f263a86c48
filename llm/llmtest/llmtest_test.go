package llmtest

import (
	"strings"
	"testing"
)

// TestReject pins each rule on one request the API takes and one it
// refuses, so that a rule dropped here shows before a fake starts taking
// what the real API refuses.
func TestReject(t *testing.T) {
	t.Parallel()
	const (
		chat     = "/v1/chat/completions"
		messages = "/v1/messages"
	)
	long := strings.Repeat("a", 65)
	tests := []struct {
		name, path, body string
		want             string // part of the message; "" when the request is taken
	}{
		{"chat: plain request", chat, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, ""},
		{"chat: Azure deployment path", "/openai/deployments/d/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"a.b"}}]}`, "tools[0].function.name"},
		{"chat: not JSON", chat, `{"model":`, "could not parse the JSON body"},
		{"chat: no messages", chat, `{"model":"m","messages":[]}`, "[] is too short - 'messages'"},
		{"chat: 64-character tool name", chat, `{"messages":[{"role":"user"}],"tools":[{"type":"function","function":{"name":"` + long[:64] + `"}}]}`, ""},
		{"chat: 65-character tool name", chat, `{"messages":[{"role":"user"}],"tools":[{"type":"function","function":{"name":"` + long + `"}}]}`, "Invalid 'tools[0].function.name': string does not match pattern"},
		{"chat: dotted tool name in a call", chat, `{"messages":[{"role":"user"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"ok"}},{"id":"c2","function":{"name":"weather.get"}}]}]}`, "Invalid 'messages[1].tool_calls[1].function.name'"},
		{"chat: tool results answer the calls before", chat, `{"messages":[{"role":"user"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a"}},{"id":"c2","function":{"name":"b"}}]},{"role":"tool","tool_call_id":"c2"},{"role":"tool","tool_call_id":"c1"}]}`, ""},
		{"chat: tool result of an unknown call", chat, `{"messages":[{"role":"user"},{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a"}}]},{"role":"tool","tool_call_id":"c9"}]}`, "must be a response to a preceeding message with 'tool_calls'. (messages.[2].role)"},
		{"chat: tool result after a user turn", chat, `{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a"}}]},{"role":"user"},{"role":"tool","tool_call_id":"c1"}]}`, "(messages.[2].role)"},
		{"messages: plain request", messages, `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, ""},
		{"messages: no max_tokens", messages, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens: Field required"},
		{"messages: 128-character tool name", messages, `{"max_tokens":1,"tools":[{"name":"` + strings.Repeat("a", 128) + `"}]}`, ""},
		{"messages: dotted tool name", messages, `{"max_tokens":1,"tools":[{"name":"ok"},{"name":"weather.get"}]}`, "tools.1.custom.name: String should match pattern"},
		{"messages: results open the next user turn", messages, `{"max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a"},{"type":"tool_use","id":"t2","name":"b"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":"t2"},{"type":"text","text":"short"}]}]}`, ""},
		{"messages: dotted tool name in a call", messages, `{"max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"let me see"},{"type":"tool_use","id":"t1","name":"weather.get"}]}]}`, "messages.1.content.1.tool_use.name: String should match pattern"},
		{"messages: results out of order", messages, `{"max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a"},{"type":"tool_use","id":"t2","name":"b"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2"},{"type":"tool_result","tool_use_id":"t1"}]}]}`, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1."},
		{"messages: text before the results", messages, `{"max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a"}]},{"role":"user","content":"and?"}]}`, "immediately after: t1"},
		{"another path", "/v1/embeddings", `{`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Reject(tt.path, []byte(tt.body))
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("Reject = %q, want %q", got, tt.want)
			}
		})
	}
}
