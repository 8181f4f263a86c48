package e2e

import (
	"testing"
)

// tsAllowedSkips: what the TS SDK v2 test server (testdata/servers/ts-v2)
// does not offer. Its tools echo and add are readOnlyHint, so they are
// called; write_note is not, so it never is.
var tsAllowedSkips = map[string]string{
	"errors/missing-client-capability": "no tool needs a client capability",
	"headers/param-mismatch":           "no tool has an x-mcp-header parameter",
	"headers/param-missing":            "no tool has an x-mcp-header parameter",
	"result-type/prompts-get":          "its only prompt, summarize, has a required argument",
	"mrtr/shape":                       "no tool answers input_required",
	"mrtr/retry":                       "no tool answers input_required",
	"completion/complete":              "it does not declare completions",
	"mrtr/tampered-state":              "no tool answers input_required",
}

// tsDeviations are what the TS SDK v2 server fails today.
var tsDeviations = []deviation{
	{ID: "pagination/invalid-cursor", Kind: devServer,
		Reason: "tools/list with a cursor it never issued (\"mcp-eval-probe-invalid-cursor\") answers the first page " +
			"(a result) instead of -32602; server/utilities/pagination: an invalid cursor SHOULD be -32602 (a warning, not a gate)"},
}

// TestTSServer runs mcp-eval on the TypeScript SDK v2 server: a clean modern
// server, so exit 0 and every assertion group passes.
func TestTSServer(t *testing.T) {
	d := requireDeps(t)
	srv := startHTTPServer(t, tsServerHTTP(d))
	run := runMCPEval(t, "--server-url", srv.URL)
	logRun(t, "ts-v2 http", run)
	assertModern(t, run, profile{Transport: "http", AllowedSkips: tsAllowedSkips, Deviations: tsDeviations})
	if run.Exit != 0 {
		t.Errorf("exit %d, want 0", run.Exit)
	}
}

// tsCorpusPins pins the complete set of failed checks of the TS SDK v2
// server wired the other documented ways (e2e/README.md justifies each):
// createMcpHandler alone, without the Host/Origin guards in front of it,
// and serveStdio.
var tsCorpusPins = map[string][]string{
	"http-no-guards": {"http/host-rejected", "http/origin-rejected", "pagination/invalid-cursor"},
	"stdio":          {"errors/unsupported-version", "pagination/invalid-cursor"},
}

func TestTSServerWirings(t *testing.T) {
	d := requireDeps(t)
	for _, key := range []string{"http-no-guards", "stdio"} {
		t.Run(key, func(t *testing.T) {
			var run evalRun
			if key == "stdio" {
				run = runMCPEval(t, "--server-cmd", commandLine(d.Node, d.TSServer, "--stdio"))
			} else {
				spec := tsServerHTTP(d)
				base := spec.Command
				spec.Command = func(port int) ([]string, []string) {
					argv, env := base(port)
					return append(argv, "--no-guards"), env
				}
				srv := startHTTPServer(t, spec)
				run = runMCPEval(t, "--server-url", srv.URL)
			}
			logRun(t, "ts-v2 "+key, run)
			rep := run.mustReport(t)
			if rep.Server.Era != "modern" {
				t.Errorf("era %q, want modern", rep.Server.Era)
			}
			rep.wantFailed(t, key, tsCorpusPins[key])
		})
	}
}
