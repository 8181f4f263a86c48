package otlpreceiver

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
	parent  = "b7ad6b7169203331"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// officialRequest is an export request encoded by the official generated
// types, as the OpenTelemetry SDKs' exporters write it.
func officialRequest(t *testing.T) []byte {
	t.Helper()
	req := &collectorpb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "weather")}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{
			TraceId: unhex(t, traceID), SpanId: unhex(t, spanID), ParentSpanId: unhex(t, parent),
			Name: "tools/call get_weather", Kind: tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: 1, EndTimeUnixNano: 2,
			Attributes: []*commonpb.KeyValue{
				str("mcp.method.name", "tools/call"), str("gen_ai.tool.name", "get_weather"),
				{Key: "rpc.jsonrpc.error_code", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -32602}}},
				{Key: "ok", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
				{Key: "list", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{
					Values: []*commonpb.AnyValue{{Value: &commonpb.AnyValue_StringValue{StringValue: "a"}}, {Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 1.5}}}}}}},
			},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
		}, {TraceId: unhex(t, traceID), SpanId: unhex(t, parent), Name: "root"}}}},
	}}}
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const jsonRequestBody = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"weather"}}]},
"scopeSpans":[{"scope":{"name":"x"},"spans":[{"traceId":"4BF92F3577B34DA6A3CE929D0E0E4736","spanId":"00f067aa0ba902b7","parentSpanId":"b7ad6b7169203331",
"name":"tools/call get_weather","kind":2,"startTimeUnixNano":"1","endTimeUnixNano":"2",
"attributes":[{"key":"mcp.method.name","value":{"stringValue":"tools/call"}},{"key":"gen_ai.tool.name","value":{"stringValue":"get_weather"}},
{"key":"rpc.jsonrpc.error_code","value":{"intValue":"-32602"}},{"key":"ok","value":{"boolValue":true}},
{"key":"list","value":{"arrayValue":{"values":[{"stringValue":"a"},{"doubleValue":1.5}]}}}]},
{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"b7ad6b7169203331","name":"root"}]}]}]}`

func post(t *testing.T, r *Receiver, path, ctype, enc string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, r.Endpoint()+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// TestDecodesBothEncodings: the same two spans, sent as the SDKs' protobuf
// (plain and gzip) and as OTLP/JSON, are read alike.
func TestDecodesBothEncodings(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, enc string
		body             []byte
	}{
		{"protobuf", "application/x-protobuf", "", officialRequest(t)},
		{"protobuf-gzip", "application/x-protobuf", "gzip", gz(officialRequest(t))},
		{"json", "application/json; charset=utf-8", "", []byte(jsonRequestBody)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if code, body := post(t, r, "/v1/traces", tc.ctype, tc.enc, tc.body); code != 200 {
				t.Fatalf("HTTP %d: %s", code, body)
			}
			spans, dropped := r.Spans()
			if len(spans) != 2 || dropped != 0 {
				t.Fatalf("%d spans (%d dropped), want 2", len(spans), dropped)
			}
			s := spans[0]
			if s.TraceID != traceID || s.SpanID != spanID || s.ParentSpanID != parent || s.Name != "tools/call get_weather" || s.Kind != KindServer || s.Service != "weather" {
				t.Errorf("span %+v", s)
			}
			want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather", "rpc.jsonrpc.error_code": "-32602", "ok": "true", "list": `["a",1.5]`}
			for k, v := range want {
				if s.Attrs[k] != v {
					t.Errorf("attribute %s = %q, want %q", k, s.Attrs[k], v)
				}
			}
			if spans[1].ParentSpanID != "" || spans[1].Name != "root" {
				t.Errorf("root span %+v", spans[1])
			}
		})
	}
}

// TestRefusesWhatIsNotAnExport: wrong path, method, type, encoding, size or
// body are refused with the status OTLP/HTTP names, and keep nothing.
func TestRefusesWhatIsNotAnExport(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	good := officialRequest(t)
	for _, tc := range []struct {
		name, path, ctype, enc string
		body                   []byte
		want                   int
	}{
		{"path", "/v1/metrics", "application/x-protobuf", "", good, 404},
		{"type", "/v1/traces", "text/plain", "", good, 415},
		{"encoding", "/v1/traces", "application/x-protobuf", "br", good, 400},
		{"truncated", "/v1/traces", "application/x-protobuf", "", good[:len(good)-3], 400},
		{"json", "/v1/traces", "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz","spanId":"00"}]}]}]}`), 400},
		{"too big", "/v1/traces", "application/x-protobuf", "", make([]byte, MaxBody+1), 400},
		{"gzip bomb", "/v1/traces", "application/x-protobuf", "gzip", gz(make([]byte, MaxBody+1)), 400},
	} {
		if code, body := post(t, r, tc.path, tc.ctype, tc.enc, tc.body); code != tc.want {
			t.Errorf("%s: HTTP %d (%s), want %d", tc.name, code, body, tc.want)
		}
	}
	resp, err := http.Get(r.Endpoint() + "/v1/traces")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: HTTP %d, want 405", resp.StatusCode)
	}
	if spans, _ := r.Spans(); len(spans) != 0 {
		t.Errorf("kept %d spans from refused requests", len(spans))
	}
	if n, why := r.Requests(); n != 8 || len(why) != 5 || !strings.Contains(why[1], "Content-Type") {
		t.Errorf("Requests() = %d, %q", n, why)
	}
}

// TestWait: Wait returns as soon as the spans it waits for arrive, and
// reports false when its context ends first.
func TestWait(t *testing.T) {
	r, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	has := func(spans []Span) bool { return len(spans) == 2 }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if r.Wait(ctx, has) {
		t.Fatal("Wait reported spans that never came")
	}
	got := make(chan bool)
	go func() { got <- r.Wait(context.Background(), has) }()
	post(t, r, "/v1/traces", "application/x-protobuf", "", officialRequest(t))
	if !<-got {
		t.Error("Wait did not see the spans")
	}
}

// FuzzDecodeProto: no input makes the decoder panic or loop.
func FuzzDecodeProto(f *testing.F) {
	f.Add([]byte{0x0a, 0x02, 0x12, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = decodeProto(b) })
}
