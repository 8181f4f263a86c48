package gate

import "github.com/mcp-eval/mcp-eval/report"

// A carried case (report.Case.Carried: --select affected, --rerun-failed)
// did not run: its verdict was decided in the run it names, with that
// run's statistics. The gate does not decide it again — it is neither a
// regression nor still failing nor fixed here — so that a selection that
// runs 2 cases out of 12 is judged on those 2 alone; the carried cases
// only count in the pooled scores, on both sides alike.

// decided returns a copy of cases without the carried ones, and notes how
// many were carried.
func (e *evaluator) decided(cases []report.Case) []report.Case {
	out := make([]report.Case, 0, len(cases))
	carried := 0
	for _, c := range cases {
		if c.Carried != nil {
			carried++
			continue
		}
		out = append(out, c)
	}
	if carried > 0 {
		e.note("%d case results carried an earlier run's verdict without running (selection): the gate did not decide them again.", carried)
	}
	return out
}

// carries reports whether id (a case id or case@model) names only carried
// cases of this run.
func (e *evaluator) carries(id string) bool {
	found := false
	for _, c := range e.cur.Cases {
		if c.ID == id || c.Key() == id {
			if c.Carried == nil {
				return false
			}
			found = true
		}
	}
	return found
}
