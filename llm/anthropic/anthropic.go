// Package anthropic is the Anthropic provider: the Messages API at
// api.anthropic.com or a gateway named by ANTHROPIC_BASE_URL.
package anthropic

import (
	"net/http"
	"net/url"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:    "anthropic",
	Title:   "Anthropic",
	Wire:    "Messages",
	Example: "anthropic:claude-sonnet-4-5",
	// Unlike OpenAI's, the base URL has no version prefix: /v1/messages
	// is added to ANTHROPIC_BASE_URL (anthropic-sdk-python
	// src/anthropic/_client.py).
	BaseURL:    "https://api.anthropic.com",
	BaseURLEnv: "ANTHROPIC_BASE_URL",
	// ANTHROPIC_AUTH_TOKEN goes out as a Bearer token, as in the SDKs,
	// for gateways.
	Keys:        []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"},
	KeyRequired: true,
	Prices:      prices,
	// Anthropic bills cache reads at 0.1× and 5-minute cache writes at
	// 1.25× the input price (its pricing page, "5m Cache Writes").
	CachedRate:     0.1,
	CacheWriteRate: 1.25,
	// The Messages API has no seed parameter (its reference lists none), so a
	// seed would be dropped: Unaccepted names it and the run warns.
	Batch:   true,
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat},
	Notes:   "max_tokens is required (1024 unless --model-max-tokens); structured output is a forced tool call.",
	New:     open,
}

// prices are Anthropic's list prices (USD per 1M tokens: input, cache
// hits, output) as checked on telemetry.BuiltinDate.
var prices = map[string][3]float64{
	"claude-opus-4-5":   {5, 0.50, 25},
	"claude-opus-4-1":   {15, 1.50, 75},
	"claude-opus-4-0":   {15, 1.50, 75},
	"claude-opus-4":     {15, 1.50, 75},
	"claude-sonnet-4-6": {3, 0.30, 15},
	"claude-sonnet-4-5": {3, 0.30, 15},
	"claude-sonnet-4-0": {3, 0.30, 15},
	"claude-sonnet-4":   {3, 0.30, 15},
	"claude-3-7-sonnet": {3, 0.30, 15},
	"claude-haiku-4-5":  {1, 0.10, 5},
	"claude-3-5-haiku":  {0.80, 0.08, 4},
	"claude-3-haiku":    {0.25, 0.03, 1.25},
}

// open reads ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and
// ANTHROPIC_BASE_URL. A key or token is required at api.anthropic.com
// only.
func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	base, custom, err := d.Base(env)
	if err != nil {
		return nil, err
	}
	key, token := env("ANTHROPIC_API_KEY"), env("ANTHROPIC_AUTH_TOKEN")
	if key == "" && token == "" && !custom {
		return nil, &llm.EnvError{Var: "ANTHROPIC_API_KEY", Reason: "is not set (needed for anthropic models)"}
	}
	h := http.Header{}
	if key != "" {
		h.Set("x-api-key", key)
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	// The API version is a required header; 2023-06-01 is the version
	// the official SDKs pin and the one whose wire format this speaks.
	h.Set("anthropic-version", "2023-06-01")
	c := llm.NewClient(d.Name, llm.Endpoint(base, "/v1/messages"), h, []string{key, token}, s)
	return llm.NewMessages(c, llm.MessagesOptions{Base: llm.SafeURL(base.String()), ModelsURL: modelsURL(base), ListRequired: !custom}), nil
}

// modelsURL is the models list, one page of up to 1000 (the API's
// largest; the default page is 20).
func modelsURL(base *url.URL) string {
	u, _ := url.Parse(llm.Endpoint(base, "/v1/models"))
	q := u.Query()
	q.Set("limit", "1000")
	u.RawQuery = q.Encode()
	return u.String()
}
