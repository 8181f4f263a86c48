//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup signals the whole group (the shell and the server it
// started): SIGTERM when term is set, else SIGKILL.
func killProcessGroup(cmd *exec.Cmd, term bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGKILL
	if term {
		sig = syscall.SIGTERM
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
