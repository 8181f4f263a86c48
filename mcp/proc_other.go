//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

var termSignal = os.Kill

func setProcessGroup(*exec.Cmd) {}

// signalGroup: without process groups, the best available is to end the
// process itself (TerminateProcess on Windows).
func (s *Stdio) signalGroup(os.Signal) {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
}

func (s *Stdio) killGroup() { s.signalGroup(os.Kill) }
