package pipeline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestOneVerdictEverywhere: a person reading the terminal, summary.md or
// junit.xml of a run reaches the verdict report.json and the exit code give.
func TestOneVerdictEverywhere(t *testing.T) {
	const softBelowFloor = `version: 1
cases:
  - id: wrong-tool
    prompt: Which region am I in?
    expect_tool: lookup_region
    kind: soft
`
	t.Run("a soft case below its floor fails everywhere", func(t *testing.T) {
		m := newModelRig(t, softBelowFloor)
		code, stdout, stderr, path := m.run("out", "--layers", "behavior")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		r := apptest.LoadReport(t, path)
		if len(r.Cases) != 1 || r.Cases[0].Status != report.StatusFail || r.Passed() {
			t.Fatalf("report.json: cases %+v, passed %v", r.Cases, r.Passed())
		}
		out := filepath.Dir(path)
		summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
		junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
		for _, w := range []struct{ where, text, want string }{
			{"terminal case line", stdout, `✗ wrong-tool`},
			{"terminal tally", stdout, "cases: 0 passed, 1 failed, 0 warnings, 0 skipped, 0 errors"},
			{"terminal verdict", stdout, "FAIL "},
			{"summary.md tally", string(summary), "**Cases:** 0 passed, 1 failed, 0 warnings"},
			{"summary.md case", string(summary), "❌ 0/2"},
			{"junit.xml", string(junit), `<testsuite name="cases" tests="1" failures="1" errors="0"`},
			{"junit.xml failure", string(junit), `<failure message="0/2 runs passed (0%), floor 80%: run 1: called no tool, want lookup_region" type="soft">`},
		} {
			if !strings.Contains(w.text, w.want) {
				t.Errorf("%s lacks %q:\n%s", w.where, w.want, w.text)
			}
		}
		if strings.Contains(stdout, "warning:") || strings.Contains(string(summary), "⚠") {
			t.Errorf("a failing soft case is called a warning:\n%s", stdout)
		}
	})
	t.Run("a model provider error is an error, with advice about the provider", func(t *testing.T) {
		m := newModelRig(t, softBelowFloor)
		base := m.getenv("OPENAI_BASE_URL")
		m.getenv = apptest.Env(map[string]string{"OPENAI_BASE_URL": strings.TrimSuffix(base, "/v1") + "/wrong/v1"})
		code, stdout, stderr, path := m.run("out", "--layers", "behavior")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		r := apptest.LoadReport(t, path)
		if len(r.Cases) != 1 || r.Cases[0].Status != report.StatusError {
			t.Fatalf("report.json cases %+v", r.Cases)
		}
		out := filepath.Dir(path)
		summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
		junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
		for _, w := range []struct{ where, text, want string }{
			{"terminal tally", stdout, "cases: 0 passed, 0 failed, 0 warnings, 0 skipped, 1 errors"},
			{"summary.md tally", string(summary), "**Cases:** 0 passed, 0 failed, 0 warnings, 0 skipped, 1 errors"},
			{"junit.xml", string(junit), `<testsuite name="cases" tests="1" failures="0" errors="1"`},
			{"the reason", stdout, "HTTP 404"},
			{"the advice", stdout, "check OPENAI_API_KEY, OPENAI_BASE_URL"},
		} {
			if !strings.Contains(w.text, w.want) {
				t.Errorf("%s lacks %q:\n%s", w.where, w.want, w.text)
			}
		}
		if regexp.MustCompile(`(?i)fix the (tool descriptions|server)`).MatchString(strings.Join(r.Gate.Reasons, "\n")) {
			t.Errorf("the gate blames the server for a provider error: %q", r.Gate.Reasons)
		}
	})
}

// TestOneVerdictForAFinding: a SHOULD-level finding is a warning (does not
// fail the run) in every output, and a failure in every output with
// --strict, with the exit code following.
func TestOneVerdictForAFinding(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("http/get-not-allowed")})
	const id = "http/get-not-allowed"
	for _, tt := range []struct {
		name   string
		extra  []string
		code   int
		term   string // the terminal's mark and word
		tally  string
		md     string
		junit  string
		sarif  string
		counts bool
	}{
		{"a warning without --strict", nil, 0, "⚠ " + id, "1 warnings", "| `" + id + "` | ⚠️ warning |", `<system-out><![CDATA[warning (SHOULD, not a hard check)`, `"level": "warning"`, false},
		{"a failure with --strict", []string{"--strict"}, 1, "✗ " + id, "0 warnings", "| `" + id + "` | ❌ fail |", `<failure message=`, `"level": "error"`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := runCommand(t, apptest.Env(nil), append([]string{"conformance", "--server-url", srv.URL, "--out", out, "--runs", "1"}, tt.extra...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			r := apptest.LoadReport(t, filepath.Join(out, "report.json"))
			var c report.Check
			for _, x := range r.Checks {
				if x.ID == id {
					c = x
				}
			}
			if c.Status != report.StatusFail || c.Failed(r.Strict) != tt.counts || r.Passed() != (tt.code == 0) {
				t.Fatalf("report.json: %+v, strict %v, passed %v", c, r.Strict, r.Passed())
			}
			read := func(f string) string { b, _ := os.ReadFile(filepath.Join(out, f)); return string(b) }
			junit := read("junit.xml")
			i := strings.Index(junit, `name="`+id+`"`)
			sarif := read("results.sarif")
			j := strings.Index(sarif, `"ruleId": "`+id+`"`)
			if i < 0 || j < 0 {
				t.Fatalf("junit.xml or results.sarif lacks %s", id)
			}
			for _, w := range []struct{ where, text, want string }{
				{"terminal", stdout, tt.term},
				{"tally", stdout, tt.tally},
				{"summary.md", read("summary.md"), tt.md},
				{"junit.xml", junit[i:min(len(junit), i+300)], tt.junit},
				{"results.sarif", sarif[j:min(len(sarif), j+200)], tt.sarif},
			} {
				if !strings.Contains(w.text, w.want) {
					t.Errorf("%s lacks %q:\n%s", w.where, w.want, w.text)
				}
			}
		})
	}
}
