package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The trace checks against a real instrumented server:
// testdata/servers/go-sdk-otel, the official Go SDK v1.8.0 with the
// OpenTelemetry Go SDK and its otlptracehttp exporter (protobuf), pointed
// at mcp-eval's --otlp-receiver through OTEL_EXPORTER_OTLP_ENDPOINT. The
// correct server passes every trace check over both transports and fails
// only what the Go SDK's own wiring fails (goCorpusPins); each injected
// instrumentation defect fails its own trace check alone.

var otelDefects = map[string]string{
	"new-trace":    "trace/continues-trace",
	"span-name":    "trace/span-name",
	"no-tool-name": "trace/span-attributes",
}

// otelMessages are what each failure must say.
var otelMessages = map[string]string{
	"trace/continues-trace": "starts a new trace",
	"trace/span-name":       `tools/call lookup_city is named "tools/call"`,
	"trace/span-attributes": "gen_ai.tool.name missing",
}

func TestGoSDKOTel(t *testing.T) {
	requireDeps(t)
	bin := requireInstalled(t, "MCP_EVAL_GO_SDK_OTEL")
	for _, transport := range []string{"stdio", "http"} {
		for _, defect := range []string{"", "new-trace", "span-name", "no-tool-name"} {
			name := transport + "/" + defect
			if defect == "" {
				name = transport + "/correct"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rcv := fmt.Sprintf("127.0.0.1:%d", freePort(t))
				endpoint := "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + rcv
				argv := []string{bin}
				if defect != "" {
					argv = append(argv, "-defect", defect)
				}
				// The correct server gets the whole conformance run: the
				// instrumentation breaks nothing else.
				args := []string{"--otlp-receiver", rcv, "--runs", "1"}
				if defect != "" {
					args = append(args, "--checks", "trace")
				}
				var run evalRun
				if transport == "stdio" {
					run = runMCPEval(t, append(args, "--server-cmd", commandLine(append([]string{"env", endpoint}, argv...)...))...)
				} else {
					srv := startHTTPServer(t, httpServerSpec{Name: "go-sdk-otel", Path: "/", Command: func(port int) ([]string, []string) {
						return append(append([]string(nil), argv...), "-http", fmt.Sprintf("127.0.0.1:%d", port)), []string{endpoint}
					}})
					run = runMCPEval(t, append(args, "--server-url", srv.URL)...)
				}
				logRun(t, "go-sdk-otel "+name, run)
				rep := run.mustReport(t)
				for _, id := range []string{"trace/continues-trace", "trace/span-name", "trace/span-attributes"} {
					c, ok := rep.check(id)
					want := "pass"
					if otelDefects[defect] == id {
						want = "fail"
					}
					if !ok || c.Status != want {
						t.Errorf("%s: %s, want %s", id, c.describe(), want)
					}
					if want == "fail" && !strings.Contains(c.Message, otelMessages[id]) {
						t.Errorf("%s: message %q, want it to say %q", id, c.Message, otelMessages[id])
					}
				}
				if defect == "" {
					pins := goCorpusPins["go-sdk-handlers/stdio"]
					if transport == "http" {
						pins = goCorpusPins["go-sdk-handlers/http-stateless"]
					}
					rep.wantFailed(t, "go-sdk-otel "+name, pins)
				} else {
					rep.wantFailed(t, "go-sdk-otel "+name, []string{otelDefects[defect]})
				}
			})
		}
	}
}
