//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// setsid is a no-op where there are no sessions; the tests that rely on it
// skip there.
func setsid(cmd *exec.Cmd) {}

// gone reports whether no process has this pid any more.
func gone(pid int) bool {
	_, err := os.FindProcess(pid)
	return err != nil
}

// killPid kills a process the test started by pid.
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
