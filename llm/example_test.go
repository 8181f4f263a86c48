package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mcp-eval/mcp-eval/llm"
)

func ExampleParseSpec() {
	provider, model, _ := llm.ParseSpec("openai:llama3.1:8b")
	fmt.Println(provider, model)
	// Output: openai llama3.1:8b
}

func ExampleNew() {
	// A stand-in for an OpenAI-compatible server such as Ollama.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"chatcmpl-1","model":"llama3.1:8b","choices":[{"index":0,"message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
			"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":80,"completion_tokens":12,"total_tokens":92}}`)
	}))
	defer srv.Close()

	// With OPENAI_BASE_URL set, no OPENAI_API_KEY is needed.
	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1"}
	p, err := llm.New("openai", func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	zero := 0.0
	resp, err := p.Complete(context.Background(), llm.Request{
		Model:       "llama3.1:8b",
		Temperature: &zero,
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: "Weather in Paris?"}},
		Tools: []llm.Tool{{Name: "get_weather", Description: "Current weather for a city.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := resp.Message.ToolCalls[0]
	fmt.Println(resp.StopReason, call.Name, string(call.Arguments), resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output: tool_use get_weather {"city":"Paris"} 80 12
}
