package pipeline_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/report"
)

// scriptedOpenAI is an OpenAI Chat Completions endpoint whose "model"
// calls get_forecast when the user asks about the weather and answers in
// text otherwise (including after a tool result).
func scriptedOpenAI(t *testing.T, calls *atomic.Int64) *httptest.Server {
	return httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		msg := `{"role":"assistant","content":"Nothing I can do with tools."}`
		finish := "stop"
		if last.Role == "user" && strings.Contains(fmt.Sprint(last.Content), "forecast") {
			msg = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_forecast","arguments":"{\"city\":\"Paris\"}"}}]}`
			finish = "tool_calls"
		} else if last.Role == "tool" {
			msg = `{"role":"assistant","content":"It will be sunny in Paris."}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`, req.Model, msg, finish)
	}))
}

const goldenFile = `version: 1
cases:
  - id: forecast-paris
    prompt: What is the forecast for Paris?
    expect_tool: get_forecast
    expect_args: {city: paris}
    kind: hard
  - id: small-talk
    prompt: Hello there, how are you?
    negative: true
  - id: wrong-tool
    prompt: Which region am I in?
    expect_tool: lookup_region
`

// modelRig is what the model-layer tests share: the fixture MCP server, a
// scripted OpenAI endpoint that counts its calls, and a tasks file.
type modelRig struct {
	t                  *testing.T
	server, tasks, dir string
	calls              atomic.Int64
	getenv             func(string) string
}

func newModelRig(t *testing.T, golden string) *modelRig {
	m := &modelRig{t: t, dir: t.TempDir()}
	model := scriptedOpenAI(t, &m.calls)
	t.Cleanup(model.Close)
	m.use(golden, model.URL)
	return m
}

// use serves the fixture MCP server for the rig, writes golden as its
// tasks file and points the openai provider at the model at modelURL.
func (m *modelRig) use(golden, modelURL string) {
	m.server = mcptest.Serve(m.t, mcptest.Options{}).URL
	m.tasks = filepath.Join(m.dir, "tasks.yaml")
	if err := os.WriteFile(m.tasks, []byte(golden), 0o644); err != nil {
		m.t.Fatal(err)
	}
	m.getenv = apptest.Env(map[string]string{"OPENAI_BASE_URL": modelURL + "/v1"})
}

// run runs mcp-eval against the rig with 2 runs per case under --gate
// fixed (the scores these tests compute by hand count exactly those runs;
// TestStatisticalGate runs the default gate), writing under dir/out, and
// returns the exit code, the output and the report's path. A later
// --gate in extra overrides it.
func (m *modelRig) run(out string, extra ...string) (code int, stdout, stderr, reportPath string) {
	args := append([]string{"run", "--server-url", m.server, "--models", "openai:scripted", "--golden", m.tasks,
		"--runs", "2", "--gate", "fixed", "--out", filepath.Join(m.dir, out), "--cache-dir", filepath.Join(m.dir, "cache")}, extra...)
	code, stdout, stderr = runCommand(m.t, m.getenv, args...)
	return code, stdout, stderr, filepath.Join(m.dir, out, "report.json")
}

// runExample runs mcp-eval run on the example server bin with the scripted
// model at modelURL as openai:scripted, judged by openai:judge, writing
// under a new directory; it returns the exit code, the output and the
// report's path.
func runExample(t *testing.T, bin, modelURL string, args ...string) (code int, stdout, stderr, reportPath string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	all := append([]string{"run", "--server-cmd", bin, "--models", "openai:scripted", "--judge-model", "openai:judge",
		"--gate", "fixed", "--out", out, "--cache-dir", filepath.Join(dir, "cache")}, args...)
	code, stdout, stderr = runCommand(t, apptest.Env(map[string]string{"OPENAI_BASE_URL": modelURL + "/v1"}), all...)
	return code, stdout, stderr, filepath.Join(out, "report.json")
}

func TestBehaviorLayer(t *testing.T) {
	m := newModelRig(t, goldenFile)
	code, stdout, stderr, path := m.run("first", "--layers", "behavior")
	if code != 1 { // wrong-tool fails its floor
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	first := m.calls.Load()
	if first == 0 {
		t.Fatal("no model calls")
	}
	r := apptest.LoadReport(t, path)
	got := map[string]report.Status{}
	for _, c := range r.Cases {
		got[c.ID] = c.Status
	}
	want := map[string]report.Status{"forecast-paris": "pass", "small-talk": "pass", "wrong-tool": "fail"}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("case %s: %s, want %s", id, got[id], st)
		}
	}
	if s := r.Scores["behavior.selectionAccuracy"]; s < 0.66 || s > 0.67 {
		t.Errorf("selectionAccuracy %v, want 2/3", s)
	}
	if s, ok := r.Scores["behavior.falseActivationRate"]; !ok || s != 0 {
		t.Errorf("falseActivationRate %v (%v), want 0", s, ok)
	}
	if len(r.Checks) != 0 {
		t.Errorf("--layers behavior ran %d conformance checks", len(r.Checks))
	}

	// An unchanged re-run is answered from the cache: zero model calls.
	m.run("second", "--layers", "behavior")
	if n := m.calls.Load(); n != first {
		t.Errorf("cached re-run made %d model calls", n-first)
	}
	m.run("third", "--layers", "behavior", "--no-cache")
	if m.calls.Load() == first {
		t.Error("--no-cache made no model calls")
	}
}

func TestBehaviorConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.yaml")
	os.WriteFile(tasks, []byte(goldenFile), 0o644)
	code, _, stderr := runCommand(t, apptest.Env(nil), "run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior",
		"--models", "openai:gpt-4.1-mini", "--golden", tasks, "--out", dir)
	if code != 2 || !strings.Contains(stderr, "OPENAI_API_KEY") {
		t.Errorf("missing key: exit %d, stderr %q", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\ncases:\n  - id: a\n    prompt: p\n    expect_tol: x\n"), 0o644)
	code, _, stderr = runCommand(t, apptest.Env(map[string]string{"OPENAI_API_KEY": "k"}), "run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior",
		"--models", "openai:gpt-4.1-mini", "--golden", bad, "--out", dir)
	if code != 2 || !strings.Contains(stderr, "bad.yaml:5") || !strings.Contains(stderr, "expect_tool") {
		t.Errorf("bad golden file: exit %d, stderr %q", code, stderr)
	}
	// A tool the server lacks is found once the server answers (after the
	// model endpoint's probe, which a scripted endpoint passes).
	srv := mcptest.Serve(t, mcptest.Options{})
	var calls atomic.Int64
	model := scriptedOpenAI(t, &calls)
	defer model.Close()
	os.WriteFile(bad, []byte("version: 1\ncases:\n  - id: a\n    prompt: p\n    expect_tool: get_weather\n"), 0o644)
	code, _, stderr = runCommand(t, apptest.Env(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": model.URL + "/v1"}), "run", "--server-url", srv.URL, "--layers", "behavior",
		"--models", "openai:scripted", "--golden", bad, "--out", dir)
	if code != 2 || !strings.Contains(stderr, "bad.yaml:5") {
		t.Errorf("unknown tool: exit %d, stderr %q", code, stderr)
	}
}

// TestShardAndMerge splits the golden set in two shards and shows that the
// merged report scores exactly like one unsplit run.
func TestShardAndMerge(t *testing.T) {
	m := newModelRig(t, goldenFile)
	run := func(out string, extra ...string) string {
		_, _, _, path := m.run(out, append([]string{"--layers", "behavior"}, extra...)...)
		return path
	}
	whole := run("whole")
	s1 := run("s1", "--shard", "1/2")
	s2 := run("s2", "--shard", "2/2")
	merged := filepath.Join(m.dir, "merged.json")
	if code, _, stderr := runCommand(t, apptest.Env(nil), "merge", "-o", merged, s1, s2); code != 0 {
		t.Fatalf("merge: exit %d %s", code, stderr)
	}
	w, mr := apptest.LoadReport(t, whole), apptest.LoadReport(t, merged)
	if len(mr.Cases) != len(w.Cases) {
		t.Fatalf("merged %d cases, unsplit %d", len(mr.Cases), len(w.Cases))
	}
	for k, v := range w.Scores {
		if mr.Scores[k] != v {
			t.Errorf("%s: merged %v, unsplit %v", k, mr.Scores[k], v)
		}
	}
	if code, _, stderr := runCommand(t, apptest.Env(nil), "merge", "-o", merged, s1, s1); code != 2 || !strings.Contains(stderr, "both") {
		t.Errorf("overlapping shards: exit %d %s", code, stderr)
	}
}

// TestShippedGoldenSetOnExampleServer runs the shipped golden/tasks.yaml
// against the real example server over stdio, with a scripted model that
// never calls a tool and a scripted judge that fails every rubric: exactly
// the negative cases pass, and the pooled scores say so.
func TestShippedGoldenSetOnExampleServer(t *testing.T) {
	apptest.AtRoot(t) // the shipped files, named as at the checkout
	bin := apptest.BuildExampleServer(t)
	model := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		content := "I can't help with that using tools."
		if req.Model == "judge" {
			content = `{"pass": false, "reason": "the task was not done"}`
		}
		b, _ := json.Marshal(content)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, req.Model, b)
	}))
	defer model.Close()
	code, stdout, stderr, path := runExample(t, bin, model.URL, "--layers", "behavior", "--golden", "golden/tasks.yaml", "--runs", "1")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (every positive case fails)\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, path)
	pass, fail, other := 0, 0, 0
	for _, c := range r.Cases {
		switch {
		case c.Status == report.StatusPass && c.Negative:
			pass++
		case c.Status == report.StatusFail && !c.Negative:
			fail++
		default:
			other++
			t.Errorf("case %s (negative %v): %s %v", c.ID, c.Negative, c.Status, c.Failures)
		}
	}
	if pass != 6 || fail != 19 || other != 0 {
		t.Errorf("%d negative cases passed, %d positive failed, %d other; want 6, 19, 0", pass, fail, other)
	}
	want := map[string]float64{
		"behavior.passRate":            6.0 / 25,
		"behavior.selectionAccuracy":   6.0 / 25,
		"behavior.falseActivationRate": 0,
		"behavior.taskCompletion":      0,
	}
	for k, v := range want {
		if got, ok := r.Scores[k]; !ok || got < v-1e-9 || got > v+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
}

// strictOpenAIRequest rejects, as the real API does with HTTP 400, a
// request llmtest.RejectChat refuses (a function name outside the pattern,
// a tool message that answers no tool call of the assistant message before
// it…), and returns the parts of one it takes that the scripted models read.
func strictOpenAIRequest(body []byte) (*oaReq, string) {
	if bad := llmtest.RejectChat(body); bad != "" {
		return nil, bad
	}
	var req oaReq
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err.Error()
	}
	return &req, ""
}

type oaReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

// firstUser is the text of the first user message.
func (r *oaReq) firstUser() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return fmt.Sprint(m.Content)
		}
	}
	return ""
}

func (r *oaReq) toolMessages() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

// oaCall is one tool call of a scripted answer.
type oaCall struct{ name, args string }

// writeOpenAI answers in the Chat Completions format: text, or tool calls.
func writeOpenAI(w http.ResponseWriter, model, text string, calls ...oaCall) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if len(calls) > 0 {
		var tcs []any
		for i, c := range calls {
			tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d", i+1), "type": "function",
				"function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		msg["content"], msg["tool_calls"], finish = nil, tcs, "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// TestSeedGoldenFileRunsUnchanged runs examples/golden/seed.yaml, the
// article's short form, as shipped against the example server, with a
// scripted model that does what each case asks: every case passes.
func TestSeedGoldenFileRunsUnchanged(t *testing.T) {
	apptest.AtRoot(t) // the shipped files, named as at the checkout
	bin := apptest.BuildExampleServer(t)
	model := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req, bad := strictOpenAIRequest(b)
		if bad != "" {
			http.Error(w, `{"error":{"message":`+strconv.Quote(bad)+`,"type":"invalid_request_error"}}`, 400)
			return
		}
		if req.Model == "judge" {
			writeOpenAI(w, req.Model, `{"reason": "the same city", "verdict": "pass"}`)
			return
		}
		prompt, done := req.firstUser(), req.toolMessages()
		switch {
		case strings.Contains(prompt, "Paris") && done == 0:
			writeOpenAI(w, req.Model, "", oaCall{"get_weather", `{"city":"Paris"}`})
		case strings.Contains(prompt, "New York") && done == 0:
			writeOpenAI(w, req.Model, "", oaCall{"get_weather", `{"city":"New York","units":"fahrenheit"}`})
		case strings.Contains(prompt, "Globex") && done == 0:
			writeOpenAI(w, req.Model, "", oaCall{"search_invoices", `{"customer":"globex","status":"overdue"}`})
		case strings.Contains(prompt, "Globex") && done == 1:
			writeOpenAI(w, req.Model, "", oaCall{"send_email", `{"to":"billing@example.com","subject":"Globex overdue","body":"INV-1"}`})
		default:
			writeOpenAI(w, req.Model, "Done.")
		}
	}))
	defer model.Close()
	code, stdout, stderr, path := runExample(t, bin, model.URL, "--layers", "behavior", "--golden", "examples/golden/seed.yaml", "--runs", "2")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, path)
	if len(r.Cases) != 4 {
		t.Fatalf("%d cases, want 4", len(r.Cases))
	}
	for _, c := range r.Cases {
		if c.Status != report.StatusPass || c.Passed != 2 {
			t.Errorf("case %s: %s, %d of 2 passed %v %v", c.ID, c.Status, c.Passed, c.Failures, c.Errors)
		}
	}
}

// judgingRig is a rig whose scripted model also answers judge requests
// (those asking for structured output) with a passing verdict; it counts
// the judge's calls apart.
func judgingRig(t *testing.T, golden string) (*modelRig, *atomic.Int64) {
	m := &modelRig{t: t, dir: t.TempDir()}
	var judgeCalls atomic.Int64
	model := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		m.calls.Add(1)
		b, _ := io.ReadAll(r.Body)
		req, bad := strictOpenAIRequest(b)
		if bad != "" {
			http.Error(w, bad, 400)
			return
		}
		if len(req.ResponseFormat) > 0 {
			judgeCalls.Add(1)
			if req.Model == "strict-judge" {
				writeOpenAI(w, req.Model, `{"reason": "the answer names no temperature", "verdict": "fail"}`)
				return
			}
			writeOpenAI(w, req.Model, `{"reason": "the run did it", "verdict": "pass"}`)
			return
		}
		if req.toolMessages() == 0 && strings.Contains(req.firstUser(), "forecast") {
			writeOpenAI(w, req.Model, "", oaCall{"get_forecast", `{"city":"Paris"}`})
			return
		}
		writeOpenAI(w, req.Model, "Sunny in Paris.")
	}))
	t.Cleanup(model.Close)
	m.use(golden, model.URL)
	return m, &judgeCalls
}

const judgedGolden = `- id: forecast-judged
  prompt: What is the forecast for Paris?
  expect_tool: get_forecast
  rubric: The answer says what the weather in Paris is.
- id: forecast-semantic
  prompt: Give me the forecast for Paris, please.
  expect_tool: get_forecast
  expect_args: {city: the city of Paris}
  arg_match: {city: semantic}
`

// TestSelfJudgingWarned: without --judge-model a single tested model
// grades itself; the run says so on stderr, with the fix, in the report and
// in the summary.
func TestSelfJudgingWarned(t *testing.T) {
	m, judgeCalls := judgingRig(t, judgedGolden)
	code, stdout, stderr, path := m.run("out", "--layers", "behavior,telemetry")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "the judge openai:scripted is also the only tested model") || !strings.Contains(stderr, "grades its own runs") ||
		!strings.Contains(stderr, "add a second model to --models or set --judge-model") {
		t.Errorf("stderr lacks the self-grading warning:\n%s", stderr)
	}
	r := apptest.LoadReport(t, path)
	if r.Judge == nil || len(r.Judge.SelfGraded) != 1 || r.Judge.SelfGraded[0] != "openai:scripted" || !r.Judge.Default {
		t.Fatalf("report judge %+v; want selfGraded [openai:scripted], default", r.Judge)
	}
	// Which judge, under the verdict.
	if _, tail, _ := strings.Cut(stdout, "\nPASS  "); !strings.Contains(tail, "judge: openai:scripted (no --judge-model was given, and --models has one model), also a tested model") {
		t.Errorf("the verdict does not say which judge graded the run:\n%s", stdout)
	}
	// The judge's usage is its own, apart from the tested model's.
	if r.Judge.Calls != judgeCalls.Load() || r.Judge.Calls == 0 || r.Judge.InputTokens != 50*r.Judge.Calls {
		t.Errorf("judge calls %d (scripted judge saw %d), input tokens %d", r.Judge.Calls, judgeCalls.Load(), r.Judge.InputTokens)
	}
	if mu, ok := r.Telemetry.Models["openai:scripted"]; !ok || mu.Count != int(m.calls.Load()-judgeCalls.Load()) {
		t.Errorf("telemetry of the tested model counts %d calls; want %d (the judge's kept apart)", mu.Count, m.calls.Load()-judgeCalls.Load())
	}
	md, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "summary.md"))
	if !strings.Contains(string(md), "grades its own runs") {
		t.Errorf("summary.md lacks the self-grading warning")
	}
}

// TestJudgeNone: --judge-model none skips rubric cases with the reason,
// uses the deterministic fallback for semantic arguments, and asks no
// judge anything.
func TestJudgeNone(t *testing.T) {
	m, judgeCalls := judgingRig(t, judgedGolden)
	code, stdout, stderr, path := m.run("out", "--layers", "behavior", "--judge-model", "none")
	if judgeCalls.Load() != 0 {
		t.Errorf("--judge-model none made %d judge calls", judgeCalls.Load())
	}
	r := apptest.LoadReport(t, path)
	byID := map[string]report.Case{}
	for _, c := range r.Cases {
		byID[c.ID] = c
	}
	if c := byID["forecast-judged"]; c.Status != report.StatusSkip || !strings.Contains(c.Skipped, "--judge-model none") {
		t.Errorf("rubric case: %s %q; want skip with the reason (exit %d)\n%s\n%s", c.Status, c.Skipped, code, stdout, stderr)
	}
	if c := byID["forecast-semantic"]; !c.SemanticFallback {
		t.Errorf("semantic case: %+v; want the deterministic fallback", c)
	}
	if r.Judge == nil || !r.Judge.Disabled || r.Judge.Model != "" {
		t.Errorf("report judge %+v; want disabled", r.Judge)
	}
	if strings.Contains(stderr, "grades its own runs") {
		t.Error("a self-grading warning without a judge")
	}
}

// TestReasonsEverywhere: a failed case says why in the terminal, in
// summary.md (folded, with links to the transcripts written under the
// output folder), and in JUnit's failure message; and JUnit fails a soft
// case exactly when the gate does.
func TestReasonsEverywhere(t *testing.T) {
	m := newModelRig(t, goldenFile)
	code, stdout, stderr, path := m.run("out", "--layers", "behavior")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "called no tool, want lookup_region") {
		t.Errorf("terminal output lacks the reason:\n%s", stdout)
	}
	if !strings.Contains(stdout, "read its transcripts (transcripts/wrong-tool@openai_scripted/)") {
		t.Errorf("the gate's reason does not say where the transcripts are:\n%s", stdout)
	}
	out := filepath.Dir(path)
	r := apptest.LoadReport(t, path)
	var wrong report.Case
	for _, c := range r.Cases {
		if c.ID == "wrong-tool" {
			wrong = c
		}
	}
	if len(wrong.Transcripts) != 2 {
		t.Fatalf("wrong-tool transcripts %v; want both failed runs", wrong.Transcripts)
	}
	for _, rel := range wrong.Transcripts {
		b, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil || !strings.Contains(string(b), `"status": "failed"`) || !strings.Contains(string(b), `"messages"`) {
			t.Errorf("%s: %v\n%.300s", rel, err, b)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(md), "called no tool, want lookup_region") || !strings.Contains(string(md), "]("+wrong.Transcripts[0]+")") {
		t.Errorf("summary.md lacks the reason or the transcript link:\n%s", md)
	}
	// --verbose shows every run of every case, passing ones included.
	_, verbose, _, _ := m.run("verbose", "--layers", "behavior", "--verbose")
	if !strings.Contains(verbose, "runs 1✓ 2✓") || !strings.Contains(verbose, "runs 1✗ 2✗") {
		t.Errorf("--verbose does not show every run:\n%s", verbose)
	}
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !strings.Contains(string(page), `id="matrix"`) || !strings.Contains(string(page), "called no tool, want lookup_region") || !strings.Contains(string(page), "&#34;status&#34;: &#34;failed&#34;") {
		t.Errorf("report.html lacks the matrix, the reason or the embedded transcript")
	}
	junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
	// wrong-tool is a soft case below its floor, and the gate fails it:
	// so does JUnit, with the reason in the message.
	if !strings.Contains(string(junit), `<failure message="0/2 runs passed (0%), floor 80%: run 1: called no tool, want lookup_region"`) {
		t.Errorf("junit.xml does not fail wrong-tool with its reason:\n%s", junit)
	}
}

// TestModelBudget: a provider that never answers costs the run its
// --model-budget, no more; the remaining runs end as errors that say
// why, and the report is written.
func TestModelBudget(t *testing.T) {
	m := newModelRig(t, goldenFile)
	hang := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	defer hang.Close()
	m.getenv = apptest.Env(map[string]string{"OPENAI_BASE_URL": hang.URL + "/v1"})
	start := time.Now()
	code, stdout, stderr, path := m.run("out", "--layers", "behavior", "--model-budget", "1500ms", "--model-timeout", "1s", "--no-cache")
	// The cases' errors below prove the budget ended the run; the time is
	// a hang guard only (the suite must pass on a loaded machine).
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the run took %v with a 1.5 s model budget", d)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	r := apptest.LoadReport(t, path)
	for _, c := range r.Cases {
		if c.Status != report.StatusError || len(c.Errors) == 0 || !strings.Contains(c.Errors[0], "the model budget (--model-budget 1.5s) was spent") {
			t.Errorf("case %s: %s %v; want errored runs naming the budget", c.ID, c.Status, c.Errors)
		}
	}
}

// TestShippedGoldenSetResilience: the shipped golden/tasks.yaml declares
// faults: and inject:, so --layers resilience with --models runs the model
// half of Layer 2 on the example server instead of nothing.
func TestShippedGoldenSetResilience(t *testing.T) {
	apptest.AtRoot(t) // the shipped files, named as at the checkout
	bin := apptest.BuildExampleServer(t)
	var budgets sync.Map // max_completion_tokens values seen
	model := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var mt struct {
			Max int `json:"max_completion_tokens"`
		}
		json.Unmarshal(b, &mt)
		budgets.Store(mt.Max, true)
		req, bad := strictOpenAIRequest(b)
		if bad != "" {
			http.Error(w, bad, 400)
			return
		}
		if len(req.ResponseFormat) > 0 {
			writeOpenAI(w, req.Model, `{"reason": "no", "verdict": "fail"}`)
			return
		}
		prompt := req.firstUser()
		switch {
		case req.toolMessages() > 0:
			writeOpenAI(w, req.Model, "The tool failed; I cannot tell you.")
		case strings.Contains(prompt, "Tokyo"):
			writeOpenAI(w, req.Model, "", oaCall{"get_weather", `{"city":"Tokyo","units":"fahrenheit"}`})
		case strings.Contains(prompt, "Acme Corp still have open"):
			writeOpenAI(w, req.Model, "", oaCall{"search_invoices", `{"customer":"acme","status":"open"}`})
		default:
			writeOpenAI(w, req.Model, "No.")
		}
	}))
	defer model.Close()
	_, stdout, stderr, path := runExample(t, bin, model.URL, "--layers", "resilience,telemetry", "--golden", "golden/tasks.yaml",
		"--runs", "1", "--model-max-tokens", "2048")
	if strings.Contains(stderr, "had nothing to run") {
		t.Fatalf("the resilience layer ran nothing:\n%s", stderr)
	}
	r := apptest.LoadReport(t, path)
	faults, injects := 0, 0
	for _, c := range r.Cases {
		if c.InputTokens == 0 || c.CostUSD != nil {
			// openai:scripted has no price: unknown cost, but tokens.
			t.Errorf("variant %s: %d input tokens, cost %v; want the variant's tokens", c.ID, c.InputTokens, c.CostUSD)
		}
		switch {
		case strings.Contains(c.ID, "#fault-"):
			faults++
		case strings.Contains(c.ID, "#inject-"):
			injects++
		}
	}
	if faults != 3 || injects == 0 {
		t.Errorf("%d fault and %d inject variants; want 3 and some\n%s", faults, injects, stdout)
	}
	if r.Judge == nil || r.Judge.Model != "openai:judge" {
		t.Errorf("a resilience-only run does not record its judge: %+v", r.Judge)
	}
	if _, ok := budgets.Load(2048); !ok {
		t.Error("--model-max-tokens 2048 never reached the provider")
	}
}

// TestPerCaseModels: a case's models: narrows --models; a model outside
// --models is exit 2 naming the file and line.
func TestPerCaseModels(t *testing.T) {
	m := newModelRig(t, `- id: only-a
  prompt: Hello there!
  negative: true
  models: [openai:a]
- id: both
  prompt: Hi!
  negative: true
`)
	code, stdout, stderr, path := m.run("out", "--layers", "behavior", "--models", "openai:a,openai:b")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got []string
	for _, c := range apptest.LoadReport(t, path).Cases {
		got = append(got, c.ID+"@"+c.Model)
	}
	if strings.Join(got, " ") != "both@openai:a both@openai:b only-a@openai:a" {
		t.Errorf("cases %q", got)
	}
	code, _, stderr, _ = m.run("out2", "--layers", "behavior", "--models", "openai:b")
	if code != 2 || !strings.Contains(stderr, "tasks.yaml:4: case \"only-a\": models: openai:a is not one of --models (openai:b)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestModelKeyNeverWritten: a provider that echoes the API key (plainly
// and JSON-escaped) in its answers puts it nowhere: not in the cache, the
// transcripts, report.html or any other output, nor on stdout or stderr.
func TestModelKeyNeverWritten(t *testing.T) {
	const key = "sk-proj-ECHOED/key<0123456789>"
	m := newModelRig(t, goldenFile)
	echo := httptest.NewServer(withModelList(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req, bad := strictOpenAIRequest(b)
		if bad != "" {
			http.Error(w, bad, 400)
			return
		}
		escaped, _ := json.Marshal(key)
		writeOpenAI(w, req.Model, "Your key is "+key+", or "+string(escaped)+" "+r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	m.getenv = apptest.Env(map[string]string{"OPENAI_BASE_URL": echo.URL + "/v1", "OPENAI_API_KEY": key})
	_, stdout, stderr, _ := m.run("out", "--layers", "behavior")
	spellings := redact.Spellings(key)
	check := func(where, text string) {
		for _, sp := range spellings {
			if strings.Contains(text, sp) {
				t.Errorf("%s holds the key spelled %q", where, sp)
			}
		}
	}
	check("stdout", stdout)
	check("stderr", stderr)
	files := 0
	for _, dir := range []string{filepath.Join(m.dir, "out"), filepath.Join(m.dir, "cache")} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			files++
			b, _ := os.ReadFile(p)
			check(p, string(b))
			return nil
		})
	}
	if files < 5 {
		t.Errorf("only %d files written; the test checks nothing", files)
	}
}

// TestJudgeSwapAgainstBaseline: the same server and model, graded by
// another judge than the baseline's: the drop is named "judge changed",
// not model drift.
func TestJudgeSwapAgainstBaseline(t *testing.T) {
	m, _ := judgingRig(t, judgedGolden)
	_, _, _, base := m.run("base", "--layers", "behavior", "--judge-model", "openai:lenient-judge")
	code, stdout, stderr, _ := m.run("swap", "--layers", "behavior", "--judge-model", "openai:strict-judge", "--baseline", base)
	out := stdout + stderr
	if !strings.Contains(out, "Judge changed since the baseline (model openai:lenient-judge → openai:strict-judge)") {
		t.Errorf("exit %d; the output does not name the judge change:\n%s", code, out)
	}
	if strings.Contains(out, "likely model drift") {
		t.Errorf("a judge change blamed on model drift:\n%s", out)
	}
}

// TestCacheKeyedByBackend: the same model name on another backend is
// never answered from the first backend's cache entries.
func TestCacheKeyedByBackend(t *testing.T) {
	m := newModelRig(t, goldenFile)
	m.run("a", "--layers", "behavior")
	first := m.calls.Load()
	var other atomic.Int64
	b := scriptedOpenAI(t, &other)
	defer b.Close()
	m.getenv = apptest.Env(map[string]string{"OPENAI_BASE_URL": b.URL + "/v1"})
	m.run("b", "--layers", "behavior")
	if other.Load() == 0 || m.calls.Load() != first {
		t.Errorf("the second backend got %d calls (the first %d more); want every call on the second", other.Load(), m.calls.Load()-first)
	}
}
