package telemetry

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/mcp-eval/mcp-eval/report"
)

// Merge pools the telemetry of shard reports of one run (mcp-eval merge):
// counts, errors, tokens and cost add up, and each key's percentiles are
// recomputed from the shards' samples, each sample weighted by the calls
// it stands for (Count/len(SamplesMs)). When no shard thinned its samples
// (at most SampleCap calls per key each), the result equals a computation
// over all calls. A shard without samples for a key it has calls for (a
// report from before samples were kept) adds its counts but not its
// latencies, and a note says so. Nil shards are skipped; Merge returns
// nil when there is nothing to merge.
func Merge(ts ...*report.Telemetry) *report.Telemetry {
	var shards []*report.Telemetry
	for _, t := range ts {
		if t != nil {
			shards = append(shards, t)
		}
	}
	if len(shards) == 0 {
		return nil
	}
	out := &report.Telemetry{}
	notes := map[string]bool{}
	note := func(format string, args ...any) { notes[fmt.Sprintf(format, args...)] = true }

	for _, t := range shards {
		for _, n := range t.Notes {
			notes[n] = true
		}
		if out.ToolList == nil && t.ToolList != nil {
			tl := *t.ToolList
			out.ToolList = &tl
		}
		switch {
		case t.Prices == nil:
		case out.Prices == nil:
			p := *t.Prices
			p.Files = slices.Clone(p.Files)
			out.Prices = &p
		case !samePrices(out.Prices, t.Prices):
			note("The shards used different price tables (%s and %s); each shard's costs are its own.", describePrices(out.Prices), describePrices(t.Prices))
		}
	}
	out.ToolCalls = mergeKeys(shards, "Tool", note, func(t *report.Telemetry) map[string]report.Latency { return t.ToolCalls }, addLatency, setLatency)
	out.Models = mergeKeys(shards, "Model", note, func(t *report.Telemetry) map[string]report.ModelUsage { return t.Models }, addModelUsage, setModelUsage)
	for n := range notes {
		out.Notes = append(out.Notes, n)
	}
	sort.Strings(out.Notes)
	return out
}

// mergeKeys merges the entries of of(shard) (tool calls, or model usage)
// key by key: add folds one shard's entry into the total and returns its
// calls and samples, which pool merges; set stores the pooled percentiles,
// count and samples. kind names the key in the note for a shard without
// samples. It returns nil when no shard has an entry.
func mergeKeys[V any](shards []*report.Telemetry, kind string, note func(string, ...any),
	of func(*report.Telemetry) map[string]V, add func(*V, V) part, set func(*V, summary, string)) map[string]V {
	byKey := map[string][]V{}
	for _, t := range shards {
		for k, v := range of(t) {
			byKey[k] = append(byKey[k], v)
		}
	}
	if len(byKey) == 0 {
		return nil
	}
	out := make(map[string]V, len(byKey))
	for k, vs := range byKey {
		var total V
		parts := make([]part, 0, len(vs))
		for _, v := range vs {
			parts = append(parts, add(&total, v))
		}
		sum, src, missing := pool(parts)
		if missing {
			note("%s %s: a shard kept no latency samples, so its calls are counted but not in the percentiles.", kind, k)
		}
		set(&total, sum, src)
		out[k] = total
	}
	return out
}

// addLatency, setLatency, addModelUsage and setModelUsage are mergeKeys'
// add and set for tool calls and for model usage.

func addLatency(l *report.Latency, x report.Latency) part {
	l.Errors += x.Errors
	l.CachedCount += x.CachedCount
	return part{x.Count, x.SamplesMs, x.Source}
}

func setLatency(l *report.Latency, sum summary, src string) {
	l.P50Ms, l.P95Ms, l.P99Ms, l.Count, l.SamplesMs, l.Source = sum.p50, sum.p95, sum.p99, sum.count, sum.samples, src
}

func addModelUsage(m *report.ModelUsage, x report.ModelUsage) part {
	m.Errors += x.Errors
	m.CachedCount += x.CachedCount
	m.InputTokens += x.InputTokens
	m.OutputTokens += x.OutputTokens
	m.CachedInputTokens += x.CachedInputTokens
	m.CacheWriteTokens += x.CacheWriteTokens
	m.ReasoningTokens += x.ReasoningTokens
	m.CostUSD += x.CostUSD
	m.CostUnknown = m.CostUnknown || x.CostUnknown
	m.TokensUnknown = m.TokensUnknown || x.TokensUnknown
	if m.Price == nil && x.Price != nil {
		p := *x.Price
		m.Price = &p
	}
	return part{x.Count, x.SamplesMs, x.Source}
}

func setModelUsage(m *report.ModelUsage, sum summary, src string) {
	m.CostUSD = roundUSD(m.CostUSD)
	m.P50Ms, m.P95Ms, m.P99Ms, m.Count, m.SamplesMs, m.Source = sum.p50, sum.p95, sum.p99, sum.count, sum.samples, src
}

// part is one shard's calls of one key.
type part struct {
	count   int
	samples []float64
	source  string
}

// pool merges the parts' samples. missing says a part had calls but no
// samples.
func pool(parts []part) (s summary, source string, missing bool) {
	var ws []weighted
	thinned := false
	for _, p := range parts {
		s.count += p.count
		switch {
		case source == "":
			source = p.source
		case p.source != "" && p.source != source:
			source = SourceMixed
		}
		if len(p.samples) == 0 {
			missing = missing || p.count > 0
			continue
		}
		w := 1.0
		if p.count > len(p.samples) {
			w = float64(p.count) / float64(len(p.samples))
			thinned = true
		}
		for _, v := range p.samples {
			ws = append(ws, weighted{v, w})
		}
	}
	if len(ws) == 0 {
		return s, source, missing
	}
	slices.SortStableFunc(ws, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	s.p50, s.p95, s.p99 = weightedPercentile(ws, 50), weightedPercentile(ws, 95), weightedPercentile(ws, 99)
	if !thinned && len(ws) <= SampleCap {
		s.samples = make([]float64, len(ws))
		for i, x := range ws {
			s.samples[i] = x.v
		}
	} else {
		s.samples = thinWeighted(ws)
	}
	return s, source, missing
}

func samePrices(a, b *report.PriceTable) bool {
	return a.Date == b.Date && slices.Equal(a.Files, b.Files)
}

func describePrices(p *report.PriceTable) string {
	s := "built-in " + p.Date
	for _, f := range p.Files {
		s += " + " + f
	}
	return s
}
