package proc

import "sync"

// live holds the processes started and not yet known to be over (exited,
// and their group killed), so that the ends of mcp-eval that skip the
// orderly Stop — a second signal, a panic — can still kill every group.
var live struct {
	sync.Mutex
	m map[*Process]struct{}
}

func track(p *Process) {
	live.Lock()
	defer live.Unlock()
	if live.m == nil {
		live.m = map[*Process]struct{}{}
	}
	live.m[p] = struct{}{}
}

func untrack(p *Process) {
	live.Lock()
	defer live.Unlock()
	delete(live.m, p)
}

// Live returns how many started processes are not yet over.
func Live() int {
	live.Lock()
	defer live.Unlock()
	return len(live.m)
}

// KillAll sends SIGKILL to the process group of every process started and
// not yet over, and kills their tagged escapees (tag.go), at once and
// without the stdio shutdown's graces: for an end that cannot wait (a
// second signal, a panic). It returns how many processes it killed the
// groups of.
func KillAll() int {
	live.Lock()
	ps := make([]*Process, 0, len(live.m))
	for p := range live.m {
		ps = append(ps, p)
	}
	live.Unlock()
	for _, p := range ps {
		p.Kill()
	}
	return len(ps)
}
