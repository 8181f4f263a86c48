// Package otlpreceiver is the OTLP/HTTP trace receiver of --otlp-receiver:
// an HTTP server a server's team points the server's span exporter at
// (OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT), so that the trace/*
// checks can see the spans the server made for mcp-eval's requests.
//
// It speaks OTLP/HTTP for traces only
// (https://opentelemetry.io/docs/specs/otlp/#otlphttp): POST /v1/traces
// with an ExportTraceServiceRequest in the binary protobuf encoding
// (application/x-protobuf, what the Go, Java and Python SDKs send) or the
// JSON encoding (application/json, what the JavaScript SDK's HTTP exporter
// sends), optionally gzip-compressed. Both are decoded with the standard
// library (wire.go, json.go): the generated protobuf types would link a
// protobuf runtime into mcp-eval for the few fields a span check reads.
//
// Everything is bounded: a request body (compressed and not), the spans
// kept, the header and read times. What arrives is untrusted: a malformed
// request is answered 400 and kept nowhere.
package otlpreceiver

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds: what one run may leave in memory.
const (
	// MaxBody bounds one export request's body, after decompression too.
	MaxBody = 4 << 20
	// MaxSpans bounds the spans kept over the run.
	MaxSpans = 20000
	// maxAttrs bounds the attributes kept per span.
	maxAttrs = 128
)

// Span is one span a server exported, the fields the trace checks read.
type Span struct {
	// TraceID, SpanID and ParentSpanID are lower-case hex (32, 16 and 16
	// digits); ParentSpanID is "" for a root span.
	TraceID, SpanID, ParentSpanID string
	Name                          string
	// Kind is the OTLP SpanKind: 0 unspecified, 1 internal, 2 server,
	// 3 client, 4 producer, 5 consumer.
	Kind int
	// Attrs are the span's attributes, each value written as text (a
	// string as is, an int in decimal, an array or map as JSON).
	Attrs map[string]string
	// Service is the resource's service.name, "" if none.
	Service string
	// Received is when the export request that carried it arrived.
	Received time.Time
}

// KindServer is the OTLP SpanKind of a server span.
const KindServer = 2

// KindName names an OTLP SpanKind as the OpenTelemetry API spells it.
func KindName(k int) string {
	switch k {
	case 1:
		return "INTERNAL"
	case 2:
		return "SERVER"
	case 3:
		return "CLIENT"
	case 4:
		return "PRODUCER"
	case 5:
		return "CONSUMER"
	}
	return "UNSPECIFIED"
}

// Receiver keeps the spans exported to it.
type Receiver struct {
	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	spans    []Span
	dropped  int
	requests int
	rejected []string // why the first requests refused were refused
	changed  chan struct{}
}

// Listen starts the receiver on addr (HOST:PORT; port 0 picks one).
func Listen(addr string) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r := &Receiver{ln: ln, changed: make(chan struct{})}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Addr is the address the receiver is bound to.
func (r *Receiver) Addr() string { return r.ln.Addr().String() }

// Endpoint is the base URL an exporter is pointed at
// (OTEL_EXPORTER_OTLP_ENDPOINT); the traces go to Endpoint()+"/v1/traces".
func (r *Receiver) Endpoint() string { return "http://" + r.Addr() }

// ServeHTTP answers one export request.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" {
		r.reject(w, http.StatusNotFound, fmt.Sprintf("%s %s: only /v1/traces is served (OTLP/HTTP traces)", req.Method, req.URL.Path))
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		r.reject(w, http.StatusMethodNotAllowed, req.Method+" /v1/traces: want POST")
		return
	}
	ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if ct != "application/x-protobuf" && ct != "application/json" {
		r.reject(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: want application/x-protobuf or application/json", req.Header.Get("Content-Type")))
		return
	}
	body, err := readBody(req)
	if err != nil {
		r.reject(w, http.StatusBadRequest, err.Error())
		return
	}
	var spans []Span
	if ct == "application/json" {
		spans, err = decodeJSON(body)
	} else {
		spans, err = decodeProto(body)
	}
	if err != nil {
		r.reject(w, http.StatusBadRequest, fmt.Sprintf("%s body: %v", ct, err))
		return
	}
	r.keep(spans)
	// An empty ExportTraceServiceResponse: full success.
	w.Header().Set("Content-Type", ct)
	if ct == "application/json" {
		_, _ = w.Write([]byte("{}"))
	}
}

// readBody reads a request body within MaxBody, gunzipping it when the
// exporter compressed it (OTEL_EXPORTER_OTLP_COMPRESSION=gzip).
func readBody(req *http.Request) ([]byte, error) {
	if req.ContentLength > MaxBody {
		return nil, fmt.Errorf("body of %d bytes: the receiver takes at most %d", req.ContentLength, MaxBody)
	}
	raw, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %v", err)
	}
	if len(raw) > MaxBody {
		return nil, fmt.Errorf("body over %d bytes", MaxBody)
	}
	switch enc := req.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		return raw, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %v", err)
		}
		body, err := io.ReadAll(io.LimitReader(zr, MaxBody+1))
		if err != nil {
			return nil, fmt.Errorf("gzip body: %v", err)
		}
		if len(body) > MaxBody {
			return nil, fmt.Errorf("body over %d bytes once decompressed", MaxBody)
		}
		return body, nil
	default:
		return nil, fmt.Errorf("Content-Encoding %q: want gzip or none", enc)
	}
}

func (r *Receiver) reject(w http.ResponseWriter, status int, why string) {
	r.mu.Lock()
	r.requests++
	if len(r.rejected) < 5 {
		r.rejected = append(r.rejected, why)
	}
	r.mu.Unlock()
	http.Error(w, "mcp-eval OTLP receiver: "+why, status)
}

func (r *Receiver) keep(spans []Span) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	for _, s := range spans {
		if len(r.spans) >= MaxSpans {
			r.dropped++
			continue
		}
		s.Received = now
		r.spans = append(r.spans, s)
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// Spans returns the spans received so far, and how many beyond MaxSpans
// were not kept.
func (r *Receiver) Spans() ([]Span, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...), r.dropped
}

// Requests counts the export requests that reached the receiver, and says
// why the first refused ones were refused.
func (r *Receiver) Requests() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests, append([]string(nil), r.rejected...)
}

// Wait returns when done reports true of the spans received so far, or
// when ctx ends; it reports whether done did.
func (r *Receiver) Wait(ctx context.Context, done func([]Span) bool) bool {
	for {
		r.mu.Lock()
		spans, changed := append([]Span(nil), r.spans...), r.changed
		r.mu.Unlock()
		if done(spans) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}

// Close stops the receiver within a second.
func (r *Receiver) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return r.srv.Close()
	}
	return err
}
