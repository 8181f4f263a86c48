package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// weatherTools are the tools of the example weather server, as an MCP
// tools/list would give them.
var weatherTools = []Tool{
	{
		Name:        "get_weather",
		Description: "Current weather for a city. Use for questions like \"is it raining in <city>?\" & similar.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}`),
	},
	{Name: "list_cities", Description: "Cities with weather data."},
}

// toolConversation is a full tool round: two parallel calls, one of which
// failed, then the user adds a remark.
func toolConversation() []Message {
	return []Message{
		{Role: RoleSystem, Content: "You are a weather assistant."},
		{Role: RoleUser, Content: "Weather in Paris and Tokyo?"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			{ID: "call_8mKq2TzP0dLr5aYx1bWc3VhE", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
			{ID: "call_J4nR7sQe9uFw2GkT6pLz0CyD", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Tokyo"}`)},
		}},
		{Role: RoleTool, ToolCallID: "call_8mKq2TzP0dLr5aYx1bWc3VhE", Content: `{"temp_c":18,"sky":"sunny"}`},
		{Role: RoleTool, ToolCallID: "call_J4nR7sQe9uFw2GkT6pLz0CyD", Content: "upstream timeout", IsError: true},
	}
}

func TestOpenAIWire(t *testing.T) {
	t.Parallel()
	zero := 0.0
	testWire(t, backends[0], []wireCase{
		{
			name: "text answer",
			req: Request{Model: "gpt-4.1-mini", Temperature: &zero, Messages: []Message{
				{Role: RoleSystem, Content: "You are a weather assistant."},
				{Role: RoleUser, Content: "Weather in Paris?"},
			}},
			response: "openai/text.response.json",
			golden:   "openai/text.request.json",
			want: Response{
				ID: "chatcmpl-BcO1gPfCFAf86O5CyQ9CTeEyoc8KG", Model: "gpt-4.1-mini-2025-04-14",
				Message:    Message{Role: RoleAssistant, Content: "It is 18 °C and sunny in Paris."},
				StopReason: StopEndTurn, Usage: Usage{InputTokens: 23, OutputTokens: 14},
			},
		},
		{
			name: "tool call",
			req: Request{Model: "gpt-4.1-mini", Temperature: &zero, Tools: weatherTools, Messages: []Message{
				{Role: RoleUser, Content: "Is it raining in Paris?"},
			}},
			response: "openai/tool_call.response.json",
			golden:   "openai/tool_call.request.json",
			want: Response{
				ID: "chatcmpl-BcQ8ko2nz9B7CRvV0uVbcowidHpQU", Model: "gpt-4.1-mini-2025-04-14",
				Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
					{ID: "call_qOfTGgDrItLORNfC6VwUbyLL", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","units":"celsius"}`)},
				}},
				StopReason: StopToolUse, Usage: Usage{InputTokens: 91, OutputTokens: 19},
			},
		},
		{
			name: "two parallel tool calls",
			req: Request{Model: "gpt-4.1-mini", Temperature: &zero, Tools: weatherTools, Messages: []Message{
				{Role: RoleSystem, Content: "You are a weather assistant."},
				{Role: RoleUser, Content: "Weather in Paris and Tokyo?"},
			}},
			response: "openai/parallel_tool_calls.response.json",
			golden:   "openai/parallel_tool_calls.request.json",
			want: Response{
				ID: "chatcmpl-BcQ9Zt1pLwq3cV0rGm4xYk2uNn7Ae", Model: "gpt-4.1-mini-2025-04-14",
				Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
					{ID: "call_8mKq2TzP0dLr5aYx1bWc3VhE", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
					{ID: "call_J4nR7sQe9uFw2GkT6pLz0CyD", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Tokyo"}`)},
				}},
				StopReason: StopToolUse, Usage: Usage{InputTokens: 97, OutputTokens: 48},
			},
		},
		{
			name:     "tool results and a token limit",
			req:      Request{Model: "gpt-4.1-mini", Temperature: &zero, MaxTokens: 256, Tools: weatherTools, Messages: toolConversation()},
			response: "openai/final_answer.response.json",
			golden:   "openai/tool_results.request.json",
			want: Response{
				ID: "chatcmpl-BcQAf3XkV8rPq2Lm0NwTz6Hy1Jd5u", Model: "gpt-4.1-mini-2025-04-14",
				Message:    Message{Role: RoleAssistant, Content: "Paris is 18 °C and sunny; I could not get Tokyo's weather."},
				StopReason: StopEndTurn, Usage: Usage{InputTokens: 214, OutputTokens: 17, CachedInputTokens: 128},
			},
		},
		{
			name: "invalid arguments from a weak model are kept, not fatal",
			req: Request{Model: "llama3.1:8b", Tools: weatherTools, Messages: []Message{
				{Role: RoleUser, Content: "Weather in Paris?"},
			}},
			response: "openai/invalid_arguments.response.json",
			golden:   "openai/no_temperature.request.json",
			want: Response{
				ID: "chatcmpl-9x7c2b1a0", Model: "llama3.1:8b",
				Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
					{ID: "call_x1y2z3", Name: "get_weather", InvalidArguments: `{"city": "Paris"`},
					{ID: "call_a4b5c6", Name: "list_cities", Arguments: json.RawMessage(`{}`)},
				}},
				StopReason: StopToolUse, Usage: Usage{InputTokens: 180, OutputTokens: 25},
			},
		},
	})
}

// TestOpenAIReplaysInvalidArguments checks that a broken call goes back to
// the model exactly as it wrote it.
func TestOpenAIReplaysInvalidArguments(t *testing.T) {
	t.Parallel()
	body, err := encodeChat(Request{Model: "m", Messages: []Message{
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "get_weather", InvalidArguments: `{"city": "Paris"`}, {ID: "c2", Name: "list_cities"}}},
	}}, ChatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\""}},{"id":"c2","type":"function","function":{"name":"list_cities","arguments":"{}"}}]}]}`
	if diff := cmp.Diff(want, string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestOpenAIDecodeVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want Response
	}{
		{
			name: "arguments as an object, no id, finish_reason stop with tool calls (older Ollama)",
			body: `{"model":"qwen2.5","choices":[{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"finish_reason":"stop"}]}`,
			want: Response{Model: "qwen2.5", StopReason: StopToolUse, Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			}}, Usage: Usage{Unknown: true}},
		},
		{
			name: "content as parts, no usage, no model",
			body: `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"Hel"},{"type":"text","text":"lo"}]},"finish_reason":"length"}]}`,
			want: Response{Model: "requested", StopReason: StopMaxTokens, Message: Message{Role: RoleAssistant, Content: "Hello"}, Usage: Usage{Unknown: true}},
		},
		{
			name: "refusal",
			body: `{"model":"gpt-4o","choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7}}`,
			want: Response{Model: "gpt-4o", StopReason: StopRefusal, Message: Message{Role: RoleAssistant, Content: "I can't help with that."}, Usage: Usage{InputTokens: 5, OutputTokens: 7}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodeChat([]byte(tt.body), "requested", "openai")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeErrors: a 2xx body that is not an answer is an error, for
// both dialects.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		decode func([]byte, string) (*Response, error)
		bodies map[string]string
	}{
		{"openai", func(b []byte, m string) (*Response, error) { return decodeChat(b, m, "openai") }, map[string]string{
			"no choices":             `{"id":"x","choices":[]}`,
			"gateway error in a 200": `{"error":{"message":"upstream overloaded","code":502}}`,
			"truncated":              `{"id":"chatcmpl-1","choices":[{"message":{"content":"hi"`,
			"not JSON":               `<html>Bad gateway</html>`,
			"content of wrong type":  `{"choices":[{"message":{"content":42}}]}`,
		}},
		{"anthropic", decodeAnthropic, map[string]string{
			"no content":        `{"id":"msg_1","type":"message","role":"assistant","stop_reason":"end_turn"}`,
			"an error object":   `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			"truncated":         `{"id":"msg_1","type":"message","content":[{"type":"text","te`,
			"content of a type": `{"type":"message","content":"hello"}`,
		}},
	} {
		for name, body := range tt.bodies {
			if _, err := tt.decode([]byte(body), "m"); err == nil {
				t.Errorf("%s %s: got no error", tt.name, name)
			}
		}
	}
}

// TestOpenAIFallbacks: a field a server rejects with a 400 is dropped for
// one retry, and later requests for the model leave it out. A reasoning
// model rejects temperature 0; a compatible server may reject
// response_format.
func TestOpenAIFallbacks(t *testing.T) {
	t.Parallel()
	structured := simpleRequest()
	structured.Format = &Format{Name: "verdict", Schema: json.RawMessage(`{"type":"object"}`)}
	verdict := step{body: `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"verdict\":\"pass\"}"},"finish_reason":"stop"}]}`}
	for _, tt := range []struct {
		name   string
		field  string
		reject step
		ok     step
		req    Request
	}{
		{"temperature", `"temperature"`, step{status: 400, file: "openai/error_temperature.json"}, step{file: "openai/text.response.json"}, simpleRequest()},
		{"response_format", `"response_format"`, step{status: 400, body: `{"error":{"message":"unknown field: response_format","type":"invalid_request_error","param":null}}`}, verdict, structured},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.reject, tt.ok, tt.ok)
			p, _ := backends[0].provider(t, f)
			for range 2 {
				if _, err := p.Complete(t.Context(), tt.req); err != nil {
					t.Fatal(err)
				}
			}
			reqs := f.requests()
			if len(reqs) != 3 {
				t.Fatalf("got %d requests, want 3", len(reqs))
			}
			for i, r := range reqs {
				if has := strings.Contains(string(r.body), tt.field); has != (i == 0) {
					t.Errorf("request %d: %s sent = %v, want %v: %s", i, tt.field, has, i == 0, r.body)
				}
			}
		})
	}
}

func TestRequestValidation(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		f := newFake(t)
		p, _ := b.provider(t, f)
		for name, req := range map[string]Request{
			"no model":     {Messages: []Message{{Role: RoleUser, Content: "hi"}}},
			"no messages":  {Model: "m"},
			"unknown role": {Model: "m", Messages: []Message{{Role: "developer", Content: "hi"}}},
			"bad schema":   {Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}, Tools: []Tool{{Name: "t", InputSchema: json.RawMessage(`{`)}}},
		} {
			_, err := p.Complete(t.Context(), req)
			var ae *APIError
			if err == nil || errors.As(err, &ae) {
				t.Errorf("%s %s: got %v, want a local error", b.name, name, err)
			}
		}
		if n := len(f.requests()); n != 0 {
			t.Errorf("%s: %d requests sent for invalid input", b.name, n)
		}
	}
}
