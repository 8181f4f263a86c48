package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/report"
)

func TestAliveWithin(t *testing.T) {
	tests := []struct {
		took, timeout, want time.Duration
	}{
		{10 * time.Millisecond, 10 * time.Second, time.Second},                  // the floor
		{200 * time.Millisecond, 10 * time.Second, 4 * time.Second},             // 20 × took
		{2 * time.Second, 10 * time.Second, 10 * time.Second},                   // capped by the timeout
		{2 * time.Second, 0, 40 * time.Second},                                  // no timeout set
		{10 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}, // a timeout under the floor wins
	}
	for _, tt := range tests {
		if got := aliveWithin(tt.took, tt.timeout); got != tt.want {
			t.Errorf("aliveWithin(%s, %s) = %s, want %s", tt.took, tt.timeout, got, tt.want)
		}
	}
}

// TestBadLineWaitIgnoresStartUp: a stdio server slow to start but quick
// once running, which stops reading after a batch line, is waited for after
// the line by what a steady request takes, not by what its first one took
// (measured before the fix: the wait grew to 1.6 s under load, since it counted start-up).
func TestBadLineWaitIgnoresStartUp(t *testing.T) {
	t.Parallel()
	fo := mcptest.Options{Defects: mcptest.ParseDefects(mcptest.DefectBatch), StartDelay: 300 * time.Millisecond}
	res, _ := evaluateFixture(t, "stdio", fo, Options{Only: []string{"jsonrpc/batch-rejected"}}, 0)
	c := byID(res)["jsonrpc/batch-rejected"]
	if c.Status != report.StatusFail || !strings.Contains(c.Message, "no answer within 1s,") {
		t.Errorf("jsonrpc/batch-rejected: %s %q, want a failure after waiting the 1 s floor", c.Status, c.Message)
	}
}
