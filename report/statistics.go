package report

import (
	"fmt"
	"strconv"
	"strings"
)

// The statistical gate as the renderers show it: one line per case
// decision, and the gate's design and what it could detect, shared by the
// terminal, summary.md, the PR comment, JUnit and SARIF so that each says
// the same.

// decisionShort is a case's statistical decision in a few words for its
// line ("within noise of floor 80% (p = 0.263)"), "" without one.
func decisionShort(c Case) string {
	d := c.Decision
	if d == nil {
		return ""
	}
	floor := percent(c.FloorOrDefault())
	switch {
	case d.Verdict == VerdictIncomplete:
		return "incomplete: undecided when the run stopped"
	case d.Rule != RuleFloor || d.PValue == nil:
		return ""
	case d.Verdict == VerdictFail:
		return fmt.Sprintf("below floor %s beyond chance (p = %s ≤ %s, look %d/%d)", floor, PValueText(*d.PValue), PValueText(d.Level), d.Look, len(d.Looks))
	case c.PassRate < c.FloorOrDefault()-1e-9:
		return fmt.Sprintf("within noise of floor %s (p = %s > %s, look %d/%d)", floor, PValueText(*d.PValue), PValueText(d.Level), d.Look, len(d.Looks))
	}
	return fmt.Sprintf("look %d/%d", d.Look, len(d.Looks))
}

// caseVerdictText is what a failing case says in JUnit and SARIF: its
// decision when the statistical gate made one, else the fixed rule's pass
// rate against the floor.
func caseVerdictText(c Case) string {
	if d := c.Decision; d != nil && d.Why != "" {
		return d.Why
	}
	return fmt.Sprintf("%d/%d runs passed (%s), floor %s", c.Passed, c.Runs, percent(c.PassRate), percent(c.Floor))
}

// statisticsLines are the statistical gate's design and findings, one
// plain sentence a line: the false-alarm rate and how it was spent, the
// runs it took, what it could detect, each suite test and the cases whose
// drop stayed within noise (up to max of them).
func statisticsLines(st *GateStatistics, max int) []string {
	if st == nil {
		return nil
	}
	var lines []string
	levels := "floor tests " + PValueText(st.FloorLevel) + " each"
	if st.BaseLevel > 0 {
		levels += ", comparisons with the baseline " + PValueText(st.BaseLevel) + " each, suite tests " + PValueText(st.SuiteLevel) + " each"
	}
	lines = append(lines, fmt.Sprintf("Statistical gate: a run on an unchanged server and model fails with probability at most %s (alpha), spent over %d soft case decisions by weighted Bonferroni (%s).",
		PValueText(st.Alpha), st.Cases, levels))
	if st.FixedRuns > 0 {
		lines = append(lines, fmt.Sprintf("Runs: %d, %s the %d of the first look alone (undecided cases ran again, up to %d runs each).",
			st.RunsUsed, ratio(st.RunsUsed, st.FixedRuns), st.FixedRuns, st.MaxRuns))
	}
	if st.Detectable != nil {
		lines = append(lines, fmt.Sprintf("Could detect: a soft case whose true pass rate fell to %s or below, with 80%% power.", percent(*st.Detectable)))
	} else if st.Cases > 0 {
		lines = append(lines, "Could detect: no fall of a single case with 80% power at these runs and this alpha; raise --max-runs.")
	}
	for _, t := range st.Suite {
		verdict := "not significant"
		if t.Significant {
			verdict = "significant"
		}
		lines = append(lines, fmt.Sprintf("Suite on %s: %d of %d runs passed in the baseline, %d of %d now, over %d cases: %s (p = %s, level %s, %s test); it could detect a uniform drop of %s points with 80%% power.",
			t.Model, t.BasePassed, t.BaseTotal, t.Passed, t.Total, t.Strata, verdict, PValueText(t.PValue), PValueText(t.Level), t.Method, pointsText(t.DetectableDrop)))
	}
	for i, it := range st.WithinNoise {
		if i == max {
			lines = append(lines, fmt.Sprintf("… and %d more cases within noise.", len(st.WithinNoise)-max))
			break
		}
		p, l := 1.0, 0.0
		if it.PValue != nil {
			p = *it.PValue
		}
		if it.Level != nil {
			l = *it.Level
		}
		lines = append(lines, fmt.Sprintf("Within noise: %s, %d of %d in the baseline, %d of %d now (p = %s > %s).", it.Key(), it.BasePassed, it.BaseRuns, it.Passed, it.Runs, PValueText(p), PValueText(l)))
	}
	return lines
}

func ratio(a, b int) string {
	return strconv.FormatFloat(float64(a)/float64(b), 'f', 2, 64) + "×"
}

func pointsText(d float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(d*100, 'f', 1, 64), ".0")
}
