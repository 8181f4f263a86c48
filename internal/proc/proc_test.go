//go:build unix

package proc

import (
	"io"
	"os/exec"
	"testing"
	"time"
)

// Stop follows the stdio shutdown sequence and takes only the steps the
// process needs: stdin EOF, then SIGTERM, then SIGKILL.
func TestStop(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		stdin    bool
		min, max time.Duration
	}{
		{"exits on stdin EOF", "cat", true, 0, StdinGrace},
		{"ends on SIGTERM", "exec sleep 30", true, StdinGrace, StdinGrace + TermGrace},
		{"no stdin pipe: SIGTERM at once", "exec sleep 30", false, 0, TermGrace},
		{"ignores SIGTERM: SIGKILL", `trap "" TERM; while :; do sleep 0.05; done`, true, StdinGrace + TermGrace, StdinGrace + TermGrace + KillWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("/bin/sh", "-c", tt.script)
			var stdin io.WriteCloser
			if tt.stdin {
				var err error
				if stdin, err = cmd.StdinPipe(); err != nil {
					t.Fatal(err)
				}
			}
			p, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // let the trap be set
			start := time.Now()
			if err := p.Stop(stdin); err != nil {
				t.Fatal(err)
			}
			// The lower bound is the assertion; the upper one a hang guard,
			// wide for a loaded machine.
			if d := time.Since(start); d < tt.min || d > tt.max+30*time.Second {
				t.Errorf("Stop took %v, want %v to %v", d, tt.min, tt.max)
			}
			select {
			case <-p.Exited():
			default:
				t.Error("not reaped after Stop")
			}
		})
	}
}
