package report

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/mcp-eval/mcp-eval/internal/stats"
)

// DetectPower is the power at which the statistical gate states what it
// could detect: the usual 80 %.
const DetectPower = 0.8

// Decide sets the case's Decision and Status under the statistical gate
// from its runs in order (RunOutcomes): looks are the cumulative runs of
// its group-sequential design (stats.Looks), level the floor test's share
// of the run's alpha (stats.SplitAlpha). stopped, when not empty, says why
// the run stopped early (a spent --model-budget): a case still undecided
// is then incomplete, neither passed nor failed. A skipped case is left
// as it is.
//
// A hard case keeps its meaning: one failed run fails it. A case no run
// of which could be judged is errored, as under --gate fixed. A soft case
// fails only when the floor test rejects at some look (the true pass
// rate is below the floor at the look's share of level; see
// stats.FloorDesign), passes when a look stops it for futility or its
// last look ran without rejection, and is incomplete otherwise.
func (c *Case) Decide(looks []int, level float64, stopped string) {
	if c.Status == StatusSkip || len(looks) == 0 {
		return
	}
	d := &CaseDecision{Looks: append([]int(nil), looks...)}
	c.Decision = d
	if c.Hard() {
		d.Rule, d.Look = RuleHard, 1
		d.Judged, d.Passed = c.JudgedAt(len(c.RunOutcomes))
		switch {
		case d.Judged == 0:
			c.undecided(d, RuleErrored, stopped)
		case d.Passed < d.Judged:
			d.Verdict, c.Status = VerdictFail, StatusFail
			d.Why = fmt.Sprintf("a hard case must pass every run: %d of %d judged runs failed", d.Judged-d.Passed, d.Judged)
		default:
			d.Verdict, c.Status = VerdictPass, StatusPass
			d.Why = fmt.Sprintf("passed all %d judged runs", d.Judged)
		}
		return
	}
	d.Rule, d.Alpha = RuleFloor, level
	design := stats.NewFloorDesign(c.FloorOrDefault(), looks, level)
	if det := detectable(design); det > 0 {
		d.Detectable = &det
	}
	outcome := stats.Undecided
	for k, n := range looks {
		if len(c.RunOutcomes) < n {
			break
		}
		d.Look = k + 1
		d.Judged, d.Passed = c.JudgedAt(n)
		if d.Judged == 0 {
			continue
		}
		d.Level = design.Spent(k)
		pv := design.PValue(d.Passed, d.Judged)
		d.PValue = &pv
		if outcome = design.Decide(k, d.Passed, d.Judged); outcome != stats.Undecided {
			break
		}
	}
	if d.PValue != nil {
		up := stats.ClopperPearsonUpper(d.Passed, d.Judged, d.Level)
		d.Upper = &up
	}
	if d.Look == 0 {
		d.Look = 1
	}
	floor := fmtFrac(c.FloorOrDefault())
	switch {
	case d.Judged == 0:
		c.undecided(d, RuleErrored, stopped)
	case outcome == stats.Below:
		d.Verdict, c.Status = VerdictFail, StatusFail
		d.Why = fmt.Sprintf("passed %d of %d: below its floor of %s beyond chance (p = %s ≤ %s at look %d of %d; the true rate is at most %s)",
			d.Passed, d.Judged, floor, PValueText(*d.PValue), PValueText(d.Level), d.Look, len(looks), fmtFrac(*d.Upper))
	case outcome == stats.Fine:
		d.Verdict, c.Status = VerdictPass, StatusPass
		d.Why = fmt.Sprintf("passed %d of %d: not shown below its floor of %s (p = %s > %s at look %d of %d)",
			d.Passed, d.Judged, floor, PValueText(*d.PValue), PValueText(d.Level), d.Look, len(looks))
	default:
		c.undecided(d, RuleFloor, stopped)
	}
}

// undecided marks a case the runs could not decide: incomplete when the
// run stopped early, errored when no run was judged.
func (c *Case) undecided(d *CaseDecision, rule, stopped string) {
	d.Rule = rule
	if stopped != "" {
		d.Verdict, c.Status, d.Stopped = VerdictIncomplete, StatusError, stopped
		d.Why = fmt.Sprintf("undecided after %d judged runs (%d passed) when %s", d.Judged, d.Passed, stopped)
		return
	}
	if d.Judged == 0 {
		d.Verdict, c.Status = VerdictFail, StatusError
		d.Why = fmt.Sprintf("no run could be judged: all %d errored", len(c.RunOutcomes))
		return
	}
	d.Verdict, c.Status = VerdictIncomplete, StatusError
	d.Why = fmt.Sprintf("undecided after %d judged runs (%d passed): the design's next look (%d runs) did not run", d.Judged, d.Passed, nextLook(d))
}

func nextLook(d *CaseDecision) int {
	if d.Look < len(d.Looks) {
		return d.Looks[d.Look]
	}
	return d.Looks[len(d.Looks)-1]
}

// Incomplete says the statistical gate could not decide the case before
// the run stopped.
func (c Case) Incomplete() bool { return c.Decision != nil && c.Decision.Verdict == VerdictIncomplete }

// JudgedAt counts the judged (non-errored) runs and passes among the
// first n runs (RunOutcomes).
func (c Case) JudgedAt(n int) (judged, passed int) {
	for i, o := range c.RunOutcomes {
		if i >= n {
			break
		}
		switch o {
		case "pass":
			judged++
			passed++
		case "fail":
			judged++
		}
	}
	return judged, passed
}

// detectable memoizes FloorDesign.Detectable: every case with the same
// floor, looks and level shares one design, and a golden set of thousands
// of cases must not run thousands of bisections.
var detectableMemo sync.Map

func detectable(d stats.FloorDesign) float64 {
	key := fmt.Sprint(d.Floor, d.Looks, d.Level)
	if v, ok := detectableMemo.Load(key); ok {
		return v.(float64)
	}
	v := d.Detectable(DetectPower)
	detectableMemo.Store(key, v)
	return v
}

// fmtFrac prints a rate to at most four decimals.
func fmtFrac(x float64) string {
	return strconv.FormatFloat(float64(int64(x*1e4+0.5))/1e4, 'f', -1, 64)
}

// PValueText prints a p-value or a level in three significant digits, as
// every decision and gate sentence quotes them.
func PValueText(p float64) string {
	if p < 1e-4 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}
