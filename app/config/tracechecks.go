package config

// The option of the trace checks (conformance/checks_trace.go), declared
// in the option registry (declare).

import (
	"net"
	"strconv"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

// TraceCheckFlags steer the trace group.
type TraceCheckFlags struct {
	// OTLPReceiver is the HOST:PORT of the OTLP/HTTP receiver mcp-eval
	// runs for the server's span exporter: the trace checks judge the
	// spans that arrive there.
	OTLPReceiver string
}

func (t *TraceCheckFlags) declare(s *option.Set) {
	s.Add(option.Def{Name: "otlp-receiver", Help: "run an OTLP/HTTP trace receiver at `HOST:PORT`; point the server's span exporter at it for the trace checks",
		Doc:    "for the `trace` checks: mcp-eval receives OTLP/HTTP spans (POST `/v1/traces`, protobuf or JSON) at this address while it runs; point the server's exporter at it (`OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT`) and `trace/*` judge whether the server's spans continue the trace mcp-eval sent in `_meta.traceparent` and follow the OpenTelemetry MCP semantic conventions",
		Layers: []string{option.LayerConformance},
		Input:  &option.Input{Doc: "HOST:PORT at which mcp-eval receives the server's OTLP/HTTP spans for the trace checks (an address the server can reach, 0.0.0.0:4318 in the action's container); the server's exporter must point there."}},
		option.String(&t.OTLPReceiver, ""))
}

// validateTraceChecks checks the receiver's address before any network
// call.
func (c *Config) validateTraceChecks() error {
	l := c.TraceChecks.OTLPReceiver
	if l == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(l)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return exitcode.Usagef("%s: want HOST:PORT (127.0.0.1:4318), got %q", c.Source("otlp-receiver", 0), l)
	}
	if l == c.AuthChecks.PassthroughListener {
		return exitcode.Usagef("%s: %s is the --passthrough-listener's address too; give each its own", c.Source("otlp-receiver", 0), l)
	}
	return nil
}
