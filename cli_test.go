package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// TestMistakesGetOneLine drives the common command-line mistakes: each is
// one line naming the input as it was given and what was expected, then a
// pointer to the command's --help, and exit 2.
func TestMistakesGetOneLine(t *testing.T) {
	dir := t.TempDir()
	cfgFile := func(s string) string {
		p := filepath.Join(t.TempDir(), "mcp-eval.yaml")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	srv := []string{"--server-url", "http://127.0.0.1:1/mcp"}
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool // followed by "run mcp-eval CMD --help"
	}{
		{"flag typo", append([]string{"run", "--rnus", "3"}, srv...), "mcp-eval: unknown flag --rnus (did you mean --runs?)", true},
		{"flag typo with two dashes kept", append([]string{"conformance", "--tiemout", "3s"}, srv...), "unknown flag --tiemout (did you mean --timeout?)", true},
		{"duration without unit", append([]string{"run", "--timeout", "10"}, srv...), "--timeout 10: want a duration with its unit, such as 10s", true},
		{"layer typo", append([]string{"run", "--layers", "conformnce"}, srv...), `--layers: unknown layer "conformnce" (did you mean "conformance"?)`, true},
		{"layer from the config file", []string{"run", "--config", cfgFile("server-url: http://127.0.0.1:1/mcp\nlayers: speed\n")}, `mcp-eval.yaml:2: layers: unknown layer "speed"`, true},
		{"server url from the config file", []string{"run", "--config", cfgFile("server-url: localhost:8080\n")}, "mcp-eval.yaml:1: server-url must be an http:// or https:// URL", true},
		{"header from the config file", []string{"run", "--config", cfgFile("server-url: http://127.0.0.1:1/mcp\nheader:\n  - 'X-A: 1'\n  - 'Authorization: Bearer $MCP_EVAL_UNSET'\n")},
			"mcp-eval.yaml:4: header (Authorization): environment variable MCP_EVAL_UNSET is not set", false},
		{"header from a flag", append([]string{"run", "--header", "Authorization: Bearer $MCP_EVAL_UNSET"}, srv...), "--header number 1 (Authorization): environment variable MCP_EVAL_UNSET is not set", false},
		{"golden without models", append([]string{"run", "--golden", "golden/tasks.yaml"}, srv...), "--golden is set without --models: the behaviour layer needs a model", true},
		{"model flag on conformance", append([]string{"conformance", "--models", "openai:gpt-4.1-mini"}, srv...), "--models is a flag of mcp-eval run: conformance runs Layer 0 alone", true},
		{"check typo", append([]string{"conformance", "--checks", "cachng/tools-list"}, srv...), `--checks: unknown check or group "cachng/tools-list" (did you mean "caching/tools-list"?)`, true},
		{"check from the config file", []string{"conformance", "--config", cfgFile("server-url: http://127.0.0.1:1/mcp\nchecks: [caching, nonsense-group-x]\n")}, `mcp-eval.yaml:2: checks: unknown check or group "nonsense-group-x"`, true},
		{"gate without report", []string{"gate"}, "mcp-eval: --report is required", true},
		{"gate flag typo", []string{"gate", "--baseln", "b.json"}, "unknown flag --baseln (did you mean --baseline?)", true},
		{"gate out of range", []string{"gate", "--report", "r.json", "--max-drop", "5"}, "--max-drop 5: want a fraction", true},
		{"merge without -o", []string{"merge", "a.json"}, "mcp-eval: want -o report.json and at least one shard report", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, apptest.Env(nil), append(tt.args, "--out", dir)...)
			if tt.args[0] == "gate" || tt.args[0] == "merge" {
				code, stdout, stderr = runCLI(t, apptest.Env(nil), tt.args...)
			}
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			want := 1
			if tt.usage {
				want = 2
			}
			if len(lines) != want || !strings.Contains(lines[0], tt.want) {
				t.Errorf("stderr %q, want %d line(s), the first containing %q", stderr, want, tt.want)
			}
			if tt.usage && lines[len(lines)-1] != "run mcp-eval "+tt.args[0]+" --help for its flags" {
				t.Errorf("last line %q, want the pointer to --help", lines[len(lines)-1])
			}
		})
	}
	t.Run("unknown command", func(t *testing.T) {
		code, _, stderr := runCLI(t, apptest.Env(nil), "rnu")
		if code != 2 || stderr != "mcp-eval: unknown command \"rnu\" (did you mean \"run\"?)\nrun mcp-eval --help for the commands\n" {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestHelpPerCommand: each subcommand's --help goes to stdout, exits 0, and
// lists exactly the flags that command takes.
func TestHelpPerCommand(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([\w-]+)`)
	tests := []struct {
		args     []string
		has      []string
		hasNot   []string
		nFlags   int // 0: not checked
		synopsis string
	}{
		{[]string{"run", "--help"}, []string{"server-url", "models", "golden", "layers", "waivers", "secrets"}, []string{"report", "o"}, 0, "mcp-eval run "},
		{[]string{"conformance", "-h"}, []string{"server-url", "timeout", "checks", "waivers"}, []string{"models", "golden", "layers", "judge-model", "shard", "cache-dir"}, 0, "mcp-eval conformance "},
		{[]string{"gate", "--help"}, []string{"report", "baseline", "max-drop", "strict", "format", "waivers", "drift", "require-significance", "gate", "alpha"}, []string{"server-url", "runs", "max-runs"}, 14, "mcp-eval gate "},
		{[]string{"merge", "--help"}, []string{"o"}, []string{"server-url"}, 1, "mcp-eval merge "},
		{[]string{"help", "gate"}, []string{"report"}, []string{"server-url"}, 14, "mcp-eval gate "},
		{[]string{"action", "--help"}, nil, []string{"server-url"}, 0, "mcp-eval action"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, apptest.Env(nil), tt.args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Usage: "+tt.synopsis) {
				t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
			}
			var names []string
			for _, m := range flagLine.FindAllStringSubmatch(stdout, -1) {
				names = append(names, m[1])
			}
			for _, f := range tt.has {
				if !slices.Contains(names, f) {
					t.Errorf("--help lacks -%s: %v", f, names)
				}
			}
			for _, f := range tt.hasNot {
				if slices.Contains(names, f) {
					t.Errorf("--help lists -%s, which %s does not take", f, tt.args[0])
				}
			}
			if tt.nFlags > 0 && len(names) != tt.nFlags {
				t.Errorf("--help lists %d flags, want %d: %v", len(names), tt.nFlags, names)
			}
		})
	}
}
