package mcp

import (
	"context"
	"errors"
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
	if got, want := c.freshTimeout(time.Second), time.Second+1400*time.Millisecond; got != want {
		t.Errorf("one start: %v, want the timeout plus twice the first start, %v", got, want)
	}
	starting.Add(3)
	got := c.freshTimeout(time.Second)
	starting.Add(-3)
	if got != 5*time.Second {
		t.Errorf("three starts at once: %v, want the 5 s start-up budget", got)
	}
	c.opts.StartTimeout = 0
	if got := c.freshTimeout(time.Second); got != time.Second {
		t.Errorf("no start-up budget: %v, want the timeout", got)
	}
	c.opts.StartTimeout = 20 * time.Second
	c.probe.Discover = nil
	if got, want := c.freshTimeout(time.Second), time.Second+freshStartFloor; got != want {
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
