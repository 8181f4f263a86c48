package report_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcp-eval/mcp-eval/report"
)

func ExampleWriteText() {
	r := &report.Report{
		Tool:   report.Tool{Name: "mcp-eval", Version: "0.3.0"},
		Server: report.Server{Target: "http://127.0.0.1:8931/mcp", Transport: "http", Era: "modern", ProtocolVersion: "2026-07-28"},
		Checks: []report.Check{
			{ID: "discover/responds", Layer: report.LayerConformance, Group: "discover", Level: report.LevelMust, Hard: true, Status: report.StatusPass, Runs: 1, Passed: 1},
			{ID: "caching/tools-list", Layer: report.LayerConformance, Group: "caching", Level: report.LevelMust, Hard: true, Status: report.StatusFail, Runs: 5, Passed: 3,
				Message: "tools/list result has no ttlMs", Evidence: json.RawMessage(`{"missing":"ttlMs"}`)},
			{ID: "http/get-not-allowed", Layer: report.LayerConformance, Group: "http", Level: report.LevelShould, Status: report.StatusFail, Runs: 1,
				Message: "GET got HTTP 200, want 405"},
		},
	}
	report.WriteText(os.Stdout, r, report.TextOptions{})
	// Output:
	// mcp-eval 0.3.0 · server http://127.0.0.1:8931/mcp · transport http · era modern · protocol 2026-07-28
	//
	// discover
	//   ✓ discover/responds
	// caching
	//   ✗ caching/tools-list    3/5  tools/list result has no ttlMs
	//       missing: ttlMs
	// http
	//   ⚠ http/get-not-allowed  warning: GET got HTTP 200, want 405
	//
	// FAIL  1 passed, 1 failed, 1 warnings, 0 skipped, 0 errors · conformance pass rate 50% (1/2 hard checks)
}

func ExampleReport_CarryHistory() {
	base := &report.Report{
		StartedAt: "2026-08-14T02:00:00Z",
		Scores:    map[string]float64{"conformance.passRate": 0.9},
		History: []report.HistoryEntry{
			{StartedAt: "2026-08-13T02:00:00Z", Scores: map[string]float64{"conformance.passRate": 0.8}},
			{StartedAt: "2026-08-14T02:00:00Z", Scores: map[string]float64{"conformance.passRate": 0.9}},
		},
	}
	r := &report.Report{StartedAt: "2026-08-15T02:00:00Z", Commit: "9f8e7d6", Scores: map[string]float64{"conformance.passRate": 1}}
	r.CarryHistory(base, 2)
	for _, e := range r.History {
		fmt.Println(e.StartedAt, e.Commit, e.Scores["conformance.passRate"])
	}
	// Output:
	// 2026-08-14T02:00:00Z  0.9
	// 2026-08-15T02:00:00Z 9f8e7d6 1
}
