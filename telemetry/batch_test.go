package telemetry

import (
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
)

// TestCostAtBatchRate: the part of a usage a batch API answered is billed
// at llm.BatchRate of the list prices, the rest at the list prices, and a
// batch answer observed by the Recorder counts at the price it was billed.
func TestCostAtBatchRate(t *testing.T) {
	t.Parallel()
	p := BuiltinPrices()
	one := llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000} // gpt-4.1-mini: $0.40 + $1.60
	sync, ok := p.Cost("openai:gpt-4.1-mini", one)
	if !ok || sync != 2.0 {
		t.Fatalf("synchronous cost %v %v, want 2.00", sync, ok)
	}
	batched := one
	b := one
	batched.Batch = &b
	if got, _ := p.Cost("openai:gpt-4.1-mini", batched); got != 1.0 {
		t.Errorf("a batch answer costs %v, want 1.00", got)
	}
	var sum llm.Usage
	sum.Add(one)
	sum.Add(batched)
	if got, _ := p.Cost("openai:gpt-4.1-mini", sum); got != 3.0 {
		t.Errorf("one synchronous and one batch answer cost %v, want 3.00", got)
	}
	if b.Batch != nil || one.Batch != nil {
		t.Error("Add changed a usage it was given")
	}
	r := New(nil)
	r.RequestEnd("openai", "gpt-4.1-mini", 0, one, nil)
	r.BatchEnd("openai", "gpt-4.1-mini", batched, nil)
	if got, _ := p.Cost("openai:gpt-4.1-mini", r.models["openai:gpt-4.1-mini"].liveUsage); got != 3.0 {
		t.Errorf("the recorder's usage costs %v, want 3.00", got)
	}
}
