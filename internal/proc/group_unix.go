//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// setGroup makes the process the leader of a new process group, so that the
// whole tree it starts can be signalled at once.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
}

// signalGroup sends SIGTERM (term) or SIGKILL to the process group.
func signalGroup(cmd *exec.Cmd, term bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGKILL
	if term {
		sig = syscall.SIGTERM
	}
	// A negative pid addresses the process group.
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
