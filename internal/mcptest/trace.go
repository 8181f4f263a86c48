package mcptest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The fixture is instrumented as the OpenTelemetry semantic conventions
// for MCP ask of a server (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/,
// status Development): one SERVER span per request, whose parent is the
// trace context of the request's params._meta.traceparent (SEP-414), named
// "{mcp.method.name} {target}", with mcp.method.name, jsonrpc.request.id,
// gen_ai.tool.name and gen_ai.operation.name "execute_tool" on tools/call,
// gen_ai.prompt.name on prompts/get. The spans are kept (Spans) and, with
// Options.Traces, exported as OTLP/JSON before the answer is written, so a
// client finds them at its receiver as soon as it has the answer.
//
// The three trace/* defects are switches here: each breaks one thing.

// The trace defects, each named after its check.
const (
	DefectTraceContinues  = "trace/continues-trace" // a new trace, the _meta context ignored
	DefectTraceSpanName   = "trace/span-name"       // tools/call spans named by the method alone
	DefectTraceAttributes = "trace/span-attributes" // gen_ai.tool.name left out
)

func init() {
	for _, d := range []string{DefectTraceContinues, DefectTraceSpanName, DefectTraceAttributes} {
		Defects = append(Defects, d)
		expect(d, Expect{})
	}
}

// Span is a span the fixture made for a request.
type Span struct {
	TraceID, SpanID, ParentSpanID, Name string
	Attrs                               map[string]string
}

// maxSpans bounds the spans a Server keeps (the oldest half goes).
const maxSpans = 2000

// traceState is a Server's spans.
type traceState struct {
	mu    sync.Mutex
	spans []Span
}

// Spans returns the spans the fixture made, oldest first.
func (s *Server) Spans() []Span {
	ts := &s.trace
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]Span(nil), ts.spans...)
}

var traceParentRE = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$`)

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// traceSpan makes the span of request c, keeps it, and exports it.
func (s *Server) traceSpan(c *call) {
	if c.msg == nil || c.msg.isNotification() {
		return
	}
	sp := Span{SpanID: randomHex(8), Name: c.msg.method, Attrs: map[string]string{"mcp.method.name": c.msg.method}}
	var meta map[string]any
	_ = json.Unmarshal(c.params["_meta"], &meta)
	if tp, _ := meta["traceparent"].(string); traceParentRE.MatchString(tp) && !s.has(DefectTraceContinues) {
		m := traceParentRE.FindStringSubmatch(tp)
		sp.TraceID, sp.ParentSpanID = m[1], m[2]
	} else {
		sp.TraceID = randomHex(16)
	}
	var id any
	if json.Unmarshal(c.msg.id, &id) == nil {
		if str, ok := id.(string); ok {
			sp.Attrs["jsonrpc.request.id"] = str
		} else if id != nil {
			sp.Attrs["jsonrpc.request.id"] = string(c.msg.id)
		}
	}
	var name string
	_ = json.Unmarshal(c.params["name"], &name)
	switch c.msg.method {
	case "tools/call":
		if !s.has(DefectTraceSpanName) {
			sp.Name += " " + name
		}
		if !s.has(DefectTraceAttributes) {
			sp.Attrs["gen_ai.tool.name"] = name
		}
		sp.Attrs["gen_ai.operation.name"] = "execute_tool"
	case "prompts/get":
		sp.Name += " " + name
		sp.Attrs["gen_ai.prompt.name"] = name
	}
	if v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string); v != "" {
		sp.Attrs["mcp.protocol.version"] = v
	}
	ts := &s.trace
	ts.mu.Lock()
	if len(ts.spans) >= maxSpans {
		ts.spans = append([]Span(nil), ts.spans[maxSpans/2:]...)
	}
	ts.spans = append(ts.spans, sp)
	ts.mu.Unlock()
	if s.opts.Traces != "" {
		exportSpan(s.opts.Traces, sp)
	}
}

var exportClient = &http.Client{Timeout: 5 * time.Second}

// exportSpan posts sp as an OTLP/JSON ExportTraceServiceRequest to the
// receiver at endpoint (OTEL_EXPORTER_OTLP_ENDPOINT's form); errors are
// dropped, as an exporter's are.
func exportSpan(endpoint string, sp Span) {
	var attrs []map[string]any
	for k, v := range sp.Attrs {
		attrs = append(attrs, map[string]any{"key": k, "value": map[string]any{"stringValue": v}})
	}
	now := time.Now().UnixNano()
	span := map[string]any{"traceId": sp.TraceID, "spanId": sp.SpanID, "name": sp.Name, "kind": 2,
		"startTimeUnixNano": strconv.FormatInt(now, 10), "endTimeUnixNano": strconv.FormatInt(now, 10), "attributes": attrs}
	if sp.ParentSpanID != "" {
		span["parentSpanId"] = sp.ParentSpanID
	}
	body, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{map[string]any{"key": "service.name", "value": map[string]any{"stringValue": "mcptest"}}}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "mcptest"}, "spans": []any{span}}},
	}}})
	resp, err := exportClient.Post(strings.TrimSuffix(endpoint, "/")+"/v1/traces", "application/json", bytes.NewReader(body))
	if err == nil {
		resp.Body.Close()
	}
}
