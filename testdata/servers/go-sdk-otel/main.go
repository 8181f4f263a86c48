// Command go-sdk-otel is a small MCP server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk v1.8.0) and instrumented with the
// OpenTelemetry Go SDK, exporting over OTLP/HTTP with the official
// otlptracehttp exporter (its endpoint from OTEL_EXPORTER_OTLP_ENDPOINT, as
// every OpenTelemetry SDK reads it). It is the real server of the trace
// checks' e2e test: it does what the OpenTelemetry semantic conventions
// for MCP ask (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/):
// one SERVER span per request, whose parent is the W3C trace context in
// the request's params._meta (SEP-414), named "{mcp.method.name} {target}",
// with mcp.method.name, jsonrpc.request.id, gen_ai.tool.name and
// gen_ai.operation.name "execute_tool" on tools/call, gen_ai.prompt.name on
// prompts/get.
//
//	go-sdk-otel                              # stdio
//	go-sdk-otel -http 127.0.0.1:PORT         # stateless Streamable HTTP at /
//	go-sdk-otel -defect new-trace|span-name|no-tool-name
//
// -defect injects one instrumentation mistake, each seen by one check:
// new-trace ignores the _meta context (every span a root of its own
// trace), span-name names tools/call spans by the method alone,
// no-tool-name leaves gen_ai.tool.name out.
//
// The SDK's middleware sees a request's method and params but not its
// JSON-RPC id, which jsonrpc.request.id needs: the server reads the id off
// the wire (the stdio lines, the HTTP bodies) and finds it again by the
// request's traceparent.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

type lookupIn struct {
	City string `json:"city" jsonschema:"the city to look up, for example Lisbon"`
}

type lookupOut struct {
	City    string `json:"city" jsonschema:"the city as found"`
	Country string `json:"country" jsonschema:"the country it is in"`
}

// ids maps a request's traceparent to its JSON-RPC id, as read off the
// wire (bounded: a request's entry goes when its span is made).
var ids = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// noteID records the id of each request in a JSON-RPC message.
func noteID(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Meta struct {
				TraceParent string `json:"traceparent"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || m.Params.Meta.TraceParent == "" {
		return
	}
	id := string(m.ID)
	var s string
	if json.Unmarshal(m.ID, &s) == nil {
		id = s
	}
	ids.Lock()
	if len(ids.m) < 10000 {
		ids.m[m.Params.Meta.TraceParent] = id
	}
	ids.Unlock()
}

func takeID(traceparent string) (string, bool) {
	ids.Lock()
	defer ids.Unlock()
	id, ok := ids.m[traceparent]
	delete(ids.m, traceparent)
	return id, ok
}

// metaCarrier reads W3C trace context from a request's _meta.
type metaCarrier map[string]any

func (c metaCarrier) Get(key string) string {
	s, _ := c[key].(string)
	return s
}
func (c metaCarrier) Set(key, value string) { c[key] = value }
func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// tracing is the receiving middleware that makes each request's span.
func tracing(tracer trace.Tracer, defect string) mcp.Middleware {
	prop := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			var meta map[string]any
			if p := req.GetParams(); p != nil {
				meta = p.GetMeta()
			}
			opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("mcp.method.name", method))}
			if defect == "new-trace" {
				opts = append(opts, trace.WithNewRoot())
			} else if meta != nil {
				ctx = prop.Extract(ctx, metaCarrier(meta))
			}
			name := method
			var target string
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParamsRaw:
				target = p.Name
				if defect != "no-tool-name" {
					opts = append(opts, trace.WithAttributes(attribute.String("gen_ai.tool.name", p.Name)))
				}
				opts = append(opts, trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
				if defect != "span-name" {
					name += " " + target
				}
			case *mcp.GetPromptParams:
				name += " " + p.Name
				opts = append(opts, trace.WithAttributes(attribute.String("gen_ai.prompt.name", p.Name)))
			}
			if tp, _ := meta["traceparent"].(string); tp != "" {
				if id, ok := takeID(tp); ok {
					opts = append(opts, trace.WithAttributes(attribute.String("jsonrpc.request.id", id)))
				}
			}
			ctx, span := tracer.Start(ctx, name, opts...)
			defer span.End()
			res, err := next(ctx, method, req)
			if err != nil {
				span.SetAttributes(attribute.String("error.type", "_OTHER"))
			}
			return res, err
		}
	}
}

// lines passes r through, noting each line's request id.
func lines(r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			noteID(sc.Bytes())
			if _, err := pw.Write(append(sc.Bytes(), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return pr
}

// bodies notes the request id of each HTTP body before the SDK reads it.
func bodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			noteID(b)
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	})
}

func main() {
	addr := flag.String("http", "", "serve stateless Streamable HTTP at this address instead of stdio")
	defect := flag.String("defect", "", "inject an instrumentation defect: new-trace, span-name or no-tool-name")
	flag.Parse()
	switch *defect {
	case "", "new-trace", "span-name", "no-tool-name":
	default:
		log.Fatalf("-defect %q: want new-trace, span-name or no-tool-name", *defect)
	}

	ctx := context.Background()
	// The endpoint, protocol and headers come from the OTEL_EXPORTER_OTLP_*
	// variables.
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "go-sdk-otel")))
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(100*time.Millisecond)))
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}()

	server := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-otel", Version: "1.0.0"}, nil)
	server.AddReceivingMiddleware(tracing(tp.Tracer("go-sdk-otel"), *defect))
	mcp.AddTool(server, &mcp.Tool{
		Name:        "lookup_city",
		Description: "Look up which country a city is in; answers with the city and its country.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, lookupOut, error) {
		country := "unknown"
		if strings.EqualFold(in.City, "lisbon") {
			country = "Portugal"
		}
		return nil, lookupOut{City: in.City, Country: country}, nil
	})
	server.AddPrompt(&mcp.Prompt{Name: "city_brief", Description: "A one-paragraph brief on a city."},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Write a one-paragraph brief on Lisbon."}}}}, nil
		})

	if *addr == "" {
		if err := server.Run(ctx, &mcp.IOTransport{Reader: lines(os.Stdin), Writer: os.Stdout}); err != nil {
			log.Print(err)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := &http.Server{Addr: *addr, Handler: bodies(h), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
}
