package resilience

import (
	"flag"
	"testing"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/mdsection"
	"github.com/mcp-eval/mcp-eval/report"
)

var update = flag.Bool("update", false, "rewrite README.md's Layer 2 table from the check declarations")

// TestREADMETable: README.md's table of Layer 2's deterministic checks is
// made from their declarations (Checks), so a new probe or description
// rule is listed without a hand edit.
func TestREADMETable(t *testing.T) {
	if err := mdsection.Sync("../README.md", "<!-- resilience:start (go test ./resilience -run TestREADMETable -update) -->\n", "<!-- resilience:end -->",
		Table(), *update, "go test ./resilience -run TestREADMETable -update"); err != nil {
		t.Error(err)
	}
}

// TestChecksAreTheReported: Checks lists exactly the ids, levels and
// titles the layer reports.
func TestChecksAreTheReported(t *testing.T) {
	reported := map[string]Info{}
	for _, c := range Descriptions(nil) {
		reported[c.ID] = Info{ID: c.ID, Level: c.Level, Title: c.Title, SpecRef: c.SpecRef}
	}
	c := SurfaceCheck(report.Surface{}, nil)
	reported[c.ID] = Info{ID: c.ID, Level: c.Level, Title: c.Title, SpecRef: c.SpecRef}
	for _, d := range append(probeDefs(), survivesDef) {
		c := check.Fold(d, report.LayerResilience, []check.Outcome{check.Pass()})
		reported[c.ID] = Info{ID: c.ID, Level: c.Level, Transport: d.Transport, Title: c.Title, SpecRef: c.SpecRef}
	}
	listed := Checks()
	if len(listed) != len(reported) {
		t.Errorf("Checks lists %d checks, the layer reports %d", len(listed), len(reported))
	}
	for _, l := range listed {
		if r, ok := reported[l.ID]; !ok || r != l {
			t.Errorf("Checks lists %+v; the layer reports %+v", l, r)
		}
	}
}
