//go:build !unix

package e2e

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available; only
// the direct child is then stopped.
func ownProcessGroup(cmd *exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
