package e2e

import (
	"strings"
	"testing"
)

// legacyDeviations are what server-everything 2026.8.31 (TS SDK v1, a
// 2025-11-25 server) fails when checked as a legacy server
// (--protocol-version 2025-11-25).
var legacyDeviations = []deviation{
	{ID: "http/origin-rejected", Transport: "http", Kind: devServer,
		Reason: "its express app does not validate Origin: a request from a foreign Origin gets 200; the 2025-11-25 " +
			"transport spec already says servers MUST validate the Origin header (invalid → 403)"},
	{ID: "jsonrpc/batch-rejected", Transport: "http", Kind: devServer,
		Reason: "a JSON array body gets HTTP 200 (2025-11-25 removed batching; SHOULD-level, not a gate)"},
	{ID: "lint/param-descriptions", Kind: devLint,
		Reason: "get-resource-reference.resourceType has no description (SHOULD-level lint)"},
	{ID: "pagination/invalid-cursor", Kind: devServer,
		Reason: "tools/list with a cursor it never issued answers the first page instead of -32602 " +
			"(server/utilities/pagination: SHOULD; a warning)"},
	{ID: "http/host-rejected", Transport: "http", Kind: devServer,
		Reason: "a request to 127.0.0.1 with Host: mcp-eval-probe.invalid gets 200: no Host validation, so a DNS-rebinding " +
			"page can call it (basic/security_best_practices, Local MCP server compromise; SHOULD-level, a warning)"},
}

// TestServerEverythingLegacy runs mcp-eval on the legacy (2025-11-25 only)
// server-everything over stdio and HTTP: against 2026-07-28 it must be found
// legacy and fail with a migration list; with --protocol-version 2025-11-25
// the legacy handshake passes and every 2026-07-28 rule is skipped.
func TestServerEverythingLegacy(t *testing.T) {
	d := requireDeps(t)
	doc := loadChecksDoc(t)

	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var target []string
			if transport == "stdio" {
				target = []string{"--server-cmd", commandLine(d.Node, d.ServerEverything)}
			} else {
				srv := startHTTPServer(t, serverEverythingHTTP(d))
				target = []string{"--server-url", srv.URL}
			}

			t.Run("2026-07-28", func(t *testing.T) {
				run := runMCPEval(t, target...)
				logRun(t, "server-everything "+transport, run)
				rep := run.mustReport(t)
				if run.Exit != 1 {
					t.Errorf("exit %d, want 1 (a legacy server fails the 2026-07-28 gates)", run.Exit)
				}
				if rep.Server.Era != "legacy" {
					t.Errorf("server.era = %q, want legacy", rep.Server.Era)
				}
				if rep.Server.Transport != transport {
					t.Errorf("server.transport = %q, want %q", rep.Server.Transport, transport)
				}
				if c, ok := rep.check("era/modern"); !ok || c.Status != "fail" {
					t.Errorf("era/modern should fail on a legacy server: %s", c.describe())
				}
				if len(rep.Server.Migration) == 0 {
					t.Error("server.migration is empty; a legacy server needs the list of what to change")
				} else {
					t.Logf("migration list: %d items, first: %s", len(rep.Server.Migration), rep.Server.Migration[0])
				}
				for _, c := range rep.Checks {
					if c.Status == "error" {
						t.Errorf("error: %s", c.describe())
					}
					// A legacy server cannot meet a rule of the modern revision.
					if doc[c.ID].Revision == "2026-07-28" && c.Status == "pass" {
						t.Errorf("a 2026-07-28 rule passed on a 2025-11-25-only server: %s", c.describe())
					}
				}
			})

			t.Run("2025-11-25", func(t *testing.T) {
				run := runMCPEval(t, append([]string{"--protocol-version", "2025-11-25"}, target...)...)
				logRun(t, "server-everything "+transport+" --protocol-version 2025-11-25", run)
				rep := run.mustReport(t)
				assertLegacyMode(t, run, rep, transport, doc)
				logDeviations(t, run, transport, legacyDeviations)
			})
		})
	}
}

func assertLegacyMode(t *testing.T, run evalRun, rep *report, transport string, doc map[string]checksDoc) {
	t.Helper()
	if rep.Server.Era != "legacy" {
		t.Errorf("server.era = %q, want legacy", rep.Server.Era)
	}
	if c, ok := rep.check("era/legacy-handshake"); !ok || c.Status != "pass" {
		t.Errorf("era/legacy-handshake should pass: %s", c.describe())
	}
	devs := map[string]deviation{}
	for _, d := range legacyDeviations {
		if d.appliesTo(transport) {
			devs[d.ID] = d
		}
	}
	hardFailed := false
	skippedModern := 0
	for _, c := range rep.Checks {
		if (c.Status == "fail" || c.Status == "error") && c.Hard {
			hardFailed = true
		}
		d := doc[c.ID]
		if d.Revision == "2026-07-28" {
			if c.Status != "skip" || strings.TrimSpace(c.Message) == "" {
				t.Errorf("a 2026-07-28-only check should be skipped with a reason under --protocol-version 2025-11-25: %s", c.describe())
			}
			skippedModern++
			continue
		}
		if dev, ok := devs[c.ID]; ok {
			if c.Status != "fail" {
				t.Errorf("known deviation %s no longer fails: %s\n        the table says: %s\n        if this was fixed, remove the entry from the table", c.ID, c.describe(), dev.Reason)
			}
			continue
		}
		switch c.Status {
		case "pass":
		case "skip":
			// An unprotected server has no auth surface; server-everything
			// serves no MCP App.
			optional := (c.Group == "auth" && strings.Contains(c.Message, "it is not protected")) ||
				(c.Group == "apps" && strings.Contains(c.Message, "does not declare the extension io.modelcontextprotocol/ui")) ||
				(c.Group == "skills" && strings.Contains(c.Message, "does not declare the extension io.modelcontextprotocol/skills")) ||
				(c.Group == "trace" && strings.Contains(c.Message, "no --otlp-receiver"))
			if (!d.inapplicable(transport) && !optional) || strings.TrimSpace(c.Message) == "" {
				t.Errorf("unexpected skip: %s", c.describe())
			}
		default:
			t.Errorf("%s", c.describe())
		}
	}
	if skippedModern == 0 {
		t.Error("no 2026-07-28-only check in the report; docs/checks.md's revision column may have changed")
	}
	want := 0
	if hardFailed {
		want = 1
	}
	if run.Exit != want {
		t.Errorf("exit %d, want %d", run.Exit, want)
	}
}
