//go:build unix

package proc

import (
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/proc/proctest"
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

// KillAll ends every process tree started and not yet over, at once: the
// leader and the children it started in its group (a shell that started
// two sleeps), and forgets each once it is over.
func TestKillAll(t *testing.T) {
	var kids []int
	before := Live()
	for range 2 {
		cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $!; sleep 300 & echo $!; wait`)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p, err := Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, p.Pid())
		var a, b int
		if _, err := fmt.Fscan(out, &a, &b); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, a, b)
	}
	if got := Live() - before; got < 2 {
		t.Fatalf("Live() grew by %d, want 2", got)
	}
	if n := KillAll(); n < 2 {
		t.Errorf("KillAll() = %d, want at least 2", n)
	}
	for _, pid := range kids {
		waitGone(t, pid)
	}
	// Once their leaders are reaped, a second KillAll forgets them.
	for range 100 {
		KillAll()
		if Live() == before {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if Live() != before {
		t.Errorf("Live() = %d after every tree ended, want %d", Live(), before)
	}
}

// waitGone waits up to 10 s for pid to be gone (a zombie counts as gone:
// its parent, init once the shell died, reaps it when it will).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 200 {
		if proctest.State(pid) == "" && (runtime.GOOS == "linux" || proctest.Gone(pid)) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("pid %d still runs after KillAll", pid)
	proctest.Kill(pid)
}
