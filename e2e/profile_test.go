package e2e

import (
	"sort"
	"strings"
	"testing"

	reportpkg "github.com/mcp-eval/mcp-eval/report"
)

// A deviation is a check that fails on a real server today, with the reason.
// Tests assert that it still fails, so that a fix (in the server or in
// mcp-eval) is noticed and the entry removed.
type deviation struct {
	ID string
	// Transport is "http", "stdio", or "" for both.
	Transport string
	// Kind is devServer when the server breaks the spec, devLint for a lint
	// (SHOULD) finding.
	Kind   string
	Reason string
}

const (
	devServer = "server"
	devLint   = "lint"
)

func (d deviation) appliesTo(transport string) bool {
	return d.Transport == "" || d.Transport == transport
}

// profile is what a run against a server of the modern era should look like.
type profile struct {
	Transport string
	// AllowedSkips are the checks (beyond those for another transport and
	// era/legacy-handshake) that may skip, with why. Any other skip is a
	// failure: it means a probe that should run did not.
	AllowedSkips map[string]string
	Deviations   []deviation
	// Info maps checks that must pass with a note in info containing the
	// given text (a pass that rests on a deliberate relaxation).
	Info map[string]string
}

// assertModern checks a report of a modern server: era modern, every check
// pass (or an allowed skip with a reason) except the known deviations, which
// must still fail, and an exit code that follows from the hard checks.
func assertModern(t *testing.T, run evalRun, p profile) {
	t.Helper()
	rep := run.mustReport(t)
	doc := loadChecksDoc(t)
	if rep.Server.Era != "modern" {
		t.Errorf("server.era = %q, want modern (server: %+v)", rep.Server.Era, rep.Server)
	}
	if rep.Server.Transport != p.Transport {
		t.Errorf("server.transport = %q, want %q", rep.Server.Transport, p.Transport)
	}
	if len(rep.Server.Migration) != 0 {
		t.Errorf("a modern server got a migration list: %q", rep.Server.Migration)
	}
	devs := map[string]deviation{}
	for _, d := range p.Deviations {
		if d.appliesTo(p.Transport) {
			devs[d.ID] = d
		}
	}
	groups := map[string]bool{}
	hardFailed := false
	for _, c := range rep.Checks {
		groups[c.Group] = true
		if (c.Status == "fail" || c.Status == "error") && c.Hard {
			hardFailed = true
		}
		d, documented := doc[c.ID]
		if !documented {
			t.Errorf("check %s is in the report but not in docs/checks.md", c.ID)
		}
		if dev, ok := devs[c.ID]; ok {
			if c.Status != "fail" {
				t.Errorf("known deviation %s (%s) no longer fails: %s\n        the table says: %s\n        if this was fixed, remove the entry from the table",
					c.ID, dev.Kind, c.describe(), dev.Reason)
			}
			continue
		}
		if want, ok := p.Info[c.ID]; ok && (c.Status != "pass" || !strings.Contains(c.Info, want)) {
			t.Errorf("%s should pass with info containing %q: %s", c.ID, want, c.describe())
			continue
		}
		switch c.Status {
		case "pass":
		case "skip":
			switch {
			case strings.TrimSpace(c.Message) == "":
				t.Errorf("%s skipped without a reason", c.ID)
			case c.ID == "era/legacy-handshake", documented && d.inapplicable(p.Transport):
			case p.AllowedSkips[c.ID] != "":
			case strings.HasPrefix(c.ID, "tasks/") && strings.Contains(c.Message, "does not declare io.modelcontextprotocol/tasks"):
				// The tasks extension is optional; no server here declares it.
			case strings.HasPrefix(c.ID, "apps/") && strings.Contains(c.Message, "does not declare the extension io.modelcontextprotocol/ui"):
				// MCP Apps is optional too (e2e/apps_test.go has a server of it).
			case strings.HasPrefix(c.ID, "skills/") && strings.Contains(c.Message, "does not declare the extension io.modelcontextprotocol/skills"):
				// So is Skills (e2e/skills_test.go has a server of it).
			case c.Group == "trace" && strings.Contains(c.Message, "no --otlp-receiver"):
				// Trace context is judged only with a receiver the server
				// exports to (e2e/otel_test.go has such a server).
			case c.ID == "surface/replicas" && strings.Contains(c.Message, "one server URL"):
				// A run of one --server-url has no replica to compare.
			case c.Group == "auth" && strings.Contains(c.Message, "it is not protected"):
				// An unprotected server (no 401 without credentials, no
				// --oauth-*) has no authorization surface to judge.
			default:
				t.Errorf("unexpected skip: %s", c.describe())
			}
		default:
			where := "outside the seven groups"
			if reportpkg.IsHardGroup(c.Group) {
				where = "in assertion group " + c.Group
			}
			t.Errorf("%s, %s:\n        %s", c.Status, where, c.describe())
		}
	}
	for _, g := range reportpkg.HardGroups {
		if !groups[g] {
			t.Errorf("the report has no check of group %s", g)
		}
	}
	var ids []string
	for id := range devs {
		ids = append(ids, id)
	}
	for id := range p.Info {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := rep.check(id); !ok {
			t.Errorf("%s is in a table of this test but not in the report", id)
		}
	}
	want := 0
	if hardFailed {
		want = 1
	}
	if run.Exit != want {
		t.Errorf("exit code %d, want %d (a hard check failed: %v)", run.Exit, want, hardFailed)
	}
}

// logRun writes a one-line tally of a run to the test log.
func logRun(t *testing.T, name string, run evalRun) {
	t.Helper()
	if run.Report == nil {
		t.Logf("%s: exit %d, no report, %v", name, run.Exit, run.Wall.Round(1e6))
		return
	}
	n := map[string]int{}
	for _, c := range run.Report.Checks {
		n[c.Status]++
	}
	t.Logf("%s: exit %d, era %s, %d checks (%d pass, %d fail, %d skip, %d error), wall %v",
		name, run.Exit, run.Report.Server.Era, len(run.Report.Checks), n["pass"], n["fail"], n["skip"], n["error"], run.Wall.Round(1e6))
}
