package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/engine/connect"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// weatherModel is a deterministic fake model: asked a question it calls
// the tool named at the start of the prompt ("get_forecast: Lisbon" calls
// get_forecast with city Lisbon; "none: …" calls nothing), and shown a tool
// result it answers with that result. It counts its calls and how many run
// at once.
type weatherModel struct {
	delay    time.Duration
	calls    atomic.Int64
	inFlight atomic.Int64
	maxSeen  atomic.Int64
	mu       sync.Mutex
	models   map[string]int // req.Model → calls
	// block, if set, makes every call wait for ctx to end.
	block bool
}

func (m *weatherModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	m.calls.Add(1)
	n := m.inFlight.Add(1)
	defer m.inFlight.Add(-1)
	for {
		old := m.maxSeen.Load()
		if n <= old || m.maxSeen.CompareAndSwap(old, n) {
			break
		}
	}
	m.mu.Lock()
	if m.models == nil {
		m.models = map[string]int{}
	}
	m.models[req.Model]++
	m.mu.Unlock()
	if m.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	last := req.Messages[len(req.Messages)-1]
	usage := llm.Usage{InputTokens: 50, OutputTokens: 5}
	if last.Role == llm.RoleTool {
		return &llm.Response{Model: req.Model, Message: llm.Message{Role: llm.RoleAssistant, Content: "Answer: " + last.Content}, Usage: usage}, nil
	}
	tool, arg, _ := strings.Cut(last.Content, ": ")
	if tool == "none" {
		return &llm.Response{Model: req.Model, Message: llm.Message{Role: llm.RoleAssistant, Content: "No tool needed."}, Usage: usage}, nil
	}
	args, _ := json.Marshal(map[string]any{"city": arg})
	if tool == "delete_everything" {
		args = json.RawMessage(`{"confirm":false}`)
	}
	return &llm.Response{Model: req.Model, Usage: usage, Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: tool, Arguments: args}}}}, nil
}

// fixtureClient serves the fixture over HTTP and returns a connected
// client with its tools.
func fixtureClient(t testing.TB) (*mcptest.Server, *mcp.Client, []mcp.Tool) {
	t.Helper()
	fx, c, tools := connect.HTTP(t, mcptest.Options{}, mcp.Options{})
	return fx.Server, c, tools
}

// makeJobs builds cases × models × runs jobs; case i asks for the forecast
// of city i, except every fourth case, which is negative.
func makeJobs(tools []mcp.Tool, cases int, models []string, runs int) []Job {
	var jobs []Job
	for i := range cases {
		prompt := fmt.Sprintf("get_forecast: City%d", i)
		if i%4 == 3 {
			prompt = fmt.Sprintf("none: case %d", i)
		}
		for _, m := range models {
			for r := range runs {
				jobs = append(jobs, Job{CaseID: fmt.Sprintf("case-%02d", i), Model: m, Run: r,
					Task: agent.Task{Prompt: prompt, Tools: tools, MaxTurns: 4}})
			}
		}
	}
	return jobs
}

func TestRunnerOrderAndConcurrency(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureClient(t)
	m := &weatherModel{delay: 10 * time.Millisecond}
	r := &Runner{Providers: map[string]agent.Model{"openai": m}, Server: c, Concurrency: 4}
	jobs := makeJobs(tools, 8, []string{"openai:m1", "openai:m2"}, 3)
	results := r.Run(t.Context(), jobs)
	if len(results) != len(jobs) {
		t.Fatalf("%d results for %d jobs", len(results), len(jobs))
	}
	forecasts := 0
	for i, res := range results {
		if d := cmp.Diff(jobs[i].CaseID+jobs[i].Model, res.Job.CaseID+res.Job.Model); d != "" || res.Job.Run != jobs[i].Run {
			t.Errorf("result %d is for %s %s run %d; want job order", i, res.Job.CaseID, res.Job.Model, res.Job.Run)
		}
		if res.Transcript == nil || res.Transcript.Stop != agent.StopFinal || res.Cached {
			t.Fatalf("result %d: %+v; want a fresh final transcript", i, res.Transcript)
		}
		forecasts += len(res.Transcript.Calls)
	}
	if got := m.maxSeen.Load(); got > 4 || got < 2 {
		t.Errorf("at most %d model calls ran at once; want between 2 and the limit 4", got)
	}
	if got := fx.Calls()["get_forecast"]; got != forecasts {
		t.Errorf("server ran get_forecast %d times; transcripts record %d", got, forecasts)
	}
	// The model name reaches the provider without the "openai:" prefix.
	if d := cmp.Diff(map[string]int{"m1": 8*3 + 6*3, "m2": 8*3 + 6*3}, m.models); d != "" {
		t.Errorf("model calls by name (-want +got):\n%s", d)
	}
}

func TestRunnerProviders(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	oa, an := &weatherModel{}, &weatherModel{}
	r := &Runner{Providers: map[string]agent.Model{"openai": oa, "anthropic": an}, Server: c}
	task := agent.Task{Prompt: "none: hi", Tools: tools}
	results := r.Run(t.Context(), []Job{
		{CaseID: "a", Model: "openai:gpt-x", Task: task},
		{CaseID: "b", Model: "anthropic:claude-y", Task: task},
		{CaseID: "c", Model: "gemini:z", Task: task},
		{CaseID: "d", Model: "nocolon", Task: task},
	})
	var got []string
	for _, res := range results {
		got = append(got, res.Transcript.Stop)
	}
	if d := cmp.Diff([]string{"final", "final", "error", "error"}, got); d != "" {
		t.Errorf("stops (-want +got):\n%s", d)
	}
	if oa.models["gpt-x"] != 1 || an.models["claude-y"] != 1 {
		t.Errorf("openai saw %v, anthropic %v", oa.models, an.models)
	}
	// A provider missing from the map is a per-run error naming it.
	r2 := &Runner{Providers: map[string]agent.Model{"openai": oa}, Server: c}
	res := r2.Run(t.Context(), []Job{{CaseID: "e", Model: "anthropic:claude-y", Task: task}})
	if tr := res[0].Transcript; tr.Stop != agent.StopError || !strings.Contains(tr.Err, "no anthropic provider") {
		t.Errorf("missing provider: %+v", tr)
	}
}

func TestRunnerCancel(t *testing.T) {
	t.Parallel()
	_, c, tools := fixtureClient(t)
	m := &weatherModel{block: true}
	r := &Runner{Providers: map[string]agent.Model{"openai": m}, Server: c, Concurrency: 3}
	jobs := makeJobs(tools, 20, []string{"openai:m"}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for m.inFlight.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	results := r.Run(ctx, jobs)
	// The blocked model never answers: without the cancel Run would not
	// return at all, so the time is a hang guard, not a speed bound.
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("Run took %v after cancel; want prompt return", d)
	}
	notStarted := 0
	for i, res := range results {
		if res.Transcript == nil || res.Transcript.Stop != agent.StopError {
			t.Fatalf("result %d: %+v; want an error transcript", i, res.Transcript)
		}
		if strings.Contains(res.Transcript.Err, "not started") {
			notStarted++
		}
	}
	if notStarted < len(jobs)-3 || m.calls.Load() > 3 {
		t.Errorf("%d jobs not started and %d model calls; want at most 3 started", notStarted, m.calls.Load())
	}
}

func TestRunnerWarnsAboutWrites(t *testing.T) {
	t.Parallel()
	fx, c, tools := fixtureClient(t)
	var out bytes.Buffer
	r := &Runner{Providers: map[string]agent.Model{"openai": &weatherModel{}}, Server: c, Progress: &out}
	task := agent.Task{Prompt: "delete_everything: x", Tools: tools}
	stubbed := task
	stubbed.Stubs = map[string]json.RawMessage{"delete_everything": json.RawMessage(`"deleted"`)}
	results := r.Run(t.Context(), []Job{
		{CaseID: "wipe", Model: "openai:m", Task: task},
		{CaseID: "wipe", Model: "openai:m", Run: 1, Task: task},
		{CaseID: "wipe-stubbed", Model: "openai:m", Task: stubbed},
	})
	if n := fx.Calls()["delete_everything"]; n != 2 {
		t.Errorf("delete_everything ran %d times; want 2 (the stubbed case never)", n)
	}
	if d := cmp.Diff(map[string]int{"delete_everything": 2}, ExecutedWrites(results)); d != "" {
		t.Errorf("ExecutedWrites (-want +got):\n%s", d)
	}
	if got := strings.Count(out.String(), "warning: delete_everything is not marked readOnlyHint"); got != 1 {
		t.Errorf("output has the warning %d times; want once:\n%s", got, out.String())
	}
}

func TestRunnerEmpty(t *testing.T) {
	t.Parallel()
	if got := (&Runner{}).Run(t.Context(), nil); len(got) != 0 {
		t.Errorf("got %d results for no jobs", len(got))
	}
}

// fakeClock is a settable clock for the progress tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeProgress is a progress reporter of total jobs writing into out (as
// to a terminal when tty), on a fake clock.
func fakeProgress(tty bool, total int) (p *runProgress, clk *fakeClock, out *bytes.Buffer) {
	clk = &fakeClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	out = &bytes.Buffer{}
	return newRunProgress(out, tty, total, clk.now), clk, out
}

func TestProgressLog(t *testing.T) {
	t.Parallel()
	p, clk, out := fakeProgress(false, 20)
	done := Result{Transcript: &agent.Transcript{Stop: agent.StopFinal, ModelCalls: 2}}
	// One job: under 10% and under 10 s, so no line yet.
	clk.advance(time.Second)
	p.record(Result{Transcript: &agent.Transcript{Stop: agent.StopError, Err: "boom", ModelCalls: 1}})
	if out.Len() != 0 {
		t.Fatalf("early line: %q", out.String())
	}
	// The second job reaches 10%.
	p.record(done)
	// Nothing finishes for 10 s: the ticker still prints, a line each time
	// 4 s have passed since the last (never 5 s of silence).
	clk.advance(5 * time.Second)
	p.tick()
	clk.advance(5 * time.Second)
	p.tick()
	p.record(Result{Transcript: &agent.Transcript{Stop: agent.StopFinal}, Cached: true})
	// The run stops short of the next step (cancelled): finish adds the
	// last state.
	p.finish()
	want := "behavior: 2/20 runs (10%), 1s elapsed, ≈ 9s left, 3 model calls, 1 errored\n" +
		"behavior: 2/20 runs (10%), 6s elapsed, ≈ 54s left, 3 model calls, 1 errored\n" +
		"behavior: 2/20 runs (10%), 11s elapsed, ≈ 1m39s left, 3 model calls, 1 errored\n" +
		"behavior: 3/20 runs (15%), 11s elapsed, ≈ 1m2s left, 3 model calls, 1 cached, 1 errored\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("log (-want +got):\n%s", d)
	}
}

func TestProgressTTY(t *testing.T) {
	t.Parallel()
	p, clk, out := fakeProgress(true, 3)
	done := Result{Transcript: &agent.Transcript{Stop: agent.StopFinal, ModelCalls: 1}}
	clk.advance(time.Second)
	p.record(done)
	p.record(done) // within 100 ms of the last redraw: skipped
	p.warnOnce("k", "warning: x")
	p.warnOnce("k", "warning: x")
	clk.advance(time.Second)
	p.record(done)
	p.finish()
	want := "\rbehavior: 1/3 runs (33%), 1s elapsed, ≈ 2s left, 1 model calls\x1b[K" +
		"\r\x1b[K" + "warning: x\n" +
		"\rbehavior: 3/3 runs (100%), 2s elapsed, 3 model calls\x1b[K" +
		"\rbehavior: 3/3 runs (100%), 2s elapsed, 3 model calls\x1b[K\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("tty output (-want +got):\n%s", d)
	}
}

// TestProgressCost: with a price, the line says what the runs that asked a
// model cost so far (replayed runs cost nothing); a model without a price
// makes it unknown, so none is shown.
func TestProgressCost(t *testing.T) {
	t.Parallel()
	p, _, out := fakeProgress(false, 2)
	p.cost = func(model string, u llm.Usage) (float64, bool) {
		if model == "x:free" {
			return 0, false
		}
		return float64(u.InputTokens) / 1e6, true
	}
	p.record(Result{Job: Job{Model: "openai:m"}, Transcript: &agent.Transcript{Stop: agent.StopFinal, ModelCalls: 1, Usage: llm.Usage{InputTokens: 12345}}})
	p.record(Result{Job: Job{Model: "openai:m"}, Cached: true, Transcript: &agent.Transcript{Stop: agent.StopFinal, Usage: llm.Usage{InputTokens: 99999}}})
	if got := out.String(); !strings.Contains(got, "1 model calls, $0.0123 so far") {
		t.Errorf("progress %q: want the cost of the one live run", got)
	}
	p.record(Result{Job: Job{Model: "x:free"}, Transcript: &agent.Transcript{Stop: agent.StopFinal, ModelCalls: 1, Usage: llm.Usage{InputTokens: 1}}})
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.costLocked(); ok {
		t.Error("a cost is shown although a model has no price")
	}
}

func TestProgressSilent(t *testing.T) {
	t.Parallel()
	p := newRunProgress(nil, false, 5, time.Now)
	// A nil progress accepts every call.
	p.record(Result{Transcript: &agent.Transcript{}})
	p.tick()
	p.warnOnce("a", "b")
	p.finish()
}

// errModel always fails, like a provider that is down.
type errModel struct{ calls atomic.Int64 }

func (m *errModel) Complete(context.Context, llm.Request) (*llm.Response, error) {
	m.calls.Add(1)
	return nil, errors.New("openai: HTTP 503: overloaded")
}
