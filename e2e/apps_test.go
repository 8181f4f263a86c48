package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// appsServer returns testdata/servers/ext-apps/server.mjs, an MCP Apps
// server built with @modelcontextprotocol/ext-apps 2.0.4 (registerAppTool,
// registerAppResource) on the TS SDK v2, as .ci/install-deps.sh names it.
func appsServer(t *testing.T) (node, server string) {
	t.Helper()
	d := requireDeps(t)
	return d.Node, requireInstalled(t, "MCP_EVAL_APPS_SERVER")
}

func appsServerHTTP(node, server string, extra ...string) httpServerSpec {
	return httpServerSpec{Name: "ext-apps", Path: "/mcp", Command: func(port int) ([]string, []string) {
		return append([]string{node, server, "--port", strconv.Itoa(port)}, extra...), nil
	}}
}

// TestAppsServer: the apps/* checks pass on a correct real MCP Apps server
// over HTTP and stdio, and apps/resource-content alone fails when the same
// server serves its view without <!DOCTYPE html>. Over HTTP every other
// failure is the TS SDK v2's own, pinned as for testdata/servers/ts-v2;
// over stdio only the apps/* checks are asserted (a process per bad-line
// probe, slow to start on a loaded machine, is the ts-v2 stdio tests').
func TestAppsServer(t *testing.T) {
	node, server := appsServer(t)
	for _, tc := range []struct {
		name   string
		stdio  bool
		extra  []string
		failed []string
	}{
		{"http", false, nil, []string{"pagination/invalid-cursor"}},
		{"stdio", true, nil, nil},
		{"http bad-html", false, []string{"--bad-html"}, []string{"apps/resource-content", "pagination/invalid-cursor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var run evalRun
			if tc.stdio {
				run = runMCPEval(t, "--server-cmd", commandLine(node, server, "--stdio"))
			} else {
				srv := startHTTPServer(t, appsServerHTTP(node, server, tc.extra...))
				run = runMCPEval(t, "--server-url", srv.URL)
			}
			logRun(t, "ext-apps "+tc.name, run)
			rep := run.mustReport(t)
			n := 0
			for _, c := range rep.Checks {
				if strings.HasPrefix(c.ID, "apps/") {
					n++
					if c.Status == "skip" {
						t.Errorf("%s skipped on an MCP Apps server: %s", c.ID, c.Message)
					}
				}
			}
			if n != 4 {
				t.Errorf("%d apps/* checks in the report, want 4", n)
			}
			if !tc.stdio {
				rep.wantFailed(t, "ext-apps "+tc.name, tc.failed)
				return
			}
			for _, c := range rep.Checks {
				if strings.HasPrefix(c.ID, "apps/") && c.Status != "pass" {
					t.Errorf("%s", c.describe())
				}
			}
		})
	}
}
