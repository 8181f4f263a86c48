package telemetry

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// ProbePrefix starts the names of the tools, prompts and resources that
// conformance and resilience probes invent (DESIGN.md); their calls are
// not telemetry.
const ProbePrefix = "mcp-eval-probe"

// Sources of a latency summary (report.Latency.Source).
const (
	SourceLive  = "live"
	SourceCache = "cache"
	SourceMixed = "mixed"
)

// Run is one run of a golden case as telemetry needs it. main builds it
// from golden's results; telemetry does not import golden.
type Run struct {
	Case string
	// Model is the spec "provider:model", as in report.Case.Model.
	Model      string
	Transcript *agent.Transcript
	// Cached says the result cache answered the run: no call was made.
	Cached bool
}

// Recorder accumulates Layer 3 measurements. It implements mcp.Observer
// and llm.Observer; all methods are safe for concurrent use. The zero value
// is not usable: call New or FromTranscripts.
type Recorder struct {
	prices *Prices
	// transcripts: no observer is attached, so the transcripts of fresh
	// runs are the live measurements (FromTranscripts).
	transcripts bool

	mu       sync.Mutex
	tools    map[string]*keyStats
	models   map[string]*keyStats
	cases    map[caseKey]*caseStats
	toolList *report.ToolListFootprint
}

var (
	_ mcp.Observer = (*Recorder)(nil)
	_ llm.Observer = (*Recorder)(nil)
)

type caseKey struct{ id, model string }

// keyStats is what is known of one tool or model.
type keyStats struct {
	live, cached           series
	liveUsage, cachedUsage llm.Usage
}

type caseStats struct {
	usage llm.Usage
}

// New returns a Recorder that prices with p (nil: the built-in table).
// Attach it as the mcp and llm observer, then call AddRuns with the runs.
func New(p *Prices) *Recorder {
	if p == nil {
		p = BuiltinPrices()
	}
	return &Recorder{
		prices: p,
		tools:  map[string]*keyStats{},
		models: map[string]*keyStats{},
		cases:  map[caseKey]*caseStats{},
	}
}

func stats(m map[string]*keyStats, key string) *keyStats {
	s := m[key]
	if s == nil {
		s = &keyStats{live: series{seed: key}, cached: series{seed: key}}
		m[key] = s
	}
	return s
}

// RequestDone implements mcp.Observer: it times tools/call exchanges by
// tool name, leaving out probes and every other method.
func (r *Recorder) RequestDone(method, name string, d time.Duration, _ int, err error) {
	if method != "tools/call" || name == "" || strings.HasPrefix(name, ProbePrefix) {
		return
	}
	r.mu.Lock()
	s := stats(r.tools, name)
	s.live.observe(d, err)
	r.mu.Unlock()
}

// RequestStart implements llm.Observer; the duration comes with RequestEnd.
func (r *Recorder) RequestStart(provider, model string) {}

// RequestEnd implements llm.Observer: one HTTP request to a model API,
// keyed "provider:model".
func (r *Recorder) RequestEnd(provider, model string, d time.Duration, u llm.Usage, err error) {
	key := provider + ":" + model
	r.mu.Lock()
	s := stats(r.models, key)
	s.live.observe(d, err)
	s.liveUsage.Add(u)
	r.mu.Unlock()
}

// AddRuns adds golden runs: their usage to their case always, and their
// latencies and usage to the per-tool and per-model figures when the
// observers did not see them (cached runs, or every run for a Recorder
// from FromTranscripts). See the package comment for why.
func (r *Recorder) AddRuns(runs []Run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, run := range runs {
		tr := run.Transcript
		if tr == nil {
			continue
		}
		cs := r.cases[caseKey{run.Case, run.Model}]
		if cs == nil {
			cs = &caseStats{}
			r.cases[caseKey{run.Case, run.Model}] = cs
		}
		cs.usage.Add(tr.Usage)
		if !run.Cached && !r.transcripts {
			continue // the observers measured this run as it happened
		}
		ms := stats(r.models, run.Model)
		pick := func(s *keyStats) *series {
			if run.Cached {
				return &s.cached
			}
			return &s.live
		}
		// A model call failed when the run stopped on an error after more
		// calls than answered turns; that call is the last one timed.
		failed := tr.Stop == agent.StopError && tr.Turns < tr.ModelCalls
		for i, d := range tr.ModelLatencies {
			if failed && i == len(tr.ModelLatencies)-1 {
				pick(ms).errors++
				continue
			}
			pick(ms).add(d)
		}
		if run.Cached {
			ms.cachedUsage.Add(tr.Usage)
		} else {
			ms.liveUsage.Add(tr.Usage)
		}
		for _, c := range tr.Calls {
			if c.Executed && c.Name != "" {
				pick(stats(r.tools, c.Name)).add(c.Duration)
			}
		}
	}
}

// SetToolList records the tool list whose token footprint the report
// shows (see Footprint).
func (r *Recorder) SetToolList(tools []mcp.Tool) {
	f := Footprint(tools)
	r.mu.Lock()
	r.toolList = f
	r.mu.Unlock()
}

// latency summarises a key: its live calls when there were any, else the
// calls replayed from the cache.
func latency(s *keyStats) report.Latency {
	src, ser := SourceLive, &s.live
	if s.live.n == 0 && s.live.errors == 0 && s.cached.n > 0 {
		src, ser = SourceCache, &s.cached
	}
	sum := ser.summary()
	return report.Latency{
		P50Ms: sum.p50, P95Ms: sum.p95, P99Ms: sum.p99, Count: sum.count, Errors: ser.errors,
		Source: src, CachedCount: s.cached.n, SamplesMs: sum.samples,
	}
}

// Telemetry returns the measurements as report.Telemetry.
func (r *Recorder) Telemetry() *report.Telemetry {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &report.Telemetry{Prices: r.prices.Table()}
	if r.toolList != nil {
		tl := *r.toolList
		t.ToolList = &tl
	}
	var replayed, unpriced, noUsage []string
	// lat summarises the key s of kind ("tool" or "model"), noting it when
	// its latencies are replayed ones.
	lat := func(kind, key string, s *keyStats) report.Latency {
		l := latency(s)
		if l.Source == SourceCache {
			replayed = append(replayed, kind+" "+key)
		}
		return l
	}
	if len(r.tools) > 0 {
		t.ToolCalls = map[string]report.Latency{}
	}
	for name, s := range r.tools {
		t.ToolCalls[name] = lat("tool", name, s)
	}
	if len(r.models) > 0 {
		t.Models = map[string]report.ModelUsage{}
	}
	for key, s := range r.models {
		l := lat("model", key, s)
		u := s.liveUsage
		u.Add(s.cachedUsage)
		mu := report.ModelUsage{
			P50Ms: l.P50Ms, P95Ms: l.P95Ms, P99Ms: l.P99Ms, Count: l.Count, Errors: l.Errors,
			Source: l.Source, CachedCount: l.CachedCount, SamplesMs: l.SamplesMs,
			InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CachedInputTokens: u.CachedInputTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
			TokensUnknown: u.Unknown,
		}
		if pr, ok := r.prices.Lookup(key); ok {
			var priced bool
			mu.CostUSD, priced = r.prices.Cost(key, u)
			mu.CostUnknown = !priced
			mu.Price = &report.Price{InputPerMTok: pr.Input, OutputPerMTok: pr.Output,
				CachedInputPerMTok: pr.CachedInput, CacheWritePerMTok: pr.CacheWrite, Source: pr.Source}
			if u.Unknown {
				noUsage = append(noUsage, key)
			}
		} else {
			mu.CostUnknown = true
			unpriced = append(unpriced, key)
		}
		t.Models[key] = mu
	}
	sort.Strings(replayed)
	sort.Strings(unpriced)
	for _, k := range unpriced {
		t.Notes = append(t.Notes, fmt.Sprintf("%s has no price in the table (built-in %s): its cost is unknown, not 0; add it to a price file.", k, BuiltinDate))
	}
	sort.Strings(noUsage)
	for _, k := range noUsage {
		t.Notes = append(t.Notes, fmt.Sprintf("%s answered at least once without token usage: its cost is unknown, not 0.", k))
	}
	if len(replayed) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Latencies of %s were replayed from the result cache (no live call was made): they describe the run that filled the cache.", strings.Join(replayed, ", ")))
	}
	for _, s := range r.models {
		if s.cached.n > 0 {
			t.Notes = append(t.Notes, "Tokens and cost include the runs the result cache answered (cachedCount calls), priced as if they had been made, so that cached and fresh runs compare.")
			break
		}
	}
	return t
}

// CaseUsage returns the usage of a case on a model summed over its runs,
// and its cost (ok false: no price).
func (r *Recorder) CaseUsage(id, model string) (u llm.Usage, cost float64, priced, found bool) {
	r.mu.Lock()
	cs := r.cases[caseKey{id, model}]
	r.mu.Unlock()
	if cs == nil {
		return llm.Usage{}, 0, false, false
	}
	u = cs.usage
	cost, priced = r.prices.Cost(model, u)
	return u, cost, priced, true
}

// Apply fills rep.Telemetry and the tokens and cost of each of rep.Cases
// that has runs in the Recorder. It replaces any telemetry rep had.
func (r *Recorder) Apply(rep *report.Report) {
	rep.Telemetry = r.Telemetry()
	for i := range rep.Cases {
		c := &rep.Cases[i]
		u, cost, priced, found := r.CaseUsage(c.ID, c.Model)
		if !found {
			continue
		}
		c.InputTokens, c.OutputTokens = u.InputTokens, u.OutputTokens
		c.CostUSD = nil
		if priced {
			c.CostUSD = &cost
		}
	}
}
