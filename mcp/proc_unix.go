//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

var termSignal = syscall.SIGTERM

// setProcessGroup starts the server in its own process group so that the
// whole tree can be signalled at shutdown.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func (s *Stdio) signalGroup(sig syscall.Signal) {
	if s.cmd.Process == nil {
		return
	}
	// A negative pid addresses the process group.
	_ = syscall.Kill(-s.cmd.Process.Pid, sig)
}

func (s *Stdio) killGroup() { s.signalGroup(syscall.SIGKILL) }
