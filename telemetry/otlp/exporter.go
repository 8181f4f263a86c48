package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/httpretry"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// scopeName is the instrumentation scope of every span.
const scopeName = "github.com/mcp-eval/mcp-eval/telemetry/otlp"

// RunInfo describes the run, for the root span.
type RunInfo struct {
	// Version is mcp-eval's version (service.version).
	Version string
	// Target is the server URL or command, Transport "http" or "stdio".
	Target, Transport string
	Layers            []string
	// Commit is the revision under test, when known.
	Commit string
}

// Exporter turns a run into OpenTelemetry spans and exports them over
// OTLP/HTTP. It implements mcp.Observer and llm.Observer; every method is
// safe for concurrent use.
//
// The span tree is: one "mcp-eval run" span (from Start to End); under it
// a span per model call ("chat <model>", from the llm observer) and per
// tool call ("tools/call <tool>", from the mcp observer), with their exact
// times; and a span per case and model (RecordRuns). The observer hooks
// carry no context, so model and tool calls hang from the run span, not
// from their case: StartCase and StartToolCall are the context-aware
// entry points for when golden and mcp offer hooks to call them (see the
// package comment).
type Exporter struct {
	tp     *sdktrace.TracerProvider
	x      *httpExporter
	tracer trace.Tracer
	prices *telemetry.Prices
	start  time.Time

	mu  sync.Mutex
	run trace.Span // nil once ended
	rsc trace.SpanContext
}

var (
	_ mcp.Observer = (*Exporter)(nil)
	_ llm.Observer = (*Exporter)(nil)
)

// Start begins the run span and returns the Exporter. prices prices model
// calls (nil: the built-in table). Call End to export what is left.
func Start(ctx context.Context, cfg Config, info RunInfo, prices *telemetry.Prices) (*Exporter, error) {
	if cfg.Endpoint == "" {
		return nil, fmt.Errorf("otlp: no endpoint")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	x := &httpExporter{
		url: cfg.Endpoint, header: http.Header{}, gzip: cfg.Gzip, sleep: httpretry.Sleep,
		client: &http.Client{Timeout: timeout, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second}},
	}
	for k, v := range cfg.Header {
		x.header.Set(k, v)
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", cmpOr(cfg.ServiceName, "mcp-eval"))}
	if info.Version != "" {
		attrs = append(attrs, attribute.String("service.version", info.Version))
	}
	for k, v := range cfg.ResourceAttributes {
		if k != "service.name" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	if prices == nil {
		prices = telemetry.BuiltinPrices()
	}
	e := &Exporter{prices: prices, start: time.Now(), x: x}
	e.tp = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(x),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
		// Every span of a run is wanted: an evaluation is not traffic to
		// sample.
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
	)
	e.tracer = e.tp.Tracer(scopeName, trace.WithInstrumentationVersion(info.Version))
	runAttrs := []attribute.KeyValue{
		attribute.String("mcp_eval.target", info.Target),
		attribute.String("mcp_eval.transport", info.Transport),
		attribute.StringSlice("mcp_eval.layers", info.Layers),
	}
	if info.Commit != "" {
		runAttrs = append(runAttrs, attribute.String("vcs.ref.head.revision", info.Commit))
	}
	_, e.run = e.tracer.Start(ctx, "mcp-eval run", trace.WithTimestamp(e.start), trace.WithAttributes(runAttrs...))
	e.rsc = e.run.SpanContext()
	return e, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parent is the context spans without a context of their own hang from:
// the run span.
func (e *Exporter) parent(ctx context.Context) context.Context {
	if ctx != nil && trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return trace.ContextWithSpanContext(context.Background(), e.rsc)
}

// RunContext returns a context carrying the run span, for callers that
// start their own spans under it.
func (e *Exporter) RunContext(ctx context.Context) context.Context {
	return trace.ContextWithSpanContext(ctx, e.rsc)
}

// RequestDone implements mcp.Observer: a span per tools/call (probes and
// other methods are left out, as in telemetry.Recorder), ending now and
// lasting d.
func (e *Exporter) RequestDone(method, name string, d time.Duration, bytesIn int, err error) {
	if method != "tools/call" || name == "" || strings.HasPrefix(name, telemetry.ProbePrefix) {
		return
	}
	end := time.Now()
	_, s := e.tracer.Start(e.parent(context.Background()), "tools/call "+name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(end.Add(-d)),
		trace.WithAttributes(toolAttrs(method, name)...),
	)
	s.SetAttributes(attribute.Int("mcp_eval.response.bytes", bytesIn))
	endSpan(s, err, end)
}

func toolAttrs(method, name string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("mcp.method.name", method),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", name),
	}
}

func endSpan(s trace.Span, err error, end time.Time) {
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
		s.SetAttributes(attribute.String("error.type", fmt.Sprintf("%T", err)))
	}
	s.End(trace.WithTimestamp(end))
}

// RequestStart implements llm.Observer; the span is made at RequestEnd,
// which knows the duration.
func (e *Exporter) RequestStart(provider, model string) {}

// RequestEnd implements llm.Observer: a span per HTTP request to a model
// API, with the GenAI semantic-convention attributes and its cost.
func (e *Exporter) RequestEnd(provider, model string, d time.Duration, u llm.Usage, err error) {
	end := time.Now()
	key := provider + ":" + model
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.request.model", model),
		attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens),
	}
	if cost, ok := e.prices.Cost(key, u); ok {
		attrs = append(attrs, attribute.Float64("mcp_eval.cost_usd", cost))
	}
	_, s := e.tracer.Start(e.parent(context.Background()), "chat "+model,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(end.Add(-d)), trace.WithAttributes(attrs...))
	endSpan(s, err, end)
}

// StartToolCall starts a tools/call span under the span in ctx (or the
// run span) and returns its W3C traceparent, for mcp to send in the
// request's _meta so that the server's spans join the run's trace, and the
// function that ends it. It is the hook proposed for mcp.Options; an
// Exporter wired that way should not also be the mcp Observer, or every
// tool call would have two spans.
func (e *Exporter) StartToolCall(ctx context.Context, name string) (traceparent string, end func(err error)) {
	_, s := e.tracer.Start(e.parent(ctx), "tools/call "+name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(toolAttrs("tools/call", name)...))
	return TraceParent(s.SpanContext()), func(err error) { endSpan(s, err, time.Now()) }
}

// TraceParent formats a span context as a W3C traceparent header value.
func TraceParent(sc trace.SpanContext) string {
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

// StartCase starts a span for one run of a case and returns a context
// carrying it, for the model and tool spans of the run to hang from, and
// the function that ends it with the run's transcript. It is the hook
// proposed for golden's runner; RecordRuns is what works without it.
func (e *Exporter) StartCase(ctx context.Context, caseID, model string, run int) (context.Context, func(tr *agent.Transcript)) {
	ctx, s := e.tracer.Start(e.parent(ctx), "case "+caseID, trace.WithAttributes(
		attribute.String("mcp_eval.case.id", caseID),
		attribute.String("gen_ai.request.model", model),
		attribute.Int("mcp_eval.case.run", run),
	))
	return ctx, func(tr *agent.Transcript) {
		var err error
		if tr != nil {
			s.SetAttributes(transcriptAttrs(e.prices, model, []*agent.Transcript{tr})...)
			if tr.Stop == agent.StopError {
				err = errors.New(tr.Err)
			}
		}
		endSpan(s, err, time.Now())
	}
}

func transcriptAttrs(p *telemetry.Prices, model string, trs []*agent.Transcript) []attribute.KeyValue {
	var u llm.Usage
	var calls, modelCalls int
	for _, tr := range trs {
		u.InputTokens += tr.Usage.InputTokens
		u.OutputTokens += tr.Usage.OutputTokens
		calls += len(tr.Calls)
		modelCalls += tr.ModelCalls
	}
	attrs := []attribute.KeyValue{
		attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens),
		attribute.Int("mcp_eval.tool_calls", calls),
		attribute.Int("mcp_eval.model_calls", modelCalls),
	}
	if cost, ok := p.Cost(model, u); ok {
		attrs = append(attrs, attribute.Float64("mcp_eval.cost_usd", cost))
	}
	return attrs
}

// RecordRuns adds a span per case and model under the run span, with the
// runs' usage, cost and counts. The runs carry no start times, so each
// span covers the window from the run's start to this call
// (mcp_eval.timing "window"); the model and tool spans inside that window
// are the measured ones.
func (e *Exporter) RecordRuns(runs []telemetry.Run) {
	type key struct{ id, model string }
	var order []key
	groups := map[key][]telemetry.Run{}
	for _, r := range runs {
		k := key{r.Case, r.Model}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	now := time.Now()
	for _, k := range order {
		var trs []*agent.Transcript
		cached, errored := 0, 0
		for _, r := range groups[k] {
			if r.Transcript == nil {
				errored++
				continue
			}
			trs = append(trs, r.Transcript)
			if r.Cached {
				cached++
			}
			if r.Transcript.Stop == agent.StopError {
				errored++
			}
		}
		attrs := append([]attribute.KeyValue{
			attribute.String("mcp_eval.case.id", k.id),
			attribute.String("gen_ai.request.model", k.model),
			attribute.Int("mcp_eval.case.runs", len(groups[k])),
			attribute.Int("mcp_eval.case.cached_runs", cached),
			attribute.Int("mcp_eval.case.errored_runs", errored),
			attribute.String("mcp_eval.timing", "window"),
		}, transcriptAttrs(e.prices, k.model, trs)...)
		_, s := e.tracer.Start(e.parent(context.Background()), "case "+k.id, trace.WithTimestamp(e.start), trace.WithAttributes(attrs...))
		var err error
		if errored > 0 {
			err = fmt.Errorf("%d of %d runs errored", errored, len(groups[k]))
		}
		endSpan(s, err, now)
	}
}

// End ends the run span (with an error status when err is not nil) and
// exports every span not yet sent, within ctx. Its error says that some
// spans could not be exported; the run's result does not depend on it. It
// is safe to call twice.
func (e *Exporter) End(ctx context.Context, err error) error {
	e.mu.Lock()
	run := e.run
	e.run = nil
	e.mu.Unlock()
	if run == nil {
		return nil
	}
	endSpan(run, err, time.Now())
	return errors.Join(e.tp.Shutdown(ctx), e.x.err())
}
