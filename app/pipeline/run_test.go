package pipeline_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestUnreachableServerExits3(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close()
	code, _, stderr := runCommand(t, apptest.Env(nil), "conformance", "--server-url", url, "--out", dir)
	if code != 3 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "could not reach the server") {
		t.Errorf("exit %d, want 3 with one line; stderr:\n%s", code, stderr)
	}
	// https:// to a server that speaks plain HTTP: the line says to try http://.
	plain := mcptest.Serve(t, mcptest.Options{})
	tlsURL := "https://" + strings.TrimPrefix(plain.URL, "http://")
	code, _, stderr = runCommand(t, apptest.Env(nil), "conformance", "--server-url", tlsURL, "--out", dir)
	if code != 3 || !strings.Contains(stderr, "the server speaks plain HTTP: try --server-url "+plain.URL) {
		t.Errorf("https to a plain-HTTP server: exit %d; stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCommand(t, apptest.Env(nil), "conformance", "--server-cmd", "/nonexistent/server --stdio", "--out", dir)
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
			code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"MCP_EVAL_TEST_TOKEN": secret}), args...)
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
	code, stdout, _ := runCommand(t, apptest.Env(nil), "conformance", "--server-url", srv.URL, "--out", dir, "--runs", "1", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	file, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if stdout != string(file) {
		t.Error("--format json stdout differs from report.json")
	}
}

// TestUsageErrors: each mistake on the command line is exit 2 with a
// message that names it, found before any network call (config's parsing
// and validation, then Plan), and quotes no secret.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
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
			code, _, stderr := runCommand(t, apptest.Env(nil), append(tt.args, "--out", dir)...)
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
