package config_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// parseCommand parses `mcp-eval CMD ARGS…` for run and conformance as the
// program does before it runs anything (config.ParseCommand), and returns
// the exit code the error gives (exitcode.Of) and stderr: the notes
// parsing printed, then the error as the program prints it ("mcp-eval: "
// and its text).
func parseCommand(t *testing.T, getenv func(string) string, args ...string) (code int, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	_, err := config.ParseCommand(args[0], args[1:], getenv, &errb)
	if err != nil {
		fmt.Fprintf(&errb, "mcp-eval: %v\n", err)
	}
	return exitcode.Of(err), errb.String()
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
		cfg, err := config.Parse("conformance", []string{"--config", p, "--runs", "7"}, apptest.Env(nil))
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
		code, stderr := parseCommand(t, apptest.Env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:3: unknown option \"rusn\" (did you mean \"runs\"?)") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("bad value names the line", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\ntimeout: soon\n")
		code, stderr := parseCommand(t, apptest.Env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:2: timeout:") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("invalid YAML names the line", func(t *testing.T) {
		p := write("server-url: http://127.0.0.1:9/mcp\n\truns: 3\n")
		code, stderr := parseCommand(t, apptest.Env(nil), "conformance", "--config", p, "--out", dir)
		if code != 2 || !strings.Contains(stderr, "mcp-eval.yaml:2: invalid YAML: found a tab character that violates indentation") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}
