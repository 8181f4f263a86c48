package conformance

import (
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/otlpreceiver"
	"github.com/mcp-eval/mcp-eval/report"
)

// traceReceiver is an OTLP receiver on a free loopback port for one test.
func traceReceiver(t testing.TB) *otlpreceiver.Receiver {
	t.Helper()
	r, err := otlpreceiver.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

var traceIDs = []string{"trace/continues-trace", "trace/span-attributes", "trace/span-name"}

// TestTraceWithoutReceiver: without --otlp-receiver the trace checks are
// skipped, saying what to give.
func TestTraceWithoutReceiver(t *testing.T) {
	t.Parallel()
	// A fixture exporting nowhere, and a run without a receiver.
	res, _ := evaluateFixture(t, "http", mcptest.Options{Traces: "http://127.0.0.1:1"}, Options{Only: []string{"trace"}}, 0)
	for _, id := range traceIDs {
		if c := byID(res)[id]; c.Status != report.StatusSkip || !strings.Contains(c.Message, "--otlp-receiver") {
			t.Errorf("%s: %s %q, want a skip naming --otlp-receiver", id, c.Status, c.Message)
		}
	}
}

// TestTraceNoSpans: a receiver at which no span arrives (the server's
// exporter points elsewhere) makes each trace check "not verified", an
// error naming the receiver's endpoint, never a failure.
func TestTraceNoSpans(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			r := traceReceiver(t)
			res, _ := evaluateFixture(t, transport, mcptest.Options{Traces: "http://127.0.0.1:1"}, Options{Only: []string{"trace"}, Traces: r}, 0)
			for _, id := range traceIDs {
				c := byID(res)[id]
				if c.Status != report.StatusError || !strings.HasPrefix(c.Message, "not verified: no span reached the OTLP receiver") || !strings.Contains(c.Message, r.Endpoint()) {
					t.Errorf("%s: %s %q, want not verified naming %s", id, c.Status, c.Message, r.Endpoint())
				}
			}
		})
	}
}

// TestTraceChecksPass: the fixture's spans, exported as OTLP/JSON over
// both transports, pass every trace check, which names the requests.
func TestTraceChecksPass(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			res, _ := evaluateFixture(t, transport, mcptest.Options{}, Options{Only: []string{"trace"}}, 0)
			for _, id := range traceIDs {
				c := byID(res)[id]
				if c.Status != report.StatusPass || !strings.Contains(c.Info, "tools/call ") {
					t.Errorf("%s: %s %q %q", id, c.Status, c.Message, c.Info)
				}
			}
		})
	}
}
