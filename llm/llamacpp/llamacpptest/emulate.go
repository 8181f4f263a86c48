package llamacpptest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is llama-server's Chat Completions endpoint: one model whatever
// a request names, parallel calls off unless asked, tool-call ids of 32
// letters and digits, errors {"error": {"code", "message", "type"}}, and
// the checks of its request parser (a tool call without "type", a message
// with neither content nor tool_calls, n ≠ 1, an unknown response_format
// type). The quirk "no-jinja" is a server started without --jinja: tools
// are a 500 "tools param requires --jinja flag", tool_choice a 400.
func Emulate(o llmtest.Options) http.Handler {
	return &llmtest.ChatServer{
		Opts:                  o,
		Prefix:                "/v1",
		AnyModel:              true,
		OneCallUnlessParallel: true,
		CallID:                func(n int64) string { return fmt.Sprintf("%032d", n) },
		ErrorBody:             errorBody,
		Reject: func(raw []byte, req *llmtest.ChatRequest) (int, string) {
			return reject(raw, req, o.Quirks["no-jinja"])
		},
	}
}

// errorBody is llama-server's format_error_response.
func errorBody(status int, msg string) string {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusUnauthorized:
		typ = "authentication_error"
	case status == http.StatusNotFound:
		typ = "not_found_error"
	case status >= 500:
		typ = "server_error"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
	return string(b)
}

func reject(raw []byte, req *llmtest.ChatRequest, noJinja bool) (int, string) {
	var w struct {
		N        *int `json:"n"`
		Messages []struct {
			Content   json.RawMessage   `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	if noJinja && len(req.Tools) > 0 {
		return http.StatusInternalServerError, "tools param requires --jinja flag"
	}
	if noJinja && len(req.ToolChoice) > 0 && string(req.ToolChoice) != "null" {
		return http.StatusBadRequest, "Unsupported param: tool_choice"
	}
	if w.N != nil && *w.N != 1 {
		return http.StatusBadRequest, "Only one completion choice is allowed"
	}
	if f := w.ResponseFormat; f != nil && f.Type != "" && f.Type != "text" && f.Type != "json_object" && f.Type != "json_schema" {
		return http.StatusBadRequest, `response_format type must be one of "text" or "json_object", but got: ` + f.Type
	}
	for _, m := range w.Messages {
		if m.Content == nil && m.ToolCalls == nil {
			return http.StatusBadRequest, "Failed to parse messages: Expected 'content' or 'tool_calls' (ref: https://github.com/ggml-org/llama.cpp/issues/8367 & https://github.com/ggml-org/llama.cpp/issues/12279)"
		}
		switch t := string(m.Content); {
		case len(m.Content) == 0, t == "null", t[0] == '"', t[0] == '[':
		default:
			return http.StatusBadRequest, "Failed to parse messages: Invalid 'content' type: expected string or array, got " + t
		}
		for _, tc := range m.ToolCalls {
			var c struct {
				Type     *string `json:"type"`
				Function *struct {
					Name *string `json:"name"`
				} `json:"function"`
			}
			_ = json.Unmarshal(tc, &c)
			switch {
			case c.Type == nil:
				return http.StatusBadRequest, "Failed to parse messages: Missing tool call type: " + string(tc)
			case *c.Type != "function":
				return http.StatusBadRequest, "Failed to parse messages: Unsupported tool call type: " + string(tc)
			case c.Function == nil:
				return http.StatusBadRequest, "Failed to parse messages: Missing tool call function: " + string(tc)
			case c.Function.Name == nil:
				return http.StatusBadRequest, "Failed to parse messages: Missing tool call name: " + string(tc)
			}
		}
	}
	return 0, ""
}
