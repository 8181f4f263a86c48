package mcptest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// tracedCall sends tools/call lookup_region under a traceparent of its
// own and a string id, and returns the span the fixture made for it (ok
// false if none names the id), with the trace and span ids sent.
func tracedCall(h *harness) (sp Span, traceID, spanID string, ok bool) {
	traceID, spanID = randomHex(16), randomHex(8)
	m := meta(nil)
	m["traceparent"] = "00-" + traceID + "-" + spanID + "-01"
	id := "trace-probe-" + randomHex(4)
	h.rpc(id, "tools/call", map[string]any{"_meta": m, "name": "lookup_region", "arguments": map[string]any{"city": "Lisbon"}}, nil)
	for _, s := range h.srv.Spans() {
		if s.Attrs["jsonrpc.request.id"] == id {
			return s, traceID, spanID, true
		}
	}
	return Span{}, traceID, spanID, false
}

// The trace defects' probes: this package's own reading of the
// conventions (span in the trace, child of the span sent; named
// "tools/call lookup_region"; gen_ai.tool.name set).
func init() {
	probes[DefectTraceContinues] = func(h *harness) bool {
		sp, tid, sid, ok := tracedCall(h)
		return !ok || sp.TraceID != tid || sp.ParentSpanID != sid
	}
	probes[DefectTraceSpanName] = func(h *harness) bool {
		sp, _, _, ok := tracedCall(h)
		return !ok || sp.Name != "tools/call lookup_region"
	}
	probes[DefectTraceAttributes] = func(h *harness) bool {
		sp, _, _, ok := tracedCall(h)
		return !ok || sp.Attrs["gen_ai.tool.name"] != "lookup_region" || sp.Attrs["gen_ai.operation.name"] != "execute_tool"
	}
}

// TestTraceExport: with Options.Traces the fixture posts each request's
// span as OTLP/JSON to /v1/traces before it answers.
func TestTraceExport(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("export %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
	}))
	defer rcv.Close()
	h := newHarness(t, Options{Traces: rcv.URL})
	sp, tid, sid, ok := tracedCall(h)
	if !ok || sp.TraceID != tid || sp.ParentSpanID != sid || sp.Name != "tools/call lookup_region" {
		t.Fatalf("span %+v (ok %v), want a child of %s in %s", sp, ok, sid, tid)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d exports before the answer, want 1", len(got))
	}
	b, _ := json.Marshal(got[0])
	for _, want := range []string{`"traceId":"` + tid + `"`, `"parentSpanId":"` + sid + `"`, `"kind":2`, `"name":"tools/call lookup_region"`} {
		if !json.Valid(b) || !strings.Contains(string(b), want) {
			t.Errorf("export %s lacks %s", b, want)
		}
	}
}
