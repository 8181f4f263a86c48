// Package otlp exports an mcp-eval run as OpenTelemetry traces over
// OTLP/HTTP (protobuf), when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (ConfigFromEnv). gRPC is not
// spoken, by design: a collector listens for OTLP/HTTP on port 4318.
//
// It is apart from package telemetry so that OpenTelemetry is linked only
// into a binary that imports this package. It uses the OpenTelemetry API
// and SDK (go.opentelemetry.io/otel, …/sdk) for span ids, context and
// batching, and writes the OTLP protobuf itself (wire.go): the official
// otlptracehttp exporter's module links gRPC and grpc-gateway even for
// HTTP, which measured 13.9 MB against 4.5 MB for a stripped static binary
// with the SDK alone (3.5 MB without OpenTelemetry).
//
// # Spans
//
// "mcp-eval run" is the root. Model calls ("chat <model>") and tool calls
// ("tools/call <tool>") come from the llm and mcp observer hooks with
// their measured times and the GenAI semantic-convention attributes
// (gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model,
// gen_ai.usage.input_tokens and output_tokens, gen_ai.tool.name,
// mcp.method.name), plus mcp_eval.cost_usd. Cases come from RecordRuns.
//
// # Trace context in MCP requests
//
// The mcp client sends a W3C traceparent in every request's _meta, but
// today a random one (mcp.newTraceParent), and its observer hook carries
// neither a context nor the request, so the server's spans cannot join
// the run's trace and tool spans hang from the run rather than their
// case. The proposed change, outside this package: an optional,
// context-aware hook in mcp.Options,
//
//	StartRequest func(ctx context.Context, method, name string) (traceparent string, end func(err error))
//
// which Client.Do calls before sending (it has the context; NewCall does
// not) to put the returned traceparent in _meta in place of a random one,
// and calls end when the exchange is done; NewCall would keep a
// traceparent a caller set instead of overwriting it. StartToolCall here
// has that shape. golden's runner would take the same kind of hook per
// job (StartCase here) so that the context reaching agent.Run, and through
// it mcp and llm, carries the case span. llm would get the same optional
// hook beside WithObserver.
package otlp
