package mcp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestHealth(t *testing.T) {
	timeout := &TimeoutError{Method: "tools/list", After: time.Second}
	tests := []struct {
		name     string
		outcomes []error
		alive    bool // a sign of life after the requests were sent
		wantDead bool
	}{
		{"three timeouts in a row", []error{timeout, timeout, timeout}, false, true},
		{"two are not enough", []error{timeout, timeout}, false, false},
		{"an answer resets", []error{timeout, timeout, nil, timeout, timeout}, false, false},
		{"a JSON-RPC-less answer is an answer", []error{timeout, timeout, &ProtocolError{Method: "x"}, timeout}, false, false},
		{"too large is an answer", []error{timeout, timeout, ErrTooLarge, timeout, timeout}, false, false},
		{"cancellations do not count", []error{timeout, fmt.Errorf("x: %w", context.Canceled), timeout, context.Canceled}, false, false},
		{"a server that talks meanwhile is alive", []error{timeout, timeout, timeout, timeout}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h health
			sent := time.Now()
			if tt.alive {
				time.Sleep(time.Millisecond)
				h.alive()
			}
			for i, err := range tt.outcomes {
				h.record(fmt.Sprintf("call%d", i), sent, err)
			}
			err := h.check()
			if (err != nil) != tt.wantDead {
				t.Fatalf("check() = %v, want dead=%v", err, tt.wantDead)
			}
			if err != nil && (!errors.Is(err, ErrUnresponsive) || err.Error() != "server unresponsive since call0 (tools/list: no answer within 1s)") {
				t.Errorf("err = %q", err)
			}
		})
	}
}
