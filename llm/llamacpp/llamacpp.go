// Package llamacpp is llama.cpp's llama-server: its OpenAI-compatible
// Chat Completions endpoint.
//
// What llama-server does its own way (checked against ggml-org/llama.cpp
// tools/server/README.md, tools/server/utils.hpp and common/chat.cpp):
//
//   - It listens on 127.0.0.1:8080 and serves the one model it was started
//     with, whatever a request names (GET /v1/models lists that one).
//   - Tool calls need its Jinja chat templates (--jinja; on by default in
//     recent builds): without them a request with tools is answered
//     500 "tools param requires --jinja flag", which is final, not a
//     server error worth retrying.
//   - Parallel tool calls are off unless a request says
//     parallel_tool_calls: true; it is said, so a model is asked as
//     OpenAI asks it.
//   - A tool call in the history needs "type": "function", and every
//     message content or tool_calls.
//   - The token limit is max_tokens; --api-key (LLAMA_API_KEY) is
//     optional, and then the same variable here.
package llamacpp

import (
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:       "llamacpp",
	Title:      "llama.cpp llama-server",
	Wire:       "Chat Completions",
	Example:    "llamacpp:qwen2.5-7b-instruct",
	BaseURL:    "http://127.0.0.1:8080/v1",
	BaseURLEnv: "LLAMACPP_BASE_URL",
	Keys:       []string{"LLAMA_API_KEY"},
	Local:      true,
	OneModel:   true,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes: "One model per server (any name is answered by it); tools need --jinja; " +
		"parallel_tool_calls: true is sent, since llama-server turns parallel calls off by default.",
	New: open,
}

func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	return llm.OpenChat(d, env, s, llm.ChatOptions{MaxTokens: "max_tokens", ParallelToolCalls: true, AnyModel: d.OneModel, ProbeTools: true}, explain, nil)
}

// explain reads llama-server's errors.
func explain(e *llm.APIError) (string, bool) {
	if strings.Contains(e.Message, "--jinja") {
		return "start llama-server with --jinja: it takes tools only with its Jinja chat templates", true
	}
	return "", false
}
