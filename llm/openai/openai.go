// Package openai is the OpenAI provider: the Chat Completions API at
// api.openai.com, Azure OpenAI, or any OpenAI-compatible server named by
// OPENAI_BASE_URL.
package openai

import (
	"strings"

	"github.com/mcp-eval/mcp-eval/llm"
)

// Def is the provider's declaration, listed by llm/providers.
var Def = &llm.Def{
	Name:    "openai",
	Title:   "OpenAI",
	Wire:    "Chat Completions",
	Example: "openai:gpt-4.1-mini",
	// The official base URL includes the /v1 version prefix and so must
	// every OPENAI_BASE_URL (http://localhost:11434/v1 for Ollama's
	// OpenAI endpoint), as in openai-python src/openai/_client.py.
	BaseURL:     "https://api.openai.com/v1",
	BaseURLEnv:  "OPENAI_BASE_URL",
	Keys:        []string{"OPENAI_API_KEY"},
	KeyRequired: true,
	Prices:      prices,
	// Chat Completions and Ollama's options both take a seed (best effort: the
	// same seed makes a repeat likely, not certain).
	Batch:   true,
	Accepts: []llm.Param{llm.ParamTemperature, llm.ParamMaxTokens, llm.ParamFormat, llm.ParamSeed},
	Notes: "Azure OpenAI hosts (*.azure.com, *.azure.us, *.azure.cn) also get the api-key header; " +
		"OPENAI_ORG_ID and OPENAI_PROJECT_ID become the OpenAI-Organization and OpenAI-Project headers.",
	New: open,
}

// prices are OpenAI's standard-tier list prices (USD per 1M tokens:
// input, cached input, output) as checked on telemetry.BuiltinDate.
var prices = map[string][3]float64{
	"gpt-5":        {1.25, 0.125, 10},
	"gpt-5.1":      {1.25, 0.125, 10},
	"gpt-5-mini":   {0.25, 0.025, 2},
	"gpt-5-nano":   {0.05, 0.005, 0.40},
	"gpt-4.1":      {2, 0.50, 8},
	"gpt-4.1-mini": {0.40, 0.10, 1.60},
	"gpt-4.1-nano": {0.10, 0.025, 0.40},
	"gpt-4o":       {2.50, 1.25, 10},
	"gpt-4o-mini":  {0.15, 0.075, 0.60},
	"o1":           {15, 7.50, 60},
	"o3":           {2, 0.50, 8},
	"o3-mini":      {1.10, 0.55, 4.40},
	"o4-mini":      {1.10, 0.275, 4.40},
}

// open reads OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and
// OPENAI_PROJECT_ID. A key is required at api.openai.com only.
func open(d *llm.Def, env llm.Env, s llm.Settings) (llm.Provider, error) {
	base, custom, err := d.Base(env)
	if err != nil {
		return nil, err
	}
	_, key := d.Key(env)
	if key == "" && !custom {
		return nil, &llm.EnvError{Var: "OPENAI_API_KEY", Reason: "is not set (needed for openai models; for a local server use its provider, e.g. ollama:qwen2.5:7b, or point OPENAI_BASE_URL at any OpenAI-compatible server, which needs no key)"}
	}
	h := llm.BearerHeader(key)
	// Azure OpenAI authenticates keys with an api-key header; its v1 API
	// also takes the Bearer form. Sending both is what the openai-node
	// Azure example does (examples/azure.ts).
	if key != "" && isAzure(base.Hostname()) {
		h.Set("api-key", key)
	}
	if v := env("OPENAI_ORG_ID"); v != "" {
		h.Set("OpenAI-Organization", v)
	}
	if v := env("OPENAI_PROJECT_ID"); v != "" {
		h.Set("OpenAI-Project", v)
	}
	c := llm.NewClient(d.Name, llm.Endpoint(base, "/chat/completions"), h, []string{key}, s)
	return llm.NewChat(c, llm.ChatOptions{Base: llm.SafeURL(base.String()), ModelsURL: llm.Endpoint(base, "/models"), ListRequired: !custom,
		// The Batch API is OpenAI's; Azure's takes other paths and
		// deployments. A gateway without it refuses the upload, and the
		// run sends those requests synchronously (golden's batch phase).
		Batch: !isAzure(base.Hostname())}), nil
}

// isAzure reports whether host is Azure OpenAI's, in the public cloud
// (*.azure.com), Azure Government (*.azure.us) or Azure China (*.azure.cn).
func isAzure(host string) bool {
	h := strings.ToLower(host)
	for _, suffix := range []string{".azure.com", ".azure.us", ".azure.cn"} {
		if strings.HasSuffix(h, suffix) {
			return true
		}
	}
	return false
}
