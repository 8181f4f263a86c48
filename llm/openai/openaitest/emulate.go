package openaitest

import (
	"net/http"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is OpenAI's Chat Completions API as the tests need it: the rules
// the API enforces with a 400 (llmtest.RejectChat: tool-name pattern,
// tool messages that answer no call), 401 without the key, 404
// model_not_found for a model it does not serve, ids "call_…", usage on
// every answer, and GET /v1/models; beside it, the Batch API (batchServer).
func Emulate(o llmtest.Options) http.Handler {
	return &batchServer{o: o, chat: chat(o), files: map[string]*file{}, batches: map[string]*batch{}}
}

func chat(o llmtest.Options) http.Handler {
	return &llmtest.ChatServer{
		Opts:   o,
		Prefix: "/v1",
		Reject: func(raw []byte, _ *llmtest.ChatRequest) (int, string) {
			if msg := llmtest.RejectChat(raw); msg != "" {
				return http.StatusBadRequest, msg
			}
			return 0, ""
		},
	}
}
