package vllmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is vLLM's OpenAI-compatible server: 404 "The model `x` does not
// exist." for another model, errors {"error": {"message", "type", "param",
// "code"}} with vLLM's error types, tool-call ids "chatcmpl-tool-" and hex.
// Quirks:
//
//   - "no-auto-tool-choice": a server started without
//     --enable-auto-tool-choice: a request offering tools with tool_choice
//     absent or "auto" is the 400 vLLM answers;
//   - "tool-calls-without-calls": answers without a call still say
//     finish_reason "tool_calls", as vLLM has;
//   - a forced tool (tool_choice naming a function) answers "stop", as
//     vLLM does.
func Emulate(o llmtest.Options) http.Handler {
	return &llmtest.ChatServer{
		Opts:      o,
		Prefix:    "/v1",
		CallID:    func(n int64) string { return fmt.Sprintf("chatcmpl-tool-%032x", n) },
		ErrorBody: errorBody,
		UnknownModel: func(model string) (int, string) {
			return http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", model)
		},
		Reject: func(raw []byte, req *llmtest.ChatRequest) (int, string) {
			auto := len(req.ToolChoice) == 0 || string(req.ToolChoice) == "null" || string(req.ToolChoice) == `"auto"`
			if o.Quirks["no-auto-tool-choice"] && len(req.Tools) > 0 && auto {
				return http.StatusBadRequest, `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`
			}
			return 0, ""
		},
		Finish: func(req *llmtest.ChatRequest, calls int) string {
			forced := strings.HasPrefix(strings.TrimSpace(string(req.ToolChoice)), "{")
			switch {
			case calls > 0 && forced:
				return "stop"
			case calls > 0, o.Quirks["tool-calls-without-calls"]:
				return "tool_calls"
			}
			return "stop"
		},
	}
}

// errorBody is vLLM's ErrorResponse.
func errorBody(status int, msg string) string {
	typ := "BadRequestError"
	switch {
	case status == http.StatusUnauthorized:
		typ = "Unauthorized"
	case status == http.StatusNotFound:
		typ = "NotFoundError"
	case status >= 500:
		typ = "InternalServerError"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": status}})
	return string(b)
}
