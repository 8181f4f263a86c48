package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clock is a fake time that the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestLogNeverSilentLongerThanFiveSeconds: in a CI log, a phase with no
// output of its own gets a status line within 5 s of the last output, and
// another writer's output puts the next one off.
func TestLogNeverSilentLongerThanFiveSeconds(t *testing.T) {
	t.Parallel()
	c := &clock{time.Unix(0, 0)}
	var buf bytes.Buffer
	p := newAt(&buf, false, c.now)
	p.Phase("conformance", 340, "checks")
	var lines []time.Time
	for range 60 {
		c.t = c.t.Add(Tick)
		n := strings.Count(buf.String(), "\n")
		p.beat()
		if strings.Count(buf.String(), "\n") > n {
			lines = append(lines, c.t)
		}
		p.Add(5)
	}
	prev := time.Unix(0, 0)
	for _, at := range lines {
		if gap := at.Sub(prev); gap > 5*time.Second {
			t.Errorf("%s of silence before the line at %s", gap, at.Sub(time.Unix(0, 0)))
		}
		prev = at
	}
	if len(lines) < 10 {
		t.Errorf("%d lines in 60 s", len(lines))
	}
	last := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if got := last[len(last)-1]; !strings.HasPrefix(got, "mcp-eval: conformance: ") || !strings.Contains(got, "/340 checks (") || !strings.Contains(got, "left") {
		t.Errorf("status line %q", got)
	}
	// Someone else speaking resets the silence.
	buf.Reset()
	p.Write([]byte("behavior: 3/10 runs\n"))
	c.t = c.t.Add(LogSilence - time.Second)
	p.beat()
	if buf.String() != "behavior: 3/10 runs\n" {
		t.Errorf("a heartbeat %s after other output: %q", LogSilence-time.Second, buf.String())
	}
}

// TestTerminalLiveLineClearedBeforeOtherOutput: on a terminal the status
// is a live line, and any other output clears it first, so a warning never
// trails it.
func TestTerminalLiveLineClearedBeforeOtherOutput(t *testing.T) {
	t.Parallel()
	c := &clock{time.Unix(0, 0)}
	var buf bytes.Buffer
	p := newAt(&buf, true, c.now)
	p.Phase("describing the server", 0, "")
	c.t = c.t.Add(2 * time.Second)
	p.beat()
	if got := buf.String(); !strings.HasPrefix(got, "\rmcp-eval: describing the server: 2s elapsed") || strings.Contains(got, "\n") {
		t.Fatalf("live line %q", got)
	}
	p.Write([]byte("mcp-eval: warning: x\n"))
	if got := buf.String(); !strings.HasSuffix(got, "\r\x1b[Kmcp-eval: warning: x\n") {
		t.Errorf("the warning does not clear the live line first: %q", got)
	}
}

func TestLeft(t *testing.T) {
	t.Parallel()
	if d, ok := Left(10*time.Second, 25, 100); !ok || d != 30*time.Second {
		t.Errorf("Left = %v %v, want 30s", d, ok)
	}
	if _, ok := Left(10*time.Second, 0, 100); ok {
		t.Error("a time left before any step is done")
	}
}
