package golden

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

func selectSuite(t *testing.T, extra string) []*tasks.Case {
	t.Helper()
	src := `version: 1
cases:
  - id: fc
    prompt: forecast please
    expect_tool: get_forecast
  - id: town
    prompt: town forecast
    expect_tool: get_town_forecast
  - id: forbid
    prompt: region please
    expect_tool: lookup_region
    forbid_tools: [get_forecast]
  - id: chain
    prompt: region then forecast
    expect_sequence: [lookup_region, delete_all]
  - id: neg
    prompt: hello
    negative: true
` + extra
	s, err := tasks.Parse([]byte(src), "tasks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s.Cases
}

// from is a report in which every case passed on model m.
func from(cases []*tasks.Case) *report.Report {
	r := &report.Report{RunID: "9", Commit: "c0ffee"}
	for _, c := range cases {
		r.Cases = append(r.Cases, report.Case{ID: c.ID, Model: "openai:m", Kind: "hard", Runs: 1, Passed: 1, PassRate: 1, Status: report.StatusPass, DefinitionSHA256: DefinitionSHA256(c)})
	}
	return r
}

func whys(s Selection) string {
	var out []string
	for _, c := range s.Record.Cases {
		out = append(out, c.ID+": "+c.Why)
	}
	return strings.Join(out, "\n")
}

// TestSelectAffected: a changed tool selects the cases that expect it,
// forbid it or chain through it, and a near tool's cases; a case edited
// since the baseline, or missing from it, runs too; everything else
// carries, marked with the baseline's run.
func TestSelectAffected(t *testing.T) {
	cases := selectSuite(t, "")
	base := from(cases)
	edited := selectSuite(t, "  - id: new\n    prompt: new case\n    expect_tool: lookup_region\n")
	edited[4].Prompt = "hello again" // neg, edited
	sel := Select(edited, SelectOptions{Mode: report.SelectAffected, From: base, FromName: "the baseline", Models: []string{"openai:m"},
		Changed: map[string]bool{"get_forecast": true}, Near: map[string][]string{"get_town_forecast": {"get_forecast"}, "get_forecast": {"get_town_forecast"}}})
	want := "fc: uses changed tool get_forecast\ntown: uses get_town_forecast, near changed tool get_forecast\nforbid: uses changed tool get_forecast\n" +
		"neg: edited since the baseline\nnew: not in the baseline on openai:m"
	if got := whys(sel); got != want {
		t.Errorf("selection:\n%s\nwant:\n%s", got, want)
	}
	if len(sel.Carried) != 1 || sel.Carried[0].ID != "chain" || sel.Carried[0].Carried.RunID != "9" || sel.Record.Ran != 5 || sel.Record.Carried != 1 {
		t.Errorf("carried %+v, record %+v", sel.Carried, sel.Record)
	}
	// A sequence step counts as a tool of the case.
	sel = Select(cases, SelectOptions{Mode: report.SelectAffected, From: base, FromName: "b", Models: []string{"openai:m"}, Changed: map[string]bool{"delete_all": true}})
	if whys(sel) != "chain: uses changed tool delete_all" {
		t.Errorf("chain: %s", whys(sel))
	}
}

// TestSelectSample: the sample is drawn per stratum (expected tool) in
// turn, the same for the same seed, and another seed may draw others.
func TestSelectSample(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "  - id: c%02d\n    prompt: p%d\n    expect_tool: tool_%d\n", i, i, i%3)
	}
	cases := selectSuite(t, b.String())[5:]
	base := from(cases)
	draw := func(seed string) (string, map[string]int) {
		sel := Select(cases, SelectOptions{Mode: report.SelectAffected, From: base, FromName: "b", Models: []string{"openai:m"}, Sample: 6, Seed: seed})
		strata := map[string]int{}
		for _, c := range sel.Run {
			strata[c.ExpectTool]++
		}
		return whys(sel), strata
	}
	a, strata := draw("commit-1")
	again, _ := draw("commit-1")
	other, _ := draw("commit-2")
	if a != again || a == other {
		t.Errorf("seeded draws: %q, again %q, other seed %q", a, again, other)
	}
	if len(strata) != 3 || strata["tool_0"] != 2 || strata["tool_1"] != 2 || strata["tool_2"] != 2 {
		t.Errorf("strata %v", strata)
	}
}

// TestSelectRerunFailed: the cases that failed or errored on a model run;
// the others carry, even when the selection is empty.
func TestSelectRerunFailed(t *testing.T) {
	cases := selectSuite(t, "")
	r := from(cases)
	r.Cases[1].Status, r.Cases[1].Passed, r.Cases[1].PassRate = report.StatusFail, 0, 0
	r.Cases[3].Status, r.Cases[3].Errored = report.StatusError, 1
	sel := Select(cases, SelectOptions{Mode: report.SelectRerunFailed, From: r, FromName: "r.json", Models: []string{"openai:m"}})
	if got := whys(sel); got != "town: fail on openai:m\nchain: error on openai:m" || len(sel.Carried) != 3 {
		t.Errorf("rerun: %s; carried %d", got, len(sel.Carried))
	}
}

// TestSelectJudgeChanged: when the judge changed since the report, the
// cases it grades run again, and only those.
func TestSelectJudgeChanged(t *testing.T) {
	cases := selectSuite(t, "  - id: graded\n    prompt: summarise\n    expect_tool: get_forecast\n    rubric: The answer names the city.\n")
	base := from(cases)
	sel := Select(cases, SelectOptions{Mode: report.SelectAffected, From: base, FromName: "b", Models: []string{"openai:m"}, JudgeChanged: "judge changed"})
	if got := whys(sel); got != "graded: judge changed" {
		t.Errorf("selection: %s", got)
	}
}
