package ollamatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is Ollama's native API as server/routes.go serves it, strict
// where Ollama is:
//
//   - POST /api/chat decodes the body into api.ChatRequest: a tool
//     call's arguments that are not an object, a tool's parameters whose
//     type is not a string, or a property schema that is not an object
//     (true) is a 400 with the decoder's message;
//   - a model that is not pulled is a 404 "model 'x' not found" (a name
//     without a tag is its :latest);
//   - without "stream": false the answer is an NDJSON stream;
//   - tool calls come back with object arguments, ids "call_" and 8
//     letters (none with the quirk "no-ids": versions before ids), and
//     done_reason "stop" as for text; tool_choice is ignored, as Ollama
//     ignores unknown fields;
//   - prompt_eval_count and eval_count are omitted when zero;
//   - the quirk "no-tools" makes every model one without tool support:
//     a request with tools is a 400 "… does not support tools";
//   - GET /api/tags lists the models.
func Emulate(o llmtest.Options) http.Handler {
	return &server{o: o}
}

type server struct {
	o     llmtest.Options
	calls atomic.Int64
}

// wireRequest is the body as Ollama decodes it: arguments, parameters and
// properties in the types api.ChatRequest gives them, so that what its
// decoder refuses, this one refuses.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolName   string `json:"tool_name"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Parameters  struct {
				Type       string                     `json:"type"`
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Format  json.RawMessage `json:"format"`
	Stream  *bool           `json:"stream"`
	Options struct {
		Temperature *float64 `json:"temperature"`
		NumPredict  int      `json:"num_predict"`
	} `json:"options"`
}

// property is api.ToolProperty's shape: a property schema must be an
// object whose type is a string or a list of strings.
type property struct {
	Type       json.RawMessage            `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
}

func (s *server) models() []string {
	if len(s.o.Models) == 0 {
		return []string{"m"}
	}
	return s.o.Models
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]string{"error": msg})
		w.Write(b)
	}
	if s.o.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.o.Key {
		fail(http.StatusUnauthorized, "unauthorized")
		return
	}
	switch {
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/api/tags":
		var ms []any
		for _, m := range s.models() {
			name := withTag(m)
			ms = append(ms, map[string]any{"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": 4683087332,
				"digest": fmt.Sprintf("%064x", len(name)), "details": map[string]any{"format": "gguf", "family": "qwen2"}})
		}
		llmtest.WriteJSON(w, map[string]any{"models": ms})
		return
	case r.Method == http.MethodGet && r.URL.Path == "/api/version":
		llmtest.WriteJSON(w, map[string]string{"version": "0.32.15"})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/api/chat":
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if len(bytes.TrimSpace(body)) == 0 {
		fail(http.StatusBadRequest, "missing request body")
		return
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(http.StatusBadRequest, err.Error())
		return
	}
	for _, t := range req.Tools {
		for name, raw := range t.Function.Parameters.Properties {
			var p property
			if err := json.Unmarshal(raw, &p); err != nil {
				fail(http.StatusBadRequest, fmt.Sprintf("json: cannot unmarshal %s into Go value of type api.ToolProperty (property %q)", kind(raw), name))
				return
			}
			var one string
			var many []string
			if len(p.Type) > 0 && json.Unmarshal(p.Type, &one) != nil && json.Unmarshal(p.Type, &many) != nil {
				fail(http.StatusBadRequest, "json: cannot unmarshal "+kind(p.Type)+" into Go value of type api.PropertyType")
				return
			}
		}
	}
	if req.Model == "" {
		fail(http.StatusBadRequest, "model is required")
		return
	}
	if !servedModel(s.models(), req.Model) {
		fail(http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if len(req.Tools) > 0 && s.o.Quirks["no-tools"] {
		fail(http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model))
		return
	}
	reply := llmtest.Reply{Text: "ok"}
	if s.o.Reply != nil {
		reply = s.o.Reply(neutral(&req))
	}
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	var calls []any
	for i, c := range reply.Calls {
		fn := map[string]any{"index": i, "name": c.Name, "arguments": json.RawMessage(c.Args)}
		call := map[string]any{"function": fn}
		if !s.o.Quirks["no-ids"] {
			call["id"] = fmt.Sprintf("call_%08d", s.calls.Add(1)%100000000)
		}
		calls = append(calls, call)
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	final := map[string]any{"model": req.Model, "created_at": "2026-01-01T00:00:00Z", "message": msg, "done": true, "done_reason": "stop",
		"total_duration": 1000000}
	if !reply.NoUsage {
		in, out := reply.InputTokens, reply.OutputTokens
		if in == 0 && out == 0 {
			in, out = 10, 5
		}
		if in > 0 {
			final["prompt_eval_count"] = in
		}
		if out > 0 {
			final["eval_count"] = out
		}
	}
	if req.Stream == nil || *req.Stream {
		// The default: a stream of NDJSON chunks, the last one done.
		w.Header().Set("Content-Type", "application/x-ndjson")
		first, _ := json.Marshal(map[string]any{"model": req.Model, "created_at": "2026-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": reply.Text}, "done": false})
		last, _ := json.Marshal(final)
		w.Write(append(append(first, '\n'), append(last, '\n')...))
		return
	}
	llmtest.WriteJSON(w, final)
}

// neutral is the request as the script sees it.
func neutral(req *wireRequest) llmtest.Request {
	n := llmtest.Request{Model: req.Model, MaxTokens: req.Options.NumPredict, Temperature: req.Options.Temperature}
	if len(req.Format) > 0 {
		n.Format = &llmtest.Format{Name: "format", Schema: req.Format}
	}
	for _, t := range req.Tools {
		params, _ := json.Marshal(t.Function.Parameters)
		n.Tools = append(n.Tools, llmtest.Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: params})
	}
	for _, m := range req.Messages {
		msg := llmtest.Message{Role: m.Role, Content: m.Content, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			args, _ := json.Marshal(tc.Function.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, llmtest.Call{ID: tc.ID, Name: tc.Function.Name, Args: args})
		}
		n.Messages = append(n.Messages, msg)
	}
	return n
}

func servedModel(models []string, m string) bool {
	for _, x := range models {
		if sameModel(m, x) {
			return true
		}
	}
	return false
}

// kind names a JSON value's type as Go's decoder does in its messages.
func kind(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "true" || t == "false":
		return "bool"
	case strings.HasPrefix(t, `"`):
		return "string"
	case strings.HasPrefix(t, "["):
		return "array"
	case t == "null":
		return "null"
	}
	return "number"
}

// sameModel and withTag resolve names as Ollama does: a name without a
// tag is its ":latest" (the provider's own copy is not exported, and an
// emulation that shared it could not catch its mistakes).
func sameModel(want, have string) bool { return withTag(want) == withTag(have) }

func withTag(name string) string {
	if i := strings.LastIndex(name, "/"); strings.Contains(name[i+1:], ":") {
		return name
	}
	return name + ":latest"
}
