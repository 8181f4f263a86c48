package mcp

import (
	"sync/atomic"
	"time"
)

// A stdio process started after the connection's first (a fresh process
// for a check of its own, a restart) has to start up again before its
// first answer: the per-request Timeout alone would judge a server that is
// slower to start than to answer as dead (basic/transports/stdio.mdx: the
// client launches the server; how long that takes is the server's
// business, which --start-timeout bounds). Its first answer is given
// Timeout plus a start-up allowance:
//
//   - twice what the connection's first process took for its first answer
//     (its start-up measured on this machine, as the legacy fallback's
//     fresh process is given), at least freshStartFloor;
//   - times the number of processes awaiting their first answer at once,
//     since processes started together share the machine's cores and each
//     start is slower for the others (several checks each start one);
//   - within the start-up budget, Options.StartTimeout, when it is longer
//     than Timeout (0, or a shorter one, leaves Timeout as it is).
const freshStartFloor = time.Second

// starting counts the stdio processes of this process that are alive and
// have not yet written a JSON-RPC message.
var starting atomic.Int64

// freshTimeout is the wait for the first answer of a stdio process that
// has not answered yet, given the per-request timeout.
func (c *Client) freshTimeout(timeout time.Duration) time.Duration {
	budget := c.opts.StartTimeout
	if budget <= timeout {
		return timeout
	}
	allow := max(freshStartFloor, 2*c.firstStart())
	allow *= time.Duration(max(1, starting.Load()))
	return min(timeout+allow, budget)
}

// firstStart is how long the connection's first process took for its first
// answer (the era probe's, else the handshake's), 0 when unknown.
func (c *Client) firstStart() time.Duration {
	for _, x := range []*Exchange{c.probe.Discover, c.probe.Initialize} {
		if x != nil && x.Response != nil {
			return x.Duration
		}
	}
	return 0
}
