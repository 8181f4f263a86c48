package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// skillsServer returns testdata/servers/ext-skills/server.mjs, a Skills
// server (SEP-2640) built with the TS SDK v2's ext/skills
// (SkillsExtension.load, attach), as .ci/install-deps.sh names it.
func skillsServer(t *testing.T) (node, server string) {
	t.Helper()
	d := requireDeps(t)
	return d.Node, requireInstalled(t, "MCP_EVAL_SKILLS_SERVER")
}

// TestSkillsServer: the skills/* checks pass on a correct real Skills
// server over HTTP and stdio, and skills/file-digest alone fails when the
// same server serves a skill file edited after its listing was made.
// Over HTTP every other failure is the TS SDK v2's own, pinned as for
// testdata/servers/ts-v2; over stdio only the skills/* checks are
// asserted, as in TestAppsServer.
func TestSkillsServer(t *testing.T) {
	node, server := skillsServer(t)
	const want = 9 // the skills/* checks
	for _, tc := range []struct {
		name   string
		stdio  bool
		extra  []string
		failed []string
	}{
		{"http", false, nil, []string{"pagination/invalid-cursor"}},
		{"stdio", true, nil, nil},
		{"http bad-digest", false, []string{"--bad-digest"}, []string{"pagination/invalid-cursor", "skills/file-digest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var run evalRun
			if tc.stdio {
				run = runMCPEval(t, "--server-cmd", commandLine(node, server, "--stdio"))
			} else {
				srv := startHTTPServer(t, httpServerSpec{Name: "ext-skills", Path: "/mcp", Command: func(port int) ([]string, []string) {
					return append([]string{node, server, "--port", strconv.Itoa(port)}, tc.extra...), nil
				}})
				run = runMCPEval(t, "--server-url", srv.URL)
			}
			logRun(t, "ext-skills "+tc.name, run)
			rep := run.mustReport(t)
			n := 0
			for _, c := range rep.Checks {
				if strings.HasPrefix(c.ID, "skills/") {
					n++
					if c.Status == "skip" {
						t.Errorf("%s skipped on a Skills server: %s", c.ID, c.Message)
					}
				}
			}
			if n != want {
				t.Errorf("%d skills/* checks in the report, want %d", n, want)
			}
			if !tc.stdio {
				rep.wantFailed(t, "ext-skills "+tc.name, tc.failed)
				return
			}
			for _, c := range rep.Checks {
				if strings.HasPrefix(c.ID, "skills/") && c.Status != "pass" {
					t.Errorf("%s", c.describe())
				}
			}
		})
	}
}
