package lmstudiotest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is LM Studio's OpenAI-compatible server as its docs and bug
// reports describe it: content null refused (400), response_format
// json_object refused, numeric tool-call ids, usage on non-streamed
// answers. The quirk "no-usage" leaves usage out (what a stream would
// give), so that a cost is shown unknown rather than $0.
func Emulate(o llmtest.Options) http.Handler {
	return &llmtest.ChatServer{
		Opts:    o,
		Prefix:  "/v1",
		NoUsage: o.Quirks["no-usage"],
		CallID:  func(n int64) string { return fmt.Sprintf("%d", 365174485+n) },
		UnknownModel: func(model string) (int, string) {
			return http.StatusNotFound, fmt.Sprintf("Model not found: %q. Use lms ls to see the models you have.", model)
		},
		Reject: func(raw []byte, _ *llmtest.ChatRequest) (int, string) {
			var w struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
				ResponseFormat *struct {
					Type string `json:"type"`
				} `json:"response_format"`
			}
			_ = json.Unmarshal(raw, &w)
			for i, m := range w.Messages {
				if string(m.Content) == "null" || m.Content == nil {
					return http.StatusBadRequest, fmt.Sprintf("Invalid 'messages[%d].content': expected a string or an array of content parts, got null", i)
				}
			}
			if f := w.ResponseFormat; f != nil && f.Type == "json_object" {
				return http.StatusBadRequest, "'response_format.type' must be 'json_schema' or 'text'"
			}
			return 0, ""
		},
	}
}
