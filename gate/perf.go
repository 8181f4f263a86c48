package gate

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/report"
)

// PerfMode says what a latency or cost increase beyond its bound does. It
// is a flag.Value (--perf-gate warn|fail). The default is to warn: CI
// runners differ from run to run in CPU, network and neighbours, so a
// slower p95 is as likely the machine as the change; a team with pinned
// runners can make it fail.
type PerfMode int

// Perf modes. The zero value is PerfWarn, the default.
const (
	PerfWarn PerfMode = iota // report the increase in the notes
	PerfFail                 // fail the gate on it
)

var _ flag.Value = (*PerfMode)(nil)

// String returns the flag spelling of the mode.
func (m PerfMode) String() string { return modeString(m, PerfFail) }

// Set parses the flag spelling of the mode.
func (m *PerfMode) Set(s string) error { return setMode(m, s, "perf gate mode", PerfWarn, PerfFail) }

// MinLatencyIncreaseMs is the absolute rise below which a p95 latency
// increase is never flagged, whatever its relative size: on a fast tool
// (0.4 ms to 0.6 ms is +50%) it is scheduling noise, not a regression.
const MinLatencyIncreaseMs = 1.0

func (p Policy) validatePerf() []error {
	var errs []error
	for _, l := range []struct {
		name string
		v    float64
	}{{"max-latency-increase", p.MaxLatencyIncrease}, {"max-cost-increase", p.MaxCostIncrease}} {
		if l.v < 0 || math.IsNaN(l.v) || math.IsInf(l.v, 0) {
			errs = append(errs, fmt.Errorf("%s %v: want a relative increase of 0 or more (0.25 allows +25%%; 0 sets no bound)", l.name, l.v))
		}
	}
	if p.Perf != PerfWarn && p.Perf != PerfFail {
		errs = append(errs, errors.New("perf gate mode: want warn or fail"))
	}
	return errs
}

// perf compares p95 latency per tool and per model, and cost per run of
// each case, with the baseline. Every figure both reports have is listed
// in Decision.Perf; those beyond a bound are warnings in the notes, or
// reasons under PerfFail. Latency is compared only when this run measured
// it live: latencies replayed from the result cache describe the run that
// filled the cache. Cost is compared per run, so a change of --runs does
// not read as a cost change.
func (e *evaluator) perf() {
	limited := e.p.MaxLatencyIncrease > 0 || e.p.MaxCostIncrease > 0
	if e.base == nil {
		return // the no-baseline note already says nothing was compared
	}
	ct, bt := e.cur.Telemetry, e.base.Telemetry
	if ct == nil || bt == nil {
		if limited && ct != nil {
			e.note("The baseline report has no telemetry, so latency and cost were not compared with it.")
		}
		return
	}
	cacheOnly := append(e.perfTools(ct, bt), e.perfModels(ct, bt)...)
	unpriced := e.perfCases()
	if limited && len(cacheOnly) > 0 {
		e.note("Latency of %s was not compared with the baseline: this run replayed it from the result cache.", strings.Join(cacheOnly, ", "))
	}
	if e.p.MaxCostIncrease > 0 && unpriced > 0 {
		e.note("The cost of %d case(s) was not compared with the baseline: one side has no price for the model (cost unknown).", unpriced)
	}
}

// perfTools compares the p95 latency of each tool both runs called, and
// returns those whose latency this run replayed from the cache.
func (e *evaluator) perfTools(ct, bt *report.Telemetry) (cacheOnly []string) {
	for _, k := range sortedKeys(ct.ToolCalls) {
		c, ok := ct.ToolCalls[k]
		b, inBase := bt.ToolCalls[k]
		if !ok || !inBase || c.Count == 0 || b.Count == 0 {
			continue
		}
		if c.Source == "cache" {
			cacheOnly = append(cacheOnly, "tool "+k)
			continue
		}
		e.perfItem(report.GatePerf{Kind: report.PerfTool, ID: k, Metric: report.MetricP95, Base: b.P95Ms, Current: c.P95Ms})
	}
	return cacheOnly
}

// perfModels is perfTools for the models' calls.
func (e *evaluator) perfModels(ct, bt *report.Telemetry) (cacheOnly []string) {
	for _, k := range sortedKeys(ct.Models) {
		c, ok := ct.Models[k]
		b, inBase := bt.Models[k]
		// Reports from before count was kept have none: any call made
		// counts then.
		if !ok || !inBase || (c.Count == 0 && c.P95Ms == 0) || (b.Count == 0 && b.P95Ms == 0) {
			continue
		}
		if c.Source == "cache" {
			cacheOnly = append(cacheOnly, "model "+k)
			continue
		}
		e.perfItem(report.GatePerf{Kind: report.PerfModel, ID: k, Metric: report.MetricP95, Base: b.P95Ms, Current: c.P95Ms})
	}
	return cacheOnly
}

// perfCases compares the cost per run of each case both runs priced, and
// counts those that used tokens on a side without a price.
func (e *evaluator) perfCases() (unpriced int) {
	base := map[string]report.Case{}
	for _, c := range e.base.Cases {
		base[c.Key()] = c
	}
	cases := slices.Clone(e.cur.Cases)
	slices.SortStableFunc(cases, func(a, b report.Case) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), strings.Compare(a.Model, b.Model))
	})
	for _, c := range cases {
		b, ok := base[c.Key()]
		if !ok || c.Runs == 0 || b.Runs == 0 {
			continue
		}
		if c.CostUSD == nil || b.CostUSD == nil {
			if c.InputTokens > 0 || b.InputTokens > 0 {
				unpriced++
			}
			continue
		}
		e.perfItem(report.GatePerf{
			Kind: report.PerfCase, ID: c.ID, Model: c.Model, Metric: report.MetricCostPerRun,
			Base: *b.CostUSD / float64(b.Runs), Current: *c.CostUSD / float64(c.Runs),
		})
	}
	return unpriced
}

// perfItem completes one comparison and records it.
func (e *evaluator) perfItem(it report.GatePerf) {
	limit := e.p.MaxLatencyIncrease
	if it.Metric == report.MetricCostPerRun {
		limit = e.p.MaxCostIncrease
	}
	if it.Base > 0 {
		it.Increase = round9((it.Current - it.Base) / it.Base)
	}
	if limit > 0 {
		it.Limit = ptr(limit)
		switch {
		case it.Base <= 0:
			// Nothing to be relative to: a free case or a 0 ms baseline.
		case it.Metric == report.MetricP95 && it.Current-it.Base < MinLatencyIncreaseMs:
		default:
			it.Exceeded = it.Increase > limit+eps
		}
	}
	it.Base, it.Current = roundPerf(it.Metric, it.Base), roundPerf(it.Metric, it.Current)
	if it.Exceeded {
		what := perfWhat(it)
		if e.p.Perf == PerfFail {
			it.Failed = true
			e.fail("%s: raise the bound, or find what made it slower or dearer (--perf-gate fail holds it).", what)
		} else {
			e.note("%s: a warning only, since runners differ from run to run; --perf-gate fail makes it fail the gate.", what)
		}
	}
	e.d.Perf = append(e.d.Perf, it)
}

func roundPerf(metric string, v float64) float64 {
	if metric == report.MetricCostPerRun {
		return round9(v)
	}
	return math.Round(v*1000) / 1000
}

// perfWhat describes an exceeded bound in one sentence.
func perfWhat(it report.GatePerf) string {
	pct := func(x float64) string { return strconv0(x*100) + "%" }
	switch it.Kind {
	case report.PerfCase:
		return fmt.Sprintf("Cost per run of case %s on %s rose %s ($%s to $%s), above --max-cost-increase %s",
			it.ID, it.Model, pct(it.Increase), fmtUSD(it.Base), fmtUSD(it.Current), pct(*it.Limit))
	default:
		return fmt.Sprintf("p95 latency of %s %s rose %s (%s ms to %s ms), above --max-latency-increase %s",
			it.Kind, it.ID, pct(it.Increase), strconv0(it.Base), strconv0(it.Current), pct(*it.Limit))
	}
}

// strconv0 prints to at most one decimal.
func strconv0(x float64) string { return fmtNum(math.Round(x*10) / 10) }

func fmtUSD(x float64) string {
	if x >= 0.01 {
		return fmt.Sprintf("%.4f", x)
	}
	return fmt.Sprintf("%.6f", x)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
