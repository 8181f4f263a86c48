package gate

import (
	"fmt"
	"slices"

	"github.com/mcp-eval/mcp-eval/internal/stats"
	"github.com/mcp-eval/mcp-eval/report"
)

// The statistical gate (MethodStatistical) judges Layer 1 on evidence at
// one false-alarm rate, Policy.Alpha, spent over a family of tests by
// weighted Bonferroni (stats.SplitAlpha):
//
//   - each soft case on each model: its floor test (group-sequential exact
//     binomial, stats.FloorDesign), re-decided here from its runs at this
//     gate's budget, and, with a baseline, its comparison with the
//     baseline's runs (one-sided Fisher exact test at each look the case
//     reached, the case's level shared over the looks like the floor's);
//   - with a baseline, one suite test per model pooling every soft case
//     (see suite): the only test that sees a small drop spread over many
//     cases.
//
// Hard cases keep their meaning (one failed run fails), and so do cases
// whose runs all errored. Layer 2's variants and checks are judged as
// under MethodFixed.

// statState is what the statistical gate computed for one Evaluate call.
type statState struct {
	budget stats.Budget
	cases  []report.Case // the current cases, Layer 1's re-decided
	st     *report.GateStatistics
}

func (e *evaluator) statistical() bool { return e.p.Method == MethodStatistical }

// prepareStats re-decides Layer 1's cases at this gate's budget.
func (e *evaluator) prepareStats() {
	cases := slices.Clone(e.cur.Cases)
	soft, models := 0, map[string]bool{}
	for _, c := range cases {
		if isSequential(c) && !c.Hard() {
			soft++
			models[c.Model] = true
		}
	}
	s := &statState{budget: stats.SplitAlpha(e.p.Alpha, soft, len(models), e.base != nil), cases: cases}
	s.st = &report.GateStatistics{Method: report.GateStatistical, Alpha: e.p.Alpha, Cases: soft,
		FloorLevel: s.budget.Floor, BaseLevel: s.budget.Base, SuiteLevel: s.budget.Suite,
		Procedure: procedure(e.base != nil)}
	worst := 1.0
	for i := range cases {
		c := &cases[i]
		if !isSequential(*c) {
			continue
		}
		looks := []int{len(c.RunOutcomes)}
		if c.Decision != nil {
			looks = c.Decision.Looks
		}
		stopped := ""
		if c.Decision != nil {
			stopped = c.Decision.Stopped
		}
		// Decide again from the runs, not from the stored decision: the
		// level depends on this gate's family (a baseline adds tests).
		c.Decision = nil
		c.Decide(looks, s.budget.Floor, stopped)
		s.st.Runs = max(s.st.Runs, looks[0])
		s.st.MaxRuns = max(s.st.MaxRuns, looks[len(looks)-1])
		s.st.RunsUsed += len(c.RunOutcomes)
		s.st.FixedRuns += min(looks[0], len(c.RunOutcomes))
		if d := c.Decision; d.Detectable != nil {
			worst = min(worst, *d.Detectable)
		}
		if c.Incomplete() {
			s.st.Incomplete = append(s.st.Incomplete, c.Key())
		}
	}
	if worst < 1 {
		s.st.Detectable = &worst
	}
	e.stat = s
}

// isSequential says the statistical gate decides the case: a Layer 1 case
// that ran (Layer 2's variants keep the fixed rule).
func isSequential(c report.Case) bool {
	// A carried case (a selection did not run it) keeps the decision of
	// the run it came from, outside this run's family (gate/carried.go).
	return c.Layer() == report.LayerBehavior && c.Status != report.StatusSkip && len(c.RunOutcomes) > 0 && c.Carried == nil
}

// procedure says in words how alpha was spent.
func procedure(baseline bool) string {
	if !baseline {
		return "weighted Bonferroni: alpha shared equally by the soft cases' floor tests (group-sequential exact binomial, each look spending its share of the runs)"
	}
	return "weighted Bonferroni: half of alpha to the suite tests (one per model: pooled Fisher exact test, or the stratified exact test when the two runs' designs differ), half to the soft cases, each case's share split between its floor test (group-sequential exact binomial) and its comparison with the baseline (one-sided Fisher exact test at each look)"
}

// baseTest compares a soft case that held its floor with the baseline's
// runs of it: at each look the case reached, the one-sided Fisher exact
// test of its first runs against all the baseline's judged runs, at the
// look's share of the case's level. It returns the item to list and
// whether the drop is significant; ok is false when there is nothing to
// compare (no judged runs on a side, or no drop).
func (e *evaluator) baseTest(c, b report.Case) (it report.GateItem, significant, ok bool) {
	// The baseline's first look only: a fixed number of runs, so that its
	// own sequential stopping (which favours runs of passes) cannot tilt
	// the comparison.
	bt, bp := b.JudgedAt(firstLook(b))
	if len(b.RunOutcomes) == 0 {
		bp, bt = caseCounts(b)
	}
	looks := c.Decision.Looks
	last := looks[len(looks)-1]
	ct, cp := c.JudgedAt(len(c.RunOutcomes))
	if bt == 0 || ct == 0 || float64(cp)*float64(bt) >= float64(bp)*float64(ct) {
		return it, false, false
	}
	// The p-value shown is the deciding look's: the first significant
	// one, else the last look reached.
	best, bestLevel := 1.0, 0.0
	prev := 0
	for _, n := range looks {
		if len(c.RunOutcomes) < n {
			break
		}
		lt, lp := c.JudgedAt(n)
		level := e.stat.budget.Base * float64(n-prev) / float64(last)
		prev = n
		if lt == 0 {
			continue
		}
		best, bestLevel = stats.FisherLower(bp, bt-bp, lp, lt-lp), level
		if best <= level {
			significant = true
			break
		}
	}
	it = report.GateItem{Kind: report.ItemCase, ID: c.ID, Model: c.Model, Status: c.Status, Runs: c.Runs, Passed: c.Passed,
		PassRate: c.PassRate, Floor: c.FloorOrDefault(), BaseStatus: b.Status, BaseRuns: b.Runs, BasePassed: b.Passed,
		PValue: &best, Level: &bestLevel, Significant: significant}
	return it, significant, true
}

// regression files a soft case that held its floor but fell significantly
// against the baseline.
func (e *evaluator) regression(it report.GateItem, c report.Case, sameServer bool) {
	what := fmt.Sprintf("Soft case %s on %s fell from %d of %d in the baseline to %d of %d (one-sided Fisher exact test, p = %s ≤ %s, its share of alpha %s)",
		c.ID, c.Model, it.BasePassed, it.BaseRuns, c.Passed, c.Runs, report.PValueText(*it.PValue), report.PValueText(*it.Level), fmtNum(e.p.Alpha))
	it.Reason = what
	it.Blocking = true
	if sameServer && e.p.Drift == DriftWarn {
		it.Blocking = false
		e.d.Regressions = append(e.d.Regressions, it)
		e.note("%s; the server fingerprint is unchanged: likely model drift, not your change (--drift warn reports it without failing).", what)
		return
	}
	e.failure(it, basePassed, what, "read its transcripts and fix the tool descriptions or the server, or accept it with a reason in "+DefaultWaiverFile, c.Key(), c.ID)
}

// suite runs one pooled test per model over the soft cases present on
// both sides, and fails the gate on a significant drop (a note under
// --drift warn when the server is unchanged).
//
// When both runs gave every case the same design (equal looks), all their
// judged runs are pooled into one one-sided Fisher exact test: the most
// powerful of the forms tried, and within alpha in simulation with equal
// and with unequal case rates (TestSuiteNullRates; the sequential
// stopping makes a proof of the conditional test's level unavailable).
// Otherwise the runs' allocations may differ between sides (a baseline
// made with another --runs or --max-runs, or under --gate fixed), and
// pooling cases of different rates with different weights would show a
// drop that is not there (Simpson's paradox): the stratified exact test
// of the first looks then compares each case with itself, valid as a
// fixed design.
func (e *evaluator) suite(sameServer bool) {
	if e.base == nil {
		return
	}
	base := map[string]report.Case{}
	for _, c := range e.base.Cases {
		base[c.Key()] = c
	}
	type side struct {
		all, first []stats.Stratum
		same       bool
	}
	byModel := map[string]*side{}
	var models []string
	for _, c := range e.stat.cases {
		b, ok := base[c.Key()]
		if !ok || !isSequential(c) || c.Hard() || c.Incomplete() || b.Status == report.StatusSkip || len(b.RunOutcomes) == 0 {
			continue
		}
		sd := byModel[c.Model]
		if sd == nil {
			sd = &side{same: true}
			byModel[c.Model] = sd
			models = append(models, c.Model)
		}
		ct, cp := c.JudgedAt(len(c.RunOutcomes))
		bt, bp := b.JudgedAt(len(b.RunOutcomes))
		sd.all = append(sd.all, stats.Stratum{BasePassed: bp, BaseTotal: bt, Passed: cp, Total: ct})
		ct, cp = c.JudgedAt(c.Decision.Looks[0])
		bt, bp = b.JudgedAt(firstLook(b))
		sd.first = append(sd.first, stats.Stratum{BasePassed: bp, BaseTotal: bt, Passed: cp, Total: ct})
		sd.same = sd.same && b.Decision != nil && slices.Equal(b.Decision.Looks, c.Decision.Looks)
	}
	slices.Sort(models)
	for _, m := range models {
		sd := byModel[m]
		t := report.SuiteTest{Model: m, Level: e.stat.budget.Suite, Strata: len(sd.all)}
		strata := sd.first
		if sd.same {
			strata = sd.all
		}
		for _, s := range strata {
			t.BasePassed += s.BasePassed
			t.BaseTotal += s.BaseTotal
			t.Passed += s.Passed
			t.Total += s.Total
		}
		if sd.same {
			t.Method, t.PValue = report.SuitePooled, stats.FisherLower(t.BasePassed, t.BaseTotal-t.BasePassed, t.Passed, t.Total-t.Passed)
		} else {
			r := stats.StratifiedLower(strata)
			t.Method, t.PValue = report.SuiteStratified, r.PValue
			if !r.Exact {
				t.Method = report.SuiteStratifiedNormal
			}
		}
		t.Significant = t.PValue <= t.Level
		if t.BaseTotal > 0 {
			t.DetectableDrop = stats.DetectableDrop(float64(t.BasePassed)/float64(t.BaseTotal), t.BaseTotal, t.Total, t.Level, report.DetectPower)
		}
		if t.Significant {
			t.Drift = sameServer
			what := fmt.Sprintf("Layer 1 on %s fell over the suite: %d of %d runs passed in the baseline, %d of %d now, over %d cases (%s test, p = %s ≤ %s)",
				m, t.BasePassed, t.BaseTotal, t.Passed, t.Total, t.Strata, t.Method, report.PValueText(t.PValue), report.PValueText(t.Level))
			if sameServer && e.p.Drift == DriftWarn {
				e.d.Drift = true
				e.note("%s; the server fingerprint is unchanged: likely model drift, not your change (--drift warn reports it without failing).", what)
			} else {
				e.fail("%s: a drop spread over many cases; find the change behind it.", what)
			}
		}
		e.stat.st.Suite = append(e.stat.st.Suite, t)
	}
}

// firstLook is the runs of a case's first look: its design's, or all its
// runs for a case decided by the fixed rule.
func firstLook(c report.Case) int {
	if c.Decision != nil && len(c.Decision.Looks) > 0 {
		return c.Decision.Looks[0]
	}
	return len(c.RunOutcomes)
}
