package telemetry

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
)

// TestProviderPriceRules: the registry's price rules. A local server's
// models are free when their answers report usage and unknown when they
// do not; OpenRouter prices a model as its vendor's and a :free one at 0;
// a price file still wins.
func TestProviderPriceRules(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices()
	u := llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}
	for _, tt := range []struct {
		model  string
		usage  llm.Usage
		want   float64
		ok     bool
		source string
	}{
		{"ollama:qwen2.5:7b", u, 0, true, "free: Ollama runs the model on this machine"},
		{"llamacpp:anything", u, 0, true, "free:"},
		{"vllm:Qwen/Qwen2.5-7B-Instruct", u, 0, true, "free:"},
		{"lmstudio:qwen2.5-7b-instruct", llm.Usage{Unknown: true}, 0, false, "free:"},
		{"openrouter:openai/gpt-4.1-mini", u, 2.00, true, "(as openai:gpt-4.1-mini)"},
		{"openrouter:anthropic/claude-sonnet-4.5", u, 18, true, "(as anthropic:claude-sonnet-4-5)"},
		{"openrouter:meta-llama/llama-3.3-70b-instruct:free", u, 0, true, "free: OpenRouter serves"},
		{"openrouter:mistralai/mistral-small", u, 0, false, ""},
	} {
		got, ok := p.Cost(tt.model, tt.usage)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Cost(%s) = %v, %v; want %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
		if pr, found := p.Lookup(tt.model); tt.source != "" && (!found || !strings.Contains(pr.Source, tt.source)) {
			t.Errorf("Lookup(%s).Source = %q, want %q", tt.model, pr.Source, tt.source)
		}
	}
	f, err := ParsePrices("p.yaml", []byte("models:\n  ollama:qwen2.5:7b: {input: 0.01, output: 0.02}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := f.Cost("ollama:qwen2.5:7b", u); !ok || got != 0.03 {
		t.Errorf("a price file's price for a local model: %v, %v", got, ok)
	}
}
