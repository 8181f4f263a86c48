//go:build !unix

package proctest

import (
	"os"
	"os/exec"
)

// Setsid is a no-op where there are no sessions; the tests that rely on it
// skip there.
func Setsid(*exec.Cmd) {}

// Gone reports whether no process has this pid any more.
func Gone(pid int) bool {
	_, err := os.FindProcess(pid)
	return err != nil
}

// Kill kills a process the test started, by pid.
func Kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
