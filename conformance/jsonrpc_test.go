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
// once running, which stops reading after a batch line, fails after the
// request's whole timeout (a shorter wait judged correct servers dead on a
// loaded machine), and the message quotes what a steady request took, not
// the first one's start-up (2 s here).
func TestBadLineWaitIgnoresStartUp(t *testing.T) {
	t.Parallel()
	fo := mcptest.Options{Defects: mcptest.ParseDefects(mcptest.DefectBatch), StartDelay: 2 * time.Second}
	res, _ := evaluateFixture(t, "stdio", fo, Options{Only: []string{"jsonrpc/batch-rejected"}}, 0)
	c := byID(res)["jsonrpc/batch-rejected"]
	if c.Status != report.StatusFail || !strings.Contains(c.Message, "no answer within") || !strings.Contains(c.Message, "before the line") {
		t.Fatalf("jsonrpc/batch-rejected: %s %q, want a failure after the request's timeout", c.Status, c.Message)
	}
	_, after, _ := strings.Cut(c.Message, "answered the same request in ")
	took, err := time.ParseDuration(strings.Fields(after)[0])
	if err != nil || took >= 2*time.Second {
		t.Errorf("the steady answer time quoted is %q (%v), want one without the 2 s start-up", after, err)
	}
}
