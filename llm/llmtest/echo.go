package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Echo is a fake model endpoint that speaks both wire formats (Chat
// Completions at …/chat/completions, Messages at …/messages) and repeats
// things back, as a provider or a gateway does that quotes the request
// in its answer: its final answer holds Texts and the credential headers
// it was sent (Authorization, x-api-key, api-key). It refuses what the
// real APIs refuse (Reject). The first turn of a conversation calls Tool
// with Args when Tool is set, so that the server's tool result is in the
// transcript too; the turn after a tool result answers in text.
//
// GET …/models lists Models (default "echo") in the format of the API the
// path names, as the real ones do, so that mcp-eval's probe before the
// cases finds the model.
type Echo struct {
	Texts  []string
	Tool   string
	Args   string // JSON object
	Models []string
}

func (e *Echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		models := e.Models
		if len(models) == 0 {
			models = []string{"echo"}
		}
		if strings.HasPrefix(r.URL.Path, "/v1/") && r.Header.Get("Anthropic-Version") != "" {
			var data []any
			for _, id := range models {
				data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
			}
			writeJSON(w, map[string]any{"data": data, "has_more": false, "first_id": models[0], "last_id": models[len(models)-1]})
			return
		}
		writeJSON(w, ModelList(models))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if msg := Reject(r.URL.Path, body); msg != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": msg}})
		w.Write(b)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req) // Reject took it: it is JSON
	afterTool := false
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1]
		afterTool = last.Role == "tool" || strings.Contains(string(last.Content), `"tool_result"`)
	}
	text := "Echo:"
	for _, t := range e.Texts {
		text += " " + t
	}
	for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			text += fmt.Sprintf(" (%s: %s)", h, v)
		}
	}
	call := e.Tool != "" && !afterTool
	w.Header().Set("Content-Type", "application/json")
	var out any
	if strings.HasSuffix(r.URL.Path, "/messages") {
		content := []any{map[string]any{"type": "text", "text": text}}
		stop := "end_turn"
		if call {
			content = append(content, map[string]any{"type": "tool_use", "id": "toolu_1", "name": e.Tool, "input": json.RawMessage(e.Args)})
			stop = "tool_use"
		}
		out = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model, "content": content,
			"stop_reason": stop, "usage": map[string]any{"input_tokens": 50, "output_tokens": 10}}
	} else {
		msg := map[string]any{"role": "assistant", "content": text}
		finish := "stop"
		if call {
			msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": e.Tool, "arguments": e.Args}}}
			finish = "tool_calls"
		}
		out = map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}
	}
	b, _ := json.Marshal(out)
	w.Write(b)
}
