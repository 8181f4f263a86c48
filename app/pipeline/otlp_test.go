package pipeline_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// TestTraceContextJoinsExportedSpans: with an OTLP endpoint set, a tool
// call's _meta traceparent is the exported tool span's, so the server's
// spans join the run's trace (SEP-414).
func TestTraceContextJoinsExportedSpans(t *testing.T) {
	var mu sync.Mutex
	var traceparents []string
	var spans [][]byte
	mcpSrv := httptest.NewServer(http.HandlerFunc(func() http.HandlerFunc {
		fx := mcptest.NewHandler(mcptest.Options{})
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var req struct {
				Method string `json:"method"`
				Params struct {
					Name string         `json:"name"`
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(b, &req) == nil && req.Method == "tools/call" && req.Params.Name == "get_forecast" {
				tp, _ := req.Params.Meta["traceparent"].(string)
				mu.Lock()
				traceparents = append(traceparents, tp)
				mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			fx.ServeHTTP(w, r)
		}
	}()))
	defer mcpSrv.Close()
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP request %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		spans = append(spans, b)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()

	code, stdout, stderr := runCommand(t, apptest.Env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}),
		"run", "--server-url", mcpSrv.URL, "--layers", "conformance,telemetry", "--runs", "1",
		"--checks", "result-type/tools-call", "--out", filepath.Join(t.TempDir(), "o"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(traceparents) == 0 || len(spans) == 0 {
		t.Fatalf("%d tool calls seen, %d OTLP exports", len(traceparents), len(spans))
	}
	all := bytes.Join(spans, nil)
	for _, tp := range traceparents {
		parts := strings.Split(tp, "-")
		if len(parts) != 4 {
			t.Fatalf("traceparent %q", tp)
		}
		trace, _ := hex.DecodeString(parts[1])
		span, _ := hex.DecodeString(parts[2])
		if !bytes.Contains(all, trace) || !bytes.Contains(all, span) {
			t.Errorf("traceparent %s names a span that was not exported", tp)
		}
	}
}
