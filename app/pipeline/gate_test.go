package pipeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestGateAndWaivers(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	bad := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	if code, _, stderr := runCommand(t, apptest.Env(nil), "conformance", "--server-url", srv.URL, "--out", base, "--runs", "1"); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, stderr)
	}
	baseline := filepath.Join(base, "report.json")

	cur := filepath.Join(dir, "cur")
	code, stdout, _ := runCommand(t, apptest.Env(nil), "conformance", "--server-url", bad.URL, "--out", cur, "--runs", "1", "--baseline", baseline)
	if code != 1 || !strings.Contains(stdout, "caching/tools-list") {
		t.Fatalf("regression against the baseline: exit %d\n%s", code, stdout)
	}
	var r report.Report
	b, _ := os.ReadFile(filepath.Join(cur, "report.json"))
	if err := json.Unmarshal(b, &r); err != nil || r.Gate == nil || r.Gate.Baseline != baseline || len(r.Gate.Regressions) == 0 {
		t.Fatalf("gate in report: %+v (%v)", r.Gate, err)
	}

	// The standalone gate reaches the same verdict from the two files.
	code, _, _ = runCommand(t, apptest.Env(nil), "gate", "--report", filepath.Join(cur, "report.json"), "--baseline", baseline)
	if code != 1 {
		t.Errorf("mcp-eval gate: exit %d, want 1", code)
	}
	code, _, _ = runCommand(t, apptest.Env(nil), "gate", "--report", baseline, "--baseline", baseline)
	if code != 0 {
		t.Errorf("mcp-eval gate on an unchanged report: exit %d, want 0", code)
	}

	waivers := filepath.Join(dir, "waivers.yaml")
	// The missing ttlMs breaks the message's schema too (jsonrpc/wire-schema).
	os.WriteFile(waivers, []byte("- id: caching/tools-list\n  reason: ttl rollout tracked in #12\n- id: jsonrpc/wire-schema\n  reason: the same ttlMs\n"), 0o644)
	code, stdout, _ = runCommand(t, apptest.Env(nil), "conformance", "--server-url", bad.URL, "--out", filepath.Join(dir, "w"), "--runs", "1", "--waivers", waivers)
	if code != 0 {
		t.Errorf("waived failure: exit %d, want 0\n%s", code, stdout)
	}
	// The same waiver against a server that passes is stale and fails.
	code, stdout, _ = runCommand(t, apptest.Env(nil), "conformance", "--server-url", srv.URL, "--out", filepath.Join(dir, "s"), "--runs", "1", "--waivers", waivers)
	if code != 1 || !strings.Contains(stdout, "stale") {
		t.Errorf("stale waiver: exit %d, want 1\n%s", code, stdout)
	}
	os.WriteFile(waivers, []byte("- id: caching/tools-list\n  reasn: typo\n"), 0o644)
	code, _, stderr := runCommand(t, apptest.Env(nil), "conformance", "--server-url", srv.URL, "--out", filepath.Join(dir, "e"), "--runs", "1", "--waivers", waivers)
	if code != 2 || !strings.Contains(stderr, "waivers.yaml:2") {
		t.Errorf("bad waiver file: exit %d, want 2 naming the line\n%s", code, stderr)
	}
	code, _, stderr = runCommand(t, apptest.Env(nil), "gate", "--report", filepath.Join(dir, "nope.json"))
	if code != 2 || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing report: exit %d\n%s", code, stderr)
	}
}

// TestGateShowsItsWork: mcp-eval gate prints the baseline's origin, every
// delta, each reason and note, and the rules that decided.
func TestGateShowsItsWork(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	bad := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})
	dir := t.TempDir()
	for name, url := range map[string]string{"base": srv.URL, "cur": bad.URL} {
		if code, _, stderr := runCommand(t, apptest.Env(nil), "conformance", "--server-url", url, "--out", filepath.Join(dir, name), "--runs", "1"); code == 2 || code == 3 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
	}
	base, cur := filepath.Join(dir, "base", "report.json"), filepath.Join(dir, "cur", "report.json")
	code, stdout, _ := runCommand(t, apptest.Env(nil), "gate", "--report", cur, "--baseline", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stdout)
	}
	apptest.MustContain(t, "gate output", stdout,
		"gate failed · baseline "+base,
		"  baseline run: started ",
		"same server fingerprint",
		"  ✗ Hard check caching/tools-list failed",
		"  decided: failed, ",
		"  rule: a hard check that fails or errors fails the gate",
		"  rule: a score that moves the wrong way by more than 0.02 against the baseline fails the gate (--max-drop)",
		"--drift fail makes it fail",
		"--require-significance",
		"  Δ conformance.passRate 1.000 → ",
		"FAIL  ",
	)
	code, stdout, _ = runCommand(t, apptest.Env(nil), "gate", "--report", base, "--baseline", base, "--drift", "fail")
	if code != 0 {
		t.Errorf("gate against itself: exit %d", code)
	}
	apptest.MustContain(t, "gate output", stdout, "gate passed", "  decided: passed, no rule below failed", "  Δ conformance.passRate 1.000 → 1.000 (+0.000)", "(--drift fail)")
	code, stdout, _ = runCommand(t, apptest.Env(nil), "gate", "--report", base)
	if code != 0 || !strings.Contains(stdout, "no baseline: scores are not compared") || !strings.Contains(stdout, "note: ") {
		t.Errorf("no baseline: exit %d\n%s", code, stdout)
	}
}
