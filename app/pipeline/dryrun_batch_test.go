package pipeline

import (
	"testing"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// TestDryRunPricesBatch: with --batch auto the estimate prices the first
// turn of each one-message run, on a provider with a batch API, at the
// batch rate (half); a multi-turn case, a provider without one (Ollama)
// and --batch never keep the list price.
func TestDryRunPricesBatch(t *testing.T) {
	t.Parallel()
	s, err := tasks.Parse([]byte(`version: 1
cases:
  - {id: one, prompt: "Weather in Paris?", expect_tool: get_weather}
  - id: chat
    turns:
      - {prompt: 'Weather in Paris?', expect_tool: get_weather}
      - {prompt: 'Thanks!', expect_tool: null}
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"openai:gpt-4.1-mini", "ollama:qwen2.5:7b"}
	estimate := func(batch string) *DryRunPlan {
		cfg := &config.Config{}
		cfg.Batch = batch
		p := &RunPlan{cfg: cfg, prices: telemetry.BuiltinPrices()}
		est := p.newEstimator(models, 600)
		for _, c := range s.Cases {
			for _, m := range models {
				est.add(c, m, 5, false)
			}
		}
		plan := &DryRunPlan{}
		p.price(plan, models, est)
		return plan
	}
	never, auto := estimate("never"), estimate("auto")
	o := auto.Models[0]
	if o.BatchCalls != 5 || o.BatchInputTokens == 0 || o.BatchInputTokens >= o.InputTokens {
		t.Errorf("openai: %d batch calls (%d of %d input tokens), want the 5 first turns of the one-message case", o.BatchCalls, o.BatchInputTokens, o.InputTokens)
	}
	if auto.Models[1].BatchCalls != 0 || never.Models[0].BatchCalls != 0 {
		t.Error("ollama, or --batch never, priced calls at a batch rate")
	}
	// The saving is half the list price of exactly the batched tokens.
	saved := *never.Models[0].CostUSD - *o.CostUSD
	want := (float64(o.BatchInputTokens)*0.40 + float64(o.BatchOutputTokens)*1.60) / 1e6 / 2
	if d := saved - want; d > 1e-8 || d < -1e-8 {
		t.Errorf("saved $%.6f, want $%.6f", saved, want)
	}
}
