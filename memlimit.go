package main

import "runtime/debug"

// memoryLimit is the soft memory limit mcp-eval runs under unless
// GOMEMLIMIT says otherwise. Go's collector lets the heap grow to twice
// what is live before it collects; a big server's run holds its listing
// (25 MB of JSON at 20 000 tools) and judges it, and that headroom alone
// made it 200 MB. Under the limit the collector runs sooner as the heap
// nears it; it is soft, so a larger server still runs, its collector
// working harder (capped by the runtime at half the CPU) rather than
// failing. A run of an ordinary server never comes near it.
const memoryLimit = 80 << 20

// gcPercent is the collector's pace unless GOGC says otherwise: the heap
// may grow to five times what is live before a collection, not twice. A
// run is short and allocates far more than it keeps (every answer is read,
// judged and dropped), so at Go's default of 100 the collector ran all
// through it: at 1 000 tools it was an eighth of mcp-eval's CPU. The
// memory limit above still bounds the heap, so a big server's run
// collects as before once it nears 80 MiB.
const gcPercent = 400

// setMemoryLimit applies memoryLimit and gcPercent, each unless its
// variable (GOMEMLIMIT, GOGC) is set: the runtime has read it already.
func setMemoryLimit(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
