package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// MessagesServer is a strict scripted Messages API server (Anthropic's):
// RejectMessages' rules, x-api-key (or a Bearer token) when a key is set,
// anthropic-version required, 404 not_found_error for a model it does not
// serve, GET /v1/models. A forced tool call (tool_choice {"type":"tool"})
// is how structured output is asked for: the script sees it as
// Request.Format and its Text becomes that call's input.
type MessagesServer struct {
	Opts  Options
	calls atomic.Int64
}

// AnthropicError is the Messages API's error body.
func AnthropicError(status int, msg string) string {
	typ := "invalid_request_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	return string(b)
}

type messagesWire struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
	Temperature *float64 `json:"temperature"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ParseMessages reads a Messages API request into the neutral form.
func ParseMessages(body []byte) (*Request, error) {
	var w messagesWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	r := &Request{Model: w.Model, MaxTokens: w.MaxTokens, Temperature: w.Temperature}
	if sys := contentText(w.System); sys != "" {
		r.Messages = append(r.Messages, Message{Role: "system", Content: sys})
	}
	for _, t := range w.Tools {
		if w.ToolChoice != nil && w.ToolChoice.Type == "tool" && w.ToolChoice.Name == t.Name {
			r.Format = &Format{Name: t.Name, Schema: t.InputSchema}
			continue
		}
		r.Tools = append(r.Tools, Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	for _, m := range w.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			r.Messages = append(r.Messages, Message{Role: m.Role, Content: s})
			continue
		}
		var blocks []block
		_ = json.Unmarshal(m.Content, &blocks)
		msg := Message{Role: m.Role}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Content += b.Text
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, Call{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				r.Messages = append(r.Messages, Message{Role: "tool", ToolCallID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError})
			}
		}
		if msg.Content != "" || len(msg.ToolCalls) > 0 {
			r.Messages = append(r.Messages, msg)
		}
	}
	return r, nil
}

func (s *MessagesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, AnthropicError(status, msg))
	}
	if k := s.Opts.Key; k != "" && r.Header.Get("x-api-key") != k && r.Header.Get("Authorization") != "Bearer "+k {
		fail(http.StatusUnauthorized, "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		fail(http.StatusBadRequest, "anthropic-version: header is required")
		return
	}
	models := s.Opts.Models
	if len(models) == 0 {
		models = []string{"m"}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		var data []any
		for _, id := range models {
			data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
		}
		writeJSON(w, map[string]any{"data": data, "has_more": false, "first_id": models[0], "last_id": models[len(models)-1]})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		fail(http.StatusNotFound, "Not Found")
		return
	}
	if msg := RejectMessages(body); msg != "" {
		fail(http.StatusBadRequest, msg)
		return
	}
	req, err := ParseMessages(body)
	if err != nil {
		fail(http.StatusBadRequest, "There was an error parsing the body of your request.")
		return
	}
	if !served(models, req.Model) {
		fail(http.StatusNotFound, "model: "+req.Model)
		return
	}
	reply := Reply{Text: "ok"}
	if s.Opts.Reply != nil {
		reply = s.Opts.Reply(*req)
	}
	var content []any
	stop := "end_turn"
	if req.Format != nil {
		input := json.RawMessage(reply.Text)
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": s.id(), "name": req.Format.Name, "input": input})
		stop = "tool_use"
	} else {
		if reply.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": reply.Text})
		}
		for _, c := range reply.Calls {
			content = append(content, map[string]any{"type": "tool_use", "id": s.id(), "name": c.Name, "input": json.RawMessage(c.Args)})
			stop = "tool_use"
		}
	}
	if content == nil {
		content = []any{}
	}
	out := map[string]any{"id": fmt.Sprintf("msg_%024d", s.calls.Load()), "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil}
	if !reply.NoUsage {
		in, o := usageOf(reply)
		out["usage"] = map[string]any{"input_tokens": in, "output_tokens": o}
	}
	writeJSON(w, out)
}

func (s *MessagesServer) id() string { return fmt.Sprintf("toolu_%024d", s.calls.Add(1)) }
