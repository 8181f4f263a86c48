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

	tools := map[string][]report.Latency{}
	models := map[string][]report.ModelUsage{}
	for _, t := range shards {
		for k, l := range t.ToolCalls {
			tools[k] = append(tools[k], l)
		}
		for k, m := range t.Models {
			models[k] = append(models[k], m)
		}
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
	if len(tools) > 0 {
		out.ToolCalls = map[string]report.Latency{}
	}
	for k, ls := range tools {
		var parts []part
		var l report.Latency
		for _, x := range ls {
			parts = append(parts, part{x.Count, x.SamplesMs, x.Source})
			l.Errors += x.Errors
			l.CachedCount += x.CachedCount
		}
		sum, src, missing := pool(parts)
		if missing {
			note("Tool %s: a shard kept no latency samples, so its calls are counted but not in the percentiles.", k)
		}
		l.P50Ms, l.P95Ms, l.P99Ms, l.Count, l.SamplesMs, l.Source = sum.p50, sum.p95, sum.p99, sum.count, sum.samples, src
		out.ToolCalls[k] = l
	}
	if len(models) > 0 {
		out.Models = map[string]report.ModelUsage{}
	}
	for k, ms := range models {
		var parts []part
		var m report.ModelUsage
		for _, x := range ms {
			parts = append(parts, part{x.Count, x.SamplesMs, x.Source})
			m.Errors += x.Errors
			m.CachedCount += x.CachedCount
			m.InputTokens += x.InputTokens
			m.OutputTokens += x.OutputTokens
			m.CachedInputTokens += x.CachedInputTokens
			m.CacheWriteTokens += x.CacheWriteTokens
			m.ReasoningTokens += x.ReasoningTokens
			m.CostUSD += x.CostUSD
			m.CostUnknown = m.CostUnknown || x.CostUnknown
			if m.Price == nil && x.Price != nil {
				p := *x.Price
				m.Price = &p
			}
		}
		m.CostUSD = roundUSD(m.CostUSD)
		sum, src, missing := pool(parts)
		if missing {
			note("Model %s: a shard kept no latency samples, so its calls are counted but not in the percentiles.", k)
		}
		m.P50Ms, m.P95Ms, m.P99Ms, m.Count, m.SamplesMs, m.Source = sum.p50, sum.p95, sum.p99, sum.count, sum.samples, src
		out.Models[k] = m
	}
	for n := range notes {
		out.Notes = append(out.Notes, n)
	}
	sort.Strings(out.Notes)
	return out
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
