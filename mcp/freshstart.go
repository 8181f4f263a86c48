package mcp

import (
	"context"
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
// has not answered yet, given the per-request timeout, with n processes
// starting at once.
func (c *Client) freshTimeout(timeout time.Duration, n int64) time.Duration {
	return freshLimit(timeout, c.opts.StartTimeout, c.firstStart(), n)
}

// freshLimit is freshTimeout given the start-up budget and the first start.
func freshLimit(timeout, budget, first time.Duration, n int64) time.Duration {
	if budget <= timeout {
		return timeout
	}
	allow := max(freshStartFloor, 2*first)
	allow *= time.Duration(max(1, n))
	return min(timeout+allow, budget)
}

// freshWait bounds the wait for a new process's first answer to method by
// freshTimeout, counting the most processes that were starting at any
// moment of the wait, not only those at its start: a process that began
// first, when it was alone, is slowed by every one started after it, and
// a deadline fixed at its start judged it dead under that load. It
// returns the context to send under, the timeout to send with (the
// budget; the watch ends the wait earlier) and the end of the watch.
func (c *Client) freshWait(ctx context.Context, method string, timeout time.Duration) (context.Context, time.Duration, func()) {
	budget := c.opts.StartTimeout
	if budget <= timeout {
		return ctx, timeout, func() {}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	start := time.Now()
	first := c.firstStart() // read here: the caller goes on to set c.probe
	go func() {
		tick := time.NewTicker(startPoll)
		defer tick.Stop()
		peak := starting.Load()
		for {
			select {
			case <-stop:
				return
			case <-wctx.Done():
				return
			case <-tick.C:
			}
			peak = max(peak, starting.Load())
			if limit := freshLimit(timeout, budget, first, peak); time.Since(start) >= limit {
				cancel(&TimeoutError{Method: method, After: limit})
				return
			}
		}
	}()
	return wctx, budget, func() { close(stop); cancel(nil) }
}

// firstStart is how long the connection's first process took for its first
// answer (the era probe's, else the handshake's, else that of the
// connection it was redialled from), 0 when unknown.
func (c *Client) firstStart() time.Duration {
	for _, x := range []*Exchange{c.probe.Discover, c.probe.Initialize} {
		if x != nil && x.Response != nil {
			return x.Duration
		}
	}
	return c.started
}
