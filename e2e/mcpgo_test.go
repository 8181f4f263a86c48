package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// mcpGoPins are the complete sets of failed checks of
// testdata/servers/mcp-go (mark3labs/mcp-go v1.2.1 wired as its README
// documents), justified in e2e/README.md: the 2025-11-25 capabilities.tasks
// slot on a 2026-07-28 connection, over stdio a subscriptions/listen
// answered with its closing result before the acknowledgement, and over
// HTTP the GET/DELETE and Origin rules.
var mcpGoPins = map[string][]string{
	"stdio": {"subscriptions/listen", "tasks/capability-slot"},
	"http":  {"http/origin-rejected", "tasks/capability-slot"},
}

// mcpGoMessages are what the pinned failures must say.
var mcpGoMessages = map[string]string{
	"subscriptions/listen":  "before its acknowledgement",
	"tasks/capability-slot": "capabilities.tasks",
}

func TestMCPGo(t *testing.T) {
	requireDeps(t)
	bin := os.Getenv("MCP_EVAL_MCP_GO")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true; MCP_EVAL_MCP_GO unset)", notInstalled)
		}
		t.Skip(notInstalled + " (this server was added later: re-run it)")
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var run evalRun
			if transport == "stdio" {
				run = runMCPEval(t, "--server-cmd", commandLine(bin))
			} else {
				srv := startHTTPServer(t, httpServerSpec{Name: "mcp-go", Path: "/mcp", Command: func(port int) ([]string, []string) {
					return []string{bin, "-http", fmt.Sprintf("127.0.0.1:%d", port)}, nil
				}})
				run = runMCPEval(t, "--server-url", srv.URL)
			}
			logRun(t, "mcp-go "+transport, run)
			rep := run.mustReport(t)
			if rep.Server.Era != "modern" {
				t.Errorf("era %q, want modern", rep.Server.Era)
			}
			rep.wantFailed(t, "mcp-go "+transport, mcpGoPins[transport])
			for id, want := range mcpGoMessages {
				if c, ok := rep.check(id); ok && c.Status == "fail" && !strings.Contains(c.Message, want) {
					t.Errorf("%s: message %q, want it to say %q", id, c.Message, want)
				}
			}
			if c, ok := rep.check("jsonrpc/wire-schema"); !ok || c.Status != "pass" {
				t.Errorf("jsonrpc/wire-schema: %+v", c)
			}
		})
	}
}
