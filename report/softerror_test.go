package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestErroredShouldCheck: a SHOULD check that errored (it fails nothing
// unless --strict) is shown and counted as an error in the terminal, its
// tally and summary.md, as report.json says, and does not fail the run
// (before: "⚠ warning" everywhere and "0 errors" in the tally); under
// --strict it fails the run as an error.
func TestErroredShouldCheck(t *testing.T) {
	r := &Report{Checks: []Check{
		{ID: "jsonrpc/malformed-json", Group: "jsonrpc", Level: LevelShould, Status: StatusError, Message: "the process of its own did not answer"},
		{ID: "lint/tool-description", Group: "lint", Level: LevelShould, Status: StatusFail, Message: "no description"},
		{ID: "caching/tools-list", Group: "caching", Level: LevelMust, Hard: true, Status: StatusPass},
	}}
	if !r.Passed() {
		t.Error("an errored SHOULD check fails the run without --strict")
	}
	checks, _ := tallies(r)
	if got := checks.String(); got != "1 passed, 0 failed, 1 warnings, 0 skipped, 1 errors" {
		t.Errorf("tally %q", got)
	}
	text := string(render(t, func(w io.Writer, r *Report) error { return WriteText(w, r, TextOptions{}) }, r))
	wantContains(t, text, "! jsonrpc/malformed-json", "error (not a hard check, does not fail the run): the process of its own did not answer", "⚠ lint/tool-description")
	if strings.Contains(text, "⚠ jsonrpc/malformed-json") {
		t.Errorf("the errored check is drawn as a warning:\n%s", text)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "❗ error") {
		t.Errorf("summary.md does not mark the errored check an error:\n%s", md.String())
	}
	r.Strict = true
	if r.Passed() {
		t.Error("under --strict an errored SHOULD check must fail the run")
	}
	if checks, _ := tallies(r); checks.errors != 1 || checks.softErrors != 0 {
		t.Errorf("strict tally %+v, want one error that counts", checks)
	}
}
