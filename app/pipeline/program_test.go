package pipeline_test

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// A server command whose program is missing is one line naming the input
// and the program; inside the Docker action it points at host mode.
func TestMissingServerProgram(t *testing.T) {
	for _, tt := range []struct {
		name string
		vars map[string]string
		args []string
		want []string
	}{
		{name: "CLI", args: []string{"conformance", "--server-cmd", "mcp-eval-no-such-runtime server.js"},
			want: []string{`--server-cmd: program "mcp-eval-no-such-runtime" not found on PATH`}},
		{name: "relative path", args: []string{"conformance", "--server-cmd", "./bin/no-such-server --stdio"},
			want: []string{`--server-cmd: program "./bin/no-such-server" not found as a file`}},
		{name: "Docker action", vars: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/github/workspace"},
			args: []string{"conformance", "--server-cmd", "mcp-eval-no-such-runtime build/index.js"},
			want: []string{`input server-cmd (--server-cmd): program "mcp-eval-no-such-runtime" not found on PATH`, "host mode", "mcp-eval/mcp-eval/setup@v1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			code, _, stderr := runCommand(t, apptest.Env(tt.vars), append(tt.args, "--out", t.TempDir())...)
			if code == 0 || code == 1 {
				t.Errorf("exit %d: a missing program is not a server failure", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 2 {
				t.Errorf("want one line (and at most a usage hint), got %d lines:\n%s", n+1, stderr)
			}
		})
	}
}
