package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/otlpreceiver"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Trace context (SEP-414, Final:
// https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/414-request-meta.md)
// travels in a request's params._meta as W3C traceparent, tracestate and
// baggage; it is the only propagation a stdio server has. What a server
// does with it is written in the OpenTelemetry semantic conventions for
// MCP (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/, status
// Development, so every check here is SHOULD level): "MCP server
// instrumentation SHOULD, by default, use context extracted from MCP
// params._meta as a parent for MCP server span", named
// "{mcp.method.name} {target}", with mcp.method.name, gen_ai.tool.name on
// a tool call, gen_ai.operation.name = execute_tool on a tool call only,
// and jsonrpc.request.id.
//
// A client sees spans only where the server exports them: with
// --otlp-receiver mcp-eval runs an OTLP/HTTP receiver (internal/otlpreceiver)
// the server's team points the server's exporter at. The checks send a
// few requests of their own (tools/list, a safe tool's tools/call, a
// prompts/get), each under a trace id and span id of its own in
// _meta.traceparent and a string id, wait a bounded while for the spans
// (exporters batch), and judge the span found for each request: the one
// in its trace whose parent is the span mcp-eval sent, else the one that
// names its jsonrpc.request.id.

// traceConventions is the conventions' page, and its section on context
// propagation.
const (
	traceConventions = "https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/"
	traceDevelopment = " (the OpenTelemetry MCP conventions are in Development status)"
)

// traceGrace bounds the wait for spans after the probes were answered:
// the OpenTelemetry SDKs' batch processors export every 5 s by default
// (OTEL_BSP_SCHEDULE_DELAY).
const traceGrace = 7 * time.Second

func traceChecks() []*Check {
	return []*Check{
		{ID: "trace/continues-trace", Reqs: []string{"trace/server-span-parent"}, Level: report.LevelShould, Revision: revBoth, Once: true,
			SpecRef: traceConventions + "#context-propagation",
			Title:   "each request sent with a traceparent in _meta gets a server span in that trace whose parent is the span mcp-eval sent (--otlp-receiver)",
			Skip:    traceSkip, Run: traceContinues},
		{ID: "trace/span-name", Reqs: []string{"trace/server-span-name"}, Level: report.LevelShould, Revision: revBoth, Once: true,
			SpecRef: traceConventions + "#server",
			Title:   "the server span of each request is named {mcp.method.name} {target}: the tool or prompt name where there is one, the method alone otherwise (--otlp-receiver)",
			Skip:    traceSkip, Run: traceSpanName},
		{ID: "trace/span-attributes", Reqs: []string{"trace/server-span-attributes"}, Level: report.LevelShould, Revision: revBoth, Once: true,
			SpecRef: traceConventions + "#server",
			Title:   "the server span of each request is of kind SERVER and carries mcp.method.name, jsonrpc.request.id, gen_ai.tool.name and gen_ai.operation.name execute_tool on tools/call only, gen_ai.prompt.name on prompts/get (--otlp-receiver)",
			Skip:    traceSkip, Run: traceSpanAttributes},
	}
}

// noOTLPReceiver is the trace checks' skip reason without --otlp-receiver.
const noOTLPReceiver = "no --otlp-receiver: run one and point the server's OTLP exporter at it for mcp-eval to see the server's spans"

func traceSkip(e *Env) string {
	if e.opts.Traces == nil {
		return noOTLPReceiver
	}
	if len(e.traceProbes()) == 0 {
		return "the server lists no tool or prompt, so there is no request whose span the conventions name"
	}
	return ""
}

// traceProbe is one request the trace checks send.
type traceProbe struct {
	Method, Target string // Target: the tool or prompt name, "" for none
	Params         map[string]any
	ID             string
	TraceID        string
	SpanID         string
	// Answered: the server answered it (a result or a JSON-RPC error).
	Answered bool
	// Span is the server span found for it, nil if none; InTrace says it
	// was found by its trace id, not by its request id alone.
	Span    *otlpreceiver.Span
	InTrace bool
	// Others are spans in its trace that are not children of SpanID.
	Others []otlpreceiver.Span
}

// traceState is the probes and what came of them, done once per run.
type traceState struct {
	once   sync.Once
	probes []*traceProbe
	spans  int    // spans received in all
	waited string // how the wait ended
	failed *Outcome
}

// traceProbes are the requests the checks send: tools/list, tools/call of
// the first safe tool, prompts/get of the first prompt needing no
// argument.
func (e *Env) traceProbes() []*traceProbe {
	var ps []*traceProbe
	if e.declares("tools") {
		ps = append(ps, &traceProbe{Method: "tools/list", Params: map[string]any{}})
		if safe := e.safeTools(); len(safe) > 0 {
			t := safe[0]
			ps = append(ps, &traceProbe{Method: "tools/call", Target: t.Name, Params: map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)}})
		}
	}
	for _, raw := range e.prompts {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Required bool `json:"required"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" {
			continue
		}
		required := false
		for _, a := range p.Arguments {
			required = required || a.Required
		}
		if !required {
			ps = append(ps, &traceProbe{Method: "prompts/get", Target: p.Name, Params: map[string]any{"name": p.Name}})
			break
		}
	}
	return ps
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// traced sends the probes once and waits for their spans.
func (e *Env) traced(ctx context.Context) *traceState {
	s := &e.trace
	s.once.Do(func() {
		s.probes = e.traceProbes()
		run := randomHex(4)
		for i, p := range s.probes {
			p.ID = fmt.Sprintf("mcp-eval-trace-%s-%d", run, i+1)
			p.TraceID, p.SpanID = randomHex(16), randomHex(8)
			call := e.client.NewCall(p.Method, p.Params)
			call.ID = p.ID
			call.Meta()[mcp.MetaTraceParent] = "00-" + p.TraceID + "-" + p.SpanID + "-01"
			// The encoded body as it is: the client's own span hook
			// (OTLP export of the run) would put its traceparent in.
			body, err := (&mcp.Request{ID: call.ID, Method: call.Method, Params: call.Params}).MarshalJSON()
			if err != nil {
				o := check.Errored(err, nil)
				s.failed = &o
				return
			}
			call.Body = body
			x, _, err := e.do(ctx, e.client, call)
			p.Answered = err == nil && x != nil && x.Response != nil
		}
		answered := 0
		for _, p := range s.probes {
			if p.Answered {
				answered++
			}
		}
		if answered == 0 {
			o := check.Errored(fmt.Errorf("not verified: the server answered none of the trace checks' requests (%s)", probeNames(s.probes)), nil)
			s.failed = &o
			return
		}
		// Wait for a span of each answered request, within traceGrace
		// and the check's own deadline.
		grace := traceGrace
		if dl, ok := ctx.Deadline(); ok {
			if left := time.Until(dl) * 4 / 5; left < grace {
				grace = left
			}
		}
		wctx, cancel := context.WithTimeout(ctx, grace)
		defer cancel()
		start := time.Now()
		all := e.opts.Traces.Wait(wctx, func(spans []otlpreceiver.Span) bool {
			locate(s.probes, spans)
			for _, p := range s.probes {
				if p.Answered && p.Span == nil {
					return false
				}
			}
			return true
		})
		spans, _ := e.opts.Traces.Spans()
		locate(s.probes, spans)
		s.spans = len(spans)
		if all {
			s.waited = "every span had arrived by the answers"
			if d := time.Since(start).Round(time.Millisecond); d > 0 {
				s.waited = fmt.Sprintf("every span arrived within %s of the answers", d)
			}
		} else {
			s.waited = fmt.Sprintf("waited %s for them", time.Since(start).Round(100*time.Millisecond))
		}
	})
	return s
}

func probeNames(ps []*traceProbe) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.label())
	}
	return strings.Join(names, ", ")
}

// label names the request as its span should be named.
func (p *traceProbe) label() string {
	if p.Target != "" {
		return p.Method + " " + p.Target
	}
	return p.Method
}

// locate finds each probe's server span among spans: a child of the span
// mcp-eval sent (a SERVER one first), else a span naming the request's id
// and method.
func locate(probes []*traceProbe, spans []otlpreceiver.Span) {
	for _, p := range probes {
		p.Span, p.InTrace, p.Others = nil, false, nil
		var byID *otlpreceiver.Span
		for i := range spans {
			sp := &spans[i]
			switch {
			case sp.TraceID == p.TraceID && sp.ParentSpanID == p.SpanID:
				if p.Span == nil || (p.Span.Kind != otlpreceiver.KindServer && sp.Kind == otlpreceiver.KindServer) {
					p.Span, p.InTrace = sp, true
				}
			case sp.TraceID == p.TraceID:
				p.Others = append(p.Others, *sp)
			case byID == nil && sp.Attrs["jsonrpc.request.id"] == p.ID:
				byID = sp
			}
		}
		if p.Span == nil {
			p.Span = byID
		}
	}
}

// noSpans is the outcome when no span reached the receiver: nothing to
// judge, and most likely an exporter pointed elsewhere.
func (e *Env) noSpans(s *traceState) *Outcome {
	if s.failed != nil {
		return s.failed
	}
	if s.spans > 0 {
		return nil
	}
	r := e.opts.Traces
	msg := fmt.Sprintf("not verified: no span reached the OTLP receiver at %s (%s): point the server's OTLP exporter at it (OTEL_EXPORTER_OTLP_ENDPOINT=%s, OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or http/json) and export promptly (OTEL_BSP_SCHEDULE_DELAY=200)",
		r.Addr(), s.waited, r.Endpoint())
	if n, why := r.Requests(); n > 0 {
		msg += fmt.Sprintf("; %d export requests were refused: %s", n, strings.Join(why, "; "))
	}
	o := check.Errored(fmt.Errorf("%s", msg), nil)
	return &o
}

func traceContinues(ctx context.Context, e *Env) Outcome {
	s := e.traced(ctx)
	if o := e.noSpans(s); o != nil {
		return *o
	}
	var bad []string
	ev := map[string]any{}
	ok := 0
	for _, p := range s.probes {
		if !p.Answered {
			continue
		}
		sent := "00-" + p.TraceID + "-" + p.SpanID + "-01"
		switch {
		case p.Span != nil && p.InTrace:
			ok++
			continue
		case len(p.Others) > 0:
			parents := map[string]bool{}
			for _, o := range p.Others {
				parents[o.ParentSpanID] = true
			}
			bad = append(bad, fmt.Sprintf("%s: %d spans in the trace mcp-eval sent, none a child of the span it sent (%s); their parents: %s", p.label(), len(p.Others), p.SpanID, strings.Join(parentList(parents), ", ")))
			ev[p.label()] = map[string]any{"traceparent": sent, "spans": spanEvidence(p.Others)}
		case p.Span != nil:
			what := "in a trace of its own (" + p.Span.TraceID + ")"
			bad = append(bad, fmt.Sprintf("%s: its span %q starts a new trace %s instead of continuing trace %s", p.label(), p.Span.Name, what, p.TraceID))
			ev[p.label()] = map[string]any{"traceparent": sent, "span": spanEvidence([]otlpreceiver.Span{*p.Span})}
		default:
			bad = append(bad, fmt.Sprintf("%s: no span in trace %s, and none naming its jsonrpc.request.id %q (%s)", p.label(), p.TraceID, p.ID, s.waited))
			ev[p.label()] = map[string]any{"traceparent": sent}
		}
	}
	if len(bad) > 0 {
		ev["spansReceived"] = s.spans
		return check.Failf(ev, "the server's spans do not continue the trace context mcp-eval sent in _meta.traceparent (server instrumentation SHOULD use it as the parent of its span%s): %s", traceDevelopment, strings.Join(bad, "; "))
	}
	return check.PassInfo(fmt.Sprintf("%d requests each continued by a server span (%s; %s)", ok, probeNames(answered(s.probes)), s.waited))
}

func answered(ps []*traceProbe) []*traceProbe {
	var out []*traceProbe
	for _, p := range ps {
		if p.Answered {
			out = append(out, p)
		}
	}
	return out
}

func parentList(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k == "" {
			k = "(none: a root span)"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func spanEvidence(spans []otlpreceiver.Span) []map[string]any {
	var out []map[string]any
	for i, s := range spans {
		if i == 5 {
			break
		}
		out = append(out, map[string]any{"name": s.Name, "traceId": s.TraceID, "spanId": s.SpanID, "parentSpanId": s.ParentSpanID,
			"kind": otlpreceiver.KindName(s.Kind), "attributes": s.Attrs})
	}
	return out
}

// judged returns the probes whose span was found, or the outcome when
// none was.
func (e *Env) judged(ctx context.Context) ([]*traceProbe, *Outcome) {
	s := e.traced(ctx)
	if o := e.noSpans(s); o != nil {
		return nil, o
	}
	var ps []*traceProbe
	for _, p := range s.probes {
		if p.Answered && p.Span != nil {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		o := check.Skip(fmt.Sprintf("%d spans arrived, none in the traces mcp-eval sent nor naming its requests' jsonrpc.request.id (see trace/continues-trace)", s.spans))
		return nil, &o
	}
	return ps, nil
}

func traceSpanName(ctx context.Context, e *Env) Outcome {
	ps, o := e.judged(ctx)
	if o != nil {
		return *o
	}
	var bad []string
	ev := map[string]any{}
	for _, p := range ps {
		if p.Span.Name != p.label() {
			bad = append(bad, fmt.Sprintf("%s is named %q", p.label(), p.Span.Name))
			ev[p.label()] = spanEvidence([]otlpreceiver.Span{*p.Span})
		}
	}
	if len(bad) > 0 {
		return check.Failf(ev, "server span names SHOULD be {mcp.method.name} {target}, the target being the tool or prompt name, or the method alone without one%s: %s", traceDevelopment, strings.Join(bad, "; "))
	}
	return check.PassInfo(fmt.Sprintf("%d server spans named by the conventions (%s)", len(ps), probeNames(ps)))
}

func traceSpanAttributes(ctx context.Context, e *Env) Outcome {
	ps, o := e.judged(ctx)
	if o != nil {
		return *o
	}
	var bad, notes []string
	ev := map[string]any{}
	for _, p := range ps {
		a := p.Span.Attrs
		var wrong []string
		want := func(key, value string) {
			if got, ok := a[key]; !ok {
				wrong = append(wrong, key+" missing (want "+quote(value)+")")
			} else if got != value {
				wrong = append(wrong, fmt.Sprintf("%s = %s, want %s", key, quote(got), quote(value)))
			}
		}
		want("mcp.method.name", p.Method)
		want("jsonrpc.request.id", p.ID)
		switch p.Method {
		case "tools/call":
			want("gen_ai.tool.name", p.Target)
			want("gen_ai.operation.name", "execute_tool")
		case "prompts/get":
			want("gen_ai.prompt.name", p.Target)
		}
		if v, ok := a["gen_ai.operation.name"]; ok && p.Method != "tools/call" {
			wrong = append(wrong, fmt.Sprintf("gen_ai.operation.name = %s on %s: it SHOULD NOT be set except on a tool call", quote(v), p.Method))
		}
		if p.Span.Kind != otlpreceiver.KindServer {
			wrong = append(wrong, "kind "+otlpreceiver.KindName(p.Span.Kind)+", want SERVER")
		}
		if sid, ok := a["mcp.session.id"]; ok && e.era() == mcp.EraModern {
			notes = append(notes, fmt.Sprintf("%s carries mcp.session.id %s on a stateless 2026-07-28 request", p.label(), quote(sid)))
		}
		if len(wrong) > 0 {
			bad = append(bad, p.label()+": "+strings.Join(wrong, ", "))
			ev[p.label()] = spanEvidence([]otlpreceiver.Span{*p.Span})
		}
	}
	if len(bad) > 0 {
		return check.Failf(ev, "server spans SHOULD carry the MCP conventions' attributes and kind SERVER%s: %s", traceDevelopment, strings.Join(bad, "; "))
	}
	info := fmt.Sprintf("%d server spans carry the conventions' attributes (%s)", len(ps), probeNames(ps))
	if len(notes) > 0 {
		info += "; " + strings.Join(notes, "; ")
	}
	return check.PassInfo(info)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
