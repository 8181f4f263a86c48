//go:build linux

package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (include/uapi/linux/prctl.h).
const prSetChildSubreaper = 36

// BecomeSubreaper makes mcp-eval the reaper of every process its servers
// leave behind (prctl(2), PR_SET_CHILD_SUBREAPER): an orphaned descendant
// is re-parented to mcp-eval instead of init, so one that left the
// server's process group (setsid) and cleared its environment (env -i),
// which neither the group kill nor the tag can find, is still found by its
// parent and killed by KillOrphans.
// https://man7.org/linux/man-pages/man2/prctl.2.html
func BecomeSubreaper() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// KillOrphans kills every live child of this process that is not one of
// the processes it started and still tracks — with BecomeSubreaper, the
// descendants the servers left behind — until none is left or a few
// rounds have passed (a killed orphan's own children are re-parented
// here in turn), and returns each one's pid and executable name (comm:
// never its arguments, which may carry a secret). Call it only when no
// server should be running: at the end of a run.
func KillOrphans() []Orphan {
	self := os.Getpid()
	var killed []Orphan
	seen := map[int]bool{}
	for round := 0; round < 8; round++ {
		found := false
		for _, o := range childrenOf(self) {
			if isLeader(o.Pid) || seen[o.Pid] {
				continue
			}
			seen[o.Pid], found = true, true
			_ = syscall.Kill(o.Pid, syscall.SIGKILL)
			killed = append(killed, o)
		}
		if !found {
			break
		}
		time.Sleep(20 * time.Millisecond) // their children re-parent here
	}
	return killed
}

// isLeader reports whether pid is a process Start started and still
// tracks: its own Stop or Kill handles it.
func isLeader(pid int) bool {
	live.Lock()
	defer live.Unlock()
	for p := range live.m {
		if p.cmd.Process != nil && p.cmd.Process.Pid == pid {
			return true
		}
	}
	return false
}

// childrenOf lists the live (not zombie) processes whose parent is ppid,
// from /proc/PID/stat.
func childrenOf(ppid int) []Orphan {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Orphan
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		lp, rp := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if lp < 0 || rp < lp {
			continue
		}
		f := bytes.Fields(b[rp+1:])
		if len(f) < 2 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		if p, _ := strconv.Atoi(string(f[1])); p == ppid {
			out = append(out, Orphan{Pid: pid, Name: strings.ToValidUTF8(string(b[lp+1:rp]), "?")})
		}
	}
	return out
}
