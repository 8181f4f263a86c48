package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWorkflowsActionlint: every workflow, the project's and the examples a
// user copies, passes actionlint with shellcheck checking each run: script
// (a quoting slip such as SC2016 would otherwise reach users' runners). It
// needs actionlint ($MCP_EVAL_DEPS/bin, where .ci/run installs it, or PATH)
// and shellcheck (apt-get install shellcheck); .ci/run has both.
func TestWorkflowsActionlint(t *testing.T) {
	lint, err := exec.LookPath("actionlint")
	if err != nil {
		lint = filepath.Join(os.Getenv("MCP_EVAL_DEPS"), "bin", "actionlint")
		if _, err := os.Stat(lint); os.Getenv("MCP_EVAL_DEPS") == "" || err != nil {
			t.Skip("no actionlint (GOBIN=$MCP_EVAL_DEPS/bin go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
		}
	}
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("no shellcheck on PATH (apt-get install shellcheck): actionlint would skip the run: scripts")
	}
	files, _ := filepath.Glob("examples/workflows/*.yml")
	ci, _ := filepath.Glob(".github/workflows/*.yml")
	files = append(files, ci...)
	if len(files) < 8 {
		t.Fatalf("workflows: %v", files)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, lint, append([]string{"-shellcheck", sc}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint with shellcheck: %v\n%s", err, out)
	}
}
