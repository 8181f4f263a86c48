// Package openrouter is OpenRouter: one key for many vendors' models,
// over Chat Completions at openrouter.ai/api/v1.
//
// What OpenRouter does its own way (from its API reference):
//
//   - Models are "vendor/model", with suffixes such as ":free" for its
//     free variants; a model is priced as its vendor's (openai/gpt-4.1-mini
//     as openai:gpt-4.1-mini in the price table) and a :free one costs
//     nothing.
//   - finish_reason is normalised to OpenAI's values; native_finish_reason
//     keeps the upstream's, read when the normalised one is missing.
//   - An upstream failure comes back as a 200 with an error object (and,
//     mid-answer, finish_reason "error" with the choice's error): retried
//     when its status would be.
//   - In event streams it sends ": OPENROUTER PROCESSING" comments to keep
//     the connection open; mcp-eval never asks for a stream, and an
//     event-stream answer is assembled with comments skipped
//     (llm.assembleStream).
//   - A model with no provider that supports tools is a 404 "No endpoints
//     found that support tool use".
//   - OPENROUTER_API_KEY is required.
package openrouter

import (
	"net/http"
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:        "openrouter",
	Title:       "OpenRouter",
	Wire:        "Chat Completions",
	Example:     "openrouter:meta-llama/llama-3.3-70b-instruct:free",
	BaseURL:     "https://openrouter.ai/api/v1",
	BaseURLEnv:  "OPENROUTER_BASE_URL",
	Keys:        []string{"OPENROUTER_API_KEY"},
	KeyRequired: true,
	PriceKey:    priceKey,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes:   "vendor/model names, :free models cost nothing, others are priced as their vendor's; native_finish_reason; errors inside a 200.",
	New:     open,
}

func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	h := http.Header{}
	// OpenRouter's optional attribution header names the app.
	h.Set("X-Title", "mcp-eval")
	return llm.OpenChat(d, env, s, llm.ChatOptions{MaxTokens: "max_tokens"}, explain, h)
}

// priceKey prices vendor/model as vendor:model (Anthropic's ids with dots,
// claude-sonnet-4.5, as claude-sonnet-4-5); a :free model is free.
func priceKey(model string) (string, bool) {
	if strings.HasSuffix(model, ":free") {
		return "", true
	}
	vendor, m, ok := strings.Cut(model, "/")
	if !ok {
		return "", false
	}
	m, _, _ = strings.Cut(m, ":")
	if vendor == "anthropic" {
		m = strings.ReplaceAll(m, ".", "-")
	}
	return vendor + ":" + m, false
}

func explain(e *llm.APIError) (string, bool) {
	switch {
	case strings.Contains(e.Message, "No endpoints found that support tool use"):
		return "no provider of this model on OpenRouter takes tools; pick a model with tool support (openrouter.ai/models?supported_parameters=tools)", true
	case e.StatusCode == http.StatusPaymentRequired:
		return "the OpenRouter account has no credits left for this model", true
	}
	return "", false
}
