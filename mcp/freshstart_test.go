package mcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// A fresh process of a server slower to start (1.5 s) than --timeout
// (300 ms) is given its start-up for its first answer, several started at
// once included; the connection's later requests have the ordinary timeout
// (before: each fresh process's first answer timed out at 300 ms, and the
// check reported a dead server).
func TestFreshProcessGetsItsStartUp(t *testing.T) {
	c := connectFake(t, "slow-start", Options{Timeout: 300 * time.Millisecond, StartTimeout: 60 * time.Second})
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tr, err := c.Target().Dial(context.Background())
			if err != nil {
				errs[i] = err
				return
			}
			fresh := c.WithTransport(tr)
			defer fresh.Close()
			if _, errs[i] = fresh.ListTools(context.Background()); errs[i] != nil {
				return
			}
			// Once started, a request has the ordinary timeout.
			if got := fresh.Timeout(); got != 300*time.Millisecond {
				errs[i] = errors.New("timeout changed to " + got.String())
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fresh process %d: %v", i, err)
		}
	}
	if n := starting.Load(); n != 0 {
		t.Errorf("%d processes still counted as starting after every one answered or ended", n)
	}
}

// The allowance is bounded: a fresh process that never answers costs at
// most --start-timeout, and without a start-up budget longer than the
// timeout, the timeout alone.
func TestFreshTimeoutBounds(t *testing.T) {
	c := &Client{opts: Options{Timeout: time.Second, StartTimeout: 5 * time.Second}}
	c.probe.Discover = &Exchange{Response: &Message{}, Duration: 700 * time.Millisecond}
	if got, want := c.freshTimeout(time.Second, 1), time.Second+1400*time.Millisecond; got != want {
		t.Errorf("one start: %v, want the timeout plus twice the first start, %v", got, want)
	}
	if got := c.freshTimeout(time.Second, 3); got != 5*time.Second {
		t.Errorf("three starts at once: %v, want the 5 s start-up budget", got)
	}
	c.opts.StartTimeout = 0
	if got := c.freshTimeout(time.Second, 1); got != time.Second {
		t.Errorf("no start-up budget: %v, want the timeout", got)
	}
	c.opts.StartTimeout = 20 * time.Second
	c.probe.Discover = nil
	if got, want := c.freshTimeout(time.Second, 1), time.Second+freshStartFloor; got != want {
		t.Errorf("first start unknown: %v, want %v", got, want)
	}
}

// The allowance is for the first answer alone: once a fresh process has
// answered, a request it never answers times out after the plain timeout.
func TestFreshProcessHangIsBounded(t *testing.T) {
	c := connectFake(t, "hang-tools", Options{Timeout: 300 * time.Millisecond, StartTimeout: 3 * time.Second})
	tr, err := c.Target().Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fresh := c.WithTransport(tr)
	defer fresh.Close()
	// hang-tools answers server/discover: once it has, tools/list waits
	// the plain timeout.
	if err := fresh.Call(context.Background(), "server/discover", nil, nil); err != nil {
		t.Fatalf("server/discover: %v", err)
	}
	_, err = fresh.ListTools(context.Background())
	var te *TimeoutError
	if !errors.As(err, &te) || te.After != 300*time.Millisecond {
		t.Errorf("err = %v, want a timeout after the plain 300ms once the process answered", err)
	}
}

// A process that began its wait alone is slowed by every process started
// after it: its wait grows with the most processes starting at once during
// it, not only those at its start (a deadline fixed at the start, here
// 1.1 s, had judged it dead under that load). Structure, not time: the
// grown wait (50 s) is far beyond the moment it is looked at.
func TestFreshWaitGrowsWithLaterStarts(t *testing.T) {
	c := &Client{opts: Options{Timeout: 100 * time.Millisecond, StartTimeout: time.Minute}}
	ctx, timeout, end := c.freshWait(context.Background(), "initialize", c.opts.Timeout)
	defer end()
	if timeout != time.Minute {
		t.Errorf("sent with %v, want the start-up budget (the watch ends the wait)", timeout)
	}
	starting.Add(50)
	time.Sleep(2 * time.Second)
	starting.Add(-50)
	if err := context.Cause(ctx); err != nil {
		t.Fatalf("the wait ended (%v) while 50 processes were starting beside it", err)
	}
	// A lone wait still ends, as a timeout.
	c2 := &Client{opts: Options{Timeout: 10 * time.Millisecond, StartTimeout: time.Minute}}
	ctx2, _, end2 := c2.freshWait(context.Background(), "initialize", c2.opts.Timeout)
	defer end2()
	<-ctx2.Done()
	if err := ctxError(ctx2, "initialize"); !errors.As(err, new(*TimeoutError)) {
		t.Errorf("a lone wait ended with %v, want a TimeoutError", err)
	}
}

// A connection made anew to a legacy server that answered the run's first
// one, whose new process never answers its handshake, fails with what
// happened (a timeout), not "no MCP server at the target".
func TestRedialNeverNotMCP(t *testing.T) {
	target := fakeTarget(t, "legacy-once")
	target.Command.Env = append(target.Command.Env, "MCP_TEST_MARK="+t.TempDir()+"/started")
	// The first process gets a start-up budget a loaded machine needs (2 s
	// was too little beside 24 CPU-bound processes); the new one, which
	// never answers, a short one.
	c, err := Connect(context.Background(), target, Options{Timeout: 300 * time.Millisecond, StartTimeout: time.Minute, Version: LegacyVersion})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer c.Close()
	c.opts.StartTimeout = 2 * time.Second
	if c.Era() != EraLegacy {
		t.Fatalf("era %s, want legacy", c.Era())
	}
	nc, err := c.Redial(context.Background())
	if err == nil {
		nc.Close()
		t.Fatal("Redial succeeded against a process that never answers")
	}
	if errors.As(err, new(*NotMCPError)) || strings.Contains(err.Error(), "no MCP server") {
		t.Errorf("Redial: %v, want no claim that no MCP server is there", err)
	}
	if !errors.As(err, new(*TimeoutError)) {
		t.Errorf("Redial: %v, want the handshake's timeout", err)
	}
}
