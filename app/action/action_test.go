package action

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/github"
)

func TestWorkspacePath(t *testing.T) {
	ws := filepath.FromSlash("/github/workspace")
	for _, tt := range []struct{ ws, in, want string }{
		{ws, filepath.Join(ws, "mcp-eval-report", "report.json"), "mcp-eval-report/report.json"},
		{ws, filepath.Join(ws, "a", "b", "c.sarif"), "a/b/c.sarif"},
		{ws, filepath.FromSlash("/tmp/out/report.json"), filepath.FromSlash("/tmp/out/report.json")},
		{ws, filepath.FromSlash("/github/workspace2/report.json"), filepath.FromSlash("/github/workspace2/report.json")},
		{"", filepath.FromSlash("/x/report.json"), filepath.FromSlash("/x/report.json")},
	} {
		if got := workspacePath(tt.ws, tt.in); got != tt.want {
			t.Errorf("workspacePath(%q, %q) = %q, want %q", tt.ws, tt.in, got, tt.want)
		}
	}
}

func TestActionFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want map[string]string
		err  string
	}{
		{args: []string{"--server-url=http://x/mcp", "--runs", "3"}, want: map[string]string{"INPUT_SERVER-URL": "http://x/mcp", "INPUT_RUNS": "3", "INPUT_MODELS": "from-env"}},
		{args: []string{"--server-ur=http://x"}, err: "unknown flag --server-ur (did you mean --server-url?)"},
		{args: []string{"--runs"}, err: "flag --runs needs a value"},
		{args: []string{"conformance"}, err: `unexpected argument "conformance"`},
	} {
		got, err := actionFlags(tt.args, func(k string) string { return map[string]string{"INPUT_MODELS": "from-env", "INPUT_RUNS": "9"}[k] })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		for k, v := range tt.want {
			if got(k) != v {
				t.Errorf("%v: %s = %q, want %q", tt.args, k, got(k), v)
			}
		}
	}
}

// TestMissingPermissionIsAnnotated: a permission the token lacks (no
// actions: read for the baseline) is a ::warning:: annotation on the run as
// well as a note of the summary; other trouble stays a note.
func TestMissingPermissionIsAnnotated(t *testing.T) {
	var stdout, stderr strings.Builder
	a := &action{stdout: &stdout, stderr: &stderr, red: tokenRedactor("")}
	a.warn(&github.Warning{Kind: github.Forbidden, Op: "baseline", Msg: "no baseline: listing the workflow's runs was refused (403; the workflow needs permissions: actions: read)"})
	a.warn(errors.New("no baseline: the API is down"))
	if got := stdout.String(); strings.Count(got, "::warning") != 1 || !strings.Contains(got, "permissions: actions: read") {
		t.Errorf("annotations:\n%s\nwant one ::warning:: naming the permission", got)
	}
	if len(a.notes) != 2 {
		t.Errorf("%d notes, want both in the summary", len(a.notes))
	}
}
