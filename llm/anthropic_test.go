package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAnthropicWire(t *testing.T) {
	t.Parallel()
	zero := 0.0
	toolsConversation := append(toolConversation(), Message{Role: RoleUser, Content: "Keep it short."})
	testWire(t, backends[1], []wireCase{
		{
			name: "text answer, system prompt top-level, default max_tokens",
			req: Request{Model: "claude-sonnet-4-5", Temperature: &zero, Messages: []Message{
				{Role: RoleSystem, Content: "You are a weather assistant."},
				{Role: RoleUser, Content: "Weather in Paris?"},
			}},
			response: "anthropic/text.response.json",
			golden:   "anthropic/text.request.json",
			want: Response{
				ID: "msg_01XFDUDYJgAACzvnptvVoYEL", Model: "claude-sonnet-4-5-20250929",
				Message:    Message{Role: RoleAssistant, Content: "It is 18 °C and sunny in Paris."},
				StopReason: StopEndTurn, Usage: Usage{InputTokens: 412, OutputTokens: 21},
			},
		},
		{
			// A refusal without text: what the API says about it is the
			// answer, never an empty turn.
			name: "refusal without text",
			req: Request{Model: "claude-sonnet-4-5", Temperature: &zero, Messages: []Message{
				{Role: RoleSystem, Content: "You are a weather assistant."},
				{Role: RoleUser, Content: "Weather in Paris?"},
			}},
			response: "anthropic/refusal.response.json",
			golden:   "anthropic/text.request.json",
			want: Response{
				ID: "msg_01RfZx8kT2wQ9pL4vN6mB3cD", Model: "claude-sonnet-4-5-20250929",
				Message: Message{Role: RoleAssistant,
					Content: `[refused: stop_reason "refusal", no text, category cyber: The request asks for help with an intrusion.]`},
				StopReason: StopRefusal, Usage: Usage{InputTokens: 412},
			},
		},
		{
			name: "text and a tool call",
			req: Request{Model: "claude-sonnet-4-5", Temperature: &zero, Tools: weatherTools, Messages: []Message{
				{Role: RoleUser, Content: "Is it raining in Paris?"},
			}},
			response: "anthropic/tool_use.response.json",
			golden:   "anthropic/tool_use.request.json",
			want: Response{
				ID: "msg_01Aq9w938a90dw8q", Model: "claude-sonnet-4-5-20250929",
				Message: Message{Role: RoleAssistant, Content: "I'll check the current weather in Paris for you.", ToolCalls: []ToolCall{
					{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: json.RawMessage(`{
        "city": "Paris",
        "units": "celsius"
      }`)},
				}},
				StopReason: StopToolUse, Usage: Usage{InputTokens: 618, OutputTokens: 89},
			},
		},
		{
			name: "two parallel tool calls",
			req: Request{Model: "claude-sonnet-4-5", Temperature: &zero, Tools: weatherTools, Messages: []Message{
				{Role: RoleSystem, Content: "You are a weather assistant."},
				{Role: RoleSystem, Content: "Answer in English."},
				{Role: RoleUser, Content: "Weather in Paris and Tokyo?"},
			}},
			response: "anthropic/parallel_tool_use.response.json",
			golden:   "anthropic/parallel_tool_use.request.json",
			want: Response{
				ID: "msg_01KMKa7pX9c3mZ3rT5vB8qWd", Model: "claude-sonnet-4-5-20250929",
				Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{
					{ID: "toolu_01JvYz3zTjY2pT9fK8rX4mNq", Name: "get_weather", Arguments: json.RawMessage(`{
        "city": "Paris"
      }`)},
					{ID: "toolu_01Hc5sWq8LbN2vR6tY0uZ3aP", Name: "get_weather", Arguments: json.RawMessage(`{
        "city": "Tokyo"
      }`)},
				}},
				StopReason: StopToolUse, Usage: Usage{InputTokens: 640, OutputTokens: 112},
			},
		},
		{
			name: "tool results merged into one user turn, cache tokens counted",
			req:  Request{Model: "claude-sonnet-4-5", MaxTokens: 256, Tools: weatherTools, Messages: toolsConversation},
			// Tool results (one an error) and the user's remark share
			// one user turn, results first.
			response: "anthropic/final_answer.response.json",
			golden:   "anthropic/tool_results.request.json",
			want: Response{
				ID: "msg_01Fq6hY2cVn8sD4kW7pL1tRz", Model: "claude-sonnet-4-5-20250929",
				Message:    Message{Role: RoleAssistant, Content: "Paris is 18 °C and sunny; I could not get Tokyo's weather."},
				StopReason: StopEndTurn, Usage: Usage{InputTokens: 35 + 200 + 600, OutputTokens: 24, CachedInputTokens: 600, CacheWriteTokens: 200},
			},
		},
	})
}

// TestStructuredOutput: Format becomes response_format json_schema on
// Chat Completions, and a forced tool call on the Messages API whose input
// comes back as the message text.
func TestStructuredOutput(t *testing.T) {
	format := &Format{Name: "verdict", Schema: json.RawMessage(`{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"]}`)}
	for _, tt := range []struct {
		b        backend
		answer   string
		content  string   // the message text the answer becomes
		wantBody []string // parts of the request body
	}{
		{
			b:        backends[0],
			answer:   `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"verdict\":\"pass\"}"},"finish_reason":"stop"}]}`,
			content:  `{"verdict":"pass"}`,
			wantBody: []string{`"response_format":{"type":"json_schema","json_schema":{"name":"verdict","schema":{"type":"object"`, `"strict":true`},
		},
		{
			b:        backends[1],
			answer:   `{"id":"m","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"verdict","input":{"verdict":"fail"}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":3}}`,
			content:  `{"verdict":"fail"}`,
			wantBody: []string{`"tool_choice":{"type":"tool","name":"verdict"}`, `"name":"verdict"`},
		},
	} {
		t.Run(tt.b.name, func(t *testing.T) {
			f := newFake(t, step{body: tt.answer})
			p, _ := tt.b.provider(t, f)
			req := simpleRequest()
			req.Format = format
			resp, err := p.Complete(t.Context(), req)
			if err != nil || resp.Message.Content != tt.content || len(resp.Message.ToolCalls) != 0 {
				t.Fatalf("%v %+v", err, resp)
			}
			body := string(f.requests()[0].body)
			for _, want := range tt.wantBody {
				if !strings.Contains(body, want) {
					t.Errorf("request body %s lacks %s", body, want)
				}
			}
		})
	}
}
