package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// receiver is an OTLP/HTTP trace receiver: it checks each request's path,
// method and content type, decodes the protobuf with the official
// generated types, and keeps the spans.
type receiver struct {
	t     *testing.T
	mu    sync.Mutex
	reqs  int
	spans []*tracepb.Span
	res   []*commonpb.KeyValue
	scope *commonpb.InstrumentationScope
	hdr   http.Header
	fail  int // answer 503 to this many requests first
	// lax: a wrong path or content type is answered 400 without failing
	// the test (the test wants that answer).
	lax bool
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs++
	rc.hdr = r.Header.Clone()
	if rc.fail > 0 {
		rc.fail--
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		if !rc.lax {
			rc.t.Errorf("request %s %s, Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			rc.t.Error(err)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		rc.t.Error(err)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		rc.t.Errorf("the body is not an ExportTraceServiceRequest: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		rc.res = rs.Resource.GetAttributes()
		for _, ss := range rs.ScopeSpans {
			rc.scope = ss.Scope
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func newReceiver(t *testing.T) (*receiver, string) {
	rc := &receiver{t: t}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

func attrs(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		case *commonpb.AnyValue_ArrayValue:
			var ss []string
			for _, x := range v.ArrayValue.Values {
				ss = append(ss, x.GetStringValue())
			}
			m[kv.Key] = strings.Join(ss, ",")
		}
	}
	return m
}

func byName(spans []*tracepb.Span) map[string]*tracepb.Span {
	m := map[string]*tracepb.Span{}
	for _, s := range spans {
		m[s.Name] = s
	}
	return m
}

// TestExportRun drives an Exporter as the observers would during a run and
// checks what a collector receives.
func TestExportRun(t *testing.T) {
	t.Parallel()
	rc, url := newReceiver(t)
	ctx := context.Background()
	cfg := Config{Endpoint: url + "/v1/traces", Header: map[string]string{"Authorization": "Bearer secret"}, Gzip: true, ResourceAttributes: map[string]string{"deployment.environment": "ci"}}
	e, err := Start(ctx, cfg, RunInfo{Version: "1.2.3", Target: "http://127.0.0.1:1/mcp", Transport: "http", Layers: []string{"behavior", "telemetry"}, Commit: "abc123"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mo mcp.Observer = e
	var lo llm.Observer = e
	lo.RequestStart("openai", "gpt-4.1-mini")
	lo.RequestEnd("openai", "gpt-4.1-mini", 200*time.Millisecond, llm.Usage{InputTokens: 1000, OutputTokens: 100}, nil)
	lo.RequestEnd("openai", "llama3.2", 5*time.Millisecond, llm.Usage{}, errors.New("HTTP 429"))
	mo.RequestDone("tools/call", "get_forecast", 60*time.Millisecond, 321, nil)
	mo.RequestDone("tools/list", "", time.Millisecond, 10, nil)                    // not a tool call
	mo.RequestDone("tools/call", "mcp-eval-probe-x", time.Millisecond, 10, nil)    // a probe
	mo.RequestDone("tools/call", "lookup_region", time.Second, 0, errors.New("x")) // failed
	e.RecordRuns([]telemetry.Run{
		{Case: "weather", Model: "openai:gpt-4.1-mini", Transcript: &agent.Transcript{Stop: agent.StopFinal, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}, ModelCalls: 1, Calls: []agent.Call{{Name: "get_forecast"}}}},
		{Case: "weather", Model: "openai:gpt-4.1-mini", Cached: true, Transcript: &agent.Transcript{Stop: agent.StopFinal, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}}},
	})
	if err := e.End(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.End(ctx, nil); err != nil {
		t.Errorf("second End: %v", err)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.hdr.Get("Authorization") != "Bearer secret" || rc.hdr.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers: %v", rc.hdr)
	}
	if len(rc.spans) != 6 {
		for _, s := range rc.spans {
			t.Log(s.Name)
		}
		t.Fatalf("%d spans, want 6 (run, 2 chat, 2 tools/call, case)", len(rc.spans))
	}
	res := attrs(rc.res)
	if res["service.name"] != "mcp-eval" || res["service.version"] != "1.2.3" || res["deployment.environment"] != "ci" {
		t.Errorf("resource: %v", res)
	}
	if rc.scope.GetName() != scopeName || rc.scope.GetVersion() != "1.2.3" {
		t.Errorf("scope: %v", rc.scope)
	}
	spans := byName(rc.spans)
	run := spans["mcp-eval run"]
	if run == nil || len(run.ParentSpanId) != 0 || len(run.TraceId) != 16 || len(run.SpanId) != 8 {
		t.Fatalf("run span: %v", run)
	}
	if a := attrs(run.Attributes); a["mcp_eval.layers"] != "behavior,telemetry" || a["vcs.ref.head.revision"] != "abc123" || a["mcp_eval.transport"] != "http" {
		t.Errorf("run attributes: %v", a)
	}
	for _, s := range rc.spans {
		if !bytes.Equal(s.TraceId, run.TraceId) {
			t.Errorf("%s: another trace", s.Name)
		}
		if s != run && !bytes.Equal(s.ParentSpanId, run.SpanId) {
			t.Errorf("%s: parent %x, want the run span", s.Name, s.ParentSpanId)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano == 0 {
			t.Errorf("%s: times %d..%d", s.Name, s.StartTimeUnixNano, s.EndTimeUnixNano)
		}
	}
	chat := spans["chat gpt-4.1-mini"]
	if chat == nil || chat.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Fatalf("chat span: %v", chat)
	}
	if d := time.Duration(chat.EndTimeUnixNano - chat.StartTimeUnixNano); d != 200*time.Millisecond {
		t.Errorf("chat span lasts %v, want the measured 200ms", d)
	}
	a := attrs(chat.Attributes)
	if a["gen_ai.request.model"] != "gpt-4.1-mini" || a["gen_ai.provider.name"] != "openai" || a["gen_ai.usage.input_tokens"] != int64(1000) || a["mcp_eval.cost_usd"] != 0.00056 {
		t.Errorf("chat attributes: %v", a)
	}
	if bad := spans["chat llama3.2"]; bad.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || bad.GetStatus().GetMessage() != "HTTP 429" || attrs(bad.Attributes)["mcp_eval.cost_usd"] != nil {
		t.Errorf("failed unpriced chat: %v", bad)
	}
	tool := spans["tools/call get_forecast"]
	if ta := attrs(tool.GetAttributes()); ta["gen_ai.tool.name"] != "get_forecast" || ta["mcp.method.name"] != "tools/call" || ta["mcp_eval.response.bytes"] != int64(321) {
		t.Errorf("tool attributes: %v", ta)
	}
	if spans["tools/call lookup_region"].GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Error("failed tool call not marked")
	}
	cs := attrs(spans["case weather"].GetAttributes())
	if cs["mcp_eval.case.runs"] != int64(2) || cs["mcp_eval.case.cached_runs"] != int64(1) || cs["gen_ai.usage.input_tokens"] != int64(2000) || cs["mcp_eval.timing"] != "window" {
		t.Errorf("case attributes: %v", cs)
	}
}

// TestStartToolCallTraceParent: the traceparent StartToolCall returns is
// the exported tool span's own context, under the case span in ctx.
func TestStartToolCallTraceParent(t *testing.T) {
	t.Parallel()
	rc, url := newReceiver(t)
	ctx := context.Background()
	e, err := Start(ctx, Config{Endpoint: url + "/v1/traces"}, RunInfo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cctx, endCase := e.StartCase(ctx, "weather", "openai:gpt-4.1-mini", 2)
	tp, endTool := e.StartToolCall(cctx, "get_forecast")
	endTool(nil)
	endCase(&agent.Transcript{Stop: agent.StopError, Err: "model failed"})
	if err := e.End(ctx, nil); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 || parts[3] != "01" {
		t.Fatalf("traceparent %q", tp)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	spans := byName(rc.spans)
	tool, cs := spans["tools/call get_forecast"], spans["case weather"]
	if tool == nil || cs == nil {
		t.Fatalf("spans: %v", rc.spans)
	}
	if hex.EncodeToString(tool.TraceId) != parts[1] || hex.EncodeToString(tool.SpanId) != parts[2] {
		t.Errorf("traceparent %s is not the tool span %x/%x", tp, tool.TraceId, tool.SpanId)
	}
	if !bytes.Equal(tool.ParentSpanId, cs.SpanId) || !bytes.Equal(cs.ParentSpanId, spans["mcp-eval run"].SpanId) {
		t.Error("tool span not under the case span, or case not under the run")
	}
	if cs.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || attrs(cs.Attributes)["mcp_eval.case.run"] != int64(2) {
		t.Errorf("case span: %v", cs)
	}
}

// TestExportRetriesAndFailures: a 503 is retried; an endpoint that refuses
// is reported by End, not mid-run, and never with the header values.
func TestExportRetriesAndFailures(t *testing.T) {
	t.Parallel()
	rc, url := newReceiver(t)
	rc.fail = 1
	ctx := context.Background()
	e, err := Start(ctx, Config{Endpoint: url + "/v1/traces"}, RunInfo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.End(ctx, nil); err != nil {
		t.Fatalf("after one 503: %v", err)
	}
	rc.mu.Lock()
	if rc.reqs != 2 || len(rc.spans) != 1 {
		t.Errorf("%d requests, %d spans; want a retry and the run span", rc.reqs, len(rc.spans))
	}
	rc.mu.Unlock()

	e, err = Start(ctx, Config{Endpoint: url + "/wrong/path?token=s3cret", Header: map[string]string{"X-Key": "s3cret"}}, RunInfo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	rc.lax = true
	rc.mu.Unlock()
	err = e.End(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 400") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("End: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		ok      bool
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "nothing set"},
		{name: "base endpoint gets the traces path", env: map[string]string{EnvEndpoint: "http://127.0.0.1:4318/"}, ok: true,
			check: func(t *testing.T, c Config) {
				if c.Endpoint != "http://127.0.0.1:4318/v1/traces" {
					t.Errorf("endpoint %q", c.Endpoint)
				}
			}},
		{name: "traces endpoint used as is and wins", env: map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "https://b/custom"}, ok: true,
			check: func(t *testing.T, c Config) {
				if c.Endpoint != "https://b/custom" {
					t.Errorf("endpoint %q", c.Endpoint)
				}
			}},
		{name: "disabled", env: map[string]string{EnvEndpoint: "http://a", "OTEL_SDK_DISABLED": "true"}},
		{name: "exporter none", env: map[string]string{EnvEndpoint: "http://a", "OTEL_TRACES_EXPORTER": "none"}},
		{name: "grpc refused", env: map[string]string{EnvEndpoint: "http://a:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "http/protobuf"},
		{name: "bad URL", env: map[string]string{EnvEndpoint: "localhost:4318"}, wantErr: "http:// or https://"},
		{name: "headers, compression, timeout, resource", ok: true, env: map[string]string{
			EnvEndpoint: "http://a", "OTEL_EXPORTER_OTLP_HEADERS": "x-a=1,authorization=Bearer%20tok", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-b=2",
			"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500",
			"OTEL_SERVICE_NAME": "evals", "OTEL_RESOURCE_ATTRIBUTES": "team=mcp,env=ci",
		}, check: func(t *testing.T, c Config) {
			// The signal-specific headers replace the general ones.
			if len(c.Header) != 1 || c.Header["x-b"] != "2" || !c.Gzip || c.Timeout != 2500*time.Millisecond || c.ServiceName != "evals" || c.ResourceAttributes["env"] != "ci" {
				t.Errorf("config %+v", c)
			}
		}},
		{name: "general headers decoded", ok: true, env: map[string]string{EnvEndpoint: "http://a", "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20tok"},
			check: func(t *testing.T, c Config) {
				if c.Header["authorization"] != "Bearer tok" {
					t.Errorf("headers %v", c.Header)
				}
			}},
		{name: "bad header keeps the secret out", env: map[string]string{EnvEndpoint: "http://a", "OTEL_EXPORTER_OTLP_HEADERS": "tokensecret"}, wantErr: "not key=value"},
		{name: "bad compression", env: map[string]string{EnvEndpoint: "http://a", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, wantErr: "gzip or none"},
		{name: "bad timeout", env: map[string]string{EnvEndpoint: "http://a", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, wantErr: "milliseconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok, err := ConfigFromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || ok != tt.ok {
				t.Fatalf("ok %v err %v, want ok %v", ok, err, tt.ok)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// TestPostRetryHint: a retryable answer's Retry-After (seconds or an HTTP
// date) is the wait before the next try; export caps it at maxRetryWait.
// Without one, or with one that is not a wait, the wait is negative and
// export backs off on its own.
func TestPostRetryHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, retryAfter string
		status           int
		retry            bool
		wait             time.Duration
		// slack: an HTTP date has whole seconds (up to 1 s lost to the
		// format), and the table is built before the parallel subtests run.
		slack time.Duration
	}{
		{"seconds", "2", http.StatusServiceUnavailable, true, 2 * time.Second, 0},
		{"a date", time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat), http.StatusTooManyRequests, true, 30 * time.Second, 3 * time.Second},
		{"none", "", http.StatusBadGateway, true, -1, 0},
		{"garbage", "soon", http.StatusGatewayTimeout, true, -1, 0},
		{"negative", "-3", http.StatusServiceUnavailable, true, -1, 0},
		{"not retryable", "2", http.StatusBadRequest, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.status)
			}))
			t.Cleanup(srv.Close)
			x := &httpExporter{url: srv.URL, header: http.Header{}, client: srv.Client()}
			retry, wait, err := x.post(t.Context(), []byte("x"))
			if err == nil || retry != tt.retry {
				t.Fatalf("retry %v, err %v; want %v and an error", retry, err, tt.retry)
			}
			if wait < tt.wait-tt.slack || wait > tt.wait {
				t.Errorf("wait %v, want %v", wait, tt.wait)
			}
		})
	}
}
