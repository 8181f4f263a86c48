package telemetry_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/internal/spectest"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// TestReportValidates fills a report with every telemetry field this
// package and the gate's perf comparison write, merges it with itself as a
// shard would be, and validates each against docs/report.schema.json.
func TestReportValidates(t *testing.T) {
	t.Parallel()
	schema := spectest.CompileDoc(t, "../docs/report.schema.json", "")

	build := func(scale time.Duration) *report.Report {
		rec := telemetry.New(nil)
		for i := range 1500 { // more than SampleCap: thinned samples
			rec.RequestDone("tools/call", "get_forecast", scale*time.Duration(50+i%20)*time.Millisecond/10, 100, nil)
		}
		rec.RequestDone("tools/call", "get_forecast", time.Second, 0, &mcp.TimeoutError{Method: "tools/call"})
		rec.RequestEnd("openai", "gpt-4.1-mini", scale*80*time.Millisecond/10, llm.Usage{InputTokens: 1200, OutputTokens: 40}, nil)
		rec.RequestEnd("openai", "llama3.2", 9*time.Millisecond, llm.Usage{InputTokens: 1, OutputTokens: 1}, nil)
		rec.AddRuns([]telemetry.Run{
			{Case: "weather", Model: "openai:gpt-4.1-mini", Transcript: &agent.Transcript{Stop: agent.StopFinal, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 40}}},
			{Case: "weather", Model: "openai:gpt-4.1-mini", Cached: true, Transcript: &agent.Transcript{Stop: agent.StopFinal, ModelLatencies: []time.Duration{time.Second}, ModelCalls: 1, Turns: 1, Usage: llm.Usage{InputTokens: 1200, OutputTokens: 40}, Calls: []agent.Call{{Name: "lookup_region", Executed: true, Duration: time.Millisecond}}}},
			{Case: "local", Model: "openai:llama3.2", Transcript: &agent.Transcript{Stop: agent.StopFinal, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}}},
		})
		rec.SetToolList([]mcp.Tool{{Name: "get_forecast", Description: "Forecast", InputSchema: json.RawMessage(`{"type":"object"}`)}})
		r := &report.Report{
			SchemaVersion: report.SchemaVersion, Layers: []string{report.LayerBehavior, report.LayerTelemetry},
			Server: report.Server{Transport: "http", Era: "modern"},
			Cases: []report.Case{
				{ID: "weather", Model: "openai:gpt-4.1-mini", Kind: "soft", Runs: 2, Passed: 2, PassRate: 1, Floor: 0.8, Status: report.StatusPass},
				{ID: "local", Model: "openai:llama3.2", Kind: "soft", Runs: 1, Passed: 1, PassRate: 1, Floor: 0.8, Status: report.StatusPass},
			},
			Scores: map[string]float64{},
		}
		rec.Apply(r)
		return r
	}
	base, cur := build(10), build(20)
	gate.Evaluate(cur, base, gate.Policy{MaxDrop: 0.02, MaxLatencyIncrease: 0.25, MaxCostIncrease: 0.25}).Apply(cur)
	if len(cur.Gate.Perf) == 0 {
		t.Fatal("no perf items")
	}
	merged := *cur
	merged.Telemetry = telemetry.Merge(base.Telemetry, cur.Telemetry)

	for name, r := range map[string]*report.Report{"base": base, "current with gate": cur, "merged": &merged} {
		var buf bytes.Buffer
		if err := report.WriteJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	tel := cur.Telemetry
	if len(tel.ToolCalls["get_forecast"].SamplesMs) != telemetry.SampleCap || !tel.Models["openai:llama3.2"].CostUnknown || tel.ToolCalls["lookup_region"].Source != telemetry.SourceCache {
		t.Errorf("the report does not exercise what it should: %+v", tel)
	}
}
