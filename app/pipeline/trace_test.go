package pipeline_test

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// TestOTLPReceiver: --otlp-receiver is up before the server is reached and
// is handed to the trace checks, which pass on the fixture exporting its
// spans there, also while the run exports its own spans to the same
// address (its tool-call traceparent does not replace the checks' own);
// an address already taken is exit 2 naming the flag.
func TestOTLPReceiver(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", apptest.FreePort(t))
	srv := mcptest.Serve(t, mcptest.Options{Traces: "http://" + addr})
	out := t.TempDir()
	code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr}),
		"conformance", "--server-url", srv.URL, "--otlp-receiver", addr, "--checks", "trace", "--runs", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := apptest.LoadReport(t, filepath.Join(out, "report.json"))
	n := 0
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.ID, "trace/") {
			n++
			if c.Status != "pass" {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.Message)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d trace checks in the report, want 3", n)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr = runCommand(t, apptest.Env(nil), "conformance", "--server-url", srv.URL, "--otlp-receiver", ln.Addr().String(), "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--otlp-receiver "+ln.Addr().String()) {
		t.Errorf("a taken address: exit %d %q, want 2 naming --otlp-receiver", code, stderr)
	}
}
