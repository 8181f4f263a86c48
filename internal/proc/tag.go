package proc

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// A server may leave its process group (setsid, a daemonising wrapper), and
// then no signal to the group reaches it. So every server process mcp-eval
// starts carries a random tag in its environment, which its descendants
// inherit whatever group or session they move to; at shutdown the processes
// still carrying the tag are found (on Linux, from /proc) and killed, and
// named, so that nothing outlives the run unnoticed.

// TagEnvName is the environment variable that carries the tag.
const TagEnvName = "MCP_EVAL_PROCESS_TAG"

// newTag returns a fresh tag and the environment entry that sets it.
func newTag() (tag, env string) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	tag = hex.EncodeToString(b[:])
	return tag, TagEnvName + "=" + tag
}

// killTagged kills (SIGKILL) every process that still carries tag, except
// the caller and members of process group skipGroup (already signalled as
// a group; 0 skips none), and returns their pids. Where processes cannot be
// listed (outside Linux) it returns nil.
func killTagged(tag string, skipGroup int) []int {
	pids := taggedProcesses(tag, skipGroup)
	for _, pid := range pids {
		// Read before the kill: a killed process's command line is gone.
		if c := commandLine(pid); c != "" {
			killedCommands.Store(pid, c)
		}
		killPid(pid)
	}
	return pids
}

// killedCommands remembers the command line of each escapee killTagged
// killed (pid → string), so that the warning naming it says what it was:
// a pid alone tells the user nothing once the process is gone.
var killedCommands sync.Map

// maxCommandLine bounds a remembered command line.
const maxCommandLine = 200

// KilledCommand is the command line of a process killTagged killed, ""
// when it is unknown (outside Linux, or the process was already gone).
func KilledCommand(pid int) string {
	if v, ok := killedCommands.Load(pid); ok {
		return v.(string)
	}
	return ""
}
