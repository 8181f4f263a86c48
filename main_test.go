package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// mustContain reports each of wants that text (what it is) lacks.
func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// runCLI runs the program in-process and returns its exit code and output.
func runCLI(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, getenv, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "Usage:"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"no server", []string{"conformance"}, 2, "no server"},
		{"both servers", []string{"conformance", "--server-url", "http://x", "--server-cmd", "y"}, 2, "exclusive"},
		{"bad flag", []string{"conformance", "--nope"}, 2, "unknown flag --nope"},
		{"bad format", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--format", "xml"}, 2, "--format xml: want text or json"},
		{"bad runs", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--runs", "0"}, 2, "--runs 0: want a whole number between 1 and 1000"},
		{"bad url", []string{"conformance", "--server-url", "localhost:8080"}, 2, "http:// or https://"},
		{"start without url", []string{"run", "--server-start", "x", "--server-cmd", "y"}, 2, "--server-start needs --server-url"},
		{"unset header variable", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--header", "Authorization: Bearer $MCP_EVAL_TEST_TOKEN"}, 2, "environment variable MCP_EVAL_TEST_TOKEN is not set"},
		{"behavior without models", []string{"run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior"}, 2, "needs --models"},
		{"unknown layer", []string{"run", "--server-url", "http://127.0.0.1:1", "--layers", "conformance,speed"}, 2, `unknown layer "speed"`},
		{"bad shard", []string{"run", "--server-url", "http://127.0.0.1:1", "--layers", "behavior", "--models", "openai:m", "--shard", "3/2"}, 2, "--shard"},
		{"weak secret", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--header", "Authorization: Bearer abc"}, 2, "shorter than 8 characters are refused"},
		{"malformed header keeps its value", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--header", "Authorization Bearer s3cr3t-v4lue"}, 2, "--header number 1: want 'Name: value'"},
		{"secrets names variables", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--secrets", "s3cr3t-v4lue"}, 2, "not an environment variable name"},
		{"missing config", []string{"conformance", "--server-url", "http://127.0.0.1:1", "--config", filepath.Join(dir, "nope.yaml")}, 2, "nope.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, env(nil), append(tt.args, "--out", dir)...)
			if tt.args == nil {
				code, _, stderr = runCLI(t, env(nil))
			}
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr does not mention %q:\n%s", tt.wantErr, stderr)
			}
			if strings.Contains(stderr, "s3cr3t-v4lue") {
				t.Errorf("stderr quotes the secret:\n%s", stderr)
			}
		})
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "mcp-eval.yaml")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("flags override the file, lists accepted", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\nruns: 3\nsafe-tools: [a, b]\nheader:\n  - 'X-A: 1'\n  - 'X-B: 2'\n")
		cfg, err := config.Parse("conformance", []string{"--config", p, "--runs", "7"}, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Runs != 7 || cfg.ServerURL != "http://127.0.0.1:9/mcp" {
			t.Errorf("runs %d url %q", cfg.Runs, cfg.ServerURL)
		}
		if diff := cmp.Diff([]string{"a", "b"}, cfg.SafeTools.Vals); diff != "" {
			t.Errorf("safe-tools (-want +got):\n%s", diff)
		}
		if len(cfg.Headers.Vals) != 2 {
			t.Errorf("headers %v", cfg.Headers.Vals)
		}
	})
	t.Run("unknown key names the line and the nearest key", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\n\nrusn: 3\n")
		code, _, stderr := runCLI(t, env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:3: unknown option \"rusn\" (did you mean \"runs\"?)") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("bad value names the line", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\ntimeout: soon\n")
		code, _, stderr := runCLI(t, env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:2: timeout:") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("invalid YAML names the line", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\n\truns: 3\n")
		code, _, stderr := runCLI(t, env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:2: invalid YAML: found a tab character that violates indentation") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

func TestUnreachableServerExits3(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	code, _, stderr := runCLI(t, env(nil), "conformance", "--server-url", url, "--out", dir)
	if code != 3 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "could not reach the server") {
		t.Errorf("exit %d, want 3 with one line; stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, env(nil), "conformance", "--server-cmd", "/nonexistent/server --stdio", "--out", dir)
	if code != 3 || !strings.Contains(stderr, "/nonexistent/server") {
		t.Errorf("exit %d, want 3; stderr:\n%s", code, stderr)
	}
}

func TestFixtureRun(t *testing.T) {
	tests := []struct {
		name     string
		defects  string
		extra    []string
		wantCode int
	}{
		{name: "clean", wantCode: 0},
		{name: "hard failure", defects: "caching/tools-list", wantCode: 1},
		{name: "SHOULD finding is a warning", defects: "http/get-not-allowed", wantCode: 0},
		{name: "SHOULD finding fails with --strict", defects: "http/get-not-allowed", extra: []string{"--strict"}, wantCode: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects(tt.defects)})
			dir := t.TempDir()
			args := append([]string{"conformance", "--server-url", srv.URL, "--out", dir, "--runs", "2",
				"--header", "Authorization: Bearer $MCP_EVAL_TEST_TOKEN"}, tt.extra...)
			secret := "tok-4f9a2b7c1d"
			code, stdout, stderr := runCLI(t, env(map[string]string{"MCP_EVAL_TEST_TOKEN": secret}), args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, f := range []string{"report.json", "summary.md", "junit.xml"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte(secret)) {
					t.Errorf("%s contains the --header secret", f)
				}
			}
			var r report.Report
			b, _ := os.ReadFile(filepath.Join(dir, "report.json"))
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Server.Era != "modern" || r.Server.Fingerprint == "" || len(r.Checks) == 0 {
				t.Errorf("report server %+v, %d checks", r.Server, len(r.Checks))
			}
			if tt.defects != "" {
				for _, c := range r.Checks {
					if c.ID == tt.defects && c.Status != report.StatusFail {
						t.Errorf("%s: status %s, want fail", c.ID, c.Status)
					}
				}
			}
		})
	}
}

func TestJSONFormatIsTheReport(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	dir := t.TempDir()
	code, stdout, _ := runCLI(t, env(nil), "conformance", "--server-url", srv.URL, "--out", dir, "--runs", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	file, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if stdout != string(file) {
		t.Error("--format json stdout differs from report.json")
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, env(nil), "version")
	if code != 0 || !strings.HasPrefix(stdout, "mcp-eval ") {
		t.Errorf("exit %d, %q", code, stdout)
	}
}

func TestGateAndWaivers(t *testing.T) {
	srv := mcptest.Serve(t, mcptest.Options{})
	bad := mcptest.Serve(t, mcptest.Options{Defects: mcptest.ParseDefects("caching/tools-list")})
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	if code, _, stderr := runCLI(t, env(nil), "conformance", "--server-url", srv.URL, "--out", base, "--runs", "1"); code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", code, stderr)
	}
	baseline := filepath.Join(base, "report.json")

	cur := filepath.Join(dir, "cur")
	code, stdout, _ := runCLI(t, env(nil), "conformance", "--server-url", bad.URL, "--out", cur, "--runs", "1", "--baseline", baseline)
	if code != 1 || !strings.Contains(stdout, "caching/tools-list") {
		t.Fatalf("regression against the baseline: exit %d\n%s", code, stdout)
	}
	var r report.Report
	b, _ := os.ReadFile(filepath.Join(cur, "report.json"))
	if err := json.Unmarshal(b, &r); err != nil || r.Gate == nil || r.Gate.Baseline != baseline || len(r.Gate.Regressions) == 0 {
		t.Fatalf("gate in report: %+v (%v)", r.Gate, err)
	}

	// The standalone gate reaches the same verdict from the two files.
	code, _, _ = runCLI(t, env(nil), "gate", "--report", filepath.Join(cur, "report.json"), "--baseline", baseline)
	if code != 1 {
		t.Errorf("mcp-eval gate: exit %d, want 1", code)
	}
	code, _, _ = runCLI(t, env(nil), "gate", "--report", baseline, "--baseline", baseline)
	if code != 0 {
		t.Errorf("mcp-eval gate on an unchanged report: exit %d, want 0", code)
	}

	waivers := filepath.Join(dir, "waivers.yaml")
	os.WriteFile(waivers, []byte("- id: caching/tools-list\n  reason: ttl rollout tracked in #12\n"), 0o644)
	code, stdout, _ = runCLI(t, env(nil), "conformance", "--server-url", bad.URL, "--out", filepath.Join(dir, "w"), "--runs", "1", "--waivers", waivers)
	if code != 0 {
		t.Errorf("waived failure: exit %d, want 0\n%s", code, stdout)
	}
	// The same waiver against a server that passes is stale and fails.
	code, stdout, _ = runCLI(t, env(nil), "conformance", "--server-url", srv.URL, "--out", filepath.Join(dir, "s"), "--runs", "1", "--waivers", waivers)
	if code != 1 || !strings.Contains(stdout, "stale") {
		t.Errorf("stale waiver: exit %d, want 1\n%s", code, stdout)
	}
	os.WriteFile(waivers, []byte("- id: caching/tools-list\n  reasn: typo\n"), 0o644)
	code, _, stderr := runCLI(t, env(nil), "conformance", "--server-url", srv.URL, "--out", filepath.Join(dir, "e"), "--runs", "1", "--waivers", waivers)
	if code != 2 || !strings.Contains(stderr, "waivers.yaml:2") {
		t.Errorf("bad waiver file: exit %d, want 2 naming the line\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, env(nil), "gate", "--report", filepath.Join(dir, "nope.json"))
	if code != 2 || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing report: exit %d\n%s", code, stderr)
	}
}

const serverLogCap = pipeline.ServerLogCap
