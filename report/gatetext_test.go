package report

import (
	"strings"
	"testing"
)

// TestWriteTextGateOnly is mcp-eval gate's output: the gate's work in full
// and the tally, no check list.
func TestWriteTextGateOnly(t *testing.T) {
	limit := 0.2
	base, cur := 0.9, 0.8
	r := &Report{
		Checks: []Check{{ID: "caching/tools-list", Hard: true, Status: StatusFail}},
		Gate: &Gate{
			Baseline: "base.json", Reasons: []string{"Hard check caching/tools-list failed"},
			Notes:       []string{"behavior.passRate fell 0.010, within --max-drop 0.02"},
			Rules:       []string{"a hard check that fails or errors fails the gate"},
			Scores:      []GateScore{{Key: "behavior.passRate", Direction: "higher", Base: &base, Current: &cur, Delta: -0.1, Drop: true, Failed: true}},
			Perf:        []GatePerf{{Kind: "tool", ID: "get_forecast", Metric: "p95Ms", Base: 100, Current: 150, Increase: 0.5, Limit: &limit, Exceeded: true}},
			BaselineRun: &GateBaseline{StartedAt: "2026-11-30T10:00:00Z", Commit: "9f8e7d6c5b4a39", ToolVersion: "1.2.0", Fingerprint: "0123456789abcdef", SameServer: true},
		},
	}
	var b strings.Builder
	if err := WriteText(&b, r, TextOptions{GateOnly: true}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	wantContains(t, got,
		"gate failed · baseline base.json\n",
		"  baseline run: started 2026-11-30T10:00:00Z · commit 9f8e7d6c5b4a… · mcp-eval 1.2.0 · same server fingerprint 0123456789ab…\n",
		"  ✗ Hard check caching/tools-list failed\n",
		"  decided: failed, 1 reason(s) above, by the rules below\n",
		"  rule: a hard check that fails or errors fails the gate\n",
		"  Δ behavior.passRate 0.900 → 0.800 (-0.100) [failed: dropped]\n",
		"  Δ p95Ms tool get_forecast 100ms → 150ms (+50%) [above the limit of +20%, a warning]\n",
		"  note: behavior.passRate fell 0.010, within --max-drop 0.02\n",
		"FAIL  0 passed, 1 failed",
	)
	if strings.Contains(got, "caching\n") {
		t.Errorf("the check list is printed:\n%s", got)
	}
}
