package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"
)

// manyFailures is the statistical report with 15 more soft cases below
// their floor, each with the gate's sentence: what a nightly run of a
// golden set that a server change broke looks like.
func manyFailures(t *testing.T) *Report {
	r := loadReport(t, "statistical")
	for i := range 15 {
		id := fmt.Sprintf("weather-city-%02d", i)
		r.Cases = append(r.Cases, Case{ID: id, Model: "openai:gpt-4.1-mini", Kind: "soft", Runs: 8, Passed: 1, PassRate: 0.125, Floor: 0.8, Status: StatusFail})
		r.Gate.Reasons = append(r.Gate.Reasons, fmt.Sprintf("Soft case %s on openai:gpt-4.1-mini passed 1 of 8: below its floor of 0.8 beyond chance (p = 8.4e-05 ≤ 0.000208 at look 2 of 7; the true rate is at most 0.7715); read its transcripts and fix the tool descriptions or the server, or accept it with a reason in .mcp-eval/waivers.yaml.", id))
	}
	return r
}

// TestSummaryOpensWithWhatFailed: summary.md opens with the verdict and a
// line per failed check and case; the gate's sentences (one per soft case,
// alike) and the server table are folded, and the gate's sentences are
// written once. The PR comment opens the same way.
func TestSummaryOpensWithWhatFailed(t *testing.T) {
	t.Parallel()
	r := manyFailures(t)
	md := string(render(t, WriteMarkdown, r))
	first, _, _ := strings.Cut(md, "<details>")
	if !strings.HasPrefix(first, "## ❌ mcp-eval failed\n") || !strings.Contains(first, "### What failed\n") {
		t.Fatalf("summary.md does not open with the verdict and what failed:\n%s", first)
	}
	wantContains(t, first, "- ❌ `result-type/tools-call` (**MUST**): resultType \"partial\" is not a known value",
		"- ❌ case `weather-units` on `openai:gpt-4.1-mini`: 1/8 runs passed (12.5%), below floor 80% beyond chance",
		"- ❗ case `no-tool` on `openai:gpt-4.1-mini`: 4/5 runs passed (80%), incomplete",
		"- ❌ case `weather-city-14` on `openai:gpt-4.1-mini`: 1/8 runs passed (12.5%), floor 80%")
	if strings.Contains(first, "Soft case") || strings.Contains(first, "| target |") {
		t.Errorf("a gate sentence or the server table is on the first screen:\n%s", first)
	}
	if n := strings.Count(first, "\n"); n > 30 {
		t.Errorf("the first screen has %d lines before the first fold:\n%s", n, first)
	}
	if n := strings.Count(md, "Soft case weather-city-03 on"); n != 1 {
		t.Errorf("a gate sentence is written %d times, want once (folded)", n)
	}
	if !strings.Contains(md, "<details><summary>Why the gate failed (18 reasons)</summary>") ||
		!strings.Contains(md, "<details><summary>The server and the run</summary>") {
		t.Errorf("the gate's reasons or the server are not folded:\n%s", md)
	}

	var c bytes.Buffer
	if err := WriteComment(&c, r, CommentOptions{}); err != nil {
		t.Fatal(err)
	}
	comment := c.String()
	what, why := strings.Index(comment, "**What failed (18):**"), strings.Index(comment, "<details><summary>Why the gate failed (18 reasons)</summary>")
	if what < 0 || why < what || strings.Count(comment, "<details>") != strings.Count(comment, "</details>") {
		t.Errorf("the comment does not open with what failed, the gate's reasons folded:\n%s", comment)
	}

	// A gate that failed on nothing listed (a stale waiver): its reasons
	// are what failed, open.
	r = loadReport(t, "statistical")
	r.Checks, r.Cases = nil, nil
	r.Gate.Reasons = []string{"waiver errors/removed-ping is stale: the check passes now; remove it"}
	md = string(render(t, WriteMarkdown, r))
	first, _, _ = strings.Cut(md, "<details>")
	wantContains(t, first, "### What failed\n\n- ❌ waiver errors/removed-ping is stale")
}

// TestHTMLOpensWithWhatFailed: report.html lists what failed right under
// the verdict, and folds the gate's reasons under it.
func TestHTMLOpensWithWhatFailed(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteHTML(&b, manyFailures(t), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	verdict, failed, gate, matrix := strings.Index(page, `id="verdict"`), strings.Index(page, `<ul id="failed">`), strings.Index(page, `<details id="gate">`), strings.Index(page, `id="matrix"`)
	if verdict < 0 || failed < verdict || gate < failed || matrix < gate {
		t.Errorf("verdict %d, what failed %d, folded gate %d, matrix %d: want them in this order", verdict, failed, gate, matrix)
	}
	wantContains(t, page, `<li><span class="status fail">fail</span> case weather-city-00 on openai:gpt-4.1-mini: 1/8 runs passed (12.5%), floor 80%</li>`,
		"<summary>Why the gate failed (18)</summary>")
}

// TestVerdictCarriesLayer1AndJudge: in the terminal, Layer 1's result is
// under the verdict line (the pass rate per model, the cases that did not
// pass), with the judge that graded the run; summary.md and report.json
// say the judge too.
func TestVerdictCarriesLayer1AndJudge(t *testing.T) {
	t.Parallel()
	r := loadReport(t, "cases-scores")
	for _, tt := range []struct {
		judge *JudgeInfo
		want  string
	}{
		{&JudgeInfo{Model: "openai:gpt-4.1", PromptSHA256: strings.Repeat("a", 64)}, "judge: openai:gpt-4.1, not a tested model"},
		{&JudgeInfo{Model: "openai:gpt-4.1-mini", Default: true, SelfGraded: []string{"openai:gpt-4.1-mini"}, PromptSHA256: strings.Repeat("a", 64)},
			"judge: openai:gpt-4.1-mini (no --judge-model was given, and --models has one model), also a tested model: it graded its own runs"},
		{&JudgeInfo{ByModel: map[string]string{"openai:gpt-4.1-mini": "anthropic:claude-sonnet-4-5", "anthropic:claude-sonnet-4-5": "openai:gpt-4.1-mini"}, Default: true, PromptSHA256: strings.Repeat("a", 64)},
			"judge: openai:gpt-4.1-mini graded anthropic:claude-sonnet-4-5, anthropic:claude-sonnet-4-5 graded openai:gpt-4.1-mini (no --judge-model was given: each of --models is graded by the next one, none by itself)"},
		{&JudgeInfo{Disabled: true, PromptSHA256: strings.Repeat("a", 64)}, "judge: none (--judge-model none)"},
	} {
		r.Judge = tt.judge
		var b bytes.Buffer
		if err := WriteText(&b, r, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		_, tail, ok := strings.Cut(b.String(), "\nFAIL  ")
		if !ok {
			t.Fatalf("no verdict line:\n%s", b.String())
		}
		wantContains(t, tail, "layer 1 pass rate: anthropic:claude-sonnet-4-5 100% · openai:gpt-4.1-mini 66.7%",
			"did not pass: ✗ no-tool-smalltalk@openai:gpt-4.1-mini 3/5, ✗ refund-chain@openai:gpt-4.1-mini 2/5", tt.want)
		md := string(render(t, WriteMarkdown, r))
		first, _, _ := strings.Cut(md, "### What failed")
		wantContains(t, first, "- **Judge:** "+escapeMarkdown(strings.TrimPrefix(tt.want, "judge: ")))
		var page bytes.Buffer
		if err := WriteHTML(&page, r, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		wantContains(t, page.String(), html.EscapeString(strings.TrimPrefix(tt.want, "judge: ")))
	}
}
