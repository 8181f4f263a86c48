//go:build linux

package proc

import (
	"os/exec"
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
