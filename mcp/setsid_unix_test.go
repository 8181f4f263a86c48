//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setsid makes cmd leave its parent's process group and session, as a
// daemonising server's child does: the escapee the hygiene tests hunt.
func setsid(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// gone reports whether no process has this pid any more.
func gone(pid int) bool { return syscall.Kill(pid, 0) != nil }
