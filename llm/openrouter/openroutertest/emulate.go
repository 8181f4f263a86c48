package openroutertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is OpenRouter's Chat Completions API: the key required (401
// "No auth credentials found"), errors {"error": {"code", "message"}},
// finish_reason normalised with the upstream's native_finish_reason beside
// it, tool-call ids as the upstream makes them (toolu_… for anthropic/
// models, call_… otherwise), and GET /api/v1/models. Quirks:
//
//   - "no-tool-endpoints": a request with tools is the 404 OpenRouter
//     answers for a model without a tool-capable provider;
//   - "upstream-502-once": the first request gets the upstream's failure
//     as a 200 with an error object, as OpenRouter reports it;
//   - "stream": answers are event streams with ": OPENROUTER PROCESSING"
//     keep-alive comments, as a proxy that streams regardless would give.
func Emulate(o llmtest.Options) http.Handler {
	cs := &llmtest.ChatServer{
		Opts:      o,
		Prefix:    "/api/v1",
		ErrorBody: errorBody,
		UnknownModel: func(model string) (int, string) {
			return http.StatusBadRequest, model + " is not a valid model ID"
		},
		Reject: func(raw []byte, req *llmtest.ChatRequest) (int, string) {
			if o.Quirks["no-tool-endpoints"] && len(req.Tools) > 0 {
				return http.StatusNotFound, "No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing"
			}
			return 0, ""
		},
		Choice: func(choice map[string]any, finish string) {
			native := finish
			if m, ok := choice["message"].(map[string]any); ok && anthropicCalls(m) {
				native = map[string]string{"tool_calls": "tool_use", "stop": "end_turn"}[finish]
			}
			choice["native_finish_reason"] = native
		},
	}
	cs.CallID = func(n int64) string { return fmt.Sprintf("call_%024d", n) }
	var failed atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && o.Quirks["upstream-502-once"] && !failed.Swap(true) {
			llmtest.WriteJSON(w, map[string]any{"error": map[string]any{"code": 502, "message": "Provider returned error", "metadata": map[string]any{"provider_name": "Upstream"}}, "user_id": "user_1"})
			return
		}
		if r.Method == http.MethodPost && o.Quirks["stream"] {
			rec := &recorder{h: http.Header{}}
			cs.ServeHTTP(rec, r)
			streamed(w, rec)
			return
		}
		cs.ServeHTTP(w, r)
	})
}

// anthropicCalls reports whether a message's calls would come from an
// anthropic/ model (their ids are the upstream's toolu_…).
func anthropicCalls(m map[string]any) bool {
	calls, _ := m["tool_calls"].([]any)
	for _, c := range calls {
		if cm, ok := c.(map[string]any); ok {
			if id, _ := cm["id"].(string); strings.HasPrefix(id, "toolu_") {
				return true
			}
		}
	}
	return false
}

// errorBody is OpenRouter's error shape.
func errorBody(status int, msg string) string {
	if status == http.StatusUnauthorized {
		msg = "No auth credentials found"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg}})
	return string(b)
}

// recorder keeps a handler's answer, to be sent as a stream.
type recorder struct {
	h      http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) WriteHeader(s int)           { r.status = s }
func (r *recorder) Write(b []byte) (int, error) { r.body = append(r.body, b...); return len(b), nil }

// streamed sends a chat.completion as OpenRouter streams one: keep-alive
// comments, one chunk per part, native_finish_reason, usage in the last
// chunk, [DONE].
func streamed(w http.ResponseWriter, rec *recorder) {
	if rec.status != 0 && rec.status != http.StatusOK {
		w.WriteHeader(rec.status)
		w.Write(rec.body)
		return
	}
	var c struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Usage   json.RawMessage `json:"usage"`
		Choices []struct {
			Message struct {
				Content   *string           `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
			Native       string `json:"native_finish_reason"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(rec.body, &c)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n")
	chunk := func(delta map[string]any, finish, native any, usage json.RawMessage) {
		m := map[string]any{"id": c.ID, "object": "chat.completion.chunk", "model": c.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "native_finish_reason": native}}}
		if usage != nil {
			m["usage"] = usage
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		if ch.Message.Content != nil && *ch.Message.Content != "" {
			text := *ch.Message.Content
			half := len(text) / 2
			chunk(map[string]any{"role": "assistant", "content": text[:half]}, nil, nil, nil)
			fmt.Fprint(w, ": OPENROUTER PROCESSING\n\n")
			chunk(map[string]any{"content": text[half:]}, nil, nil, nil)
		}
		for i, tc := range ch.Message.ToolCalls {
			var t map[string]any
			_ = json.Unmarshal(tc, &t)
			t["index"] = i
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{t}}, nil, nil, nil)
		}
		chunk(map[string]any{}, ch.FinishReason, ch.Native, c.Usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
