package gate

import (
	"flag"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
)

func cost(v float64) *float64 { return &v }

// perfReport is a behavior report with telemetry: get_forecast at p95
// toolP95 ms, gpt-4.1-mini at modelP95 ms, case weather costing caseCost
// over runs runs.
func perfReport(toolP95, modelP95, caseCost float64, runs int) *report.Report {
	r := behav(kase("weather", m1, "soft", runs, runs))
	r.Cases[0].CostUSD = cost(caseCost)
	r.Cases[0].InputTokens = 1000
	r.Telemetry = &report.Telemetry{
		ToolCalls: map[string]report.Latency{"get_forecast": {P50Ms: toolP95 / 2, P95Ms: toolP95, Count: 20, Source: "live"}},
		Models:    map[string]report.ModelUsage{m1: {P50Ms: modelP95 / 2, P95Ms: modelP95, Count: 60, Source: "live"}},
	}
	return r
}

func TestPerfWarnsByDefault(t *testing.T) {
	t.Parallel()
	base := perfReport(100, 1000, 0.010, 5)
	cur := perfReport(140, 1100, 0.020, 5) // +40% tool, +10% model, +100% cost
	p := Policy{MaxDrop: DefaultMaxDrop, MaxLatencyIncrease: 0.25, MaxCostIncrease: 0.5}
	d := Evaluate(cur, base, p)
	if !d.Passed {
		t.Fatalf("warn-only perf failed the gate: %v", d.Reasons)
	}
	if len(d.Perf) != 3 {
		t.Fatalf("perf items: %+v", d.Perf)
	}
	want := map[string]struct {
		inc      float64
		exceeded bool
	}{"tool": {0.4, true}, "model": {0.1, false}, "case": {1, true}}
	for _, it := range d.Perf {
		w := want[it.Kind]
		if it.Increase != w.inc || it.Exceeded != w.exceeded || it.Failed || it.Limit == nil {
			t.Errorf("%s %s: %+v, want increase %v exceeded %v", it.Kind, it.ID, it, w.inc, w.exceeded)
		}
	}
	notes := strings.Join(d.Notes, "\n")
	for _, s := range []string{
		"p95 latency of tool get_forecast rose 40% (100 ms to 140 ms), above --max-latency-increase 25%: a warning only",
		"Cost per run of case weather on openai:gpt-4.1-mini rose 100% ($0.002000 to $0.004000), above --max-cost-increase 50%",
	} {
		if !strings.Contains(notes, s) {
			t.Errorf("notes lack %q:\n%s", s, notes)
		}
	}
	if strings.Contains(notes, "model "+m1+" rose") {
		t.Errorf("a +10%% model latency was flagged:\n%s", notes)
	}
	// The decision reaches report.json.
	d.Apply(cur)
	if len(cur.Gate.Perf) != 3 {
		t.Errorf("report gate perf: %+v", cur.Gate.Perf)
	}
}

func TestPerfFailMode(t *testing.T) {
	t.Parallel()
	base := perfReport(100, 1000, 0.010, 5)
	cur := perfReport(140, 1000, 0.010, 5)
	var mode PerfMode
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Var(&mode, "perf-gate", "")
	if err := fs.Parse([]string{"--perf-gate", "fail"}); err != nil || mode != PerfFail || mode.String() != "fail" {
		t.Fatalf("flag: %v %v", mode, err)
	}
	d := Evaluate(cur, base, Policy{MaxDrop: DefaultMaxDrop, MaxLatencyIncrease: 0.25, Perf: mode})
	if d.Passed || len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], "p95 latency of tool get_forecast rose 40%") {
		t.Errorf("reasons: %v", d.Reasons)
	}
	for _, it := range d.Perf {
		if it.Kind == "tool" && (!it.Failed || !it.Exceeded) {
			t.Errorf("tool item: %+v", it)
		}
		if it.Kind == "case" && it.Limit != nil {
			t.Errorf("cost compared under no limit: %+v", it)
		}
	}
	if err := mode.Set("loud"); err == nil {
		t.Error("bad mode accepted")
	}
}

func TestPerfEdges(t *testing.T) {
	t.Parallel()
	p := Policy{MaxDrop: DefaultMaxDrop, MaxLatencyIncrease: 0.25, MaxCostIncrease: 0.25, Perf: PerfFail}

	// A sub-millisecond rise is noise, however large relatively.
	d := Evaluate(perfReport(0.9, 1000, 0.01, 5), perfReport(0.4, 1000, 0.01, 5), p)
	if !d.Passed {
		t.Errorf("0.4 ms to 0.9 ms failed: %v", d.Reasons)
	}

	// Cost is compared per run: twice the runs at the same cost per run
	// is no increase.
	d = Evaluate(perfReport(100, 1000, 0.02, 10), perfReport(100, 1000, 0.01, 5), p)
	if !d.Passed {
		t.Errorf("more runs read as a cost increase: %v", d.Reasons)
	}

	// Latency replayed from the cache is not compared, and says so.
	cur := perfReport(500, 5000, 0.01, 5)
	lat := cur.Telemetry.ToolCalls["get_forecast"]
	lat.Source = "cache"
	cur.Telemetry.ToolCalls["get_forecast"] = lat
	mu := cur.Telemetry.Models[m1]
	mu.Source = "cache"
	cur.Telemetry.Models[m1] = mu
	d = Evaluate(cur, perfReport(100, 1000, 0.01, 5), p)
	if !d.Passed || !strings.Contains(strings.Join(d.Notes, "\n"), "replayed it from the result cache") {
		t.Errorf("cached latency: passed %v, notes %v, reasons %v", d.Passed, d.Notes, d.Reasons)
	}

	// Unknown cost on one side: not compared, noted.
	cur = perfReport(100, 1000, 0.01, 5)
	cur.Cases[0].CostUSD = nil
	d = Evaluate(cur, perfReport(100, 1000, 0.01, 5), p)
	if !d.Passed || !strings.Contains(strings.Join(d.Notes, "\n"), "cost unknown") {
		t.Errorf("unpriced: %v %v", d.Notes, d.Reasons)
	}

	// A baseline without telemetry, and no baseline at all.
	base := perfReport(100, 1000, 0.01, 5)
	base.Telemetry = nil
	d = Evaluate(perfReport(900, 1000, 0.01, 5), base, p)
	if !d.Passed || !strings.Contains(strings.Join(d.Notes, "\n"), "baseline report has no telemetry") {
		t.Errorf("no baseline telemetry: %v %v", d.Notes, d.Reasons)
	}
	if d := Evaluate(perfReport(900, 1000, 0.01, 5), nil, p); !d.Passed || len(d.Perf) != 0 {
		t.Errorf("no baseline: %+v", d)
	}

	// No limits: figures are listed, never judged.
	d = Evaluate(perfReport(900, 9000, 0.09, 5), perfReport(100, 1000, 0.01, 5), Policy{MaxDrop: DefaultMaxDrop})
	if !d.Passed || len(d.Perf) != 3 {
		t.Fatalf("no limits: %+v", d)
	}
	for _, it := range d.Perf {
		if it.Exceeded || it.Limit != nil || it.Increase != 8 {
			t.Errorf("no limits: %+v", it)
		}
	}
}

func TestPerfValidate(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{{MaxLatencyIncrease: -0.1}, {MaxCostIncrease: -1}, {Perf: 7}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if err := (Policy{MaxDrop: 0.02, MaxLatencyIncrease: 0.25, MaxCostIncrease: 3}).Validate(); err != nil {
		t.Error(err)
	}
}
