package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// ChatServer is a strict scripted Chat Completions server: the common part
// of the emulations of OpenAI, llama-server, vLLM, LM Studio and
// OpenRouter. Each provider's package fills in what its server does its
// own way (the knobs below) and the rules it enforces (Reject), so that a
// request the real server refuses is refused here, with its status and
// message.
type ChatServer struct {
	// Opts are the emulation's options: models, key, the script.
	Opts Options
	// Prefix is the path the API is served under ("/v1", "/api/v1").
	Prefix string
	// Reject returns the status and message of a request the server
	// refuses ("" when it takes it), after the body parsed as JSON.
	Reject func(raw []byte, req *ChatRequest) (status int, msg string)
	// ErrorBody is the server's error JSON for status and msg (default
	// OpenAI's {"error": {"message", "type", "param", "code"}}).
	ErrorBody func(status int, msg string) string
	// UnknownModel is the server's answer to a model it does not serve
	// (default OpenAI's 404 model_not_found).
	UnknownModel func(model string) (status int, msg string)
	// AnyModel: the server answers with its one model whatever a request
	// names (llama-server).
	AnyModel bool
	// CallID is the id of the n-th tool call the server answers (1-based,
	// counted over the server's life); default "call_" and 24 letters.
	CallID func(n int64) string
	// Finish is the finish_reason of an answer with calls tool calls
	// (default "tool_calls", else "stop").
	Finish func(req *ChatRequest, calls int) string
	// OneCallUnlessParallel answers only the first call of a reply with
	// several unless the request says parallel_tool_calls: true
	// (llama-server, whose parallel calls are off by default).
	OneCallUnlessParallel bool
	// Choice, when set, adds fields to the answer's choice
	// (OpenRouter's native_finish_reason).
	Choice func(choice map[string]any, finish string)
	// NoUsage leaves usage out of every answer (a server that sends none).
	NoUsage bool

	calls atomic.Int64
}

// ChatRequest is a Chat Completions request as the emulation read it: the
// neutral request the script sees, and the fields the rules look at.
type ChatRequest struct {
	Request
	Stream            *bool           `json:"-"`
	ParallelToolCalls *bool           `json:"-"`
	ToolChoice        json.RawMessage `json:"-"`
	ResponseFormat    json.RawMessage `json:"-"`
}

// chatWire is the request body, as sent.
type chatWire struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	Stream              *bool           `json:"stream"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ResponseFormat      json.RawMessage `json:"response_format"`
}

// ParseChat reads a Chat Completions request body.
func ParseChat(body []byte) (*ChatRequest, error) {
	var w chatWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	r := &ChatRequest{Stream: w.Stream, ParallelToolCalls: w.ParallelToolCalls, ToolChoice: w.ToolChoice, ResponseFormat: w.ResponseFormat}
	r.Model, r.Temperature = w.Model, w.Temperature
	r.MaxTokens = max(w.MaxTokens, w.MaxCompletionTokens)
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
	}
	if len(w.ResponseFormat) > 0 {
		var f struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		}
		if json.Unmarshal(w.ResponseFormat, &f) == nil && f.Type == "json_schema" {
			r.Format = &Format{Name: f.JSONSchema.Name, Schema: f.JSONSchema.Schema}
		}
	}
	for _, m := range w.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			call := Call{ID: tc.ID, Name: tc.Function.Name}
			var s string
			if json.Unmarshal(tc.Function.Arguments, &s) == nil {
				call.Args = json.RawMessage(s)
			} else {
				call.Args = tc.Function.Arguments
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		r.Messages = append(r.Messages, msg)
	}
	return r, nil
}

// contentText is a message's content as text: a string, or the text of
// its parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// OpenAIError is OpenAI's error body.
func OpenAIError(status int, msg string) string {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusUnauthorized:
		typ = "invalid_request_error"
	case status >= 500:
		typ = "server_error"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
	return string(b)
}

func (s *ChatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	errBody := s.ErrorBody
	if errBody == nil {
		errBody = OpenAIError
	}
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, errBody(status, msg))
	}
	if s.Opts.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Opts.Key {
		fail(http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	models := s.Opts.Models
	if len(models) == 0 {
		models = []string{"m"}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == s.Prefix+"/models":
		writeJSON(w, ModelList(models))
		return
	case r.Method != http.MethodPost || r.URL.Path != s.Prefix+"/chat/completions":
		http.NotFound(w, r)
		return
	}
	req, err := ParseChat(body)
	if err != nil {
		fail(http.StatusBadRequest, "We could not parse the JSON body of your request.")
		return
	}
	if s.Reject != nil {
		if status, msg := s.Reject(body, req); msg != "" {
			fail(status, msg)
			return
		}
	}
	model := req.Model
	if s.AnyModel {
		model = models[0]
	} else if !served(models, req.Model) {
		status, msg := http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)
		if s.UnknownModel != nil {
			status, msg = s.UnknownModel(req.Model)
		}
		fail(status, msg)
		return
	}
	reply := Reply{Text: "ok"}
	if s.Opts.Reply != nil {
		reply = s.Opts.Reply(req.Request)
	}
	calls := reply.Calls
	if s.OneCallUnlessParallel && len(calls) > 1 && (req.ParallelToolCalls == nil || !*req.ParallelToolCalls) {
		calls = calls[:1]
	}
	msg := map[string]any{"role": "assistant", "content": reply.Text}
	if len(calls) > 0 {
		var tcs []any
		for _, c := range calls {
			n := s.calls.Add(1)
			id := fmt.Sprintf("call_%024d", n)
			if s.CallID != nil {
				id = s.CallID(n)
			}
			tcs = append(tcs, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = tcs
		if reply.Text == "" {
			msg["content"] = nil
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if s.Finish != nil {
		finish = s.Finish(req, len(calls))
	}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": finish}
	if s.Choice != nil {
		s.Choice(choice, finish)
	}
	out := map[string]any{"id": fmt.Sprintf("chatcmpl-%d", s.calls.Load()), "object": "chat.completion", "created": 1767225600,
		"model": model, "choices": []any{choice}}
	if !reply.NoUsage && !s.NoUsage {
		in, o := usageOf(reply)
		out["usage"] = map[string]any{"prompt_tokens": in, "completion_tokens": o, "total_tokens": in + o}
	}
	writeJSON(w, out)
}

// ModelList is OpenAI's models list of ids.
func ModelList(ids []string) map[string]any {
	data := make([]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1767225600, "owned_by": "emulation"})
	}
	return map[string]any{"object": "list", "data": data}
}

// usageOf is the usage a reply reports: its own figures, or 10 in, 5 out.
func usageOf(r Reply) (in, out int64) {
	if r.InputTokens == 0 && r.OutputTokens == 0 {
		return 10, 5
	}
	return r.InputTokens, r.OutputTokens
}

func served(models []string, m string) bool {
	for _, x := range models {
		if x == m {
			return true
		}
	}
	return false
}

// writeJSON writes v as a 200 JSON answer.
func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// WriteJSON is writeJSON for the emulations outside this package.
func WriteJSON(w http.ResponseWriter, v any) { writeJSON(w, v) }
