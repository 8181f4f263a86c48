//go:build unix

package proctest

import (
	"os/exec"
	"syscall"
)

// Setsid makes cmd leave its parent's process group and session, as a
// daemonising server's child does: the escapee the hygiene tests hunt.
func Setsid(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// Gone reports whether no process has this pid any more (a zombie not yet
// reaped still has it).
func Gone(pid int) bool { return syscall.Kill(pid, 0) != nil }

// Kill kills a process the test started, by pid.
func Kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
