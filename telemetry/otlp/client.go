package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcp-eval/mcp-eval/internal/httpretry"
)

// maxAttempts bounds the tries of one export: the first and two retries,
// for the statuses OTLP/HTTP names retryable (429, 502, 503, 504).
const maxAttempts = 3

// maxRetryWait caps a Retry-After the collector asks for: traces are not
// worth holding up the end of a run.
const maxRetryWait = 5 * time.Second

// httpExporter is an sdktrace.SpanExporter that POSTs OTLP/HTTP protobuf.
type httpExporter struct {
	url     string
	header  http.Header
	gzip    bool
	client  *http.Client
	sleep   func(ctx context.Context, d time.Duration) error
	mu      sync.Mutex
	stopped bool
	// failed counts exports that failed, and first keeps the first error:
	// reported once by Exporter.End rather than through OpenTelemetry's
	// global error handler, which would print to stderr mid-run.
	failed int
	first  error
}

var _ sdktrace.SpanExporter = (*httpExporter)(nil)

// ExportSpans implements sdktrace.SpanExporter. It never returns an error:
// see httpExporter.failed.
func (x *httpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := x.export(ctx, spans); err != nil {
		x.mu.Lock()
		x.failed++
		if x.first == nil {
			x.first = err
		}
		x.mu.Unlock()
	}
	return nil
}

// err reports the failed exports, if any.
func (x *httpExporter) err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.failed == 0 {
		return nil
	}
	return fmt.Errorf("%d trace export(s) failed; the first: %w", x.failed, x.first)
}

func (x *httpExporter) export(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	x.mu.Lock()
	stopped := x.stopped
	x.mu.Unlock()
	if stopped || len(spans) == 0 {
		return nil
	}
	body := encodeRequest(spans)
	if x.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		if err := zw.Close(); err != nil {
			return err
		}
		body = buf.Bytes()
	}
	var last error
	for attempt := range maxAttempts {
		retry, wait, err := x.post(ctx, body)
		if err == nil {
			return nil
		}
		last = err
		if !retry || attempt == maxAttempts-1 {
			break
		}
		if wait < 0 {
			wait = time.Duration(500<<attempt) * time.Millisecond
		}
		if err := x.sleep(ctx, min(wait, maxRetryWait)); err != nil {
			return errors.Join(last, err)
		}
	}
	return last
}

// post sends one request. retry says whether another attempt may succeed,
// after wait if the server said so (Retry-After), else wait is negative.
func (x *httpExporter) post(ctx context.Context, body []byte) (retry bool, wait time.Duration, err error) {
	wait = -1
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, fmt.Errorf("otlp: %w", err)
	}
	for k, vs := range x.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if x.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	res, err := x.client.Do(req)
	if err != nil {
		// The URL may carry credentials in its query; the error names only
		// what failed.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		return ctx.Err() == nil, wait, fmt.Errorf("otlp: export to %s: %w", redact(x.url), err)
	}
	defer res.Body.Close()
	// The answer (an ExportTraceServiceResponse, possibly reporting a
	// partial success) is not needed; read a bounded part so the
	// connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return false, 0, nil
	}
	err = fmt.Errorf("otlp: export to %s: HTTP %d", redact(x.url), res.StatusCode)
	switch res.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if d, ok := httpretry.RetryAfter(res.Header, time.Now()); ok {
			wait = d
		}
		return true, wait, err
	}
	return false, 0, err
}

// Shutdown implements sdktrace.SpanExporter.
func (x *httpExporter) Shutdown(context.Context) error {
	x.mu.Lock()
	x.stopped = true
	x.mu.Unlock()
	x.client.CloseIdleConnections()
	return nil
}
