// Package vllm is vLLM's OpenAI-compatible server (vllm serve).
//
// What vLLM does its own way (checked against vllm-project/vllm's
// entrypoints/openai serving and protocol code and its tool-calling docs):
//
//   - It listens on port 8000 and serves the model it was started with,
//     under its name or --served-model-name; another name is a 404
//     "The model `x` does not exist."
//   - Tool calls need the server started with --enable-auto-tool-choice
//     and --tool-call-parser: without them a request offering tools (whose
//     tool_choice is then "auto") is refused with 400 ""auto" tool choice
//     requires --enable-auto-tool-choice and --tool-call-parser to be set";
//     the probe offers a tool, so that stops the run once, with the flags
//     named.
//   - finish_reason is not to be trusted alone: it has been "tool_calls"
//     on answers with no call and is "stop" when a tool is forced; the
//     message's tool_calls decide (llm.Chat does).
//   - Tool-call ids are "chatcmpl-tool-" and hex, echoed back, never parsed.
//   - --api-key (VLLM_API_KEY) is optional, and then the same variable here.
package vllm

import (
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:       "vllm",
	Title:      "vLLM",
	Wire:       "Chat Completions",
	Example:    "vllm:Qwen/Qwen2.5-7B-Instruct",
	BaseURL:    "http://127.0.0.1:8000/v1",
	BaseURLEnv: "VLLM_BASE_URL",
	Keys:       []string{"VLLM_API_KEY"},
	Local:      true,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes: "Tools need the server started with --enable-auto-tool-choice --tool-call-parser (its 400 says so, and so does the probe); " +
		"finish_reason is judged by the message's tool_calls.",
	New: open,
}

func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	return llm.OpenChat(d, env, s, llm.ChatOptions{MaxTokens: "max_tokens", ProbeTools: true,
		MissingModel: func(string) string {
			return "vLLM serves the model it was started with (vllm serve MODEL), named as --served-model-name says"
		}}, explain, nil)
}

// explain reads vLLM's errors.
func explain(e *llm.APIError) (string, bool) {
	switch {
	case strings.Contains(e.Message, "--enable-auto-tool-choice"):
		return "restart vLLM with --enable-auto-tool-choice --tool-call-parser PARSER, the parser for the model's family " +
			"(hermes for Qwen2.5, llama3_json for Llama 3.1; vLLM's tool calling docs list them)", true
	case e.StatusCode == http.StatusNotFound && strings.Contains(e.Message, "does not exist"):
		return "name the model as vLLM serves it (GET /v1/models lists it; --served-model-name sets it)", true
	}
	return "", false
}
