package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// htmlReport is a run with one passing, one failing soft (the gate fails
// it) and one errored case on two models, a confusion matrix, telemetry
// and a self-grading judge; its texts carry markup a hostile server or
// model might send.
func htmlReport() (*Report, HTMLOptions) {
	f := func(x float64) *float64 { return &x }
	cost := 0.0123
	r := &Report{
		SchemaVersion: SchemaVersion, StartedAt: "2026-12-01T11:00:00Z",
		Server: Server{Target: "http://127.0.0.1:8080/mcp", Transport: "http"},
		Layers: []string{LayerConformance, LayerBehavior, LayerTelemetry},
		Checks: []Check{
			{ID: "caching/tools-list", Layer: LayerConformance, Group: "caching", Level: LevelMust, Hard: true, Status: StatusFail, Runs: 5,
				Message:  "tools/list has no ttlMs </td><script>alert(3)</script> (0 of 5 runs passed)",
				Evidence: json.RawMessage(`{"response":{"message":{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"<b>x</b>"}]}}}}`)},
			{ID: "discover/responds", Layer: LayerConformance, Group: "discover", Level: LevelMust, Hard: true, Status: StatusPass, Runs: 5, Passed: 5},
			{ID: "headers/missing-method", Layer: LayerConformance, Group: "headers", Level: LevelMust, Hard: true, Status: StatusSkip,
				Message: "applies to Streamable HTTP only; this server speaks stdio"},
			{ID: "headers/name-base64", Layer: LayerConformance, Group: "headers", Level: LevelMust, Hard: true, Status: StatusSkip,
				Message: "applies to Streamable HTTP only; this server speaks stdio"},
		},
		Cases: []Case{
			{ID: "weather-paris", Model: "openai:gpt-4.1-mini", Kind: "hard", Runs: 5, Passed: 5, PassRate: 1, Floor: 1, Status: StatusPass, Selection: f(1)},
			{ID: "weather-paris", Model: "anthropic:claude-sonnet-4-5", Kind: "hard", Runs: 5, Passed: 5, PassRate: 1, Floor: 1, Status: StatusPass, Selection: f(1)},
			{ID: "units", Model: "openai:gpt-4.1-mini", Kind: "soft", Runs: 5, Passed: 3, PassRate: 0.6, Floor: 0.8, Status: StatusFail, Flaky: true, WilsonLow: 0.2307, WilsonHigh: 0.8824, Selection: f(1), Arguments: f(0.6),
				Failures:    []string{`run 2: units: got "celsius", want "fahrenheit"`, `run 4: wrong tool: called search_invoices instead of get_weather </pre><script>alert(1)</script>`},
				Transcripts: []string{"transcripts/units@openai_gpt-4.1-mini/run-2.json", "transcripts/units@openai_gpt-4.1-mini/run-4.json"}},
			{ID: "units", Model: "anthropic:claude-sonnet-4-5", Kind: "soft", Runs: 5, Passed: 0, Errored: 5, Floor: 0.8, Status: StatusError,
				Errors: []string{"run 1: anthropic: HTTP 529: Overloaded"}},
		},
		Confusion: []ConfusionCell{
			{Model: "openai:gpt-4.1-mini", Expected: "get_weather", Selected: "get_weather", Count: 9},
			{Model: "openai:gpt-4.1-mini", Expected: "get_weather", Selected: "search_invoices", Count: 1},
			{Model: "openai:gpt-4.1-mini", Expected: "none", Selected: "none", Count: 5},
		},
		Scores: map[string]float64{"behavior.passRate": 0.65, "behavior.selectionAccuracy": 0.95},
		Judge:  &JudgeInfo{Model: "openai:gpt-4.1-mini", PromptSHA256: strings.Repeat("ab", 32), SelfGraded: []string{"openai:gpt-4.1-mini"}, Calls: 4, CostUSD: &cost},
		Telemetry: &Telemetry{
			Models: map[string]ModelUsage{
				"openai:gpt-4.1-mini":         {P50Ms: 820, P95Ms: 1900, Count: 30, CostUSD: 0.0456},
				"anthropic:claude-sonnet-4-5": {P50Ms: 1200, P95Ms: 2400, Count: 10, CostUnknown: true},
			},
			ToolCalls: map[string]Latency{"get_weather": {P50Ms: 12, P95Ms: 40, Count: 25}},
		},
		Gate: &Gate{Passed: false, Reasons: []string{"Soft case units on openai:gpt-4.1-mini passed 3 of 5 runs (0.6), below its floor of 0.8."},
			New: []GateItem{{Kind: "case", ID: "units", Model: "openai:gpt-4.1-mini", Status: StatusFail, Blocking: true},
				{Kind: "case", ID: "units", Model: "anthropic:claude-sonnet-4-5", Status: StatusError, Blocking: true}}},
	}
	o := HTMLOptions{Transcripts: map[string]string{
		"transcripts/units@openai_gpt-4.1-mini/run-2.json": `{"case": "units", "transcript": {"final": "It is 18 °C <img src=x onerror=alert(2)>"}}`,
	}}
	return r, o
}

// TestHTMLSelfContained: report.html loads nothing from anywhere, and
// every text from the report is escaped.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	r, o := htmlReport()
	var b bytes.Buffer
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<script`), regexp.MustCompile(`(?i)<link`), regexp.MustCompile(`(?i)<img`),
		regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`), regexp.MustCompile(`(?i)@import|url\(`),
	} {
		if m := bad.FindString(page); m != "" {
			t.Errorf("report.html contains %q: not self-contained or not escaped", m)
		}
	}
	wantContains(t, page, `id="matrix"`, `id="confusion"`, `id="transcripts"`, `class="chart"`, `id="self-graded"`, `id="checks"`,
		"<code>headers/missing-method, headers/name-base64</code>", "&lt;/td&gt;&lt;script&gt;alert(3)&lt;/script&gt;", "&lt;b&gt;x&lt;/b&gt;",
		`units: got &#34;celsius&#34;, want &#34;fahrenheit&#34;`, "&lt;script&gt;alert(1)&lt;/script&gt;", "HTTP 529", "cost unknown")
	// The soft case the gate fails is shown as a failure, with its
	// interval and as flaky.
	if !strings.Contains(page, `<td class="fail" title="fail: pass rate 60%, floor 80%, 95% CI 23–88%">3/5 · 95% CI 23–88% flaky</td>`) {
		t.Error("the failing soft case is not marked as failed, flaky and with its interval in the matrix")
	}
}

// TestHTMLInChromium renders report.html in headless Chromium, checks the
// DOM the browser built, and takes a screenshot (kept where
// MCP_EVAL_SCREENSHOT says, for a person to look at). It runs when
// MCP_EVAL_BROWSER_TESTS=1 and Chromium is installed (apt-get install
// chromium): two browser starts cost seconds of CPU, enough to upset the
// timing tests of other packages that `go test ./...` runs beside it, so
// CI runs it as a step of its own.
func TestHTMLInChromium(t *testing.T) {
	if os.Getenv("MCP_EVAL_BROWSER_TESTS") != "1" {
		t.Skip("set MCP_EVAL_BROWSER_TESTS=1 to render report.html in headless Chromium")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	r, o := htmlReport()
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + filepath.Join(dir, "profile")}
	out, err := exec.CommandContext(ctx, bin, append(flags, "--dump-dom", "file://"+path)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	dom := string(out)
	wantContains(t, dom, `id="matrix"`, `id="confusion"`, `id="transcripts"`, `<svg class="chart"`, `<rect`, "weather-paris", "3/5 · 95% CI 23–88% flaky",
		`id="checks"`, "caching/tools-list", "headers/missing-method, headers/name-base64", `<ul id="failed">`)
	// The hostile text stayed text: no element came of it.
	if strings.Contains(dom, "<script>alert(1)") || strings.Contains(dom, "<script>alert(3)") || strings.Contains(dom, "<img src=\"x\"") {
		t.Error("markup from the report became elements in the DOM")
	}
	png := filepath.Join(dir, "report.png")
	shot := exec.CommandContext(ctx, bin, append(flags, "--screenshot="+png, "--window-size=1280,2000", "file://"+path)...)
	if msg, err := shot.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, msg)
	}
	fi, err := os.Stat(png)
	if err != nil || fi.Size() < 20_000 {
		t.Fatalf("screenshot %v (%v bytes): want a rendered page", err, fi)
	}
	// MCP_EVAL_SCREENSHOT=path keeps the screenshot for a person to look at.
	if keep := os.Getenv("MCP_EVAL_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(png)
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCasesFailExactlyWhenTheGateDoes: with a gate, a case is a failure
// in JUnit (and every renderer) exactly when the gate blocks on it: a
// soft case below its floor that the gate fails is a failure, a waived
// one is not.
func TestCasesFailExactlyWhenTheGateDoes(t *testing.T) {
	t.Parallel()
	r, _ := htmlReport()
	r.Gate.New[0].Waived = true // units on openai: waived
	var b bytes.Buffer
	if err := WriteJUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	junit := b.String()
	units := func(model string) string {
		i := strings.Index(junit, `name="units [`+model+`]"`)
		if i < 0 {
			t.Fatalf("no testcase for units on %s:\n%s", model, junit)
		}
		end := strings.Index(junit[i:], "</testcase>")
		if end < 0 {
			end = len(junit) - i
		}
		return junit[i : i+end]
	}
	if tc := units("openai:gpt-4.1-mini"); strings.Contains(tc, "<failure") || strings.Contains(tc, "<error") {
		t.Errorf("a waived case fails in JUnit:\n%s", tc)
	}
	if tc := units("anthropic:claude-sonnet-4-5"); !strings.Contains(tc, `<error message="0/5 runs passed (0%), floor 80%, 5 errored: run 1: anthropic: HTTP 529: Overloaded"`) {
		t.Errorf("the blocking errored case is not an error with its reason:\n%s", tc)
	}
	// Unwaived, the soft case below its floor fails, with its reason.
	r.Gate.New[0].Waived = false
	b.Reset()
	WriteJUnit(&b, r)
	junit = b.String()
	if tc := units("openai:gpt-4.1-mini"); !strings.Contains(tc, `<failure message="3/5 runs passed (60%), floor 80%: run 2: units: got &#34;celsius&#34;, want &#34;fahrenheit&#34;"`) {
		t.Errorf("the blocking soft case does not fail with its reason:\n%s", tc)
	}
}

// TestHTMLSkippedCase: a case skipped before it ran (a rubric with
// --judge-model none) reads as skipped and not run, never as 0 of 0 runs.
func TestHTMLSkippedCase(t *testing.T) {
	t.Parallel()
	r := &Report{SchemaVersion: SchemaVersion, Cases: []Case{{ID: "judged", Model: "openai:m", Kind: "soft", Floor: 0.8, Status: StatusSkip,
		WilsonHigh: 1, Skipped: "the case has a rubric and --judge-model none turns the judge off"}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	wantContains(t, page, `<td class="skip" title="skipped: the case has a rubric and --judge-model none turns the judge off">skipped</td>`, "skip, not run")
	if strings.Contains(page, "0 of 0") || strings.Contains(page, "0/0") {
		t.Error("a skipped case reads as 0 of 0 runs")
	}
}

// TestHTMLShowsControls: a server's text with a terminal escape, a bell
// and bidi overrides reaches report.html as visible escapes, in the
// message, the evidence, a case's failure and a transcript alike, and the
// page holds no such character at all.
func TestHTMLShowsControls(t *testing.T) {
	t.Parallel()
	r, o := htmlReport()
	r.Checks[0].Message = "name \x1b[31mred\x1b[0m\a ends"
	r.Checks[0].Evidence = json.RawMessage(`{"name":"invoice\u202etxt.exe","c1":"\u0085","ls":"a\u2028b"}`)
	r.Cases[2].Failures = []string{"run 2: said \u2067hidden\u2069 \x07"}
	for p := range o.Transcripts {
		o.Transcripts[p] = "{\"final\": \"\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \u202dltr\"}"
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, c := range page {
		if c != '\t' && c != '\n' && c != '\r' && (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || isBidiControl(c) || c == '\u2028' || c == '\u2029') {
			t.Errorf("report.html holds %U raw", c)
		}
	}
	wantContains(t, page, `name \x1b[31mred\x1b[0m\x07 ends`, `invoice\u202etxt.exe`, `said \u2067hidden\u2069 \x07`,
		`\x1b]8;;https://evil.example\x07click`, `\u202dltr`)
}
