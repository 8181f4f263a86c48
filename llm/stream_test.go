package llm

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeChatQuirks: what the compatible servers send that OpenAI does
// not, read by the message rather than by finish_reason.
func TestDecodeChatQuirks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body string
		want       Response
	}{
		{
			name: "tool_calls finish without a call (vLLM) is a final answer",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":"Hello."},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`,
			want: Response{Model: "m", StopReason: StopEndTurn, Message: Message{Role: RoleAssistant, Content: "Hello."}, Usage: Usage{InputTokens: 3, OutputTokens: 2}},
		},
		{
			name: "only the native finish reason (OpenRouter)",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":"cut"},"finish_reason":null,"native_finish_reason":"MAX_TOKENS"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`,
			want: Response{Model: "m", StopReason: StopMaxTokens, Message: Message{Role: RoleAssistant, Content: "cut"}, Usage: Usage{InputTokens: 3, OutputTokens: 2}},
		},
		{
			name: "an event stream with keep-alive comments and split arguments",
			body: ": OPENROUTER PROCESSING\n\ndata: {\"id\":\"g\",\"model\":\"m\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"ci\"}}]}}]}\n\n" +
				": OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\",\"native_finish_reason\":\"tool_use\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n",
			want: Response{ID: "g", Model: "m", StopReason: StopToolUse, Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}}, Usage: Usage{InputTokens: 9, OutputTokens: 4}},
		},
		{
			name: "a stream without usage (LM Studio) has an unknown cost",
			body: "data: {\"id\":\"x\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n",
			want: Response{ID: "x", Model: "m", StopReason: StopEndTurn, Message: Message{Role: RoleAssistant, Content: "Hi"}, Usage: Usage{Unknown: true}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeChat([]byte(tt.body), "m", "p")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// An upstream error mid-answer (finish_reason "error") is the
	// answer's error, with the status it reports.
	_, err := decodeChat([]byte(`{"choices":[{"message":{"content":"par"},"finish_reason":"error","error":{"code":502,"message":"upstream died"}}]}`), "m", "openrouter")
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 502 || ae.Message != "upstream died" {
		t.Errorf("got %v", err)
	}
	// A stream's error event likewise.
	_, err = decodeChat([]byte("data: {\"error\":{\"code\":429,\"message\":\"slow down\"}}\n\n"), "m", "openrouter")
	if !errors.As(err, &ae) || ae.StatusCode != 429 {
		t.Errorf("stream error: %v", err)
	}
}
