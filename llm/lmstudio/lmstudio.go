// Package lmstudio is LM Studio's local server (the Developer tab, or
// lms server start): its OpenAI-compatible Chat Completions endpoint.
//
// What LM Studio does its own way (from its OpenAI-compatibility docs at
// lmstudio.ai/docs; it is not open source, so the emulation keeps to what
// they and reported bugs say):
//
//   - It listens on port 1234; models are named by their LM Studio
//     identifier and loaded on first use.
//   - A message's content must be a string, never null (the empty string
//     for a turn that only calls tools, as llm.Chat sends it).
//   - Structured output takes response_format json_schema, not json_object.
//   - Tool-call ids are strings of digits, echoed back, never parsed.
//   - A streamed answer carries no usage at all (stream_options is not
//     honoured): mcp-eval never asks for a stream, and an answer without
//     usage has an unknown cost, never $0.
//   - No key unless one is configured in LM Studio (LMSTUDIO_API_KEY here).
package lmstudio

import (
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:       "lmstudio",
	Title:      "LM Studio",
	Wire:       "Chat Completions",
	Example:    "lmstudio:qwen2.5-7b-instruct",
	BaseURL:    "http://127.0.0.1:1234/v1",
	BaseURLEnv: "LMSTUDIO_BASE_URL",
	Keys:       []string{"LMSTUDIO_API_KEY"},
	Local:      true,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes:   "Content is never null; structured output is json_schema only; ids are digits; a stream has no usage (mcp-eval never streams).",
	New:     open,
}

func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	return llm.OpenChat(d, env, s, llm.ChatOptions{MaxTokens: "max_tokens",
		MissingModel: func(m string) string { return "download or load it in LM Studio (lms get " + m + ")" }}, explain, nil)
}

func explain(e *llm.APIError) (string, bool) {
	if e.StatusCode == http.StatusNotFound || strings.Contains(strings.ToLower(e.Message), "model not found") {
		return "name a model LM Studio has (lms ls lists them)", true
	}
	return "", false
}
