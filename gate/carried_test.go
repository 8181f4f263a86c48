package gate

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
)

// TestCarriedCasesAreNotDecidedAgain: a case that carried the baseline's
// verdict (a selection did not run it) is neither a regression nor still
// failing nor fixed, even when it failed; a case that ran is decided as
// always; a waiver that names only a carried case is not stale.
func TestCarriedCasesAreNotDecidedAgain(t *testing.T) {
	from := &report.CarriedFrom{RunID: "42"}
	failing := report.Case{ID: "c-fail", Model: "openai:m", Kind: "hard", Runs: 2, Passed: 0, Status: report.StatusFail, Floor: 1}
	passing := report.Case{ID: "c-ok", Model: "openai:m", Kind: "hard", Runs: 2, Passed: 2, PassRate: 1, Status: report.StatusPass, Floor: 1}
	base := &report.Report{Cases: []report.Case{failing, passing}, Layers: []string{report.LayerBehavior}}

	carried := failing
	carried.Carried = from
	ran := passing
	ran.Passed, ran.PassRate, ran.Status = 0, 0, report.StatusFail
	cur := &report.Report{Cases: []report.Case{carried, ran}, Layers: []string{report.LayerBehavior}}
	d := Evaluate(cur, base, Policy{Waivers: []Waiver{{ID: "c-fail", Reason: "known", File: "w.yaml", Line: 1}}})
	if d.Passed || len(d.Regressions) != 1 || d.Regressions[0].ID != "c-ok" || len(d.StillFailing) != 0 || len(d.Fixed) != 0 {
		t.Errorf("decision: passed %v, regressions %v, still failing %v, fixed %v", d.Passed, d.Regressions, d.StillFailing, d.Fixed)
	}
	if len(d.StaleWaivers) != 0 {
		t.Errorf("a waiver of a carried case was called stale: %v", d.Reasons)
	}
	notes := strings.Join(d.Notes, "\n")
	if !strings.Contains(notes, "1 case results carried") || !strings.Contains(notes, "its case carried an earlier run's verdict") {
		t.Errorf("notes:\n%s", notes)
	}

	// The statistical gate leaves a carried case out of its family and
	// keeps the decision it was carried with.
	soft := failing
	soft.Kind, soft.Floor, soft.RunOutcomes = "soft", 0.8, []string{"fail", "fail"}
	soft.Carried = from
	stat := &report.Report{Cases: []report.Case{soft, ran}, Layers: []string{report.LayerBehavior}}
	ds := Evaluate(stat, base, Policy{Method: MethodStatistical, Alpha: 0.05})
	if ds.Statistics == nil || ds.Statistics.Cases != 0 || len(ds.StillFailing) != 0 || len(ds.Regressions) != 1 {
		t.Errorf("statistical: %+v, still failing %v, regressions %v", ds.Statistics, ds.StillFailing, ds.Regressions)
	}

	// Without the carried mark the same failing case is still failing.
	cur.Cases[0].Carried = nil
	d = Evaluate(cur, base, Policy{})
	if len(d.StillFailing) != 1 {
		t.Errorf("uncarried failing case: still failing %v", d.StillFailing)
	}
}
