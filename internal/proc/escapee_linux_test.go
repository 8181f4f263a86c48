//go:build linux

package proc

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A child that left the process group (setsid) is found by its tag,
// killed, and its command line remembered for the warning that names it.
func TestKillNamesEscapee(t *testing.T) {
	p, err := Start(exec.Command("/bin/sh", "-c", "setsid sleep 301 & exec sleep 30"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(nil)
	// A hang guard, wide for a loaded machine: the escapee appears as soon
	// as setsid has run.
	for deadline := time.Now().Add(30 * time.Second); len(taggedProcesses(p.tag, p.Pid())) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the setsid child never appeared")
		}
	}
	left := p.Kill()
	if len(left) != 1 {
		t.Fatalf("killed %v, want the one escapee", left)
	}
	if got := KilledCommand(left[0]); got != "sleep 301" {
		t.Errorf("KilledCommand(%d) = %q, want %q", left[0], got, "sleep 301")
	}
	if got := KilledCommand(1 << 30); got != "" {
		t.Errorf("an unknown pid's command = %q, want empty", got)
	}
}

// A descendant that left the group (setsid) and cleared its environment
// (env -i) carries neither the group nor the tag; with mcp-eval as the
// subreaper it is re-parented here when its parent exits, and KillOrphans
// kills it, naming its executable and nothing of its arguments.
func TestKillOrphansFindsCleanEnvEscapee(t *testing.T) {
	if err := BecomeSubreaper(); err != nil {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", err)
	}
	p, err := Start(exec.Command("/bin/sh", "-c", "setsid env -i sleep 302 7 & exec sleep 30"))
	if err != nil {
		t.Fatal(err)
	}
	// Stop only once the escapee runs with its clean environment: before
	// env has exec'd it, it still carries the tag.
	for deadline := time.Now().Add(30 * time.Second); !running("sleep 302 7"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the escapee never started")
		}
	}
	if err := p.Stop(nil); err != nil {
		t.Fatal(err)
	}
	var orphan []Orphan
	// A hang guard, wide for a loaded machine: the sleep is re-parented
	// here as soon as its shell has exited.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		for _, o := range childrenOf(os.Getpid()) {
			if o.Name == "sleep" {
				orphan = append(orphan, o)
			}
		}
		if len(orphan) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(orphan) != 1 {
		t.Fatalf("children of the test named sleep: %v, want the one escapee", orphan)
	}
	if tagged := taggedProcesses(p.tag, 0); len(tagged) != 0 {
		t.Fatalf("the escapee still carries the tag (%v): the case does not test the subreaper", tagged)
	}
	killed := KillOrphans()
	if !slices.Contains(killed, orphan[0]) {
		t.Fatalf("KillOrphans killed %v, want %v", killed, orphan[0])
	}
	w := OrphanWarning(killed)
	if !strings.Contains(w, "(sleep)") || strings.Contains(w, "sleep 302") {
		t.Errorf("warning %q: want the executable named, never its arguments", w)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive := slices.ContainsFunc(childrenOf(os.Getpid()), func(o Orphan) bool { return o.Pid == orphan[0].Pid })
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the escapee outlived SIGKILL")
		}
	}
}

// running reports whether a process of this user runs the command line.
func running(cmdline string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && commandLine(pid) == cmdline {
			return true
		}
	}
	return false
}
