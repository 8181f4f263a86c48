package mcp

import (
	"errors"
	"fmt"
	"os/exec"
	"testing"
)

// exitText names how the server ended in words: a forked child holding
// its stdout is no "exec: WaitDelay expired before I/O complete".
func TestExitText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, "exit status 0"},
		{exec.ErrWaitDelay, "exit status 0, but a process it started kept its output open (killed)"},
		{fmt.Errorf("wait: %w", exec.ErrWaitDelay), "exit status 0, but a process it started kept its output open (killed)"},
		{errors.New("exit status 3"), "exit status 3"},
	} {
		if got := exitText(tt.err); got != tt.want {
			t.Errorf("exitText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
