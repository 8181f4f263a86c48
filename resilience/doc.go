// Package resilience is Layer 2: how an MCP server and the agents that use
// it hold up when things go wrong.
//
// The deterministic half, which needs no model, is here in three parts:
//
//   - Probe sends the server input it must survive — an oversized request,
//     tool arguments that its own inputSchema rejects, a burst of
//     concurrent tools/list on separate connections, a response stream cut
//     after its first bytes — and after every run checks that the server
//     still answers; a stdio server that exits is reported and restarted.
//     The probes are check.Def values run by the engine in engine/check,
//     one after another. Check ids: resilience/oversized-request,
//     resilience/invalid-arguments, resilience/burst, resilience/cut-stream,
//     resilience/server-survives. A body that is not JSON and a JSON-RPC
//     batch are Layer 0's jsonrpc/malformed-json and jsonrpc/batch-rejected
//     (the old ids resilience/malformed-json and resilience/batch are
//     aliases of them: report.CheckAliases).
//   - Descriptions flags tool descriptions that address the model rather
//     than describe the tool (tool poisoning): one check per rule,
//     resilience/description-<rule> for before-using, hidden-unicode
//     (MUST), html-comment, ignore-instructions, instruction-tags,
//     other-tools and secrecy.
//   - SurfaceDiff and SurfaceCheck compare the tool surface with a
//     baseline report's per-tool hashes (a "rug pull"):
//     resilience/surface-unchanged.
//
// The spec sets no exact status for most of the bad input Probe sends, so
// the probes assert what it does imply — a 4xx and a JSON-RPC error, never a
// 5xx, a hang or a dead server — and report the exact status and code as
// information (DESIGN.md, Layer 0 note on unspecified statuses).
//
// Probes call a tool only when the server marks it readOnlyHint or the user
// lists it as safe to call.
//
// The agent-side half (fault injection and prompt injection in tool
// results, which need a model) lives in this package too.
//
// The deterministic half imports only mcp, report and internal/schema; the
// model half runs the golden file's cases (tasks) through engine/runs and
// judge. The package never imports another layer (conformance, golden,
// telemetry).
package resilience
