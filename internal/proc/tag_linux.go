//go:build linux

package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// taggedProcesses lists the processes whose environment carries tag. A
// process's environ is readable by its own user, which every server
// mcp-eval starts is.
func taggedProcesses(tag string, skipGroup int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(TagEnvName + "=" + tag + "\x00")
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(append(env, 0), want) && (skipGroup == 0 || pgid(e.Name()) != skipGroup) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killPid(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// commandLine is the process's argv joined by spaces, from
// /proc/PID/cmdline (NUL-separated), clipped to maxCommandLine bytes on a
// rune boundary; "" when it cannot be read.
func commandLine(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
	if len(s) > maxCommandLine {
		s = strings.ToValidUTF8(s[:maxCommandLine], "") + "…"
	}
	return s
}

// pgid reads the process group from /proc/PID/stat (the field after the
// parenthesised command name, which may itself contain spaces).
func pgid(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0
	}
	n, _ := strconv.Atoi(string(f[2]))
	return n
}
