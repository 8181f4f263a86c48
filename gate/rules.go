package gate

import (
	"fmt"
	"strconv"
)

// Rules says in words what this policy fails on, one rule a line, each with
// the flag that changes it: what `mcp-eval gate` prints as "the rule that
// decided", and what README's table of defaults says. withBaseline says
// whether a baseline was given (without one only absolute floors apply).
func (p Policy) Rules(withBaseline bool) []string {
	alpha := p.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	var rules []string
	if p.Strict {
		rules = append(rules, "every check that fails or errors fails the gate, SHOULD-level ones too (--strict)")
	} else {
		rules = append(rules, "a hard check that fails or errors fails the gate; a SHOULD-level finding only warns (--strict makes it fail)")
	}
	if p.Method == MethodStatistical {
		rules = append(rules, fmt.Sprintf("a hard case fails on one failed run; a soft case fails only when its runs show its true pass rate below its floor (group-sequential exact binomial test); all tests together fail a run on an unchanged server and model with probability at most %s (--alpha; --gate fixed is the seed rule)", num(alpha)))
		rules = append(rules, "a soft case left undecided by its first runs runs again, look by look, up to --max-runs; a case still undecided when a budget runs out is incomplete, and the run fails without becoming a baseline")
	} else {
		rules = append(rules, "a case below its floor (hard 1.0, soft 0.8, or the golden file's floor) or whose runs all errored fails the gate (--gate fixed)")
	}
	rules = append(rules, "a waiver in "+DefaultWaiverFile+" (or --waivers) accepts a failure; a stale or expired waiver fails the gate")
	if !withBaseline {
		rules = append(rules, "no baseline: scores are not compared (--baseline report.json compares them)")
		return rules
	}
	if p.Method == MethodStatistical {
		rules = append(rules, "a soft case whose pass rate fell against the baseline's beyond chance (one-sided Fisher exact test), or a model whose pass rate fell over the suite (pooled Fisher exact test; stratified by case when the runs' designs differ), fails the gate; Layer 1 scores are reported, not gated on --max-drop")
	}
	rules = append(rules, fmt.Sprintf("a score that moves the wrong way by more than %s against the baseline fails the gate (--max-drop)", num(p.MaxDrop)))
	if p.Drift == DriftFail {
		rules = append(rules, "a model-driven score's drop fails even when the server fingerprint is unchanged (--drift fail)")
	} else {
		rules = append(rules, "a model-driven score's drop while the server fingerprint is unchanged is attributed to model drift and only warns, significant or not (--drift fail makes it fail)")
	}
	if p.RequireSignificance {
		rules = append(rules, fmt.Sprintf("only a drop that is statistically significant (one-sided Fisher exact test, p < %s) fails; a floor breach fails regardless (--require-significance)", num(alpha)))
	} else {
		rules = append(rules, fmt.Sprintf("a drop beyond --max-drop fails whether or not it is significant (p < %s); --require-significance fails only significant drops", num(alpha)))
	}
	if p.Ratchet {
		rules = append(rules, "higher scores are recorded as floors for the next run (--ratchet)")
	}
	if p.MaxLatencyIncrease > 0 || p.MaxCostIncrease > 0 {
		verb := "only warns (--perf-gate fail makes it fail)"
		if p.Perf == PerfFail {
			verb = "fails the gate (--perf-gate fail)"
		}
		rules = append(rules, fmt.Sprintf("a p95 latency increase above %s or a cost increase above %s per case run %s",
			pct(p.MaxLatencyIncrease), pct(p.MaxCostIncrease), verb))
	}
	return rules
}

// pct writes a relative limit as a percentage, "no limit" for 0.
func pct(f float64) string {
	if f <= 0 {
		return "no limit"
	}
	return "+" + strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}
