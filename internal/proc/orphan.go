package proc

import (
	"fmt"
	"strings"
)

// Orphan is a process a server left behind that KillOrphans killed: its
// pid and its executable's name as the kernel keeps it (comm, at most 15
// bytes), never its arguments.
type Orphan struct {
	Pid  int
	Name string
}

// OrphanWarning is the line that names the orphans KillOrphans killed,
// "" when there were none.
func OrphanWarning(killed []Orphan) string {
	if len(killed) == 0 {
		return ""
	}
	names := make([]string, len(killed))
	for i, o := range killed {
		names[i] = fmt.Sprintf("%d (%s)", o.Pid, o.Name)
	}
	return fmt.Sprintf("mcp-eval: warning: a server left %d process(es) behind outside its process group and without mcp-eval's tag; killed pid %s\n",
		len(killed), strings.Join(names, ", "))
}
