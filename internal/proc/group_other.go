//go:build !unix

package proc

import "os/exec"

func setGroup(*exec.Cmd) {}

// signalGroup: without process groups (or SIGTERM), the best available is
// to end the process itself (TerminateProcess on Windows).
func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
