package pipeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// TestDryRunPlansAndPricesWithoutAModel: the shipped golden set against
// the example server, on a paid and a local model, with no key: the plan
// and its estimated cost, exit 0, no request to any model endpoint.
func TestDryRunPlansAndPricesWithoutAModel(t *testing.T) {
	apptest.AtRoot(t) // the shipped files, named as at the checkout
	bin := apptest.BuildExampleServer(t)
	url, calls := apptest.NoModelCalls(t)
	dir := t.TempDir()
	code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"OLLAMA_HOST": url}), "run", "--dry-run", "--server-cmd", bin,
		"--golden", "golden/tasks.yaml", "--models", "openai:gpt-4.1-mini,ollama:qwen2.5:7b", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"dry run: golden/tasks.yaml is valid against " + bin + " (3 tools): 25 cases; no model was called",
		"plan: 25 cases × 5 runs × 2 models = 250 runs, and 60 resilience variant runs",
		// Without --judge-model the two tested models grade each other,
		// each judge at its own price.
		"judge openai:gpt-4.1-mini graded ollama:qwen2.5:7b, ollama:qwen2.5:7b graded openai:gpt-4.1-mini, about",
		"  judge ollama:qwen2.5:7b  ", "  judge openai:gpt-4.1-mini  ",
		"openai:gpt-4.1-mini ", "≈ $", "(built-in 2026-12-01)",
		"ollama:qwen2.5:7b ", "$0 (free: Ollama runs the model on this machine)",
		"  total ≈ $",
		"estimate: tokens ≈ ⌈bytes/4⌉",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "warning: the judge") {
		t.Errorf("a self-grading warning with two models judging each other:\n%s", stdout)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests to a model endpoint", n)
	}
	// Said before anything is spent: a single tested model grades itself.
	_, stdout, _ = runCommand(t, apptest.Env(map[string]string{"OLLAMA_HOST": url}), "run", "--dry-run", "--server-cmd", bin,
		"--golden", "golden/tasks.yaml", "--models", "openai:gpt-4.1-mini", "--out", dir)
	if want := "warning: the judge openai:gpt-4.1-mini is also a tested model (no --judge-model was given, and --models has one model): it would grade its own runs; add a second model to --models or set --judge-model\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	// A judge that is not tested: no warning.
	_, stdout, _ = runCommand(t, apptest.Env(map[string]string{"OLLAMA_HOST": url}), "run", "--dry-run", "--server-cmd", bin,
		"--golden", "golden/tasks.yaml", "--models", "ollama:qwen2.5:7b", "--judge-model", "openai:gpt-4.1", "--out", dir)
	if !strings.Contains(stdout, "judge openai:gpt-4.1, about") || strings.Contains(stdout, "warning: the judge") {
		t.Errorf("a judge outside --models: %s", stdout)
	}
}

// TestDryRunEstimateByHand: the estimate of a small golden file, as the
// documented approximation computes it by hand.
func TestDryRunEstimateByHand(t *testing.T) {
	bin := apptest.BuildExampleServer(t)
	dir := t.TempDir()
	golden := filepath.Join(dir, "tasks.yaml")
	os.WriteFile(golden, []byte(`- id: weather
  prompt: "What's the weather in Paris?"
  expect_tool: get_weather
- id: hello
  prompt: Hi there!
  negative: true
`), 0o644)
	code, stdout, stderr := runCommand(t, apptest.Env(nil), "run", "--dry-run", "--server-cmd", bin, "--golden", golden,
		"--models", "openai:gpt-4.1-mini", "--judge-model", "none", "--runs", "3", "--layers", "behavior", "--format", "json", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var plan struct {
		ToolListTokens int64    `json:"toolListTokens"`
		Runs           int      `json:"runs"`
		EstimatedCost  *float64 `json:"estimatedCostUsd"`
		Models         []struct {
			Runs, Calls               int
			InputTokens, OutputTokens int64
			CostUSD                   *float64
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	tl := plan.ToolListTokens
	// weather: 2 calls. The prompt is 28 bytes, 7 tokens, +4 framing = 11.
	// Call 1 sends tl+11 and answers 50; the history grows by 50+4 and the
	// tool result's 100+4: call 2 sends tl+11+54+104.
	weatherIn := (tl + 11) + (tl + 11 + 54 + 104)
	// hello: 1 call; 9 bytes → 3 tokens, +4 = 7.
	helloIn := tl + 7
	m := plan.Models[0]
	if plan.Runs != 6 || m.Runs != 6 || m.Calls != 3*(2+1) || m.InputTokens != 3*(weatherIn+helloIn) || m.OutputTokens != 3*(2+1)*50 {
		t.Errorf("plan %+v; want 6 runs, 9 calls, %d input and 450 output tokens (tool list %d)", plan, 3*(weatherIn+helloIn), tl)
	}
	// gpt-4.1-mini: $0.40 in, $1.60 out per million.
	want := (float64(m.InputTokens)*0.40 + float64(m.OutputTokens)*1.60) / 1e6
	if m.CostUSD == nil || *m.CostUSD < want-1e-9 || *m.CostUSD > want+1e-9 || plan.EstimatedCost == nil || *plan.EstimatedCost != *m.CostUSD {
		t.Errorf("cost %v, total %v; want %v", m.CostUSD, plan.EstimatedCost, want)
	}
	if tl < 100 {
		t.Errorf("tool list of %d tokens: the example server's three tools take more", tl)
	}
	// A dollar --model-budget below the estimate refuses the plan, with
	// both figures, exit 2; one above it passes.
	code, _, stderr = runCommand(t, apptest.Env(nil), "run", "--dry-run", "--server-cmd", bin, "--golden", golden, "--models", "openai:gpt-4.1-mini",
		"--judge-model", "none", "--runs", "3", "--layers", "behavior", "--model-budget", "10m,$0.0001", "--out", dir)
	if code != 2 || !strings.Contains(stderr, "exceeds --model-budget $0.0001") {
		t.Errorf("a plan over budget: exit %d, %s", code, stderr)
	}
	code, stdout, _ = runCommand(t, apptest.Env(nil), "run", "--dry-run", "--server-cmd", bin, "--golden", golden, "--models", "openai:gpt-4.1-mini",
		"--judge-model", "none", "--runs", "3", "--layers", "behavior", "--model-budget", "$5", "--out", dir)
	if code != 0 || !strings.Contains(stdout, "--model-budget $5.00: the estimate is within it") {
		t.Errorf("a plan within budget: exit %d\n%s", code, stdout)
	}
}

// TestDryRunCatchesMistakes: a tool the server does not have, an expected
// argument its inputSchema refuses, a rubric without a judge: each with
// its FILE:LINE, all at once, exit 2, no model called.
func TestDryRunCatchesMistakes(t *testing.T) {
	bin := apptest.BuildExampleServer(t)
	url, calls := apptest.NoModelCalls(t)
	dir := t.TempDir()
	golden := filepath.Join(dir, "tasks.yaml")
	os.WriteFile(golden, []byte(`- id: weather-basic
  prompt: What's the weather in Paris?
  expect_tool: get_wether
- id: invoices
  prompt: ACME's last three invoices?
  expect_tool: search_invoices
  expect_args: {customer: ACME, limit: three}
- id: judged
  prompt: Is it warm in Rome?
  expect_tool: get_weather
  rubric: Says whether it is warm.
`), 0o644)
	code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"OLLAMA_HOST": url}), "run", "--dry-run", "--server-cmd", bin,
		"--golden", golden, "--models", "ollama:qwen2.5:7b", "--judge-model", "none", "--out", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		golden + `:3: case "weather-basic": expect_tool: the server has no tool "get_wether" (did you mean "get_weather"?)`,
		golden + `:7: case "invoices": expect_args.limit: "three" does not validate against search_invoices's inputSchema: got string, want integer`,
		golden + `:8: case "judged": rubric: --judge-model none turns the judge off`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests to a model endpoint", n)
	}
}
