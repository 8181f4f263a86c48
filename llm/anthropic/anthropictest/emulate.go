package anthropictest

import (
	"net/http"

	"github.com/mcp-eval/mcp-eval/llm/llmtest"
)

// Emulate is Anthropic's Messages API as the tests need it
// (llmtest.MessagesServer: RejectMessages' rules, x-api-key, 404
// not_found_error, ids toolu_…, GET /v1/models).
func Emulate(o llmtest.Options) http.Handler { return &llmtest.MessagesServer{Opts: o} }
