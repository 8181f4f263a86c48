package anthropictest

import (
	"net/http"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is Anthropic's Messages API as the tests need it
// (llmtest.MessagesServer: RejectMessages' rules, x-api-key, 404
// not_found_error, ids toolu_…, GET /v1/models), and beside it the Message
// Batches API (batchServer).
func Emulate(o llmtest.Options) http.Handler {
	return &batchServer{o: o, messages: &llmtest.MessagesServer{Opts: o}, batches: map[string]*msgBatch{}}
}
