// Package telemetry is Layer 3: latency per tool call and per model call,
// tokens in and out, cost from a dated price table, and the token footprint
// of the tool list. It fills report.Telemetry and the per-case token and
// cost fields of report.Case.
//
// It measures through the observer hooks of mcp and llm (Recorder
// implements both), so those packages never import it, and it reads the
// transcripts of agent runs for what the hooks cannot see (which case a
// call belonged to, and runs the result cache answered). It imports mcp,
// llm, agent and report, never another layer and never OpenTelemetry: the
// OTLP exporter is the separate package telemetry/otlp, so that a binary
// that does not export traces does not carry it.
//
// # How the figures are computed
//
// Latency percentiles use the nearest-rank method: for n calls sorted
// ascending x1 ≤ … ≤ xn, the p-th percentile is x_k with k = ⌈p·n/100⌉
// (at least 1). It is always a latency that was really observed; with
// fewer than 100 calls p99 is the slowest call, with fewer than 20 p95 is.
//
// A tool call's latency is one tools/call exchange as the mcp transport
// times it: from writing the request to reading the complete answer (for
// SSE, the response event), so it includes the network and the server's
// work and excludes building the request. A call answered input_required
// and sent again counts each exchange. Conformance and resilience
// probes (tool names starting with ProbePrefix) and other methods are not
// counted. A model call's latency is one HTTP request to the model API as
// llm times it; retries are separate calls, and time spent waiting for a
// concurrency slot or between retries is not included. Calls that got no
// usable answer are counted in Errors and left out of the percentiles.
//
// The report keeps up to SampleCap latencies per key (SamplesMs): all of
// them when there were no more, otherwise SampleCap order statistics at
// evenly spaced ranks, each standing for Count/SampleCap calls. Merge pools
// the samples of several shards, weighting each by the calls it stands
// for, and recomputes the percentiles; when no shard had to thin its
// samples the result equals a recomputation over all calls.
//
// # Live calls and the result cache
//
// A Recorder attached as the observer of mcp and llm measures what this
// run really did: it is authoritative for latency. A run answered by the
// result cache made no call, so the hooks never saw it; its transcript
// still carries the latencies and usage of the run that filled the cache.
// AddRuns therefore takes, per tool and per model key, the latencies of
// cached runs only when no live call of that key was made (Source
// "cache", with a note), and never mixes them into live percentiles. Tokens
// and cost are different: they describe what the suite costs, so the usage
// of cached runs is always added (CachedCount says how many calls that
// was), which keeps the cost of a cached re-run equal to the run that
// filled the cache and the cost gate comparing like with like. Per-case
// tokens and cost always come from the transcripts, the only place that
// knows which case a call belonged to. FromTranscripts builds a Recorder
// from transcripts alone, for callers that attached no observer: then the
// transcripts of fresh runs count as live measurements (their latencies
// are the agent's, which include retry waits), and cached ones as above.
//
// # Cost
//
// Cost = input tokens × input price + output tokens × output price, prices
// in US dollars per million tokens from the built-in table (BuiltinDate;
// prices change) overridden or extended by a price file (LoadPrices). A
// model without a price has an unknown cost, said in the report, never 0.
// Input tokens include cached prompt tokens at the full input price
// (llm.Usage does not separate them), so costs are an upper bound for
// providers that discount prompt caching.
package telemetry
