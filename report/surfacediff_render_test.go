package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestSurfaceDiffRendered: the terminal, summary.md and the comment show
// the surface diff's headline and its changes, security and breaking
// first, within their caps; the comment says how many it left out.
func TestSurfaceDiffRendered(t *testing.T) {
	d := &SurfaceDiff{Baseline: "commit abc"}
	for i := range 30 {
		d.Changes = append(d.Changes, SurfaceChange{Tool: fmt.Sprintf("tool_%02d", i), Kind: ChangeDescription, Before: "old", After: "new"})
	}
	d.Changes = append(d.Changes,
		SurfaceChange{Tool: "wipe", Kind: ChangeAnnotation, Where: InAnnotations, Path: "destructiveHint", Before: "false", After: "true (default)", Security: true},
		SurfaceChange{Tool: "zz_search", Kind: ChangeRequiredAdded, Where: InInputSchema, Path: "tenant", After: "required", Breaking: true})
	d.Tools, d.Breaking, d.Security = 32, 1, 1
	r := &Report{SchemaVersion: SchemaVersion, Server: Server{Transport: "http", Era: "modern"}, SurfaceDiff: d,
		Selection: &Selection{Mode: SelectAffected, From: "commit abc", Ran: 2, Carried: 10, Cases: []SelectedCase{{ID: "c1", Why: "uses changed tool wipe"}}}}

	var text bytes.Buffer
	if err := WriteText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"32 tools changed since the baseline: 32 changes, 1 breaking, 1 security-relevant",
		"wipe: annotation changed destructiveHint: false → true (default) [security]", "zz_search: new required parameter tenant [breaking]",
		"--select affected: ran 2 of 12 (case, model) pairs; 10 carried the verdict of commit abc", "ran c1: uses changed tool wipe"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, text.String())
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "### Tool surface changes") || !strings.Contains(md.String(), "| `wipe` | annotation changed destructiveHint | false | true (default) | 🔒 security |") {
		t.Errorf("summary.md:\n%s", md.String())
	}
	var c bytes.Buffer
	if err := WriteComment(&c, r, CommentOptions{}); err != nil {
		t.Fatal(err)
	}
	body := c.String()
	i, j := strings.Index(body, "`wipe`"), strings.Index(body, "`zz_search`")
	if i < 0 || j < i || strings.Index(body, "`tool_00`") < j || !strings.Contains(body, "and 20 more") || !strings.Contains(body, "**Selection:**") {
		t.Errorf("comment:\n%s", body)
	}
}

// TestMarkdownSummarisesBigMatrix: past 300 cases, summary.md shows a
// tally per model and the cases that did not pass first, says how many it
// left out, and leaves the per-case scores to report.json; every table it
// starts is whole.
func TestMarkdownSummarisesBigMatrix(t *testing.T) {
	r := &Report{SchemaVersion: SchemaVersion, Server: Server{Transport: "http", Era: "modern"}}
	for i := range 400 {
		for _, m := range []string{"openai:a", "openai:b"} {
			c := Case{ID: fmt.Sprintf("case-%03d", i), Model: m, Kind: "soft", Runs: 2, Passed: 2, PassRate: 1, Floor: 0.8, Status: StatusPass}
			if i%100 == 99 && m == "openai:b" {
				c.Passed, c.PassRate, c.Status, c.Failures = 0, 0, StatusFail, []string{"run 1: wrong tool"}
			}
			r.Cases = append(r.Cases, c)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	for _, want := range []string{"| `openai:b` | 400 | 396 | 4 | 0 | 0 | 0 | 0 |", "100 more cases are not listed (100 passed on every model); report.json lists every case.",
		"| `case-099` |", "| `case-399` |", "Per-case scores of the 800 (case, model) pairs are in report.json"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	// The four failing cases come first, then passing ones in order.
	if i, j := strings.Index(s, "| `case-399` |"), strings.Index(s, "| `case-000` |"); i < 0 || j < i {
		t.Errorf("failing cases are not listed first")
	}
	if strings.Contains(s, "| `case-350` |") {
		t.Errorf("more than 300 cases listed")
	}
}
