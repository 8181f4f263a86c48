package telemetry

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func usage(in, out int64) llm.Usage { return llm.Usage{InputTokens: in, OutputTokens: out} }

const msec = time.Millisecond

func TestRecorderObservers(t *testing.T) {
	t.Parallel()
	r := New(nil)
	var wg sync.WaitGroup
	// Concurrent observers, as the transports and providers call them.
	for i := range 20 {
		wg.Go(func() {
			r.RequestDone("tools/call", "get_forecast", time.Duration(10+i)*msec, 100, nil)
			r.RequestStart("openai", "gpt-4.1-mini")
			r.RequestEnd("openai", "gpt-4.1-mini", time.Duration(100+i)*msec, usage(1000, 50), nil)
		})
	}
	wg.Wait()
	// Not telemetry: other methods, probes, unnamed raw requests.
	r.RequestDone("tools/list", "", 5*msec, 10, nil)
	r.RequestDone("tools/call", "mcp-eval-probe-missing", 5*msec, 10, nil)
	r.RequestDone("tools/call", "", 5*msec, 10, nil)
	// Failures are counted apart from the percentiles.
	r.RequestDone("tools/call", "get_forecast", 10*time.Second, 0, &mcp.TimeoutError{Method: "tools/call", After: 10 * time.Second})
	r.RequestEnd("openai", "gpt-4.1-mini", 2*msec, llm.Usage{}, errors.New("429"))
	r.RequestEnd("openai", "local-llama", 40*msec, usage(10, 10), nil)

	tel := r.Telemetry()
	if len(tel.ToolCalls) != 1 {
		t.Fatalf("tools: %v", tel.ToolCalls)
	}
	gf := tel.ToolCalls["get_forecast"]
	// 10…29 ms: p50 is the 10th (19 ms), p95 the 19th (28 ms), p99 the 20th.
	if gf.Count != 20 || gf.Errors != 1 || gf.P50Ms != 19 || gf.P95Ms != 28 || gf.P99Ms != 29 || gf.Source != SourceLive || len(gf.SamplesMs) != 20 {
		t.Errorf("get_forecast: %+v", gf)
	}
	m := tel.Models["openai:gpt-4.1-mini"]
	// 20 × (1000 in, 50 out) at $0.40/$1.60: 0.008 + 0.0016.
	if m.Count != 20 || m.Errors != 1 || m.P50Ms != 109 || m.InputTokens != 20000 || m.OutputTokens != 1000 || m.CostUSD != 0.0096 || m.CostUnknown || m.Price == nil || m.Price.InputPerMTok != 0.40 {
		t.Errorf("gpt-4.1-mini: %+v", m)
	}
	l := tel.Models["openai:local-llama"]
	if !l.CostUnknown || l.CostUSD != 0 || l.Price != nil {
		t.Errorf("local-llama: %+v", l)
	}
	if len(tel.Notes) != 1 || !strings.Contains(tel.Notes[0], "openai:local-llama has no price") {
		t.Errorf("notes: %q", tel.Notes)
	}
	if tel.Prices == nil || tel.Prices.Date != BuiltinDate {
		t.Errorf("prices: %+v", tel.Prices)
	}
}

func transcript(lat []time.Duration, calls map[string]time.Duration, in, out int64) *agent.Transcript {
	tr := &agent.Transcript{Stop: agent.StopFinal, ModelLatencies: lat, ModelCalls: len(lat), Turns: len(lat), Usage: usage(in, out)}
	for name, d := range calls {
		tr.Calls = append(tr.Calls, agent.Call{Name: name, Executed: true, Duration: d})
	}
	return tr
}

// TestRecorderCachedRuns: what the observers saw is authoritative; cached
// runs add tokens and cost always, latencies only where nothing was live.
func TestRecorderCachedRuns(t *testing.T) {
	t.Parallel()
	r := New(nil)
	// One fresh run, seen by the observers (and its transcript too).
	r.RequestEnd("openai", "gpt-4.1-mini", 300*msec, usage(1000, 100), nil)
	r.RequestDone("tools/call", "get_forecast", 60*msec, 10, nil)
	fresh := transcript([]time.Duration{301 * msec}, map[string]time.Duration{"get_forecast": 61 * msec}, 1000, 100)
	// Two cached runs, one of a tool the fresh run never called.
	c1 := transcript([]time.Duration{500 * msec}, map[string]time.Duration{"get_forecast": 90 * msec}, 1000, 100)
	c2 := transcript([]time.Duration{700 * msec}, map[string]time.Duration{"lookup_region": 120 * msec}, 2000, 200)
	stubbed := &agent.Transcript{Stop: agent.StopFinal, Calls: []agent.Call{{Name: "delete_everything", Stubbed: true, Duration: msec}}}
	r.AddRuns([]Run{
		{Case: "weather", Model: "openai:gpt-4.1-mini", Transcript: fresh},
		{Case: "weather", Model: "openai:gpt-4.1-mini", Transcript: c1, Cached: true},
		{Case: "region", Model: "openai:gpt-4.1-mini", Transcript: c2, Cached: true},
		{Case: "stub", Model: "openai:gpt-4.1-mini", Transcript: stubbed},
		{Case: "broken", Model: "openai:gpt-4.1-mini"}, // no transcript
	})
	tel := r.Telemetry()

	gf := tel.ToolCalls["get_forecast"]
	if gf.Count != 1 || gf.P50Ms != 60 || gf.Source != SourceLive || gf.CachedCount != 1 {
		t.Errorf("get_forecast: live only, the cached call noted: %+v", gf)
	}
	lr := tel.ToolCalls["lookup_region"]
	if lr.Count != 1 || lr.P50Ms != 120 || lr.Source != SourceCache || lr.CachedCount != 1 {
		t.Errorf("lookup_region: replayed: %+v", lr)
	}
	if _, ok := tel.ToolCalls["delete_everything"]; ok {
		t.Error("a stubbed call was timed")
	}
	m := tel.Models["openai:gpt-4.1-mini"]
	if m.Count != 1 || m.P50Ms != 300 || m.Source != SourceLive || m.CachedCount != 2 {
		t.Errorf("model latency: live only: %+v", m)
	}
	// Tokens: the live 1000/100 (not again from the fresh transcript) plus
	// the cached 3000/300.
	if m.InputTokens != 4000 || m.OutputTokens != 400 {
		t.Errorf("model tokens: %d in, %d out; want 4000, 400", m.InputTokens, m.OutputTokens)
	}
	notes := strings.Join(tel.Notes, "\n")
	if !strings.Contains(notes, "tool lookup_region were replayed from the result cache") || !strings.Contains(notes, "include the runs the result cache answered") {
		t.Errorf("notes: %s", notes)
	}

	rep := &report.Report{Cases: []report.Case{
		{ID: "weather", Model: "openai:gpt-4.1-mini", Runs: 2},
		{ID: "region", Model: "openai:gpt-4.1-mini", Runs: 1},
		{ID: "weather", Model: "anthropic:claude-sonnet-4-5", Runs: 1}, // no runs recorded
	}}
	r.Apply(rep)
	w := rep.Cases[0]
	// 2000 in, 200 out at $0.40/$1.60: 0.0008 + 0.00032.
	if w.InputTokens != 2000 || w.OutputTokens != 200 || w.CostUSD == nil || *w.CostUSD != 0.00112 {
		t.Errorf("case weather: %d, %d, %v", w.InputTokens, w.OutputTokens, w.CostUSD)
	}
	if rc := rep.Cases[1]; rc.InputTokens != 2000 || rc.CostUSD == nil || *rc.CostUSD != 0.00112 {
		t.Errorf("case region: %+v", rc)
	}
	if o := rep.Cases[2]; o.InputTokens != 0 || o.CostUSD != nil {
		t.Errorf("case without runs got figures: %+v", o)
	}
	if rep.Telemetry == nil || rep.Telemetry.Models["openai:gpt-4.1-mini"].InputTokens != 4000 {
		t.Errorf("Apply did not fill the telemetry")
	}
}

func TestFromTranscripts(t *testing.T) {
	t.Parallel()
	fresh := transcript([]time.Duration{300 * msec, 100 * msec}, map[string]time.Duration{"get_forecast": 60 * msec}, 1000, 100)
	cached := transcript([]time.Duration{900 * msec}, map[string]time.Duration{"get_forecast": 99 * msec}, 500, 50)
	failed := &agent.Transcript{Stop: agent.StopError, ModelCalls: 2, Turns: 1, ModelLatencies: []time.Duration{200 * msec, 5 * msec}, Usage: usage(10, 1)}
	r := FromTranscripts(nil, []Run{
		{Case: "a", Model: "anthropic:claude-haiku-4-5", Transcript: fresh},
		{Case: "a", Model: "anthropic:claude-haiku-4-5", Transcript: cached, Cached: true},
		{Case: "b", Model: "anthropic:claude-haiku-4-5", Transcript: failed},
	})
	tel := r.Telemetry()
	m := tel.Models["anthropic:claude-haiku-4-5"]
	// Live: 300, 100 and 200 ms (the failed run's last call is an error).
	if m.Count != 3 || m.Errors != 1 || m.P50Ms != 200 || m.Source != SourceLive || m.CachedCount != 1 {
		t.Errorf("model: %+v", m)
	}
	// 1510 in, 151 out at $1/$5.
	if m.InputTokens != 1510 || m.OutputTokens != 151 || m.CostUSD != 0.002265 {
		t.Errorf("tokens and cost: %+v", m)
	}
	if gf := tel.ToolCalls["get_forecast"]; gf.Count != 1 || gf.P50Ms != 60 || gf.Source != SourceLive {
		t.Errorf("tool: %+v", gf)
	}
	if u, cost, priced, ok := r.CaseUsage("a", "anthropic:claude-haiku-4-5"); !ok || !priced || u.InputTokens != 1500 || cost != 0.00225 {
		t.Errorf("case a: %+v %v %v %v", u, cost, priced, ok)
	}
}

// TestUnpricedCase: a case on a model without a price has tokens and no
// cost at all (absent, not 0) in report.json.
func TestUnpricedCase(t *testing.T) {
	t.Parallel()
	r := FromTranscripts(nil, []Run{{Case: "a", Model: "openai:llama3.2", Transcript: transcript(nil, nil, 10, 5)}})
	rep := &report.Report{Cases: []report.Case{{ID: "a", Model: "openai:llama3.2", Runs: 1}}}
	r.Apply(rep)
	b, err := json.Marshal(rep.Cases[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"inputTokens":10`) || strings.Contains(string(b), "costUsd") {
		t.Errorf("case JSON: %s", b)
	}
	if !rep.Telemetry.Models["openai:llama3.2"].CostUnknown {
		t.Error("model cost not marked unknown")
	}
}

func TestFootprint(t *testing.T) {
	t.Parallel()
	if Footprint(nil) != nil {
		t.Error("footprint of no tools")
	}
	tools := []mcp.Tool{
		{Name: "a", Description: "d", InputSchema: json.RawMessage(`{ "type" : "object" }`), Title: "ignored", OutputSchema: json.RawMessage(`{"type":"object","properties":{"x":{}}}`)},
		{Name: "b", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"}}}`)},
	}
	f := Footprint(tools)
	// {"name":"a","description":"d","inputSchema":{"type":"object"}} is 59 bytes.
	a := len(`{"name":"a","description":"d","inputSchema":{"type":"object"}}`)
	b := len(`{"name":"b","inputSchema":{"type":"object","properties":{"city":{"type":"string","description":"City name"}}}}`)
	if f.Tools != 2 || f.Bytes != a+b || f.EstimatedTokens != int64((a+b+3)/4) {
		t.Errorf("footprint %+v, want %d bytes", f, a+b)
	}
	if f.PerTool["a"] != int64((a+3)/4) || f.PerTool["b"] != int64((b+3)/4) || !strings.HasPrefix(f.Method, "estimate") {
		t.Errorf("per tool %v, method %q", f.PerTool, f.Method)
	}
	r := New(nil)
	r.SetToolList(tools)
	if tl := r.Telemetry().ToolList; tl == nil || tl.Bytes != f.Bytes {
		t.Errorf("recorder tool list: %+v", tl)
	}
}

func TestObserverFanout(t *testing.T) {
	t.Parallel()
	a, b := New(nil), New(nil)
	mo := MCPObservers(a, nil, b)
	lo := LLMObservers(nil, a, b)
	mo.RequestDone("tools/call", "x", msec, 1, nil)
	lo.RequestStart("openai", "gpt-4o")
	lo.RequestEnd("openai", "gpt-4o", msec, usage(1, 1), nil)
	for _, r := range []*Recorder{a, b} {
		tel := r.Telemetry()
		if tel.ToolCalls["x"].Count != 1 || tel.Models["openai:gpt-4o"].Count != 1 {
			t.Errorf("fan-out missed an observer: %+v", tel)
		}
	}
}

// FromTranscripts returns a Recorder fed only by the transcripts of runs,
// for a caller that attached no observer (or replays a run): latencies of
// fresh runs are the agent's own timings, cached runs count as replayed.
func FromTranscripts(p *Prices, runs []Run) *Recorder {
	r := New(p)
	r.transcripts = true
	r.AddRuns(runs)
	return r
}
