package llamacpp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

var weather = llm.Tool{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

func twoCalls(llmtest.Request) llmtest.Reply {
	return llmtest.Reply{Calls: []llmtest.ReplyCall{{Name: "get_weather", Args: `{"city":"Paris"}`}, {Name: "get_weather", Args: `{"city":"Oslo"}`}}}
}

// TestParallelCallsAskedFor: llama-server answers one call unless the
// request says parallel_tool_calls: true; the provider says it, so both
// calls come back, and max_tokens carries the limit.
func TestParallelCallsAskedFor(t *testing.T) {
	t.Parallel()
	p, log := providertest.Rig(t, Def, llmtest.Options{Models: []string{"/models/qwen2.5-7b-instruct-q4_k_m.gguf"}, Reply: twoCalls})
	// Any model name: the server answers with the one it serves.
	resp, err := p.Complete(t.Context(), llm.Request{Model: "anything", MaxTokens: 50, Tools: []llm.Tool{weather}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Paris and Oslo?"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 2 || len(resp.Message.ToolCalls[0].ID) != 32 {
		t.Errorf("calls %+v", resp.Message.ToolCalls)
	}
	body := string(log.Posts()[0])
	if !strings.Contains(body, `"parallel_tool_calls":true`) || !strings.Contains(body, `"max_tokens":50`) || strings.Contains(body, "max_completion_tokens") {
		t.Errorf("body %s", body)
	}
	if err := p.(llm.Prober).Probe(t.Context(), "anything"); err != nil {
		t.Errorf("probe: %v", err)
	}
}

// TestWithoutJinja: a server started without --jinja answers tools with a
// 500; that is final (no retries) and says to start it with --jinja, in
// the run and in the probe.
func TestWithoutJinja(t *testing.T) {
	t.Parallel()
	p, log := providertest.Rig(t, Def, llmtest.Options{Quirks: map[string]bool{"no-jinja": true}}, llm.WithMaxRetries(3), llm.WithSleep(func(context.Context, time.Duration) error { return nil }))
	_, err := providertest.Ask(t, p, "m", "hi", weather)
	if err == nil || !strings.Contains(err.Error(), "tools param requires --jinja flag: start llama-server with --jinja") {
		t.Errorf("got %v", err)
	}
	if n := len(log.Posts()); n != 1 {
		t.Errorf("%d requests: the 500 was retried", n)
	}
	if err := p.(llm.Prober).Probe(t.Context(), "m"); err == nil || !strings.Contains(err.Error(), "model llamacpp:m at http://127.0.0.1:") || !strings.Contains(err.Error(), "--jinja") {
		t.Errorf("probe: %v", err)
	}
}

// TestParserRules: what llama-server's request parser refuses.
func TestParserRules(t *testing.T) {
	t.Parallel()
	srv, _, _ := providertest.Serve(t, Def, llmtest.Options{})
	for name, tt := range map[string]struct {
		body string
		msg  string
	}{
		"a tool call without type":  {`{"messages":[{"role":"assistant","tool_calls":[{"id":"1","function":{"name":"f","arguments":"{}"}}]}]}`, "Missing tool call type"},
		"neither content nor calls": {`{"messages":[{"role":"user"}]}`, "Expected 'content' or 'tool_calls'"},
		"content of a number":       {`{"messages":[{"role":"user","content":3}]}`, "Invalid 'content' type"},
		"two choices":               {`{"n":2,"messages":[{"role":"user","content":"hi"}]}`, "Only one completion choice"},
	} {
		res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != 400 || e.Error.Code != 400 || !strings.Contains(e.Error.Message, tt.msg) {
			t.Errorf("%s: %d %+v", name, res.StatusCode, e)
		}
	}
}
