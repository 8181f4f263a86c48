package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// unresponsiveAfter is how many requests in a row may time out before the
// client stops sending: a hung server then costs a few timeouts in all, not
// one per check (concurrent requests that time out together count each).
const unresponsiveAfter = 3

// health follows one server's answers for the circuit breaker in
// Client.Do. Any answer resets it, even a JSON-RPC error.
type health struct {
	mu       sync.Mutex
	inARow   int
	since    string // first request of the current run of timeouts
	sentAt   time.Time
	firstErr error
	dead     *UnresponsiveError
	lastSign time.Time // the server's last message that answered nothing
}

// check returns the error to fail a request with at once, or nil.
func (h *health) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead != nil {
		return h.dead
	}
	return nil
}

// record notes the outcome of one request labelled label, sent at sent.
// A timeout counts only when the server sent no response at all meanwhile
// (notifications do not count: they answer nothing).
func (h *health) record(label string, sent time.Time, err error) {
	var te *TimeoutError
	h.mu.Lock()
	defer h.mu.Unlock()
	flood := errors.As(err, new(*floodError))
	switch {
	case !flood && (err == nil || errors.Is(err, ErrTooLarge) || errors.As(err, new(*ProtocolError))):
		// The server answered (too much, or garbage, but it answered).
		h.inARow, h.since, h.firstErr, h.dead = 0, "", nil, nil
	case errors.As(err, &te) && h.lastSign.After(sent):
		// It timed out, but the server spoke meanwhile (a wrong id, a
		// late answer): it is alive.
	case flood, errors.As(err, &te):
		// The run is named by the request sent first, not the first to
		// time out: requests sent together (the description's lists) then
		// name the same one from run to run.
		if h.inARow == 0 || sent.Before(h.sentAt) {
			h.since, h.sentAt, h.firstErr = label, sent, err
		}
		h.inARow++
		if h.inARow >= unresponsiveAfter && h.dead == nil {
			h.dead = &UnresponsiveError{Since: h.since, Cause: h.firstErr}
		}
	case errors.Is(err, context.Canceled):
		// Interrupted by the run, not the server.
	}
}

// alive notes a JSON-RPC response from the server that answered no request
// in flight (a late answer, one with a wrong id): a server that still
// answers is not unresponsive, however wrong what it says. A notification
// is no such sign: a server that only chatters answers nothing.
func (h *health) alive() {
	h.mu.Lock()
	h.inARow, h.since, h.firstErr, h.dead = 0, "", nil, nil
	h.lastSign = time.Now()
	h.mu.Unlock()
}

// healthSource is implemented by the transports of this package.
type healthSource interface{ healthState() *health }

func (s *Stdio) healthState() *health { return &s.health }
