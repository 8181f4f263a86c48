// Package proctest holds what the process-hygiene tests of mcp and of the
// command share: a child that escapes its process group, and a way to ask
// whether a pid still runs.
package proctest

import (
	"bytes"
	"fmt"
	"os"
)

// State returns the state letter of pid from /proc ("R", "S", …), or ""
// when it is gone, a zombie, or /proc cannot tell (outside Linux, use
// Gone).
func State(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := bytes.Fields(b[i+1:])
	if len(f) == 0 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return ""
	}
	return string(f[0])
}
